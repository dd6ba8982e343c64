"""Closed forms from queueing theory, used as oracles in tests and as reference curves in chapters.

All times are in seconds, rates per second. ``rho`` is the per-server utilisation
``arrival_rate_per_s * mean_service_s / servers``. Waits ``Wq`` are time in queue (before service);
sojourn ``W = Wq + E[S]``.
"""

from __future__ import annotations

import math

from simcore._validate import check_int, check_real

__all__ = [
    "erlang_b",
    "erlang_c",
    "mmc_mean_wait_s",
    "mg1_mean_wait_s",
    "md1_mean_wait_s",
    "mdc_mean_wait_approx_s",
    "mmck_blocking",
    "mm1_ps_mean_sojourn_s",
    "mean_wait_s",
]


def erlang_b(servers: int, offered_load_erlangs: float) -> float:
    """Return the Erlang B blocking probability (M/M/c/c loss system), dimensionless in [0, 1].

    Uses the stable recursion B(0) = 1, B(k) = A B(k-1) / (k + A B(k-1)).
    """
    c = check_int("servers", servers, 0, 100_000)
    a = check_real("offered_load_erlangs", offered_load_erlangs, 0.0)
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def erlang_c(servers: int, offered_load_erlangs: float) -> float:
    """Return the Erlang C probability that an arrival waits (M/M/c), dimensionless in [0, 1].

    Requires a stable queue: ``offered_load_erlangs < servers``.
    """
    c = check_int("servers", servers, 1, 100_000)
    a = check_real("offered_load_erlangs", offered_load_erlangs, 0.0, float(c), hi_open=True)
    b = erlang_b(c, a)
    rho = a / c
    return b / (1.0 - rho + rho * b)


def mmc_mean_wait_s(arrival_rate_per_s: float, mean_service_s: float, servers: int) -> float:
    """Return the M/M/c mean time in queue Wq = C(c, A) E[S] / (c (1 - rho)), seconds."""
    lam = check_real("arrival_rate_per_s", arrival_rate_per_s, 0.0, lo_open=True)
    es = check_real("mean_service_s", mean_service_s, 0.0, lo_open=True)
    c = check_int("servers", servers, 1, 100_000)
    a = lam * es
    if a >= c:
        return math.inf
    return erlang_c(c, a) * es / (c * (1.0 - a / c))


def mg1_mean_wait_s(arrival_rate_per_s: float, mean_service_s: float, service_scv: float) -> float:
    """Return the Pollaczek-Khinchine M/G/1 mean time in queue, seconds.

    Wq = rho E[S] (1 + Cs^2) / (2 (1 - rho)), with Cs^2 the squared coefficient of variation of service.
    """
    lam = check_real("arrival_rate_per_s", arrival_rate_per_s, 0.0, lo_open=True)
    es = check_real("mean_service_s", mean_service_s, 0.0, lo_open=True)
    scv = check_real("service_scv", service_scv, 0.0)
    rho = lam * es
    if rho >= 1.0:
        return math.inf
    return rho * es * (1.0 + scv) / (2.0 * (1.0 - rho))


def md1_mean_wait_s(arrival_rate_per_s: float, mean_service_s: float) -> float:
    """Return the M/D/1 mean time in queue (Pollaczek-Khinchine with Cs^2 = 0), seconds."""
    return mg1_mean_wait_s(arrival_rate_per_s, mean_service_s, 0.0)


def mdc_mean_wait_approx_s(arrival_rate_per_s: float, mean_service_s: float, servers: int) -> float:
    """Return the Allen-Cunneen approximation of the M/D/c mean time in queue, seconds.

    Wq(M/D/c) ~ Wq(M/M/c) (1 + Cs^2) / 2 with Cs^2 = 0. Exact for c = 1 (it is then Pollaczek-Khinchine);
    an approximation for c > 1 (within a few percent at moderate load, an underestimate near saturation).
    """
    return 0.5 * mmc_mean_wait_s(arrival_rate_per_s, mean_service_s, servers)


def mmck_blocking(servers: int, buffer_size: int, offered_load_erlangs: float) -> float:
    """Return the blocking probability of M/M/c/K with K = servers + buffer_size, dimensionless.

    Stationary distribution p_n proportional to A^n / n! for n <= c and A^c / c! (A/c)^(n-c) above;
    by PASTA an arrival is blocked with probability p_K. With buffer_size = 0 this is Erlang B.
    """
    c = check_int("servers", servers, 1, 100_000)
    b = check_int("buffer_size", buffer_size, 0, 10_000_000)
    a = check_real("offered_load_erlangs", offered_load_erlangs, 0.0)
    terms = [1.0]
    for n in range(1, c + b + 1):
        terms.append(terms[-1] * a / min(n, c))
    return terms[-1] / math.fsum(terms)


def mm1_ps_mean_sojourn_s(arrival_rate_per_s: float, service_rate_per_s: float) -> float:
    """Return the M/M/1 processor-sharing (and FIFO) mean sojourn 1 / (mu - lambda), seconds."""
    lam = check_real("arrival_rate_per_s", arrival_rate_per_s, 0.0, lo_open=True)
    mu = check_real("service_rate_per_s", service_rate_per_s, 0.0, lo_open=True)
    if lam >= mu:
        return math.inf
    return 1.0 / (mu - lam)


def mean_wait_s(arrival_rate_per_s: float, mean_service_s: float, servers: int, service: str) -> float:
    """Return the reference mean time in queue for 'exponential' or 'deterministic' service, seconds.

    Exact for M/M/c (Erlang C) and M/D/1 (Pollaczek-Khinchine); Allen-Cunneen approximation for M/D/c.
    """
    if service == "exponential":
        return mmc_mean_wait_s(arrival_rate_per_s, mean_service_s, servers)
    if service == "deterministic":
        if servers == 1:
            return md1_mean_wait_s(arrival_rate_per_s, mean_service_s)
        return mdc_mean_wait_approx_s(arrival_rate_per_s, mean_service_s, servers)
    raise ValueError(f"service={service!r} is not allowed: must be one of ['exponential', 'deterministic']")
