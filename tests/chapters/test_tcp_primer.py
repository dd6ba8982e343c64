import functools
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.l2 import Ether
from scapy.utils import PcapNgReader

from simcore.chapters import tcp_primer as ch
from simcore.chapters import tcp_primer_numbers as nums
from simcore.packet import VARIANTS


def test_panel_builds_and_rtt_slider_changes_the_plots():
    panel = ch.make_panel(ch.PrimerSetting(duration_s=3.0))
    assert panel.last_error is None and panel.n_runs == 1
    assert list(panel.controls)[0] == "rtt_ms"  # the browser test drags the first slider
    cw, ts, qf = panel.figures
    before_cw, before_ts = np.array(cw.data[0].y), np.array(ts.data[0].x)
    panel.set(rtt_ms=300.0)
    assert panel.last_error is None and panel.n_runs == 2
    assert not np.array_equal(before_cw, np.array(cw.data[0].y))
    assert not np.array_equal(before_ts, np.array(ts.data[0].x))
    assert cw.data[0].name == "cwnd flow 1" and ts.data[1].name == "retransmitted"
    panel.set(flows=3, loss_pct=1.0)
    assert [t.visible for t in cw.data[:4]] == [True, True, True, False]
    assert "Mathis" in panel.status.value and panel.last_error is None


def test_time_sequence_window_shows_only_its_span_without_rerunning():
    panel = ch.make_panel(ch.PrimerSetting(duration_s=6.0))
    cw, ts, _ = panel.figures
    cwnd_before = np.array(cw.data[0].y)
    panel.set(ts_window_s=(2.0, 3.0))
    x = np.array(ts.data[0].x)
    assert x.size > 0 and x.min() >= 2.0 and x.max() <= 3.0
    assert np.array_equal(cwnd_before, np.array(cw.data[0].y))  # same run, only the view moved
    assert tuple(ts.layout.xaxis.range) == (2.0, 3.0)
    panel.set(ts_window_s=(20.0, 25.0))  # after the end of a 6 s run: the span slides back inside it
    assert tuple(ts.layout.xaxis.range) == (1.0, 6.0) and panel.last_error is None


def test_clip_window():
    assert ch.clip_window((1.0, 50.0), 10.0) == (1.0, 10.0)
    assert ch.clip_window((12.0, 14.0), 10.0) == (8.0, 10.0)
    with pytest.raises(ValueError, match="window_s"):
        ch.clip_window((3.0, 1.0), 10.0)


def test_plot_data_is_capped_and_ends_where_the_run_ends():
    s = ch.PrimerSetting(rtt_ms=20.0, rate_mbps=40.0, buffer_packets=200, flows=2, duration_s=6.0)
    res = ch.run(s)
    assert res.queue_trace.time_s.size > 4 * ch.MAX_POINTS  # downsampling is really exercised
    d = ch.plot_data(res, s)
    for x, y in [*d["cwnd"], d["queue"], d["sent"], d["acked"], d["ssthresh"]]:
        assert len(x) == len(y) <= ch.MAX_POINTS
        assert np.all(np.diff(x) >= 0)
    q = res.queue_trace.packets[res.queue_trace.link == 0]
    assert d["queue"][1].max() == q.max() and d["queue"][1].min() == q.min()
    assert d["queue"][1].max() <= s.buffer_packets


@settings(max_examples=30, deadline=None)
@given(y=st.lists(st.floats(-1e6, 1e6) | st.just(math.nan), min_size=1, max_size=3000),
       max_points=st.integers(4, 400))
def test_downsampling_keeps_ends_and_extremes(y, max_points):
    y = np.array(y)
    i = ch.downsample_indices(y, max_points)
    assert i.size <= max(max_points, y.size if y.size <= max_points else 0)
    assert i[0] == 0 and i[-1] == y.size - 1 and np.all(np.diff(i) > 0)
    finite = ~np.isnan(y)
    if finite.any():
        assert np.nanmax(y[i]) == y[finite].max() and np.nanmin(y[i]) == y[finite].min()


