"""FIFO multi-server queue (M/M/c, M/D/c, M/G/c; finite or infinite buffer): parameters, run, result."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from simcore._validate import check_choice, check_int, check_real, most_within_memory, store_python_numbers
from simcore.queueing._kernel import fifo_queue_kernel
from simcore.rng import SeedLike, make_generator
from simcore.stats import batch_means_ci

__all__ = ["QueueParams", "QueueResult", "simulate_queue", "SERVICE_DISTRIBUTIONS", "draw_workload",
           "draw_service"]

SERVICE_DISTRIBUTIONS = ("exponential", "deterministic", "general")

ServiceSampler = Callable[[np.random.Generator, int], np.ndarray]


# Bytes a run keeps per customer (measured: 42): arrival and service times, wait, departure, the FIFO ring
# of waiting customers (8 each), blocked (1), and the statistics' temporaries (a mask and a copy of the
# departures): 64 with margin.
BYTES_PER_CUSTOMER = 64
MAX_CUSTOMERS, _CUSTOMERS_WHY = most_within_memory(BYTES_PER_CUSTOMER, "customer")


@dataclass(frozen=True)
class QueueParams:
    """A FIFO queue with Poisson arrivals and ``servers`` identical servers.

    arrival_rate_per_s: Poisson arrival rate lambda, customers per second, in (0, 1e9].
    mean_service_s: mean service time E[S], seconds, in (0, 1e6].
    servers: number of servers c, in [1, 10000].
    service: 'exponential' (M/M/c), 'deterministic' (M/D/c) or 'general' (M/G/c, needs service_sampler).
    service_sampler: for 'general', ``sampler(rng, n) -> n service times in seconds``; its sample mean
        should be ``mean_service_s`` (used only for utilisation and theory curves).
    buffer_size: waiting places (not counting those in service), an int in [0, 10**9], or None for an
        infinite buffer. A customer arriving to a full system is blocked (lost).
    n_customers: arrivals to simulate, in [1, 16,777,216] (64 bytes each: at most 1 GiB).
    warmup_customers: the first arrivals left out of the statistics, in [0, n_customers - 1].
    """

    arrival_rate_per_s: float = 0.8
    mean_service_s: float = 1.0
    servers: int = 1
    service: str = "exponential"
    service_sampler: ServiceSampler | None = field(default=None, compare=False)
    buffer_size: int | None = None
    n_customers: int = 100_000
    warmup_customers: int = 0

    def __post_init__(self):
        store_python_numbers(self)
        check_real("arrival_rate_per_s", self.arrival_rate_per_s, 0.0, 1e9, lo_open=True)
        check_real("mean_service_s", self.mean_service_s, 0.0, 1e6, lo_open=True)
        check_int("servers", self.servers, 1, 10_000)
        check_choice("service", self.service, SERVICE_DISTRIBUTIONS)
        if self.service_sampler is not None and not callable(self.service_sampler):
            raise ValueError(f"service_sampler={self.service_sampler!r} is not allowed: must be None or a callable "
                             "sampler(rng, n) -> array of n service times in seconds")
        if self.service == "general" and not callable(self.service_sampler):
            raise ValueError(
                f"service_sampler={self.service_sampler!r} is not allowed: service='general' needs a "
                "callable sampler(rng, n) -> array of n service times in seconds"
            )
        if self.buffer_size is not None:
            check_int("buffer_size", self.buffer_size, 0, 10**9)
        check_int("n_customers", self.n_customers, 1, MAX_CUSTOMERS, why=_CUSTOMERS_WHY)
        check_int("warmup_customers", self.warmup_customers, 0, self.n_customers - 1)

    @property
    def utilisation(self) -> float:
        """Offered load per server rho = lambda E[S] / c, dimensionless."""
        return self.arrival_rate_per_s * self.mean_service_s / self.servers

    @property
    def max_in_system(self) -> int:
        """Capacity of the system including customers in service, or -1 for infinite."""
        return -1 if self.buffer_size is None else self.servers + self.buffer_size


@dataclass(frozen=True)
class QueueResult:
    """Per-customer records of one run (arrays indexed by arrival order), seconds.

    wait_s and departure_s are NaN for blocked customers. ``area_customer_s`` is the integral of the
    number in system over [0, horizon_s], ``busy_server_s`` that of the number of busy servers.
    """

    params: QueueParams
    arrival_s: np.ndarray
    service_s: np.ndarray
    wait_s: np.ndarray
    departure_s: np.ndarray
    blocked: np.ndarray
    area_customer_s: float
    busy_server_s: float
    horizon_s: float
    n_events: int

    def _kept(self) -> np.ndarray:
        keep = ~self.blocked
        keep[: self.params.warmup_customers] = False
        return keep

    @property
    def mean_wait_s(self) -> float:
        """Mean time in queue of served customers after warm-up, seconds."""
        return float(np.mean(self.wait_s[self._kept()]))

    @property
    def mean_sojourn_s(self) -> float:
        """Mean time in system (queue + service) of served customers after warm-up, seconds."""
        k = self._kept()
        return float(np.mean(self.departure_s[k] - self.arrival_s[k]))

    def wait_ci95_s(self, n_batches: int = 20) -> tuple[float, float]:
        """Return (mean wait, 95% half-width) by batch means over served customers after warm-up, s."""
        return batch_means_ci(self.wait_s[self._kept()], n_batches)

    @property
    def blocking_probability(self) -> float:
        """Fraction of arrivals after warm-up that were blocked, dimensionless."""
        return float(np.mean(self.blocked[self.params.warmup_customers :]))

    @property
    def time_average_in_system(self) -> float:
        """L: time-average number in system over the whole run [0, horizon_s], customers."""
        return self.area_customer_s / self.horizon_s if self.horizon_s > 0 else 0.0

    @property
    def throughput_per_s(self) -> float:
        """Served customers per second over the whole run [0, horizon_s]."""
        served = int(np.count_nonzero(~self.blocked))
        return served / self.horizon_s if self.horizon_s > 0 else 0.0

    @property
    def whole_run_mean_sojourn_s(self) -> float:
        """W over every served customer (warm-up included), seconds: Little's law gives L = X W exactly."""
        k = ~self.blocked
        return float(np.mean(self.departure_s[k] - self.arrival_s[k]))


