"""Chapter 2 wiring (draft): the figure-5 sweep at reduced scale, its curves, load conversions, claims."""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from simcore.chapters import satellite as ch
from simcore.satellite import WorkloadParams


def test_presented_load_per_trace_by_hand():
    w = WorkloadParams()
    # 421 requests x mean reply (closed form of the body + tail mixture) x 8 bits / 600 s
    assert ch.presented_bps_per_trace(w) == pytest.approx(421 * 11598.17 * 8 / 600, rel=1e-4)
    assert ch.traces_for_load(34.368e6) == round(34.368e6 / ch.presented_bps_per_trace())  # ~528 traces
    assert 500 < ch.traces_for_load(34.368e6) < 560 and ch.traces_for_load(1.0) == 1


def test_reduced_figure5_sweep_gives_curves_in_load_order():
    curves = (("base", 1), ("us_proxy", 10))
    with ThreadPoolExecutor(1) as ex:
        sw = ch.run_figure5_sweep((6, 2), curves, duration_s=30.0, seeds=(3,), executor=ex, progress=False)
    assert [(r["architecture"], r["n_traces"]) for r in sw.to_records()] == [
        ("base", 6), ("base", 2), ("us_proxy", 6), ("us_proxy", 2)]
    out = ch.figure5_curves(sw)
    assert set(out) == {"base", "10 connections"}
    for c in out.values():
        assert np.all(np.diff(c["presented_mbps"]) > 0)
        assert np.all(c["carried_mbps"] > 0) and np.all(np.isfinite(c["latency_s"]))
    # the same requests in both architectures: identical presented load
    assert np.array_equal(out["base"]["presented_mbps"], out["10 connections"]["presented_mbps"])


def test_light_load_slope_is_least_squares_through_the_origin():
    p = np.array([1.0, 2.0, 3.0, 40.0])
    c = np.array([1.1, 2.2, 3.3, 34.0])  # the last point is beyond 90 % of the E3: left out
    assert ch.light_load_slope(p, c) == pytest.approx(1.1)
    assert math.isnan(ch.light_load_slope(np.array([40.0]), np.array([34.0])))


def test_paper_claims_and_grid_validation():
    claims = ch.paper_claims()
    assert claims["fig4_plateau"]["value"] == "415" and claims["fig5a_slope"]["value"] == "1.09"
    assert all(r["source"] for r in claims.values())
    with pytest.raises(ValueError, match="n_traces_values"):
        ch.figure5_grid([0])
    with pytest.raises(ValueError, match="duration_s"):
        ch.figure5_grid([1], duration_s=0.0)