@functools.cache
def _panel():
    return ch.make_panel(ch.PrimerSetting(duration_s=2.0))


def _range(name):
    c = _panel().controls[name]
    return c.min, c.max


@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_every_slider_position_is_safe(data):
    panel = _panel()
    values = {name: data.draw(st.floats(*_range(name))) for name in ("rtt_ms", "rate_mbps", "loss_pct")}
    values |= {name: data.draw(st.integers(*_range(name))) for name in ("buffer_packets", "flows", "seed")}
    labelled = ("rwnd_bytes", "transport")  # dropdowns of (label, value)
    values |= {name: data.draw(st.sampled_from([v for _, v in panel.controls[name].options]
                                               if name in labelled else panel.controls[name].options))
               for name in ("variant", "rwnd_bytes", "transport")}
    values["duration_s"] = data.draw(st.floats(_range("duration_s")[0], 3.0))  # short runs keep the test fast
    values["ts_window_s"] = tuple(sorted(data.draw(st.tuples(st.floats(*_range("ts_window_s")),
                                                              st.floats(*_range("ts_window_s"))))))
    assert set(values) == set(panel.controls)
    status = panel.update(values)  # exactly what a slider move runs
    assert "goodput" in status
    s = ch.PrimerSetting(**{k: v for k, v in values.items() if k != "ts_window_s"})
    good_mbps = float(status.split("goodput <b>")[1].split(" Mbit/s")[0])
    assert 0 <= good_mbps <= s.payload_rate_bps / 1e6 + 0.01
    cw = panel.figures[0]
    assert [t.visible for t in cw.data[:4]] == [c < s.flows for c in range(4)]
    assert all(len(t.x) <= ch.MAX_POINTS for f in panel.figures for t in f.data if t.x is not None)


def test_sctp_transport_runs_associations_one_round_trip_later():
    # RTT 100 ms: TCP's first data leaves when the SYN-ACK is back (1 RTT), SCTP's when the COOKIE-ACK is
    # (INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK: 2 RTT); transmission times at 5 Mbit/s add under 1 ms
    first = {}
    for transport in ("tcp", "sctp"):
        s = ch.PrimerSetting(transport=transport, duration_s=3.0)
        r = ch.run(s)
        assert {c.transport for c in r.scenario.connections} == {transport}
        d = ch.plot_data(r, s)
        pt = r.packet_trace
        data = (pt.conn == 0) & (pt.kind == 0) & (pt.direction == 0) & (pt.seqlen > 0) & ((pt.flags & 1) == 0)
        first[transport] = pt.time_s[data][0]  # the first data (a SYN takes one sequence number too)
        # the acknowledged line (a SACK's cumulative TSN drawn in bytes) never passes what was sent
        assert d["acked"][1].max() <= d["sent"][1].max() + 1 + 1e-9
    assert first["tcp"] == pytest.approx(0.1, abs=1e-3) and first["sctp"] == pytest.approx(0.2, abs=1e-3)
    panel = ch.make_panel(ch.PrimerSetting(duration_s=3.0))
    panel.set(transport="sctp")
    assert panel.last_error is None and "goodput" in panel.status.value


def test_setting_validation():
    with pytest.raises(ValueError, match="flows=5"):
        ch.PrimerSetting(flows=5)
    with pytest.raises(ValueError, match="variant='vegas'"):
        ch.PrimerSetting(variant="vegas")
    with pytest.raises(ValueError, match="transport='udp'"):
        ch.PrimerSetting(transport="udp")


def test_window_limited_throughput_is_w_over_rtt():
    r = nums.window_limited(duration_s=60.0)
    assert r["closed_form_kbps"] == pytest.approx(32767 * 8 / 0.64 / 1e3)
    # slow start costs ~log2(22) RTTs of 60 s: the goodput sits a few % under the whole-segment bound
    assert 0.93 * r["whole_segments_kbps"] <= r["goodput_kbps"] <= r["whole_segments_kbps"] * 1.001


