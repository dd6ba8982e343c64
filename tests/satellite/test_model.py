"""The satellite model: figure 4's plateau, single requests timed by hand, structure, determinism, sanity."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from simcore.packet import LinkParams, Network, TcpParams
from simcore.satellite import SatelliteParams, Workload, build_satellite, simulate_satellite
from simcore.satellite.figure4 import full_segment_plateau, simulate_single_connection, window_limit_bps
from simcore.satellite.model import _slot_overlaps
from simcore.satellite.network import star_network

C = 34.368e6  # E3, bits/s


def test_figure4_single_connection_plateau_matches_the_window_limit_by_hand():
    p = SatelliteParams()
    assert window_limit_bps(p) == pytest.approx(32767 * 8 / 0.64)  # the paper's ~410 kbit/s
    # By hand: floor(32767 / 1460) = 22 full segments (32,120 bytes) fit in the window; an ACK covers two
    # segments, so each cycle is the 0.64 s round trip + two 1500-byte segments + one 40-byte ACK on the E3.
    cycle = 0.64 + 2 * 1500 * 8 / C + 40 * 8 / C
    good, wire = 22 * 1460 * 8 / cycle, 22 * 1500 * 8 / cycle  # 401.06 and 412.04 kbit/s
    hand = full_segment_plateau(p)
    assert hand.goodput_bps == pytest.approx(good) and hand.wire_bps == pytest.approx(wire)
    # ACKs sent at once on every second segment (no 200 ms tick): exactly the hand-derived cycle
    exact = TcpParams.preset("bsd44lite", mss_bytes=1460, rwnd_bytes=32767, delayed_ack_on_ticks=False)
    sim = simulate_single_connection(p, 20.0, 20.0 + 60 * cycle, tcp=exact)  # a whole number of cycles
    assert sim.goodput_bps == pytest.approx(good, rel=2e-3)
    assert sim.wire_bps == pytest.approx(wire, rel=2e-3)
    # 4.4BSD-Lite's delayed ACK on the 200 ms tick can only hold ACKs back: at most the hand value, and
    # within 3 % of the paper's closed form and simulated plateau (415 kbit/s on the wire)
    bsd = simulate_single_connection(p, 20.0, 20.0 + 60 * cycle)
    assert 0.97 * good < bsd.goodput_bps <= good * (1 + 1e-3)
    assert bsd.goodput_bps < window_limit_bps(p) and abs(bsd.goodput_bps / window_limit_bps(p) - 1) < 0.04
    assert abs(bsd.wire_bps / 415e3 - 1) < 0.03
    # the default window (300-3300 s) is long against the phases of the tick (hundreds of seconds): within
    # 3 % below the cycle by hand, and a 40 s window at a phase in step is above it (the docstring's numbers)
    long = simulate_single_connection(p)
    assert 0.97 * good < long.goodput_bps < good and 0.97 * wire < long.wire_bps < wire
    assert simulate_single_connection(p, 300.0, 600.0).goodput_bps > long.goodput_bps


def _one_request(reply_bytes, t=5.0):
    return Workload(np.array([t]), np.array([300]), np.array([reply_bytes]), np.array([1460]), np.array([8760]),
                    np.array([0.03]), np.array([1e6]), np.array([0]), np.array([0]))


def _class_centre(lo, hi):
    return math.sqrt(lo * hi)  # one log-spaced class spanning [lo, hi]: its centre is the geometric mean


@pytest.mark.parametrize("arch", ["base", "us_proxy"])
def test_one_small_request_takes_the_hand_computed_time(arch):
    """One 1000-byte reply on an idle network. Class centres (one class each): rate sqrt(32e3 * 100e6),
    delay sqrt(0.001 * 0.2). Base: SYN, SYN-ACK, request, reply each cross the satellite and the server's
    link once. US proxy (connections already open): request and reply cross the satellite once; the
    proxy's handshake, request and reply cross the server's link; the reply gains 20 bytes of overhead."""
    p = SatelliteParams(architecture=arch, n_proxy_connections=3, n_rate_classes=1, n_delay_classes=1,
                        duration_s=20.0, measure_buffers=False)
    r_bps, d_s = _class_centre(32e3, 100e6), _class_centre(0.001, 0.2)
    res = simulate_satellite(p, 0, requests=_one_request(1000))
    slot_bits = (40 + 40 + 340 + 1040) * 8  # SYN, SYN-ACK, request (300 + 40), reply (1000 + 40)
    if arch == "base":
        hand = 4 * 0.32 + 4 * d_s + slot_bits / r_bps + slot_bits / C
    else:
        hand = 2 * 0.32 + 4 * d_s + slot_bits / r_bps + (340 + 1060) * 8 / C
    assert res.request_time_s[0] == pytest.approx(hand, abs=1e-3)
    assert res.requests_unfinished == 0 and res.retransmits == 0


def test_a_three_segment_reply_waits_for_the_delayed_ack_of_the_first_base_case():
    """4.4BSD-like slow start by hand: the server sends one segment (initial window 1); the NZ proxy holds
    its ACK until the next 200 ms tick of the fast timer (one segment only); the ACK opens cwnd to 2 and the last two
    segments follow back to back. Six one-way trips: SYN, SYN-ACK, request, segment 1, its ACK, segment 3."""
    p = SatelliteParams(n_rate_classes=1, n_delay_classes=1, duration_s=20.0, measure_buffers=False)
    r_bps, d_s = _class_centre(32e3, 100e6), _class_centre(0.001, 0.2)
    res = simulate_satellite(p, 0, requests=_one_request(3 * 1460))

    def hop(nbytes):  # one trip NZ <-> server of an nbytes packet on idle links
        return 0.32 + d_s + nbytes * 8 / C + nbytes * 8 / r_bps

    # 4.4BSD-Lite's fast timer: the delayed ACK leaves at the next 200 ms tick (ticks from time 0; the
    # request is made at t = 5 s); segment 3 leaves the server link one segment time after segment 2
    seg1_at = 5.0 + hop(40) + hop(40) + hop(340) + hop(1500)
    ack_at = math.ceil(seg1_at / 0.2) * 0.2
    hand = ack_at - 5.0 + hop(40) + hop(1500) + 1500 * 8 / r_bps
    assert res.request_time_s[0] == pytest.approx(hand, abs=1e-3)


def test_star_routes_are_the_fewest_hop_routes():
    lp = LinkParams()
    net = star_network(lp, lp, [lp, lp, lp])
    plain = Network(net.n_nodes, net.links)
    for a, b in itertools.permutations(range(net.n_nodes), 2):
        assert net.route(a, b) == plain.route(a, b)


def test_us_proxy_scenario_structure():
    p = SatelliteParams(architecture="us_proxy", n_proxy_connections=7, n_traces=2, duration_s=30.0)
    bulk, plan = build_satellite(p, 5)
    sc = bulk.to_scenario()  # the same run as one object per connection and message
    n = len(plan.made_s)
    assert len(sc.connections) == 7 + n and len(sc.messages) == 4 * n
    assert sc.pools[0].conns == tuple(range(7)) and sc.pools[0].rule == "fewest_outstanding"
    assert all(c.closer == "none" and c.tcp.rwnd_bytes == 32767 and c.tcp.mss_bytes == 1460 for c in sc.connections[:7])
    for i in range(n):
        srv = sc.messages[4 * i + 2]
        out = sc.messages[4 * i + 3]
        mss = sc.connections[plan.server_conn[i]].tcp.mss_bytes
        assert out.pool == 0 and out.size_bytes == srv.size_bytes + 20 * math.ceil(srv.size_bytes / mss)
        assert sc.connections[plan.server_conn[i]].closer == "server"
    b, bplan = build_satellite(SatelliteParams(n_traces=2, duration_s=30.0), 5)
    b = b.to_scenario()
    assert len(b.connections) == n and len(b.messages) == 2 * n and not b.pools
    assert plan.is_sample.sum() == 20 and np.array_equal(bplan.reply_bytes, plan.reply_bytes)


def test_same_seed_same_result():
    p = SatelliteParams(architecture="us_proxy", n_proxy_connections=5, n_traces=3, duration_s=30.0)
    a, b = simulate_satellite(p, 9), simulate_satellite(p, 9)
    assert np.array_equal(a.request_time_s, b.request_time_s, equal_nan=True)
    assert a.carried_nz_bound_bps == b.carried_nz_bound_bps and a.events == b.events
    assert a.buffer_peak_bytes_us_end == b.buffer_peak_bytes_us_end


@pytest.fixture(scope="module")
def light():
    kw = dict(n_traces=8, duration_s=90.0, measure_buffers=False)
    return {arch: simulate_satellite(SatelliteParams(architecture=arch, n_proxy_connections=100, **kw), 4)
            for arch in ("base", "us_proxy")}


def test_light_load_carries_what_is_presented_and_the_proxy_is_faster(light):
    for r in light.values():
        # no drops; 4.4BSD-Lite's 500 ms timer ticks fire a 2-tick (1 s) RTO 0.5-1 s after it is set,
        # so the odd spurious timeout on the 0.64 s round trip remains (the paper: "very few retransmissions")
        assert r.drops_us_end == 0 and r.retransmits <= 0.01 * r.requests and r.slot_overlaps == 0
        # on the wire: headers (40 bytes per <= 1480-byte segment, >= 2.7 %) and the replies still in flight
        assert 0.85 < r.carried_nz_bound_bps / r.presented_load_bps < 1.12
        # the paper: ~19 (figure 7d); here 11.5 (base) and 15.0 (proxy): 4.4BSD answers the SYN-ACK with a bare
        # ACK (TcpParams.preset('bsd44lite')), one more US-bound packet per connection (12.3 with the request on it)
        assert 11 < r.inbound_outbound_ratio < 28
        assert r.sample_unfinished == 0
    base, prox = light["base"], light["us_proxy"]
    assert prox.sample_latency_mean_s < 0.8 * base.sample_latency_mean_s  # the paper: ~45 % lower
    assert prox.us_connections_mean < base.us_connections_mean  # figure 7a


def test_one_inter_proxy_connection_saturates_at_its_window_limit():
    p = SatelliteParams(architecture="us_proxy", n_proxy_connections=1, n_traces=20, duration_s=60.0,
                        measure_buffers=False)
    r = simulate_satellite(p, 2)
    assert r.presented_load_bps > 1.5 * 412e3
    assert 0.85 * 412e3 < r.carried_nz_bound_bps < 1.01 * 412e3  # figure 4's plateau, on the wire


def test_backlogged_inter_proxy_connection_runs_at_the_full_segment_cycle():
    """A backlogged single connection carrying HTTP replies (30 day-traces, ~1.8 Mbit/s presented) is the
    bulk connection of ``simulate_single_connection``: the replies, packed into one byte stream, go as full
    segments; between 300 s and 600 s its on-wire rate lies between 3 % below the cycle derived by hand
    (412.04 kbit/s; the delayed-ACK tick's slow phases) and the cycle itself, and the 600 s mean is lower
    still (the start: handshake, slow start)."""
    runs = {d: simulate_satellite(SatelliteParams(architecture="us_proxy", n_proxy_connections=1, n_traces=30,
                                                  duration_s=d, measure_buffers=False), 1) for d in (300.0, 600.0)}
    steady = (runs[600.0].carried_nz_bound_bps * 600.0 - runs[300.0].carried_nz_bound_bps * 300.0) / 300.0
    hand = full_segment_plateau(SatelliteParams()).wire_bps
    assert 0.97 * hand < steady < 1.005 * hand
    assert runs[600.0].carried_nz_bound_bps < steady  # the start (handshake, slow start) lowers the mean


@pytest.mark.parametrize("kw, name", [
    (dict(architecture="proxy"), "architecture"),
    (dict(n_proxy_connections=0), "n_proxy_connections"),
    (dict(duration_s=700.0), "duration_s"),
    (dict(proxy_window_bytes=100), "proxy_window_bytes"),
    (dict(relay="magic"), "relay"),
    (dict(satellite_delay_s=-1.0), "satellite_delay_s"),
    (dict(tcp_preset="reno"), "tcp_preset"),
])
def test_bad_parameters_are_refused_by_name(kw, name):
    with pytest.raises(ValueError, match=name):
        SatelliteParams(**kw)


def test_slot_overlaps_counted_by_hand():
    """Slot 0: request 1 opens at 1 s while request 0 (open 0-2 s) still is; request 3 opens at 5 s after
    both closed. Slot 1: request 2 never closes, so request 4 (7 s) overlaps it. Request 5 never opened;
    request 6 opens at 0 s, the same time as request 0, and after it in request order: an overlap."""
    slot = np.array([0, 0, 1, 0, 1, 2, 0])
    opened = np.array([0.0, 1.0, 1.0, 5.0, 7.0, np.nan, 0.0])
    closed = np.array([2.0, 3.0, np.nan, 6.0, 8.0, np.nan, 0.5])
    assert _slot_overlaps(slot, opened, closed) == 3
    assert _slot_overlaps(slot[:0], opened[:0], closed[:0]) == 0


def test_latency_is_timed_over_the_first_three_quarters_and_unfinished_requests_give_a_lower_bound():
    """Three requests in a 20 s run (timed: made before 0.75 x 20 = 15 s). At 1 s a 1000-byte reply (done in
    ~1.4 s); at 5 s a 10 MB reply released at 32 kbit/s (2500 s: unfinished, counted at its age at the end,
    20 - 5 = 15 s); at 16 s a small reply (made in the drain: not timed). By hand: mean of the two timed
    = (t_small + 15) / 2, a lower bound; one unfinished."""
    w = Workload(np.array([1.0, 5.0, 16.0]), np.array([300, 300, 300]), np.array([1000, 10_000_000, 1000]),
                 np.array([1460] * 3), np.array([8760] * 3), np.array([0.03] * 3), np.array([1e6, 32e3, 1e6]),
                 np.zeros(3, np.int64), np.zeros(3, np.int64))
    p = SatelliteParams(duration_s=20.0, measure_buffers=False)
    assert p.measured_until_s == 15.0
    r = simulate_satellite(p, 0, requests=w)
    t = r.request_time_s
    assert np.isfinite(t[0]) and np.isnan(t[1]) and np.isfinite(t[2])
    assert r.requests_unfinished == 1
    assert r.request_time_mean_s == pytest.approx((t[0] + 15.0) / 2)
