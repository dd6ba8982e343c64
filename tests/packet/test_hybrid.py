"""Hybrid hook: fluid background traffic on a link, against closed forms and against its packet twin."""

import numpy as np
import pytest

from simcore.packet import CbrSource, FluidBackground, LinkParams, TcpParams, bulk_scenario, dumbbell, simulate

C = 10e6
MSS = 1460


def _run(background, as_packets, duration=40.0, queue=50, probe_bps=50e3, tcp=True):
    link = LinkParams(rate_bps=C, delay_s=0.02, queue_packets=queue, background=None if as_packets else background)
    db = dumbbell(2, link)
    cbr = (CbrSource.from_background(db.router_left, db.router_right, background),) if as_packets else ()
    probe = CbrSource(db.left[1], db.right[1], rates_bps=(probe_bps,), packet_bytes=100)
    pairs = [(db.left[0], db.right[0])] if tcp else []
    sc = bulk_scenario(db.network, pairs, TcpParams(rwnd_bytes=1 << 20), duration_s=duration,
                       cbr=cbr + (probe,))
    r = simulate(sc)
    sel = r.cbr_source == len(cbr)
    return r, r.cbr_send_time_s[sel], r.cbr_delay_s[sel]


@pytest.mark.parametrize("granularity", ["packets", "continuous"])
def test_saturating_tcp_gets_capacity_minus_fluid_rate(granularity):
    B = 4e6
    r, _, _ = _run(FluidBackground.constant(B, granularity=granularity), as_packets=False)
    wire_bps = r.goodput_bps[0, 0] * (MSS + 40) / MSS
    fluid_bps = (r.fluid_offered_bytes[0] - r.fluid_dropped_bytes[0]) * 8 / r.duration_s
    assert abs(fluid_bps / B - 1) < 0.02  # the fluid keeps (almost) all of its rate
    assert abs(wire_bps / (C - B) - 1) < 0.05


@pytest.mark.parametrize("granularity, atol", [("continuous", 1e-6), ("packets", 1.3e-3)])
def test_probe_delay_follows_the_fluid_backlog(granularity, atol):
    # The fluid overloads the link (1.5 C) for 0.5 s then stops: the backlog grows at 0.5 C, then drains.
    bg = FluidBackground((0.0, 0.5), (1.5 * C, 0.0), granularity=granularity)
    r, ts, d = _run(bg, as_packets=False, duration=1.0, queue=100_000, probe_bps=100e3, tcp=False)
    t_link = ts + 100 * 8 / 1e9  # the probe crosses a 1 Gbit/s access link first
    # Lindley recursion for the unfinished work (bits) seen by each probe: fluid inflow B(t), drain C,
    # reflected at zero, plus the probes' own 800 bits each.
    work, t_prev, expected = 0.0, 0.0, []
    for t in t_link:
        for a, b, rate in ((t_prev, min(t, 0.5), 1.5 * C), (max(t_prev, 0.5), t, 0.0)):
            if b > a:
                work = max(0.0, work + (rate - C) * (b - a))
        expected.append((work + 800) / C + 0.02 + 2 * 800 / 1e9)
        work += 800
        t_prev = t
    assert np.allclose(d, expected, rtol=0, atol=atol)
    grow = t_link < 0.5
    assert np.all(np.diff(d[grow]) > 0) and d[grow][-1] > 0.2


@pytest.mark.parametrize("granularity", ["packets", "continuous"])
@pytest.mark.parametrize("profile", [((0.0,), (4e6,)), ((0.0, 10.0, 20.0), (2e6, 7e6, 3e6))])
def test_fluid_background_matches_its_packet_twin_within_10_percent(profile, granularity):
    bg = FluidBackground(*profile, granularity=granularity)
    rf, _, df = _run(bg, as_packets=False)
    rp, _, dp = _run(bg, as_packets=True)
    assert rf.events < rp.events  # the background costs no events
    assert abs(rf.goodput_bps[0, 0] / rp.goodput_bps[0, 0] - 1) < 0.10
    assert abs(df.mean() / dp.mean() - 1) < 0.10
