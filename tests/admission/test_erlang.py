"""Cross-check: with Poisson arrivals, one file each and no retries, 'HTTP' is an Erlang loss system.

The server's sockets are the servers; a socket is held from the decision (connect_s after the attempt
starts) for bind_s + size / access rate (the link is never the bottleneck here). Refused clients give up
(max_attempts=1), so the first-attempt refusal probability is Erlang B(S, A) with A = rate x mean holding
time, whatever the holding-time distribution (insensitivity): checked for exponential and fixed sizes.
"""

import numpy as np
import pytest

from simcore.admission import AdmissionParams, Workload, simulate_admission


def erlang_b(servers: int, offered: float) -> float:
    """Return the Erlang B blocking probability (recursion B(k) = A B(k-1) / (k + A B(k-1)))."""
    b = 1.0
    for k in range(1, servers + 1):
        b = offered * b / (k + offered * b)
    return b


def test_erlang_b_recursion_against_the_formula():
    from math import factorial

    s, a = 6, 4.2
    direct = (a**s / factorial(s)) / sum(a**k / factorial(k) for k in range(s + 1))
    assert erlang_b(s, a) == pytest.approx(direct, rel=1e-12)


@pytest.mark.parametrize("sizes", ["exponential", "fixed"])
def test_first_attempt_refusals_match_erlang_b(sizes):
    rng = np.random.default_rng(2024)
    n, lam, sockets, rate, mean_size = 40_000, 1.0, 10, 10_000.0, 70_000.0
    arrival = np.cumsum(rng.exponential(1 / lam, n))
    size = rng.exponential(mean_size, n) if sizes == "exponential" else np.full(n, mean_size)
    wl = Workload(arrival, np.full(n, rate), np.arange(n + 1, dtype=np.int64), size, 99)
    p = AdmissionParams(policy="HTTP", sockets=sockets, max_attempts=1)
    r = simulate_admission(p, 0, workload=wl, capacity_Bps=1e12)
    offered = lam * (p.bind_s + mean_size / rate)
    expected = erlang_b(sockets, offered)
    warm = arrival > 200.0  # the run starts empty
    refused = r.gave_up[warm].astype(float)
    assert np.array_equal(r.gave_up, r.busy_refusals == 1)
    # batch means for a confidence interval that allows for correlation between neighbours
    batches = np.array_split(refused, 40)
    means = np.array([b.mean() for b in batches])
    se = means.std(ddof=1) / np.sqrt(means.size)
    assert abs(refused.mean() - expected) < 4 * se + 1e-3, (refused.mean(), expected, se)
    # and it is a real loss system: refusals are neither rare nor the rule
    assert 0.03 < expected < 0.3
