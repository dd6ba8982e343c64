"""The single-bottleneck fluid simulator: exact small cases, conservation, PS queueing laws, ciw."""

from __future__ import annotations

import math
from statistics import NormalDist

import ciw
import numpy as np
import pytest

from simcore.fluid import FluidParams, poisson_flows, ps_mean_sojourn_s, simulate_flows, simulate_fluid

C_BPS = 1.25e6


def t_quantile(p: float, df: int) -> float:
    """Student-t quantile by the Cornish-Fisher expansion (error < 1e-3 for df >= 10); no scipy needed."""
    z = NormalDist().inv_cdf(p)
    g1 = (z**3 + z) / 4
    g2 = (5 * z**5 + 16 * z**3 + 3 * z) / 96
    g3 = (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384
    return z + g1 / df + g2 / df**2 + g3 / df**3


def batch_means_ci(x: np.ndarray, n_batches: int = 30, conf: float = 0.999) -> tuple[float, float]:
    """Return (mean, half-width) of a batch-means confidence interval for correlated output ``x``."""
    b = len(x) // n_batches
    means = x[: b * n_batches].reshape(n_batches, b).mean(axis=1)
    half = t_quantile(0.5 + conf / 2, n_batches - 1) * means.std(ddof=1) / math.sqrt(n_batches)
    return float(means.mean()), float(half)


def erlang_c_mean_in_system(lam: float, mu_server: float, m: int) -> float:
    """Mean number in an M/M/m system (Erlang C)."""
    a = lam / mu_server
    rho = a / m
    tail = a**m / math.factorial(m) / (1 - rho)
    p_wait = tail / (sum(a**k / math.factorial(k) for k in range(m)) + tail)
    return a + p_wait * rho / (1 - rho)


# ---------------------------------------------------------------- exact small cases (derived by hand)


def test_three_flows_by_hand():
    # flows 0 (1 B) and 1 (2 B) at t=0 share 1 B/s: 0.5 each. At t=1 they have 0.5 and 1.5 B left and
    # flow 2 (1 B) arrives: 1/3 each. Flow 0 ends at 1 + 0.5*3 = 2.5; then flows 1 (1 B) and 2 (0.5 B) get
    # 0.5 each: flow 2 ends at 3.5, flow 1 has 0.5 B left at 1 B/s and ends at 4.0.
    r = simulate_flows([0.0, 0.0, 1.0], [1.0, 2.0, 1.0], math.inf, 1.0)
    np.testing.assert_allclose(r.finish_s, [2.5, 4.0, 3.5], rtol=1e-14)
    np.testing.assert_allclose(r.sojourn_s, [2.5, 4.0, 2.5], rtol=1e-14)
    np.testing.assert_array_equal(r.start_s, [0.0, 0.0, 1.0])
    assert r.n_events == 6
    assert r.busy_s == pytest.approx(4.0)


def test_caps_bind_and_leftover_goes_to_the_uncapped_flow():
    # capacity 10 B/s; flow 0 capped at 2 B/s, flow 1 uncapped gets 8 B/s. Flow 1 (16 B) ends at 2 s,
    # flow 0 (10 B) has 6 B left, still capped at 2 B/s: ends at 5 s.
    r = simulate_flows([0.0, 0.0], [10.0, 16.0], [2.0, math.inf], 10.0)
    np.testing.assert_allclose(r.finish_s, [5.0, 2.0], rtol=1e-14)
    # average rate of a flow never exceeds its cap
    assert 10.0 / (r.finish_s[0] - r.start_s[0]) <= 2.0 * (1 + 1e-12)


def test_capacity_schedule():
    # 10 B at 1 B/s until t=4 (6 B left), then 3 B/s: ends at 4 + 6/3 = 6 s
    r = simulate_flows([0.0], [10.0], math.inf, 1.0, capacity_change_s=[4.0], capacity_change_Bps=[3.0])
    assert r.finish_s[0] == pytest.approx(6.0, rel=1e-14)


def test_arrival_order_does_not_matter():
    p = FluidParams(n_flows=300, arrival_rate_per_s=8.0)
    a, s, c = poisson_flows(p, 11)
    perm = np.random.default_rng(0).permutation(len(a))
    r1 = simulate_flows(a, s, c, C_BPS)
    r2 = simulate_flows(a[perm], s[perm], c[perm], C_BPS)
    np.testing.assert_allclose(r2.finish_s, r1.finish_s[perm], rtol=1e-12)


# ---------------------------------------------------------------- conservation and invariants


@pytest.mark.parametrize("access_rate_Bps", [math.inf, 0.3 * C_BPS])
def test_bytes_conserved_at_a_horizon(access_rate_Bps):
    p = FluidParams(n_flows=2000, arrival_rate_per_s=9.0, access_rate_Bps=access_rate_Bps, horizon_s=150.0)
    r = simulate_fluid(p, 5)
    assert r.end_s == 150.0
    done = r.completed
    assert 0 < done.sum() < p.n_flows  # the horizon cut the run
    # every requested byte is delivered or pending, per flow and in total
    np.testing.assert_allclose(r.delivered_bytes + r.remaining_bytes, r.size_bytes, rtol=1e-9)
    assert r.total_delivered_bytes == pytest.approx(r.delivered_bytes.sum(), rel=1e-9)
    np.testing.assert_array_equal(r.remaining_bytes[done], 0.0)
    assert np.all(r.remaining_bytes[~done] > 0)
    # flows arriving after the horizon never started
    late = r.arrival_s > 150.0
    assert late.any()
    assert np.all(np.isnan(r.start_s[late])) and np.all(r.remaining_bytes[late] == r.size_bytes[late])
    # no more than capacity * busy time was delivered; exactly that when flows are uncapped (work-conserving)
    assert r.total_delivered_bytes <= C_BPS * r.busy_s * (1 + 1e-9)
    if access_rate_Bps == math.inf:
        assert r.total_delivered_bytes == pytest.approx(C_BPS * r.busy_s, rel=1e-9)
    # no finished flow averaged more than its cap or the capacity
    avg = r.size_bytes[done] / (r.finish_s[done] - r.start_s[done])
    assert np.all(avg <= min(access_rate_Bps, C_BPS) * (1 + 1e-9))
    assert np.all(r.finish_s[done] >= r.arrival_s[done])


def test_same_seed_identical_different_seed_differs():
    p = FluidParams(n_flows=500, arrival_rate_per_s=9.0, access_rate_Bps=4e5)
    r1, r2, r3 = simulate_fluid(p, 42), simulate_fluid(p, 42), simulate_fluid(p, 43)
    for name in ("arrival_s", "size_bytes", "start_s", "finish_s", "delivered_bytes", "remaining_bytes"):
        np.testing.assert_array_equal(getattr(r1, name), getattr(r2, name))
    assert r1.n_events == r2.n_events and r1.busy_s == r2.busy_s
    assert not np.array_equal(r1.finish_s, r3.finish_s)
    # a Generator seed is used as is
    g = np.random.Generator(np.random.PCG64(42))
    np.testing.assert_array_equal(simulate_fluid(p, g).finish_s, r1.finish_s)


# ---------------------------------------------------------------- queueing laws


def _sojourn_ci(p: FluidParams, seed: int, warmup: int = 2000):
    r = simulate_fluid(p, seed)
    assert r.completed.all()
    return batch_means_ci(r.sojourn_s[warmup:])


@pytest.mark.parametrize("lam", [4.0, 7.0])
def test_mm1_ps_mean_sojourn(lam):
    p = FluidParams(n_flows=300_000, arrival_rate_per_s=lam)
    expected = 1.0 / (C_BPS / p.mean_size_bytes - lam)
    assert ps_mean_sojourn_s(lam, p.mean_size_bytes, C_BPS) == pytest.approx(expected)
    mean, half = _sojourn_ci(p, seed=1)
    assert abs(mean - expected) <= half, (mean, half, expected)
    assert half < 0.05 * expected  # the interval is tight enough to mean something


def test_ps_insensitivity_deterministic_sizes():
    # M/D/1-PS has the same mean sojourn E[S] / (1 - rho) as M/M/1-PS
    p = FluidParams(n_flows=300_000, arrival_rate_per_s=6.0, size_distribution="deterministic")
    expected = ps_mean_sojourn_s(6.0, p.mean_size_bytes, C_BPS)
    mean, half = _sojourn_ci(p, seed=2)
    assert abs(mean - expected) <= half, (mean, half, expected)
    assert half < 0.05 * expected


def test_capped_flows_behave_as_mmm():
    # caps C/m: with k flows each gets C/max(k, m), so the number of flows is the M/M/m birth-death chain
    # with per-server rate mu/m; Little's law gives the mean sojourn from Erlang C.
    m = 3
    p = FluidParams(n_flows=300_000, arrival_rate_per_s=7.0, access_rate_Bps=C_BPS / m)
    mu = C_BPS / p.mean_size_bytes
    expected = erlang_c_mean_in_system(7.0, mu / m, m) / 7.0
    assert expected > ps_mean_sojourn_s(7.0, p.mean_size_bytes, C_BPS)  # caps do cost something
    mean, half = _sojourn_ci(p, seed=3)
    assert abs(mean - expected) <= half, (mean, half, expected)


# ---------------------------------------------------------------- ciw's processor-sharing node


def _ciw_sojourns(arrival_s, service_s, threshold):
    inter = np.diff(np.concatenate([[0.0], arrival_s]))
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Sequential([*inter.tolist(), 1e12])],  # then no more arrivals
        service_distributions=[ciw.dists.Sequential(service_s.tolist())],
        number_of_servers=[math.inf],
        ps_thresholds=[threshold],
    )
    sim = ciw.Simulation(network, node_class=ciw.PSNode)
    sim.simulate_until_max_time(float(arrival_s[-1]) + 1e4)
    recs = sorted(sim.get_all_records(), key=lambda rec: rec.id_number)
    assert len(recs) == len(arrival_s)
    arr = np.array([rec.arrival_date for rec in recs])
    np.testing.assert_allclose(arr, arrival_s, rtol=1e-12)
    return np.array([rec.exit_date - rec.arrival_date for rec in recs])


