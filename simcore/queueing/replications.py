"""A confidence interval for a queue's mean wait that covers: independent replications sized from the queue's memory.

Successive waits in a queue are correlated: after a burst, many packets in a row wait long. Near saturation the
queue remembers for thousands of packets, and an interval that treats short stretches of one run as
independent (batch means with short batches) is far too narrow: batches of 250 packets at La/R = 0.95 covered
the true mean in half the runs. Here each estimate is made of ``replications`` independent runs, each

- started empty and with its own random numbers (replication r of seed s draws its arrivals from stream
  (s, r, 0) and its transmission times from stream (s, r, 1), so the same replication at another load reuses
  the same draws: a curve over loads is smooth, common random numbers);
- run for a warm-up of ``WARMUP_MEMORIES`` memories, which is dropped (the queue fills from empty);
- then measured for ``MEASURED_MEMORIES`` memories, and at least long enough that ``MIN_WAITING`` packets are
  expected to wait (at light load on many links waiting is rare, and a mean of a few waits is all noise).

The memory is the waits' integrated autocorrelation time, in packets: the number of packets whose waits are
worth one independent one. In heavy traffic (Whitt 1989; reflected Brownian motion) it is

    memory = 2 (c_a^2 + rho^2 c_s^2) / (1 - rho)^2,   c_a^2 = 1 (Poisson arrivals), c_s^2 = service SCV,

the same for c servers at per-server load rho; measured on runs of 10^7 packets it is within 10 % at
rho = 0.9 (M/M/1 370 vs 362, M/D/1 191 vs 200) and an overestimate at lighter load. The interval is Student's t
over the replication means. When the plan needs more than ``MAX_TOTAL_CUSTOMERS`` packets (rho very close to 1,
or waits rarer than one in ten thousand) the run is cut to that budget and no interval is given
(``WaitEstimate.half_width_s`` is NaN, ``plan.capped`` says why). ``benchmarks/bench_coverage.py`` measures how
often the intervals contain the closed form.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from simcore import theory
from simcore._validate import check_int, check_real
from simcore.queueing._kernel import fifo_waits_kernel
from simcore.queueing.model import QueueParams, draw_service
from simcore.rng import SeedLike, check_seed

__all__ = ["RunPlan", "WaitEstimate", "memory_customers", "plan_runs", "replication_workload",
           "estimate_mean_wait", "t975", "REPLICATIONS", "WARMUP_MEMORIES", "MEASURED_MEMORIES", "MIN_WAITING",
           "MAX_TOTAL_CUSTOMERS"]

REPLICATIONS = 10
WARMUP_MEMORIES = 2.0
MEASURED_MEMORIES = 80.0
MIN_WARMUP = 100
MIN_MEASURED = 500
MIN_WAITING = 400  # packets expected to wait in each replication's measured part
MAX_TOTAL_CUSTOMERS = 2_000_000  # ~0.2 s of simulation and < 100 MB: what a slider move may cost

# Two-sided 95 % Student t quantiles t_{0.975, df} (Abramowitz and Stegun, table 26.10); no scipy needed.
_T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228,
         11: 2.201, 12: 2.179, 13: 2.160, 14: 2.145, 15: 2.131, 16: 2.120, 17: 2.110, 18: 2.101, 19: 2.093,
         20: 2.086, 24: 2.064, 29: 2.045, 39: 2.023, 49: 2.010}


def t975(df: int) -> float:
    """Return Student's t quantile t_{0.975} for ``df`` degrees of freedom (those in the table, 1-20, 24, 29,
    39, 49), dimensionless."""
    df = check_int("df", df, 1, 49)
    if df not in _T975:
        raise ValueError(f"df={df!r} is not allowed: must be one of {sorted(_T975)}")
    return _T975[df]


def _service_scv(params: QueueParams) -> float:
    if params.service == "exponential":
        return 1.0
    if params.service == "deterministic":
        return 0.0
    raise ValueError(f"service={params.service!r} is not allowed here: replications are planned for "
                     "'exponential' (SCV 1) and 'deterministic' (SCV 0) service")


def memory_customers(utilisation: float, service_scv: float) -> float:
    """Return the waits' integrated autocorrelation time 2 (1 + rho^2 Cs^2) / (1 - rho)^2, in customers
    (heavy-traffic approximation, Poisson arrivals; see the module docstring). utilisation in [0, 1)."""
    rho = check_real("utilisation", utilisation, 0.0, 1.0, hi_open=True)
    scv = check_real("service_scv", service_scv, 0.0, 100.0)
    return 2.0 * (1.0 + rho * rho * scv) / (1.0 - rho) ** 2


@dataclass(frozen=True)
class RunPlan:
    """How long to run: ``replications`` runs of ``warmup_customers`` (dropped) + ``measured_customers``.

    memory_customers: the waits' autocorrelation time used to size them. wait_probability: the chance a packet
    waits (Erlang C; for deterministic service the M/M/c value, used only to size the runs). capped: the plan
    would have needed ``wanted_customers`` > MAX_TOTAL_CUSTOMERS and was cut to that budget; then no interval
    is given (``reason`` says why in a sentence).
    """

    replications: int
    warmup_customers: int
    measured_customers: int
    memory_customers: float
    wait_probability: float
    wanted_customers: int
    capped: bool
    reason: str = ""

    @property
    def total_customers(self) -> int:
        """Packets simulated over all replications, warm-ups included."""
        return self.replications * (self.warmup_customers + self.measured_customers)


def plan_runs(params: QueueParams, *, replications: int = REPLICATIONS,
              max_total_customers: int = MAX_TOTAL_CUSTOMERS, capped_total_customers: int | None = None) -> RunPlan:
    """Return the run plan for a stable queue ``params`` (utilisation < 1; exponential or deterministic
    service): see the module docstring. replications in [2, 50]; max_total_customers in [10^4, 10^8]: the
    most a plan may run; capped_total_customers (default max_total_customers, at most that): what a plan that
    would need more runs instead (without an interval: a plot may want only a cheap dot there)."""
    if not isinstance(params, QueueParams):
        raise ValueError(f"params={params!r} is not allowed: must be a QueueParams")
    r = check_int("replications", replications, 2, 50)
    budget = check_int("max_total_customers", max_total_customers, 10_000, 10**8)
    fallback = budget if capped_total_customers is None else \
        check_int("capped_total_customers", capped_total_customers, 10 * r, budget)
    rho = round(params.utilisation, 12)  # the same plan for a load however its float was reached
    if rho >= 1.0:
        raise ValueError(f"params.utilisation={rho!r} is out of range: a queue at La/(cR) >= 1 has no steady "
                         "state, so no mean wait to estimate")
    if params.buffer_size is not None:
        raise ValueError(f"params.buffer_size={params.buffer_size!r} is not allowed here: replications are "
                         "planned for an infinite buffer")
    memory = memory_customers(rho, _service_scv(params))
    p_wait = theory.erlang_c(params.servers, rho * params.servers)
    for_memory = MEASURED_MEMORIES * memory
    for_waits = MIN_WAITING / p_wait if p_wait > 0 else math.inf
    warm = max(MIN_WARMUP, math.ceil(WARMUP_MEMORIES * memory))
    wanted = r * (warm + max(MIN_MEASURED, for_memory, for_waits))
    if wanted <= budget:
        measured = max(MIN_MEASURED, math.ceil(for_memory), math.ceil(for_waits))
        return RunPlan(r, warm, measured, memory, p_wait, r * (warm + measured), False)
    need = f"an interval needs about {_round_words(wanted)} packets, more than the {budget:,} a move may run"
    if for_waits > for_memory:
        why = f"only about 1 packet in {_round_words(1 / p_wait)} waits, so {need}"
    else:
        why = f"this close to 1 the queue remembers for about {_round_words(memory)} packets, so {need}"
    per_run = fallback // r
    warm = min(warm, per_run // 5)
    return RunPlan(r, warm, per_run - warm, memory, p_wait, int(min(wanted, 1e18)), True, why)


def _round_words(x: float) -> str:
    """A count as a student reads it at a glance: 2 significant digits, in millions or billions when big."""
    v = float(f"{x:.2g}")
    for div, word in ((1e9, " billion"), (1e6, " million")):
        if v >= div:
            return f"{v / div:,.{0 if v / div >= 10 else 1}f}".removesuffix(".0") + word
    return f"{v:,.0f}"


@dataclass(frozen=True)
class WaitEstimate:
    """Mean time in queue from independent replications, seconds.

    mean_wait_s: the mean of the replication means; half_width_s: the 95 % half-width t_{0.975, r-1} s / sqrt(r)
    (NaN when ``plan.capped``); replication_means_s: one mean per replication (warm-up dropped); plan: how long
    each ran.
    """

    mean_wait_s: float
    half_width_s: float
    replication_means_s: np.ndarray
    plan: RunPlan

    @property
    def has_interval(self) -> bool:
        """Whether the plan ran in full, so the interval can be trusted."""
        return not self.plan.capped

    def covers(self, value_s: float) -> bool:
        """Whether ``value_s`` lies in the 95 % interval (False when there is none)."""
        return self.has_interval and abs(self.mean_wait_s - float(value_s)) <= self.half_width_s


def _root_entropy(seed: SeedLike) -> int:
    seed = check_seed(seed)
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(0, 2**63 - 1))
    return int(seed)


def replication_workload(params: QueueParams, seed: SeedLike, replication: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (arrival_s, service_s) of replication ``replication`` of ``seed``: ``params.n_customers``
    Poisson arrivals from stream (seed, replication, 0) and service times from stream (seed, replication, 1).
    The first k customers are the same for any n_customers >= k, and at any load scale with 1/rate."""
    entropy = _root_entropy(seed)
    rep = check_int("replication", replication, 0, 10**6)
    n = params.n_customers
    arrivals = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(rep, 0))))
    services = np.random.Generator(np.random.PCG64(np.random.SeedSequence(entropy, spawn_key=(rep, 1))))
    arrival_s = np.cumsum(arrivals.standard_exponential(n)) / params.arrival_rate_per_s
    return arrival_s, draw_service(params, services, n)


def estimate_mean_wait(params: QueueParams, seed: SeedLike, plan: RunPlan | None = None) -> WaitEstimate:
    """Estimate the mean time in queue of ``params`` (a stable queue, infinite buffer) by independent
    replications (``plan``, default ``plan_runs(params)``), with a 95 % confidence interval; seconds."""
    plan = plan_runs(params) if plan is None else plan
    if not isinstance(plan, RunPlan):
        raise ValueError(f"plan={plan!r} is not allowed: must be a RunPlan (from plan_runs)")
    entropy = _root_entropy(seed)
    run = replace(params, n_customers=plan.warmup_customers + plan.measured_customers,
                  warmup_customers=plan.warmup_customers)
    means = np.empty(plan.replications)
    for r in range(plan.replications):
        arrival_s, service_s = replication_workload(run, entropy, r)
        means[r] = float(np.mean(fifo_waits_kernel(arrival_s, service_s, run.servers)[plan.warmup_customers:]))
    mean = float(np.mean(means))
    half = float("nan") if plan.capped else \
        t975(plan.replications - 1) * float(np.std(means, ddof=1)) / math.sqrt(plan.replications)
    return WaitEstimate(mean, half, means, plan)
