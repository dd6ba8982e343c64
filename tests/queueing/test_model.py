"""simcore's FIFO queue against queueing theory, against ciw, and against its own invariants."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import theory
from simcore.queueing import QueueParams, simulate_queue
from simcore.queueing.ciw_oracle import ciw_replay, ciw_sample
from simcore.stats import batch_means_ci


def _within_ci(result, expected, slack=1.0):
    mean, half = result.wait_ci95_s()
    return abs(mean - expected) <= slack * half, (mean, half, expected)


@pytest.mark.parametrize("servers, rho", [(1, 0.5), (1, 0.8), (3, 0.7), (8, 0.9)])
def test_mmc_mean_wait_matches_erlang_c(servers, rho):
    lam = rho * servers
    p = QueueParams(arrival_rate_per_s=lam, mean_service_s=1.0, servers=servers, n_customers=400_000,
                    warmup_customers=20_000)
    # A 95% interval misses 5% of the time; over three seeds require at least two hits.
    hits = [_within_ci(simulate_queue(p, seed), theory.mmc_mean_wait_s(lam, 1.0, servers)) for seed in (1, 2, 3)]
    assert sum(h for h, _ in hits) >= 2, hits


@pytest.mark.parametrize("rho", [0.5, 0.85])
def test_md1_mean_wait_matches_pollaczek_khinchine(rho):
    p = QueueParams(arrival_rate_per_s=rho, mean_service_s=1.0, service="deterministic", n_customers=300_000,
                    warmup_customers=10_000)
    hits = [_within_ci(simulate_queue(p, seed), theory.md1_mean_wait_s(rho, 1.0)) for seed in (4, 5, 6)]
    assert sum(h for h, _ in hits) >= 2, hits


def test_mg1_general_sampler_matches_pollaczek_khinchine():
    # Uniform(0, 2) service: mean 1, variance 1/3, so Cs^2 = 1/3.
    p = QueueParams(arrival_rate_per_s=0.7, mean_service_s=1.0, service="general",
                    service_sampler=lambda rng, n: rng.uniform(0.0, 2.0, n), n_customers=300_000,
                    warmup_customers=10_000)
    hits = [_within_ci(simulate_queue(p, s), theory.mg1_mean_wait_s(0.7, 1.0, 1 / 3)) for s in (1, 2, 3)]
    assert sum(h for h, _ in hits) >= 2, hits


def test_finite_buffer_blocking_matches_mmck():
    p = QueueParams(arrival_rate_per_s=2.4, mean_service_s=1.0, servers=2, buffer_size=3, n_customers=200_000)
    expected = theory.mmck_blocking(2, 3, 2.4)
    # Blocking events are correlated in time, so the interval comes from batch means, not a binomial.
    hits = []
    for seed in (11, 12, 13):
        mean, half = batch_means_ci(simulate_queue(p, seed).blocked.astype(float))
        hits.append(abs(mean - expected) <= half)
    assert sum(hits) >= 2, (hits, expected)


@pytest.mark.parametrize("servers, buffer_size, service", [(1, None, "exponential"), (3, 2, "exponential"),
                                                          (2, 0, "deterministic"), (4, None, "deterministic")])
def test_ciw_replay_gives_the_same_wait_for_every_customer(servers, buffer_size, service):
    p = QueueParams(arrival_rate_per_s=0.9 * servers, mean_service_s=1.0, servers=servers,
                    buffer_size=buffer_size, service=service, n_customers=2000)
    ours = simulate_queue(p, 3)
    theirs = ciw_replay(p, 3)
    assert np.array_equal(ours.blocked, theirs.blocked)
    served = ~ours.blocked
    np.testing.assert_allclose(ours.wait_s[served], theirs.wait_s[served], rtol=0, atol=1e-9)


def test_statistical_agreement_with_ciw_own_random_numbers():
    """ciw with its own sampling: the two means differ by less than their combined 99% intervals."""
    p = QueueParams(arrival_rate_per_s=1.6, mean_service_s=1.0, servers=2, n_customers=30_000,
                    warmup_customers=3000)
    ours = [simulate_queue(p, s).mean_wait_s for s in range(8)]
    theirs = [ciw_sample(p, s).mean_wait_s(3000) for s in range(8)]
    diff = np.mean(ours) - np.mean(theirs)
    se = np.sqrt(np.var(ours, ddof=1) / len(ours) + np.var(theirs, ddof=1) / len(theirs))
    assert abs(diff) < 3.5 * se, (np.mean(ours), np.mean(theirs), se)


def test_littles_law_holds_exactly_over_the_whole_run():
    p = QueueParams(arrival_rate_per_s=2.5, mean_service_s=1.0, servers=3, buffer_size=4, n_customers=50_000)
    r = simulate_queue(p, 8)
    assert r.time_average_in_system == pytest.approx(r.throughput_per_s * r.whole_run_mean_sojourn_s, rel=1e-9)
    # Busy servers integrate to the total service delivered.
    assert r.busy_server_s == pytest.approx(float(r.service_s[~r.blocked].sum()), rel=1e-9)


def test_fifo_invariants():
    p = QueueParams(arrival_rate_per_s=1.8, mean_service_s=1.0, servers=2, n_customers=20_000)
    r = simulate_queue(p, 2)
    start = r.arrival_s + r.wait_s
    assert np.all(r.wait_s >= 0)
    assert np.all(np.diff(start) >= 0)  # FIFO: service starts in arrival order
    np.testing.assert_allclose(r.departure_s, start + r.service_s)
    assert r.n_events == 2 * p.n_customers


def test_same_seed_bit_identical_and_different_seed_differs():
    p = QueueParams(arrival_rate_per_s=0.9, n_customers=5000, buffer_size=5)
    a, b, c = simulate_queue(p, 77), simulate_queue(p, 77), simulate_queue(p, 78)
    assert np.array_equal(a.wait_s, b.wait_s, equal_nan=True) and a.area_customer_s == b.area_customer_s
    assert not np.array_equal(a.wait_s, c.wait_s, equal_nan=True)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    assert np.array_equal(simulate_queue(p, g1).wait_s, simulate_queue(p, g2).wait_s, equal_nan=True)


@pytest.mark.parametrize("field, value, match", [
    ("arrival_rate_per_s", 0.0, r"arrival_rate_per_s=0.0 is out of range.*\(0, 1e\+09\]"),
    ("mean_service_s", -1.0, r"mean_service_s=-1.0"),
    ("servers", 0, r"servers=0 is out of range: must be an integer in \[1, 10000\]"),
    ("service", "pareto", r"service='pareto'"),
    ("buffer_size", -2, r"buffer_size=-2"),
    ("n_customers", 0, r"n_customers=0"),
    ("warmup_customers", 100, r"warmup_customers=100.*\[0, 99\]"),
])
def test_bad_parameters_name_parameter_value_and_range(field, value, match):
    kwargs = {"n_customers": 100, field: value}
    with pytest.raises(ValueError, match=match):
        QueueParams(**kwargs)


def test_general_service_needs_sampler_and_bad_sampler_output_rejected():
    with pytest.raises(ValueError, match="service_sampler=None"):
        QueueParams(service="general")
    p = QueueParams(service="general", service_sampler=lambda rng, n: -np.ones(n), n_customers=10)
    with pytest.raises(ValueError, match="service_sampler returned"):
        simulate_queue(p, 0)


@settings(max_examples=60, deadline=None)
@given(rate=st.floats(50, 6000), service=st.sampled_from(["exponential", "deterministic"]),
       servers=st.integers(1, 8), seed=st.integers(0, 99))
def test_whole_widget_range_runs_without_crash(rate, service, servers, seed):
    """Every value the start-here sliders can produce runs and gives finite, non-negative waits."""
    p = QueueParams(arrival_rate_per_s=rate, mean_service_s=1.2e-3, servers=servers, service=service,
                    n_customers=2000)
    r = simulate_queue(p, seed)
    assert np.all(np.isfinite(r.wait_s)) and np.all(r.wait_s >= 0)
