"""The hybrid fast mode against the full packet run: within 10 % on sample-page latency and carried load at
three loads (the issue's acceptance test), for the base case and a US proxy with 100 connections; and the
fluid profile's bookkeeping by hand."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.satellite import SatelliteParams, simulate_satellite
from simcore.satellite.hybrid import _spread, fluid_profiles, simulate_hybrid
from simcore.satellite.workload import Workload


@pytest.mark.parametrize("arch, n", [("base", 1), ("us_proxy", 100)])
def test_hybrid_matches_the_full_packet_run_within_ten_percent(arch, n):
    for n_traces in (20, 120, 300):  # ~1.2, ~7 and ~17 Mbit/s presented (the E3 is 34.4)
        p = SatelliteParams(architecture=arch, n_proxy_connections=n, n_traces=n_traces, duration_s=60.0,
                            measure_buffers=False)
        full, fast = simulate_satellite(p, 1), simulate_hybrid(p, 1)
        assert fast.presented_load_bps == full.presented_load_bps  # the same requests
        assert fast.sample_unfinished == full.sample_unfinished == 0
        assert fast.sample_latency_mean_s == pytest.approx(full.sample_latency_mean_s, rel=0.10), n_traces
        assert fast.carried_nz_bound_bps == pytest.approx(full.carried_nz_bound_bps, rel=0.10), n_traces
        if n_traces >= 120:  # (at light load the US-proxy case keeps every request at packet level)
            assert fast.fluid_requests > 0 and fast.packet_requests < full.requests


def test_spread_puts_each_transfer_in_its_bins():
    # [0.5, 2.25) at 2 bits per unit: 1 in bin 0, 2 in bin 1, 0.5 in bin 2; [3.1, 3.6) at 4: 2 in bin 3
    out = _spread(np.array([0.5, 3.1]), np.array([2.25, 3.6]), np.array([2.0, 4.0]), 5)
    assert out == pytest.approx([1.0, 2.0, 0.5, 2.0, 0.0])


def test_fluid_profile_carries_the_wire_bytes_and_the_cap_holds_back_the_excess():
    # one 14600-byte reply (10 segments of 1460) made at t = 1 s, released at 1 Mbit/s, window 65535
    w = Workload(np.array([1.0]), np.array([300]), np.array([14600]), np.array([1460]), np.array([65535]),
                 np.array([0.03]), np.array([1e6]), np.array([0]), np.array([0]))
    p = SatelliteParams(duration_s=20.0)
    us, nz, backlog = fluid_profiles(p, w, bin_s=0.5)
    # base, by hand: NZ-bound 14600 + 40 x (10 + 3); US-bound 300 + 40 x (5 + 4)
    assert sum(nz.rates_bps) * 0.5 == pytest.approx((14600 + 40 * 13) * 8)
    assert sum(us.rates_bps) * 0.5 == pytest.approx((300 + 40 * 9) * 8)
    assert backlog == 0.0
    us, nz, backlog = fluid_profiles(p, w, bin_s=0.5, cap_nz_bps=1000.0)  # 1 kbit/s: 20 kbit in 20 s
    assert max(nz.rates_bps) == pytest.approx(1000.0)
    assert sum(nz.rates_bps) * 0.5 + backlog == pytest.approx((14600 + 40 * 13) * 8)