def draw_service(params: QueueParams, rng: np.random.Generator, n: int) -> np.ndarray:
    """Return ``n`` service times in seconds drawn from ``rng`` for ``params.service`` (deterministic: no draw)."""
    if params.service == "exponential":
        return rng.exponential(params.mean_service_s, n)
    if params.service == "deterministic":
        return np.full(n, float(params.mean_service_s))
    service_s = np.asarray(params.service_sampler(rng, n), dtype=np.float64)
    if service_s.shape != (n,) or not np.all(np.isfinite(service_s)) or np.any(service_s < 0):
        raise ValueError(
            f"service_sampler returned {service_s.shape} values: must return {n} finite, "
            "non-negative service times in seconds"
        )
    return service_s


def draw_workload(params: QueueParams, seed: SeedLike) -> tuple[np.ndarray, np.ndarray]:
    """Return (arrival_s, service_s) arrays drawn from ``seed``: first n inter-arrival gaps, then n
    service times, in that order (so a change of service distribution leaves arrivals unchanged)."""
    rng = make_generator(seed)
    n = params.n_customers
    arrival_s = np.cumsum(rng.exponential(1.0 / params.arrival_rate_per_s, n))
    return arrival_s, draw_service(params, rng, n)


def simulate_queue(params: QueueParams, seed: SeedLike) -> QueueResult:
    """Run the FIFO queue for ``params``; return per-customer waits and time-integrals (seconds)."""
    if not isinstance(params, QueueParams):
        raise ValueError(f"params={params!r} is not allowed: must be a QueueParams")
    arrival_s, service_s = draw_workload(params, seed)
    wait_s, departure_s, blocked, area, busy_area, n_events = fifo_queue_kernel(
        arrival_s, service_s, params.servers, params.max_in_system
    )
    served = ~blocked
    horizon_s = float(np.max(departure_s[served])) if served.any() else float(arrival_s[-1])
    return QueueResult(
        params=params,
        arrival_s=arrival_s,
        service_s=service_s,
        wait_s=wait_s,
        departure_s=departure_s,
        blocked=blocked,
        area_customer_s=float(area),
        busy_server_s=float(busy_area),
        horizon_s=horizon_s,
        n_events=int(n_events),
    )
