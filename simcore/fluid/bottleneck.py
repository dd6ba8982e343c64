"""One bottleneck shared max-min fairly by flows: the fluid (flow-level) model, event-driven and exact.

Units: data in bytes, rates in BYTES per second (suffix ``_Bps``), times in seconds. A flow is a transfer
of ``size_bytes`` arriving at ``arrival_s``; while active it is served at its max-min fair share of the
bottleneck capacity (water-filling), never above its own access rate ``cap_Bps`` (``inf`` = no limit).
Rates are recomputed at every arrival, completion and capacity change, and the next completion time is
computed exactly: there is no time step. With uncapped flows this is processor sharing: Poisson arrivals
and exponential sizes give M/M/1-PS, whose mean sojourn is ``1 / (mu - lambda)``.

Two entry points:

- ``simulate_flows(arrival_s, size_bytes, cap_Bps, capacity_Bps, ...)`` — arrays in, no randomness;
- ``simulate_fluid(FluidParams(...), seed)`` — draws Poisson arrivals and random sizes, then the above.
  Random draws, in this order: ``n_flows`` exponential inter-arrival times, then ``n_flows`` sizes.

``fluid_summary(seed=..., **params)`` reduces one run to scalars for ``simcore.sweep.run_sweep``, and
``ps_mean_sojourn_s`` is the M/G/1-PS closed form the simulator is checked against.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_choice, check_int, check_real, most_within_memory, store_python_numbers
from simcore.fluid._kernel import fluid_kernel
from simcore.rng import SeedLike, make_generator

__all__ = [
    "FluidParams",
    "FluidResult",
    "simulate_flows",
    "poisson_flows",
    "simulate_fluid",
    "ps_mean_sojourn_s",
    "fluid_summary",
]

SIZE_DISTRIBUTIONS = ("exponential", "deterministic")


def _check_positive_or_inf(name: str, value: object) -> float:
    """Return ``value`` as a float if it is +inf or a finite number > 0, else raise ValueError."""
    if isinstance(value, (int, float, np.floating)) and not isinstance(value, bool) and value == math.inf:
        return math.inf
    try:
        return check_real(name, value, 0.0, lo_open=True)
    except ValueError as err:
        raise ValueError(f"{err} (or inf)") from None


# Bytes a run keeps per flow (measured: 89): the result's eight arrays (8 bytes each) and the kernel's
# per-flow state and draws: 128 with margin.
BYTES_PER_FLOW = 128
MAX_FLOWS, _FLOWS_WHY = most_within_memory(BYTES_PER_FLOW, "flow")


@dataclass(frozen=True)
class FluidParams:
    """Parameters of a single-bottleneck fluid run with Poisson flow arrivals.

    Defaults: 10 Mbit/s bottleneck, 5 flows/s of mean 125 kB (1 Mbit): load 0.5.
    """

    capacity_Bps: float = 1.25e6  # bottleneck capacity, bytes/s
    arrival_rate_per_s: float = 5.0  # Poisson flow arrival rate, flows/s
    mean_size_bytes: float = 125_000.0  # mean flow size, bytes
    n_flows: int = 400  # number of flows drawn, in [1, 8,388,608] (128 bytes each: at most 1 GiB)
    access_rate_Bps: float = math.inf  # every flow's cap, bytes/s (inf = uncapped: processor sharing)
    size_distribution: str = "exponential"  # "exponential" or "deterministic" (all sizes = the mean)
    horizon_s: float = math.inf  # stop time, seconds (inf = run until every flow is done)

    def __post_init__(self):
        store_python_numbers(self)
        check_real("capacity_Bps", self.capacity_Bps, 0.0, lo_open=True)
        check_real("arrival_rate_per_s", self.arrival_rate_per_s, 0.0, lo_open=True)
        check_real("mean_size_bytes", self.mean_size_bytes, 0.0, lo_open=True)
        check_int("n_flows", self.n_flows, 1, MAX_FLOWS, why=_FLOWS_WHY)
        _check_positive_or_inf("access_rate_Bps", self.access_rate_Bps)
        check_choice("size_distribution", self.size_distribution, SIZE_DISTRIBUTIONS)
        _check_positive_or_inf("horizon_s", self.horizon_s)

    @property
    def load(self) -> float:
        """Offered load rho = arrival rate * mean size / capacity (dimensionless)."""
        return self.arrival_rate_per_s * self.mean_size_bytes / self.capacity_Bps


@dataclass(frozen=True, eq=False)
class FluidResult:
    """Per-flow outcome of a fluid run (arrays indexed by flow, read-only) and run totals."""

    arrival_s: np.ndarray  # arrival time, s
    size_bytes: np.ndarray  # requested bytes
    cap_Bps: np.ndarray  # access-rate cap, bytes/s
    start_s: np.ndarray  # first time with a positive rate, s (NaN if never by the horizon)
    finish_s: np.ndarray  # last byte delivered, s (NaN if not by the horizon)
    sojourn_s: np.ndarray  # finish - arrival, s (NaN if not finished)
    delivered_bytes: np.ndarray  # bytes delivered (integral of the flow's rate)
    remaining_bytes: np.ndarray  # bytes still pending at the end
    end_s: float  # time the run stopped, s
    busy_s: float  # time with at least one active flow, s
    total_delivered_bytes: float  # integral of the total allocated rate, bytes
    n_events: int  # arrivals + completions + capacity changes processed

    @property
    def completed(self) -> np.ndarray:
        """Boolean mask of flows that finished."""
        return ~np.isnan(self.finish_s)

    @property
    def mean_sojourn_s(self) -> float:
        """Mean sojourn of the finished flows, seconds (NaN if none finished)."""
        done = self.completed
        return float(np.mean(self.sojourn_s[done])) if done.any() else math.nan


def _as_vector(name: str, values: object, n: int | None) -> np.ndarray:
    try:
        arr = np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"{name}={values!r} is not allowed: must be a number or a 1-D sequence of numbers") from None
    if arr.ndim == 0 and n is not None:
        arr = np.full(n, float(arr))
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a scalar or a 1-D array, got shape {arr.shape}")
    if n is not None and arr.shape[0] != n:
        raise ValueError(f"{name} has {arr.shape[0]} entries but arrival_s has {n}: they must match")
    return np.ascontiguousarray(arr)


def _check_elements(name: str, arr: np.ndarray, bad: np.ndarray, allowed: str) -> None:
    if bad.any():
        i = int(np.argmax(bad))
        raise ValueError(f"{name}[{i}]={arr[i]!r} is out of range: must be {allowed}")


def simulate_flows(
    arrival_s,
    size_bytes,
    cap_Bps=math.inf,
    capacity_Bps: float = 1.25e6,
    *,
    horizon_s: float = math.inf,
    capacity_change_s=(),
    capacity_change_Bps=(),
) -> FluidResult:
    """Return the per-flow start/finish/sojourn (seconds) of flows sharing one bottleneck max-min fairly.

    ``arrival_s`` (s, >= 0, any order), ``size_bytes`` (> 0) and ``cap_Bps`` (bytes/s, > 0 or inf; a scalar
    applies to all flows) describe the flows; ``capacity_Bps`` is the bottleneck capacity (bytes/s) until
    the optional piecewise-constant schedule sets it to ``capacity_change_Bps[j]`` at
    ``capacity_change_s[j]``. Events up to ``horizon_s`` are processed; flows unfinished then keep NaN
    finish times and report their ``remaining_bytes``. Deterministic: no random draws.
    """
    arrival = _as_vector("arrival_s", arrival_s, None)
    n = arrival.shape[0]
    size = _as_vector("size_bytes", size_bytes, n)
    caps = _as_vector("cap_Bps", cap_Bps, n)
    _check_elements("arrival_s", arrival, ~(np.isfinite(arrival) & (arrival >= 0)), "a finite number >= 0")
    _check_elements("size_bytes", size, ~(np.isfinite(size) & (size > 0)), "a finite number > 0")
    _check_elements("cap_Bps", caps, np.isnan(caps) | (caps <= 0), "a number > 0 or inf")
    capacity = check_real("capacity_Bps", capacity_Bps, 0.0, lo_open=True)
    horizon = _check_positive_or_inf("horizon_s", horizon_s)
    ch_t = _as_vector("capacity_change_s", capacity_change_s, None)
    ch_c = np.ascontiguousarray(np.asarray(capacity_change_Bps, dtype=np.float64))
    if ch_c.shape != ch_t.shape:
        raise ValueError(
            f"capacity_change_Bps has shape {ch_c.shape} but capacity_change_s has {ch_t.shape}: "
            "they must match"
        )
    _check_elements("capacity_change_s", ch_t, ~(np.isfinite(ch_t) & (ch_t >= 0)), "a finite number >= 0")
    _check_elements("capacity_change_Bps", ch_c, ~(np.isfinite(ch_c) & (ch_c > 0)), "a finite number > 0")

    start, finish, delivered, remaining, stats = fluid_kernel(
        arrival, size, caps, ch_t, ch_c, capacity, horizon
    )
    sojourn = finish - arrival
    arrays = [arrival.copy(), size.copy(), caps.copy(), start, finish, sojourn, delivered, remaining]
    for a in arrays:
        a.setflags(write=False)
    return FluidResult(
        *arrays,
        end_s=float(stats[0]),
        busy_s=float(stats[1]),
        total_delivered_bytes=float(stats[2]),
        n_events=int(stats[3]),
    )


def poisson_flows(params: FluidParams, seed: SeedLike) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(arrival_s, size_bytes, cap_Bps)``: Poisson arrivals (s), random sizes (bytes), caps (B/s).

    Draw order: ``n_flows`` exponential inter-arrival times (mean ``1/arrival_rate_per_s``), then
    ``n_flows`` exponential sizes (mean ``mean_size_bytes``; not drawn when sizes are deterministic).
    """
    if not isinstance(params, FluidParams):
        raise ValueError(f"params={params!r} is not allowed: must be a FluidParams")
    rng = make_generator(seed)
    n = params.n_flows
    arrival = np.cumsum(rng.exponential(1.0 / params.arrival_rate_per_s, n))
    if params.size_distribution == "exponential":
        size = rng.exponential(params.mean_size_bytes, n)
        # an exponential draw is > 0 with probability 1, but 0.0 is representable: keep sizes valid
        size = np.maximum(size, np.nextafter(0.0, 1.0))
    else:
        size = np.full(n, float(params.mean_size_bytes))
    caps = np.full(n, float(params.access_rate_Bps))
    return arrival, size, caps


