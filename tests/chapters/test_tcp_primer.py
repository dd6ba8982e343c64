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
    labelled = ("rwnd_bytes", "transport", "congestion_control", "queue")  # dropdowns of (label, value)
    values |= {name: data.draw(st.sampled_from([v for _, v in panel.controls[name].options]
                                               if name in labelled else panel.controls[name].options))
               for name in ("variant", "rwnd_bytes", "transport", "congestion_control", "queue")}
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


# ---------------------------------------------------------------- predict, then check
from simcore.chapters import tcp_primer_predictions as tp  # noqa: E402


def _hue_family(color: str) -> str:
    """A colour's family: achromatic (black, grey) or one of warm, green, blue, purple (by hue angle)."""
    import colorsys

    r, g, b = (int(color.lstrip("#")[i:i + 2], 16) / 255 for i in (0, 2, 4))
    h, _, s = colorsys.rgb_to_hls(r, g, b)
    if s < 0.15 or max(r, g, b) < 0.2:
        return "achromatic"
    deg = 360 * h
    return "warm" if deg < 70 or deg >= 345 else "green" if deg < 170 else "blue" if deg < 260 else "purple"


def test_prediction_answers_are_the_closed_forms_by_hand():
    s = ch.PrimerSetting()
    bdp = 5e6 * 0.1 / (8 * 1500)  # 41.67 packets
    assert tp.peak_window_segments(s) == pytest.approx(bdp + 40)
    c = 5e6 / (8 * 1500)  # packets/s
    w_max = bdp + 40  # the window restarts at w_max / 2 = 40.8 < BDP: 0.83 RTT below the BDP, then dW/dt = C/W
    assert tp.tooth_length_s(s) == pytest.approx((bdp - w_max / 2) * 0.1 + (w_max**2 - bdp**2) / (2 * c))
    preds = ch.predictions()
    panel = ch.make_panel(gate=preds)
    assert panel.veiled and "goodput" not in panel.status.value
    preds[0].commit(82)
    assert panel.veiled
    preds[1].commit(12)
    assert not panel.veiled and "goodput" in panel.status.value
    assert preds[0].outcome.correct and not preds[1].outcome.correct  # 12 s is twice the law's 6.0 s
    assert "slow-start overshoot" in preds[0].explanation_text()


def test_the_plot_shows_what_the_predictions_ask():
    # at the stated setting the later teeth peak within 3 % of BDP + B, the first about twice as high
    # (slow-start overshoot), and the teeth last within 10 % of the fluid law
    s = ch.PrimerSetting()
    times, peaks = tp.halvings(ch.run(s))
    assert len(times) >= 4
    assert peaks[2:] == pytest.approx(tp.peak_window_segments(s), rel=0.03)
    assert 1.8 <= peaks[0] / peaks[-1] <= 2.1
    assert tp.tooth_lengths_s(ch.run(s)) == pytest.approx(tp.tooth_length_s(s), rel=0.1)


def test_four_flows_use_a_small_buffer_better_and_the_default_buffer_hides_it():
    def util(buf, flows):
        return float(ch.run(ch.PrimerSetting(buffer_packets=buf, flows=flows, duration_s=30.0),
                            trace=False).link_utilization[0])
    assert util(tp.SMALL_BUFFER, 4) - util(tp.SMALL_BUFFER, 1) >= 0.03
    assert abs(util(40, 4) - util(40, 1)) < 0.015  # why Q3 asks at 5 packets, not the default 40
    pred = tp.flows_prediction()
    assert pred.commit(tp.FLOWS_CHOICES[1]).correct and not tp.FLOWS_CHOICES[0] == pred.outcome.answer


def test_no_two_curves_share_a_hue_family():
    cw, ts, qf = ch.figures().values()
    for fig in (cw, ts, qf):
        lines = [t for t in fig.data if t.mode == "lines" and t.visible is not False and t.x is not None
                 and len(t.x) and t.line.color not in (None, "rgba(0,0,0,0)")]
        families = [_hue_family(t.line.color) for t in lines]
        assert len(families) == len(set(families)), [(t.name, t.line.color) for t in lines]
    four = ch.make_panel(ch.PrimerSetting(flows=4, duration_s=2.0)).figures[0]
    flows = [_hue_family(t.line.color) for t in four.data[:4]]
    assert len(set(flows)) == 4
    labels = [a.text for a in cw.layout.annotations]
    assert labels == ["BDP 42", "BDP + buffer 82"]


@pytest.mark.parametrize("cc, beta", [("reno", 0.5), ("cubic", 0.7)])
def test_the_congestion_control_choice_cuts_the_window_as_its_rfc_says(cc, beta):
    # at each fast retransmit ssthresh = beta * FlightSize (RFC 5681 eq. 4: 1/2; RFC 9438 sec. 4.6: 0.7); a bulk
    # flow limited by cwnd has FlightSize = cwnd just before the loss is found
    s = ch.PrimerSetting(congestion_control=cc)
    tr = ch.run(s).tcp_trace
    sel = (tr.conn == 0) & (tr.direction == 0)
    ss, cw, ev = tr.ssthresh_bytes[sel], tr.cwnd_bytes[sel], tr.event[sel]
    cuts = np.flatnonzero(np.diff(ss) != 0) + 1
    assert len(cuts) >= 2 and (ev[cuts] == 1).all()  # on duplicate ACKs, no timeout
    assert ss[cuts] / cw[cuts - 1] == pytest.approx(np.full(len(cuts), beta), abs=0.01)


def test_codel_keeps_the_queue_near_its_target_where_drop_tail_fills_the_buffer():
    # 400-packet buffer, 1 MB window (no window limit): drop-tail's queue grows to hundreds of packets; CoDel
    # (RFC 8289) drops once packets have waited over 5 ms for 100 ms: 5 ms at 5 Mbit/s is 2.1 packets of 1500 B
    means = {}
    for q in ("droptail", "codel", "fq_codel"):
        r = ch.run(ch.PrimerSetting(queue=q, buffer_packets=400, rwnd_bytes=1 << 20))
        qt = r.queue_trace
        m = (qt.link == 0) & (qt.time_s > 5.0)
        means[q] = qt.packets[m].mean()
        status = ch._status(r, ch.PrimerSetting(queue=q, buffer_packets=400, rwnd_bytes=1 << 20))
        assert ("by CoDel's rule" in status) == (q == "codel")
    assert means["droptail"] > 100 and means["codel"] < 2.1 + 1 and means["fq_codel"] < 2.1 + 1
    with pytest.raises(ValueError, match="queue='red' is not allowed"):
        ch.PrimerSetting(queue="red")
    with pytest.raises(ValueError, match="congestion_control='vegas' is not allowed"):
        ch.PrimerSetting(congestion_control="vegas")
