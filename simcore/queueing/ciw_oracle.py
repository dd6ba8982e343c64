"""ciw as an independent oracle for simcore's queue (used in tests, benchmarks and the start-here chapter).

Two ways to run ciw on a ``QueueParams``:

- ``ciw_replay``: ciw is fed simcore's own draws (``ciw.dists.Sequential``), so both simulators see the
  same customers; a correct FIFO queue gives the same wait for every customer, up to float rounding.
- ``ciw_sample``: ciw draws its own random numbers. ciw seeds Python's global ``random`` module and its
  module-level ``ciw.rng``; we save and restore both around the run so the lab's no-global-state rule
  holds for the caller.
- ``ciw_estimate``: the mean wait with a 95 % interval from independent ciw replications run to the same
  ``RunPlan`` as simcore's ``estimate_mean_wait`` (ciw's own random numbers, warm-up dropped).
"""

from __future__ import annotations

import math
import random
from contextlib import contextmanager

import ciw
import numpy as np

from simcore.queueing.model import QueueParams, draw_workload
from simcore.rng import SeedLike, check_seed

__all__ = ["ciw_replay", "ciw_sample", "ciw_estimate", "CiwRun"]


class CiwRun:
    """Per-customer results of a ciw run, in arrival order: arrival_s, wait_s, blocked (arrays)."""

    def __init__(self, arrival_s: np.ndarray, wait_s: np.ndarray, blocked: np.ndarray):
        self.arrival_s = arrival_s
        self.wait_s = wait_s
        self.blocked = blocked

    def mean_wait_s(self, warmup_customers: int = 0) -> float:
        """Mean time in queue of served customers after warm-up, seconds; NaN if none was served after
        warm-up (a heavily overloaded queue serves only the first few arrivals within the horizon)."""
        keep = ~self.blocked & ~np.isnan(self.wait_s)
        keep[:warmup_customers] = False
        return float(np.mean(self.wait_s[keep])) if keep.any() else float("nan")


class _ServiceByCustomer(ciw.dists.Distribution):
    """Service time of the customer with ciw id k is ``service_s[k - 1]`` (ciw numbers arrivals from 1),
    so blocked customers do not shift the sequence as a plain ``Sequential`` would."""

    def __init__(self, service_s: np.ndarray):
        self.service_s = service_s

    def sample(self, t=None, ind=None):
        return float(self.service_s[ind.id_number - 1])


def _network(params: QueueParams, arrival_dist, service_dist):
    capacity = float("inf") if params.buffer_size is None else params.buffer_size
    return ciw.create_network(
        arrival_distributions=[arrival_dist],
        service_distributions=[service_dist],
        number_of_servers=[params.servers],
        queue_capacities=[capacity],
    )


def _collect(sim, horizon_s: float) -> CiwRun:
    sim.simulate_until_max_time(horizon_s)
    recs = sim.get_all_records(only=["service", "rejection"])
    recs.sort(key=lambda r: (r.arrival_date, r.id_number))
    arrival = np.array([r.arrival_date for r in recs], dtype=float)
    blocked = np.array([r.record_type == "rejection" for r in recs], dtype=bool)
    wait = np.array([np.nan if r.record_type == "rejection" else r.waiting_time for r in recs], dtype=float)
    return CiwRun(arrival, wait, blocked)


def ciw_replay(params: QueueParams, seed: SeedLike) -> CiwRun:
    """Run ciw on exactly the customers simcore draws for (params, seed); return ciw's per-customer waits."""
    arrival_s, service_s = draw_workload(params, seed)
    gaps = np.diff(np.concatenate(([0.0], arrival_s)))
    huge = float(arrival_s[-1] + service_s.sum() + 1.0) * 10.0
    arrivals = ciw.dists.Sequential([*gaps.tolist(), huge])
    services = _ServiceByCustomer(service_s)
    sim = ciw.Simulation(_network(params, arrivals, services))
    return _collect(sim, huge * 0.5)


def ciw_sample(params: QueueParams, seed: SeedLike) -> CiwRun:
    """Run ciw with its own random draws (seeded from ``seed``) for about ``params.n_customers`` arrivals."""
    seed = check_seed(seed)
    if isinstance(seed, np.random.Generator):
        seed = int(seed.integers(0, 2**31 - 1))
    service = _service_dist(params)
    with _seeded(int(seed) % (2**32)):
        sim = ciw.Simulation(_network(params, ciw.dists.Exponential(params.arrival_rate_per_s), service))
        return _collect(sim, params.n_customers / params.arrival_rate_per_s)


def _service_dist(params: QueueParams):
    if params.service == "exponential":
        return ciw.dists.Exponential(1.0 / params.mean_service_s)
    if params.service == "deterministic":
        return ciw.dists.Deterministic(params.mean_service_s)
    raise ValueError(f"service={params.service!r} is not allowed here: ciw supports "
                     "['exponential', 'deterministic']")


@contextmanager
def _seeded(seed: int):
    """Seed ciw (Python's global ``random`` and ``ciw.rng``) for a run; restore both afterwards."""
    saved_random = random.getstate()
    saved_rng = getattr(ciw, "rng", None)
    try:
        ciw.seed(seed)
        yield
    finally:
        random.setstate(saved_random)
        if saved_rng is not None:
            ciw.rng = saved_rng


def ciw_estimate(params: QueueParams, seed: int, plan=None):
    """Return a ``WaitEstimate`` of the mean time in queue (s) from ciw: ``plan.replications`` independent
    runs (default ``plan_runs(params)``), replication r seeded with the first word of SeedSequence(seed,
    spawn_key=(r, 2)), each run until ``warmup + measured`` customers completed; the first ``warmup`` by
    arrival are dropped. A stable queue with an infinite buffer, exponential or deterministic service."""
    from simcore.queueing.replications import WaitEstimate, plan_runs, t975

    seed = check_seed(seed)
    if not isinstance(seed, int):
        raise ValueError(f"seed={seed!r} is not allowed: ciw_estimate takes an integer seed")
    plan = plan_runs(params) if plan is None else plan
    n = plan.warmup_customers + plan.measured_customers
    means = np.empty(plan.replications)
    for r in range(plan.replications):
        word = int(np.random.SeedSequence(seed, spawn_key=(r, 2)).generate_state(1)[0])
        with _seeded(word):
            sim = ciw.Simulation(_network(params, ciw.dists.Exponential(params.arrival_rate_per_s),
                                          _service_dist(params)))
            sim.simulate_until_max_customers(n, method="Complete")
        recs = sorted(sim.get_all_records(only=["service"]), key=lambda x: (x.arrival_date, x.id_number))
        means[r] = float(np.mean([x.waiting_time for x in recs[plan.warmup_customers:]]))
    mean = float(np.mean(means))
    half = float("nan") if plan.capped else \
        t975(plan.replications - 1) * float(np.std(means, ddof=1)) / math.sqrt(plan.replications)
    return WaitEstimate(mean, half, means, plan)