def simulate_fluid(params: FluidParams, seed: SeedLike) -> FluidResult:
    """Return the per-flow outcome (seconds, bytes) of ``params.n_flows`` Poisson flows on one bottleneck."""
    arrival, size, caps = poisson_flows(params, seed)
    return simulate_flows(arrival, size, caps, params.capacity_Bps, horizon_s=params.horizon_s)


def fluid_summary(*, seed: SeedLike, **params) -> dict[str, float]:
    """Return scalar summaries of one ``simulate_fluid`` run: seconds, bytes/s, fractions; for sweeps.

    ``params`` are ``FluidParams`` fields; suits ``simcore.sweep.run_sweep(fluid_summary, grid, seeds)``.
    Keys: ``load`` (offered, dimensionless), ``mean_sojourn_s`` (finished flows), ``completed_fraction``,
    ``busy_fraction`` (of the run time), ``throughput_Bps`` (bytes delivered per second of run time),
    ``n_events``.
    """
    names = [f.name for f in dataclasses.fields(FluidParams)]
    unknown = sorted(set(params) - set(names))
    if unknown:
        raise ValueError(f"fluid_summary: unknown parameter(s) {unknown!r}: must be among {names!r}")
    p = FluidParams(**params)
    r = simulate_fluid(p, seed)
    end = r.end_s if r.end_s > 0 else math.nan
    return {
        "load": p.load,
        "mean_sojourn_s": r.mean_sojourn_s,
        "completed_fraction": float(r.completed.mean()),
        "busy_fraction": r.busy_s / end,
        "throughput_Bps": r.total_delivered_bytes / end,
        "n_events": r.n_events,
    }


def ps_mean_sojourn_s(arrival_rate_per_s: float, mean_size_bytes: float, capacity_Bps: float) -> float:
    """Return the M/G/1 processor-sharing mean sojourn E[S]/(1-rho) in seconds (= 1/(mu-lambda) for M/M/1).

    E[S] = mean_size_bytes / capacity_Bps is the mean service time alone; rho = arrival_rate * E[S] must be
    below 1. The result holds for any size distribution with that mean (insensitivity of PS).
    """
    lam = check_real("arrival_rate_per_s", arrival_rate_per_s, 0.0, lo_open=True)
    size = check_real("mean_size_bytes", mean_size_bytes, 0.0, lo_open=True)
    cap = check_real("capacity_Bps", capacity_Bps, 0.0, lo_open=True)
    service_s = size / cap
    rho = lam * service_s
    if rho >= 1.0:
        raise ValueError(
            f"arrival_rate_per_s={arrival_rate_per_s!r} gives load rho={rho:g}: must be < 1 for a finite mean"
        )
    return service_s / (1.0 - rho)