@pytest.mark.parametrize("threshold", [1, 3])
def test_matches_ciw_psnode_flow_by_flow(threshold):
    # ciw's PSNode with ps_threshold m serves k customers each at speed m / max(k, m): the fluid model with
    # per-flow cap C/m. Fed the same arrivals and sizes, every sojourn must agree.
    p = FluidParams(n_flows=3000, arrival_rate_per_s=7.0)
    a, s, _ = poisson_flows(p, 7)
    cap = C_BPS / threshold
    ours = simulate_flows(a, s, cap, C_BPS).sojourn_s
    theirs = _ciw_sojourns(a, s / cap, threshold)
    np.testing.assert_allclose(ours, theirs, rtol=1e-9, atol=1e-9)


def test_ciw_psnode_with_its_own_random_streams_agrees_statistically():
    lam = 6.0
    p = FluidParams(n_flows=300_000, arrival_rate_per_s=lam)
    mean, half = _sojourn_ci(p, seed=4)
    mu = C_BPS / p.mean_size_bytes
    network = ciw.create_network(
        arrival_distributions=[ciw.dists.Exponential(lam)],
        service_distributions=[ciw.dists.Exponential(mu)],
        number_of_servers=[math.inf],
    )
    ciw.seed(2024)
    sim = ciw.Simulation(network, node_class=ciw.PSNode)
    sim.simulate_until_max_time(2500.0)
    recs = sorted(sim.get_all_records(), key=lambda rec: rec.arrival_date)
    ciw_soj = np.array([rec.exit_date - rec.arrival_date for rec in recs])[500:]
    ciw_mean, ciw_half = batch_means_ci(ciw_soj)
    assert abs(mean - ciw_mean) <= math.hypot(half, ciw_half), (mean, half, ciw_mean, ciw_half)
    expected = ps_mean_sojourn_s(lam, p.mean_size_bytes, C_BPS)
    assert abs(ciw_mean - expected) <= ciw_half


