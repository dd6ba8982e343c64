"""Chapter 0c (reliable data transfer, the timeout, AIMD): panels run in every slider position without an error,
their predictions hold the plots back and their answers are computed independently here, the diagram shows what
happened, and bad settings are refused with their range."""

import math

import numpy as np
import pytest

from simcore.chapters import reliable_transfer as part1
from simcore.chapters import reliable_transfer_aimd as part3
from simcore.chapters import reliable_transfer_rtt as part2


def _extremes(panel):
    """Each control set to its minimum, maximum and back (dropdowns: every option), one at a time."""
    for name, control in panel.controls.items():
        start = control.value
        values = list(control.options) if hasattr(control, "options") else [control.min, control.max]
        for v in values:
            panel.set(**{name: v[1] if isinstance(v, tuple) else v})
            assert panel.last_error is None, (name, v, panel.last_error)
        panel.set(**{name: start})


def test_part1_panel_runs_in_every_extreme_position():
    panel = part1.make_panel()
    assert panel.last_error is None and panel.n_runs == 1
    _extremes(panel)
    # the worst corner: a 1 ms timeout on a 1 Gbit/s, 400 ms path floods the link; the runs are cut short
    panel.set(protocol="sr", window=32, rate_mbps=1000.0, rtt_ms=400.0, timeout_ms=1.0, loss_data_pct=50.0)
    assert panel.last_error is None and "cut after" in panel.message


def test_part1_diagram_shows_what_the_run_did():
    s = part1.ArqSetting()  # GBN, N = 4, 10 % data loss, L/R = 8 ms, RTT 40 ms, timeout 60 ms
    res = part1.run(s)
    d = part1.diagram_rows(res)
    shown = res.data_start_s <= d["end_ms"] / 1e3
    assert len(d["data"]) == int(shown.sum())
    assert sum(r["retx"] for r in d["data"]) == int(res.data_retx[shown].sum())
    assert [r["label"] for r in d["data"]][:4] == ["pkt0", "pkt1", "pkt2", "pkt3"]
    # every packet 0-11 was acknowledged by the end of the diagram
    ok = ~np.isnan(res.ack_arrive_s) & (res.ack_arrive_s <= d["end_ms"] / 1e3 + 1e-12)
    assert res.ack_no[ok].max() >= part1.DIAGRAM_PACKETS - 1
    # stop-and-wait labels with the alternating bit
    saw = part1.diagram_rows(part1.run(part1.ArqSetting(protocol="saw")))
    assert {r["label"].split(" ")[0] for r in saw["data"]} <= {"pkt0", "pkt1"}


def test_part1_sweeps_lie_near_their_closed_forms_where_they_apply():
    s = part1.ArqSetting(loss_data_pct=10.0, window=4)
    w = part1.window_sweep(s)
    # L/R = 8 ms, RTT 40 ms: no-loss bound min(1, N/6) by hand
    assert np.allclose(w["lossless"], np.minimum(1.0, np.arange(1, 33) / 6.0))
    # SR with N = 32 (never blocked: 32 * 8 = 256 ms >= 60 + 16 + 40) delivers about 1 - p
    assert w["sr"][-1] == pytest.approx(0.9, abs=0.03)
    # stop-and-wait: 8 / (8 + 40 + 60 * 0.1 / 0.9) by hand
    assert w["saw_formula"] == pytest.approx(8 / (48 + 60 * 0.1 / 0.9))
    assert w["gbn"][0] == pytest.approx(w["saw_formula"], abs=0.03)


def test_part1_predictions_by_hand_and_the_gate():
    q1, q2 = part1.predictions()
    panel = part1.make_panel(gate=[q1, q2])
    assert panel.veiled
    assert q1.commit(0.0003).correct and q1.outcome.answer == pytest.approx(0.008 / 30.008)
    assert panel.veiled  # one prediction left
    # GBN at N = 16, p = 0.1: D1 = ceil((40 + 60) / 8) * 8 = 104 ms, D2 = ceil(60 / 8) * 8 = 64 ms, so
    # 8 / (8 + 10.4 + 0.01 * 64 / 0.9) = 0.4185 against SR's 0.9: less than half
    gbn = 8 / (8 + 0.1 * 104 + 0.01 * 64 / 0.9)
    assert gbn < 0.45
    o = q2.commit("less than half of SR's")
    assert o.correct and not panel.veiled
    assert panel.values()["window"] == 16 and panel.values()["protocol"] == "gbn"  # the question's setting shown
    assert f"{gbn:.2f}" in q2.explanation_text()