def test_goodput_under_random_loss_is_near_mathis():
    r = nums.mathis(seeds=range(1, 3), duration_s=60.0, variant="sack")
    assert 0.7 <= r["goodput_mbps"] / r["mathis_mbps"] <= 1.2


def test_sack_and_newreno_recover_several_losses_without_timeout_and_reno_does_not():
    rows = {(r["drops"], r["variant"]): r for r in nums.variants_multiple_drops((1, 3))}
    for v in VARIANTS:
        assert rows[(1, v)]["timeouts"] == 0 and rows[(1, v)]["fast_retransmits"] == 1
    assert rows[(3, "newreno")]["timeouts"] == 0 and rows[(3, "sack")]["timeouts"] == 0
    assert rows[(3, "reno")]["timeouts"] >= 1
    good = {v: rows[(3, v)]["goodput_mbps"] for v in VARIANTS}
    assert good["reno"] < good["newreno"] <= good["sack"]


def test_four_flows_share_fairly_and_fill_the_link():
    r = nums.fairness(duration_s=30.0)
    assert r["jain"] > 0.95 and r["utilization"] > 0.95
    assert sum(r["goodput_mbps"]) <= 10.0 * 1460 / 1500


def test_sawtooth_law_and_buffer_sizing():
    assert nums.sawtooth_utilization(0.0) == pytest.approx(0.75)
    assert nums.sawtooth_utilization(1.0) == 1.0
    rows = nums.buffer_sizing((0.1, 1.0), duration_s=60.0)
    small, bdp = rows
    assert small["utilization"] < bdp["utilization"]
    assert small["utilization"] == pytest.approx(small["sawtooth_law"], abs=0.08)
    assert bdp["utilization"] > 0.97


def test_figures_returns_the_three_plots():
    figs = ch.figures()
    assert set(figs) == {"cwnd", "time_sequence", "queue"}
    assert len(figs["cwnd"].data[0].x) > 10 and len(figs["queue"].data[0].x) > 10
    assert all(len(t.x if t.x is not None else ()) <= ch.MAX_POINTS for f in figs.values() for t in f.data)


def test_warm_runs():
    ch.warm()


def test_capture_button_saves_the_panel_run_where_the_student_chose(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    panel = ch.make_panel(ch.PrimerSetting(duration_s=2.0, loss_pct=1.0))
    cap = panel.capture
    assert cap.widget in panel.widget.children  # one row added under the panel
    res = ch.run(ch.PrimerSetting(duration_s=2.0, loss_pct=1.0))
    cap.point.value = (0, "sender")  # the bottleneck, before its buffer
    path = cap.save()
    assert cap.last_error is None and path.parent.name == "captures" and path.suffix == ".pcapng"
    assert path.name.startswith("tcp_primer_sack_1flows_rtt100ms_5Mbps") and path.as_posix() in cap.message
    assert len(cap.output.outputs) == 1  # the link, rendered by the notebook
    frames = list(PcapNgReader(str(path)))
    left = sum(1 for f in frames if f[Ether].src == "02:00:00:00:00:01")  # router 0 onto the bottleneck
    assert left == res.link_packets[0] + res.link_drops_queue[0]  # every packet offered to it, drops too
    cap.point.value = (0, "receiver")
    after = [f for f in PcapNgReader(str(cap.save())) if f[Ether].src == "02:00:00:00:00:01"]
    assert len(after) == res.link_packets[0] - res.link_drops_loss[0]  # random losses never arrive


def test_capture_button_shows_failures_instead_of_raising(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "captures").write_text("a file where the folder should be")
    panel = ch.make_panel(ch.PrimerSetting(duration_s=1.0))
    assert panel.capture.save() is None and "Cannot save" in panel.capture.message
    assert panel.capture.last_error is not None
