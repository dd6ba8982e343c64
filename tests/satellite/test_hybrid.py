"""The hybrid fast mode: the same as the full run where it keeps everything at packet level, the utilisation by
hand, the fluid profile's bookkeeping by hand, and the stored check against full packet runs
(data/satellite_hybrid_check.csv): it covers the live panel's range at several seeds, every point where
``validated`` agrees with its full run within tolerance (and the range is no wider: beyond it some do not), and
the stored hybrid numbers are what today's code gives."""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcore.chapters import satellite_extras as extras
from simcore.satellite import SatelliteParams, simulate_satellite
from simcore.satellite.hybrid import (
    VALIDATED_TOLERANCE_S,
    VALIDATED_UTILISATION,
    _spread,
    fluid_profiles,
    simulate_hybrid,
    utilisation,
    validated,
    within_tolerance,
)
from simcore.satellite.workload import Workload

C = 34.368e6


def _one(reply=14600, mss=1460):
    # one reply made at t = 1 s, released at 1 Mbit/s, window 65535
    return Workload(np.array([1.0]), np.array([300]), np.array([reply]), np.array([mss]), np.array([65535]),
                    np.array([0.03]), np.array([1e6]), np.array([0]), np.array([0]))


def test_with_every_connection_at_packet_level_the_hybrid_is_the_full_run():
    """5 inter-proxy connections (fewer than the pool the hybrid keeps at least): no request is fluid, and
    the run is the full run, bit for bit."""
    p = SatelliteParams(architecture="us_proxy", n_proxy_connections=5, n_traces=4, duration_s=60.0,
                        measure_buffers=False)
    full, fast = simulate_satellite(p, 3), simulate_hybrid(p, 3)
    assert fast.fluid_requests == 0
    assert np.array_equal(full.sample_latency_s, fast.sample_latency_s, equal_nan=True)
    assert fast.carried_nz_bound_bps == full.carried_nz_bound_bps
    assert fast.sample_latency_mean_s == full.sample_latency_mean_s


def test_utilisation_by_hand():
    # 14600 bytes in 10 segments: base, on the wire NZ-bound 14600 + 40 x (10 + 3) over 20 s, against the E3
    w = _one()
    p = SatelliteParams(duration_s=20.0)
    u, cap, name = utilisation(p, w)
    assert cap == C and name == "the E3"
    assert u == pytest.approx((14600 + 40 * 13) * 8 / 20.0 / C)
    # US proxy, 10 connections: the reply + 20 bytes per server segment, in ceil(14800 / 1460) = 11 proxy
    # segments + half an ACK; capacity 10 x 22 x 1500 x 8 / (0.64 + (2 x 1500 + 40) x 8 / C)
    q = SatelliteParams(architecture="us_proxy", n_proxy_connections=10, duration_s=20.0)
    u, cap, name = utilisation(q, w)
    assert cap == pytest.approx(10 * 22 * 1500 * 8 / (0.64 + (2 * 1500 + 40) * 8 / C))
    assert name == "the 10 inter-proxy connections"
    assert u == pytest.approx((14800 + 40 * 11.5) * 8 / 20.0 / cap)


def test_spread_puts_each_transfer_in_its_bins():
    # [0.5, 2.25) at 2 bits per unit: 1 in bin 0, 2 in bin 1, 0.5 in bin 2; [3.1, 3.6) at 4: 2 in bin 3
    out = _spread(np.array([0.5, 3.1]), np.array([2.25, 3.6]), np.array([2.0, 4.0]), 5)
    assert out == pytest.approx([1.0, 2.0, 0.5, 2.0, 0.0])


def test_fluid_profile_carries_the_wire_bytes_and_the_cap_holds_back_the_excess():
    w = _one()
    p = SatelliteParams(duration_s=20.0)
    us, nz, backlog = fluid_profiles(p, w, bin_s=0.5)
    # base, by hand: NZ-bound 14600 + 40 x (10 + 3); US-bound 300 + 40 x (5 + 4)
    assert sum(nz.rates_bps) * 0.5 == pytest.approx((14600 + 40 * 13) * 8)
    assert sum(us.rates_bps) * 0.5 == pytest.approx((300 + 40 * 9) * 8)
    assert backlog == 0.0 and min(nz.rates_bps) >= 0.0
    us, nz, backlog = fluid_profiles(p, w, bin_s=0.5, cap_nz_bps=1000.0)  # 1 kbit/s: 20 kbit in 20 s
    assert max(nz.rates_bps) == pytest.approx(1000.0)
    assert sum(nz.rates_bps) * 0.5 + backlog == pytest.approx((14600 + 40 * 13) * 8)