def test_part2_panel_runs_in_every_extreme_position():
    panel = part2.make_panel()
    assert panel.last_error is None
    _extremes(panel)


def test_part2_predictions_by_hand():
    q1, q2 = part2.predictions()
    assert q1.commit(17).correct and q1.outcome.answer == pytest.approx(math.log(0.1) / math.log(7 / 8))
    # the second answer is read from the run: count the spurious retransmissions at K = 4 and K = 1 again here
    s = part2.RttSetting()
    four, one = part2.replay(s, 4.0).spurious, part2.replay(s, 1.0).spurious
    assert one >= 5 * four > 0  # this run: 13 and 190
    assert q2.commit("five times as many or more").correct


def test_part2_estimator_lines_follow_the_samples_taken():
    s = part2.RttSetting()
    r = part2.replay(s)
    assert r.state_at_s.size == 1 + int(r.sample_used.sum())  # one state per sample taken, after the start
    assert np.all(np.diff(r.state_at_s) >= 0)
    run = part2.probes(s.probe_setting())
    assert r.sample_s.size + run.lost >= run.send_s.size - 10  # almost every probe gives a sample or was lost


def test_part3_panel_and_predictions():
    panel = part3.make_panel()
    assert panel.last_error is None
    for name, value in (("rtt2_ms", 10.0), ("rtt2_ms", 200.0), ("start2_s", 10.0), ("duration_s", 15.0),
                        ("buffer_packets", 5), ("rate_mbps", 20.0), ("loss_pct", 2.0)):
        panel.set(**{name: value})
        assert panel.last_error is None, (name, value, panel.last_error)
    q1, q2 = part3.predictions()
    assert q1.commit(4).correct and q1.outcome.answer == 4  # 2**-4 = 0.0625 < 0.1 < 2**-3
    s = part3.FairnessSetting(rtt2_ms=80.0, loss_pct=1.0, duration_s=20.0)  # the question's setting
    m1, m2 = part3.run(s).mean_rates_bps(s.start2_s + 0.5 * (s.duration_s - s.start2_s))
    assert m1 > 1.1 * m2  # the shorter RTT gets more
    assert q2.commit(1).correct


@pytest.mark.parametrize("factory, bad, match", [
    (part1.ArqSetting, dict(window=33), r"window=33 is out of range.*\[1, 32\]"),
    (part1.ArqSetting, dict(protocol="tcp"), "protocol='tcp'"),
    (part1.ArqSetting, dict(timeout_ms=0.5), r"timeout_ms=0.5 is out of range"),
    (part2.RttSetting, dict(k=9.0), r"k=9.0 is out of range.*\[0, 8\]"),
    (part2.RttSetting, dict(rule="never"), "rule='never'"),
    (part3.FairnessSetting, dict(start2_s=12.0, duration_s=15.0), r"duration_s=15.0 is out of range"),
    (part3.FairnessSetting, dict(rtt2_ms=5.0), r"rtt2_ms=5.0 is out of range.*\[10, 200\]"),
])
def test_bad_settings_are_refused_with_their_range(factory, bad, match):
    with pytest.raises(ValueError, match=match):
        factory(**bad)


def test_numpy_scalars_are_settings_too():
    assert part1.ArqSetting(window=np.int64(8), rtt_ms=np.float64(20.0)).window == 8
    assert part2.RttSetting(buffer_packets=np.int32(30), alpha=np.float32(0.25)).buffer_packets == 30
    assert part3.FairnessSetting(rtt2_ms=np.float64(60.0), seed=np.int64(2)).seed == 2
