"""The bufferbloat sweep (simcore.chapters.bufferbloat) against what a buffer and CoDel's target imply."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.chapters.bufferbloat import BufferbloatSetting, figure, sweep


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