@pytest.fixture(scope="module")
def check():
    return extras.load_rows(extras.HYBRID_PATH)


def test_stored_check_covers_the_panels_range_at_several_seeds(check):
    assert {r["setting"] for r in check} == set(extras.CHECK_SETTINGS)
    assert {r["curve"] for r in check} >= {"base", "10 connections", "50 connections", "100 connections",
                                           "150 connections", "200 connections"}
    loads = [float(r["presented_mbps"]) for r in check]
    assert min(loads) < 1.0 and max(loads) > 37.0  # the load slider: 0.7-40 Mbit/s
    seeds = {}
    for r in check:
        seeds.setdefault((r["setting"], r["curve"], r["n_traces"]), set()).add(r["seed"])
    assert min(len(s) for s in seeds.values()) >= 2
    util = [float(r["utilisation"]) for r in check]
    assert sum(u <= VALIDATED_UTILISATION for u in util) >= 200 and sum(u > 1.0 for u in util) >= 20
    assert all(r["source"] for r in check)


def _params(r):
    arch, n = ("base", 1) if r["curve"] == "base" else ("us_proxy", int(r["curve"].split()[0]))
    return extras.check_params(r["setting"], arch, n, int(r["n_traces"]))


def test_where_validated_the_hybrid_agrees_with_the_full_run(check):
    inside = [r for r in check if validated(_params(r), float(r["utilisation"]))[0]]
    assert len(inside) >= 200
    for r in inside:
        full, fast = float(r["full_latency_s"]), float(r["hybrid_latency_s"])
        assert within_tolerance(fast, full), r
        assert float(r["hybrid_carried_mbps"]) == pytest.approx(float(r["full_carried_mbps"]), rel=0.03), r
        assert int(r["full_unfinished"]) == int(r["hybrid_unfinished"]) == 0, r
    # the tolerance is the full runs' own spread between seeds there (stored sweep, three seeds)
    by_point = {}
    for r in inside:
        if r["setting"] == "paper":
            by_point.setdefault((r["curve"], r["n_traces"]), []).append(float(r["full_latency_s"]))
    assert max(max(v) - min(v) for v in by_point.values()) == pytest.approx(VALIDATED_TOLERANCE_S, abs=0.05)
    # and the range is no wider than it may be: just beyond it, and with scaled windows, some points are far off
    near = [r for r in check if VALIDATED_UTILISATION < float(r["utilisation"]) <= 1.0]
    assert any(not within_tolerance(float(r["hybrid_latency_s"]), float(r["full_latency_s"])) for r in near)
    scaled = [r for r in check if r["setting"] == "window 4 MB" and float(r["utilisation"]) <= VALIDATED_UTILISATION]
    assert any(not within_tolerance(float(r["hybrid_latency_s"]), float(r["full_latency_s"])) for r in scaled)
    assert not validated(_params(scaled[0]), 0.1)[0]


@pytest.mark.parametrize("setting, curve, n_traces, seed", [("paper", "100 connections", 300, 2),
                                                            ("LEO delay 20 ms", "base", 154, 1)])
def test_stored_hybrid_numbers_are_what_the_code_gives(check, setting, curve, n_traces, seed):
    row = next(r for r in check if r["setting"] == setting and r["curve"] == curve
               and int(r["n_traces"]) == n_traces and int(r["seed"]) == seed)
    arch, n = ("base", 1) if curve == "base" else ("us_proxy", int(curve.split()[0]))
    fast = simulate_hybrid(extras.check_params(setting, arch, n, n_traces), seed)
    assert fast.sample_latency_mean_s == pytest.approx(float(row["hybrid_latency_s"]), abs=5e-5)
    assert fast.utilisation == pytest.approx(float(row["utilisation"]), abs=5e-5)
    assert math.isfinite(fast.carried_nz_bound_bps)
