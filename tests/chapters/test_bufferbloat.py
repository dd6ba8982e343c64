"""The bufferbloat sweep (simcore.chapters.bufferbloat) against what a buffer and CoDel's target imply."""

from __future__ import annotations

import numpy as np
import pytest

from simcore import colour_vision
from simcore.chapters.bufferbloat import (
    BufferbloatSetting,
    TimelineSetting,
    cubic_median_wait_s,
    figure,
    make_panel,
    predictions,
    sweep,
    timeline,
)


def test_drop_tail_delay_grows_with_its_buffer_and_codel_holds_its_target():
    # 10 Mbit/s, 1500-byte packets: 1.2 ms each; one bandwidth-delay product is 33 packets (40 ms round trip)
    s = BufferbloatSetting(buffers_packets=(50, 400), queues=("droptail", "codel"), n_flows=1, duration_s=10.0)
    r = sweep(s)
    tx = 12_000 / 10e6
    tail, codel = r.delay_p50_s[0], r.delay_p50_s[1]
    # a drop-tail buffer of B packets never holds a packet longer than B transmissions; a Reno flow's sawtooth
    # halves the window from B + BDP packets, so the queue stays above (B + BDP) / 2 - BDP most of the time
    assert (r.delay_p95_s[0] <= np.array(s.buffers_packets) * tx + 1e-9).all()
    assert tail[1] > ((400 + 33) / 2 - 33) * tx
    # CoDel: the median wait stays near its 5 ms target whatever the buffer (RFC 8289)
    assert (codel < 0.010).all() and tail[1] > 10 * codel[1]
    # goodput, as a share of what 1460-byte segments in 1500-byte packets allow: a drop-tail buffer of at least one
    # bandwidth-delay product keeps the link busy through Reno's halving (Villamizar & Song 1994); CoDel keeps
    # about 4 packets queued (5 ms), so a single flow's halved window, (33 + 4) / 2 packets, leaves the link idle
    # part of each cycle: its window climbs back from 56 % of the pipe, the average over a cycle above 75 %
    best = 10e6 * 1460 / 1500
    assert (r.goodput_bps[0] > 0.95 * best).all() and (r.goodput_bps[1] > 0.75 * best).all()
    fig = figure(r)
    assert len(fig.data) == 6 and fig.layout.xaxis.type == "log"


@pytest.mark.parametrize("kw, match", [
    (dict(buffers_packets=(100, 50)), "must be strictly increasing"),
    (dict(buffers_packets=(0,)), r"buffers_packets=0 is out of range"),
    (dict(queues=("pie",)), r"queues='pie' is not allowed"),
    (dict(congestion_control="bbr"), r"congestion_control='bbr' is not allowed"),
    (dict(measure_from_s=20.0), r"measure_from_s=20.0 is out of range"),
    (dict(duration_s=600.0, rate_bps=1e9), r"more than 2,000,000"),
])
def test_bad_settings_are_refused_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        BufferbloatSetting(**kw)


# ---- the primer's bufferbloat part ----

def test_cubics_median_wait_by_hand():
    # 10 Mbit/s, 1500-byte packets: 1.2 ms each; BDP = 10e6 * 0.04 / 12000 = 33.33 packets; W_max = 1033.33.
    # RFC 9438: after a loss W(t) = 0.4 (t - K)^3 + W_max, K = cbrt(W_max * 0.3 / 0.4) = 9.185 s; the window rises
    # over the cycle, so its median is W(K/2) = W_max - 0.4 K^3 / 8 = W_max (1 - 0.3 / 8) = 994.58 packets; the
    # queue holds 994.58 - 33.33 = 961.25 packets: 1.1535 s.
    s = TimelineSetting()
    assert (s.congestion_control, s.buffer_packets, s.flows) == ("cubic", 1000, 1)
    assert cubic_median_wait_s(s) == pytest.approx(1.1535, abs=1e-4)
    k = (1033.3333 * 0.3 / 0.4) ** (1 / 3)
    assert 1033.3333 - 0.4 * (k / 2) ** 3 == pytest.approx(994.583, abs=1e-3)


def test_the_timeline_shows_bufferbloat_under_drop_tail_and_codel_holding_its_target():
    tl = timeline(TimelineSetting())
    tail, codel = tl.median_s
    tx = 12_000 / 10e6
    # drop-tail: never more than a full buffer (1000 transmissions); CUBIC keeps it nearly full, so the median is
    # within 15 % of the closed form (which leaves out the recoveries' round trips and fast convergence)
    assert tl.p95_s[0] <= 1000 * tx + 1e-9
    assert tail == pytest.approx(cubic_median_wait_s(tl.setting), rel=0.15) and tail > 0.6 * 1000 * tx
    # CoDel (RFC 8289): the median wait below its 5 ms target, two orders of magnitude below drop-tail's ...
    assert codel < 0.005 and tail > 100 * codel
    # ... at nearly the same goodput (within 5 %), both above 85 % of what 1460-byte segments in 1500-byte packets
    # allow, slow start included
    best = 10e6 * 1460 / 1500
    assert (tl.goodput_bps > 0.85 * best).all()
    assert tl.goodput_bps[1] == pytest.approx(tl.goodput_bps[0], rel=0.05)
    assert tl.time_s.size == 400 and tl.delay_s.shape == (2, 400)