# ---------------------------------------------------------------- validation


@pytest.mark.parametrize(
    "kwargs, name",
    [
        ({"capacity_Bps": 0.0}, "capacity_Bps"),
        ({"capacity_Bps": math.inf}, "capacity_Bps"),
        ({"arrival_rate_per_s": -1.0}, "arrival_rate_per_s"),
        ({"mean_size_bytes": float("nan")}, "mean_size_bytes"),
        ({"n_flows": 0}, "n_flows"),
        ({"n_flows": 2.5}, "n_flows"),
        ({"access_rate_Bps": 0.0}, "access_rate_Bps"),
        ({"access_rate_Bps": -math.inf}, "access_rate_Bps"),
        ({"size_distribution": "pareto"}, "size_distribution"),
        ({"horizon_s": 0.0}, "horizon_s"),
    ],
)
def test_bad_params_raise(kwargs, name):
    with pytest.raises(ValueError, match=name):
        FluidParams(**kwargs)


@pytest.mark.parametrize(
    "args, kwargs, name",
    [
        (([0.0, -1.0], [1.0, 1.0]), {}, r"arrival_s\[1\]"),
        (([0.0, np.nan], [1.0, 1.0]), {}, r"arrival_s\[1\]"),
        (([0.0, 1.0], [1.0, 0.0]), {}, r"size_bytes\[1\]"),
        (([0.0, 1.0], [1.0]), {}, "size_bytes"),
        (([0.0, 1.0], [1.0, 1.0], [1.0, 0.0]), {}, r"cap_Bps\[1\]"),
        (([0.0, 1.0], [1.0, 1.0], math.inf, -1.0), {}, "capacity_Bps"),
        (([[0.0]], [1.0]), {}, "arrival_s"),
        (([0.0], [1.0]), {"horizon_s": -1.0}, "horizon_s"),
        (([0.0], [1.0]), {"capacity_change_s": [1.0], "capacity_change_Bps": []}, "capacity_change_Bps"),
        (([0.0], [1.0]), {"capacity_change_s": [1.0], "capacity_change_Bps": [0.0]}, "capacity_change_Bps"),
    ],
)
def test_bad_arrays_raise(args, kwargs, name):
    with pytest.raises(ValueError, match=name):
        simulate_flows(*args, **kwargs)


def test_bad_seed_and_bad_load_raise():
    with pytest.raises(ValueError, match="seed"):
        simulate_fluid(FluidParams(), -1)
    with pytest.raises(ValueError, match="rho"):
        ps_mean_sojourn_s(10.0, 125_000.0, C_BPS)
    with pytest.raises(ValueError, match="params"):
        poisson_flows({"n_flows": 3}, 0)