@pytest.mark.parametrize("buffer_packets", [100, 1000])
def test_one_bbr_flow_keeps_even_a_big_drop_tail_buffer_nearly_empty(buffer_packets):
    """The primer's deep dive: alone, BBR v1 paces at its bottleneck-rate estimate and caps its flight at 2 BDP
    estimates, so it never fills the buffer. Bounds from BBR's design (Cardwell et al. 2016) on this 10 Mbit/s, 40 ms
    path (BDP 33 packets, 40 ms): PROBE_BW's 1.25 gain phase queues a quarter BDP, 10 ms, which the 0.75 phase
    drains, so the median wait stays below 10 ms under drop-tail as under CoDel; the 2-BDP cap holds at most one BDP
    (33 packets) queued after slow start, far below either buffer, so drop-tail drops nothing; the link stays
    busy: goodput over 95 % of what 1460-byte segments in 1500-byte packets allow."""
    tl = timeline(TimelineSetting(congestion_control="bbr", buffer_packets=buffer_packets))
    assert (tl.median_s < 0.010).all(), tl.median_s
    assert tl.drops[0] == 0
    assert (tl.goodput_bps > 0.95 * 10e6 * 1460 / 1500).all(), tl.goodput_bps


def test_the_prediction_holds_the_panel_back_and_answers_with_the_closed_form():
    preds = predictions()
    assert len(preds) == 1
    panel = make_panel(gate=preds)
    assert panel.veiled
    preds[0].commit(600.0)
    assert not panel.veiled
    assert preds[0].outcome.answer == pytest.approx(1153.5, abs=0.1)
    # the panel was set to the prediction's setting, and its status line gives both medians
    assert panel.values() == {"congestion_control": "cubic", "buffer_packets": 1000}
    assert "drop-tail: median wait" in panel.message and "CoDel: median wait" in panel.message
    fig = panel.figures[0]
    assert fig.layout.yaxis.type == "log" and list(fig.layout.yaxis.ticktext) == \
        ["0.1 ms", "1 ms", "10 ms", "100 ms", "1 s"]  # decades only


def test_the_timeline_refuses_bad_settings_by_name():
    with pytest.raises(ValueError, match="buffer_packets=5 is out of range"):
        TimelineSetting(buffer_packets=5)
    with pytest.raises(ValueError, match="congestion_control='vegas' is not allowed"):
        TimelineSetting(congestion_control="vegas")
    with pytest.raises(ValueError, match="measure_from_s=40.0 is out of range"):
        TimelineSetting(measure_from_s=40.0)


def test_the_two_curves_differ_in_hue_and_under_colour_blindness():
    fig = make_panel().figures[0]
    a, b = (t.line.color for t in fig.data)
    for vision in colour_vision.VISIONS:  # Machado et al. 2009, full severity; CIE76 distance in CIELAB
        assert colour_vision.distance(a, b, vision) >= 20, (a, b, vision)
    assert colour_vision.hue_gap_deg(a, b) >= 35  # different hue families


def test_the_stored_default_timeline_is_a_fresh_run_bit_for_bit():
    """The primer's bufferbloat panel draws its first frame from the stored default; it must be exactly what the
    packet kernels compute now (after a kernel change that moves it: ``bufferbloat.write_stored_default()``)."""
    from simcore.chapters import bufferbloat as B

    stored = B.timeline(B.TimelineSetting())
    fresh = B.compute_timeline(B.TimelineSetting())
    assert B.STORED_DEFAULT.exists()
    for f in B._STORED_FIELDS:
        a, b = getattr(stored, f), getattr(fresh, f)
        assert a.dtype == b.dtype and a.shape == b.shape, f
        assert np.array_equal(a, b, equal_nan=True), (
            f"{f} moved: run bufferbloat.write_stored_default() if a kernel change was meant to move it")
    assert stored.setting == fresh.setting == B.TimelineSetting()


@pytest.mark.parametrize("content", [b"", b"not a zip file", "wrong fields", "wrong shape"])
def test_a_damaged_stored_default_is_simulated_instead(tmp_path, monkeypatch, content):
    """A missing, truncated or foreign stored file must not give the panel wrong numbers: the run is simulated."""
    from simcore.chapters import bufferbloat as B

    bad = tmp_path / "default.npz"
    if content == "wrong fields":
        np.savez(bad, time_s=np.zeros(3))
    elif content == "wrong shape":
        np.savez(bad, **{f: np.zeros(5) for f in B._STORED_FIELDS})
    else:
        bad.write_bytes(content)
    monkeypatch.setattr(B, "STORED_DEFAULT", bad)
    B.timeline.cache_clear()
    try:
        got = B.timeline(B.TimelineSetting())
        fresh = B.compute_timeline(B.TimelineSetting())
        assert np.array_equal(got.delay_s, fresh.delay_s, equal_nan=True)
        assert np.array_equal(got.median_s, fresh.median_s)
    finally:
        B.timeline.cache_clear()


def test_compute_timeline_names_a_wrong_setting():
    from simcore.chapters import bufferbloat as B

    with pytest.raises(ValueError, match="s=.*TimelineSetting"):
        B.compute_timeline({"buffer_packets": 100})
