"""A synthetic stand-in for the NZIX HTTP trace of Pearson & McGregor (the real trace is not available).

The paper's workload unit is one *day-trace*: the successful international requests of the 3:00-3:10 pm
interval of one day in July 1997, about 421 per 10 minutes (sec. 3). Heavier loads merge the traces of
successive days, then offset copies of them (sec. 3). We draw ``n_days`` independent day-traces and
compose loads the same way (``merge_traces``). Each request carries what the paper's hostfile and logfile
gave its simulator: request and reply sizes, the server's MSS and TCP buffer ("as measured"), the one-way
delay of the US cloud and the rate at which the reply is released to the US side (sec. 4, "HTTP traffic
model"). Which distributions we chose and why: ``simcore/satellite/ASSUMPTIONS.md``.

Draw order (documented, so one seed gives one set of day-traces): ``make_generator(seed)`` draws one
uint64 seed per day in day order; day ``d`` then draws from its own generator, in this order: the number
of requests (Poisson), their times (uniform on the interval, sorted), request sizes, reply sizes (body or
tail: one uniform each; body lognormal redrawn above the tail start; tail truncated Pareto by inversion),
server MSS, server window, US one-way delay, release rate. A day's trace does not depend on ``n_days``.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, fields

import numpy as np

from simcore._validate import (
    check_int,
    check_order,
    check_real,
    check_sequence,
    most_within_memory,
    store_python_numbers,
)
from simcore.rng import SeedLike, make_generator

__all__ = [
    "WorkloadParams",
    "Workload",
    "day_traces",
    "merge_traces",
    "make_workload",
    "sample_pages",
    "reply_mean_bytes",
    "request_mean_bytes",
    "reply_quantile_bytes",
]


def _check_discrete(name: str, values, probs, lo: int, hi: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    values = check_sequence(f"{name}_values", values, "integers")
    probs = check_sequence(f"{name}_probs", probs, "probabilities")
    vals = tuple(check_int(f"{name}_values[{i}]", v, lo, hi) for i, v in enumerate(values))
    ps = tuple(check_real(f"{name}_probs[{i}]", p, 0.0, 1.0) for i, p in enumerate(probs))
    if len(vals) == 0 or len(vals) != len(ps):
        raise ValueError(f"{name}_values and {name}_probs must be non-empty and of equal length, "
                         f"got {len(vals)} and {len(ps)}")
    if abs(sum(ps) - 1.0) > 1e-9:
        raise ValueError(f"{name}_probs={ps!r} is not allowed: must sum to 1 (sum {sum(ps)!r})")
    return vals, ps


# Bytes per request drawn for the day-traces (nine 8-byte columns, the per-day parts before their
# concatenation, the sort's temporaries): 256 with margin.
BYTES_PER_DRAWN_REQUEST = 256
MAX_DRAWN, _DRAWN_WHY = most_within_memory(BYTES_PER_DRAWN_REQUEST, "request drawn")


@dataclass(frozen=True)
class WorkloadParams:
    """Distributions of the synthetic day-traces (sizes in bytes, times in seconds, rates in bits/s).

    Reply size: with probability ``1 - reply_tail_prob`` a lognormal body (median, sigma of the log)
    restricted to below ``reply_tail_start_bytes``; else a Pareto tail of index ``reply_tail_alpha`` from
    ``reply_tail_start_bytes``, truncated at ``reply_max_bytes``. Request size: lognormal, clipped to
    [``request_min_bytes``, ``request_max_bytes``]. Server MSS and window: discrete distributions (values,
    probabilities). US one-way delay and release rate: lognormal (median, sigma of the log), clipped.
    """

    interval_s: float = 600.0
    requests_per_interval: float = 421.0
    n_days: int = 31
    request_median_bytes: float = 300.0
    request_sigma: float = 0.35
    request_min_bytes: int = 64
    request_max_bytes: int = 4096
    reply_body_median_bytes: float = 3000.0
    reply_body_sigma: float = 1.2
    reply_tail_start_bytes: float = 25_000.0
    reply_tail_prob: float = 0.07
    reply_tail_alpha: float = 1.2
    reply_max_bytes: float = 10_000_000.0
    mss_values: tuple[int, ...] = (1480, 1460, 536, 512, 1380)
    mss_probs: tuple[float, ...] = (0.40, 0.35, 0.15, 0.05, 0.05)
    window_values: tuple[int, ...] = (4096, 8192, 8760, 16384, 17520, 24820, 32768, 65535)
    window_probs: tuple[float, ...] = (0.05, 0.10, 0.25, 0.25, 0.10, 0.05, 0.10, 0.10)
    us_delay_median_s: float = 0.030
    us_delay_sigma: float = 0.5
    us_delay_max_s: float = 0.200
    release_median_bps: float = 1.0e6
    release_sigma: float = 1.0
    release_min_bps: float = 32e3
    release_max_bps: float = 100e6
    n_sample_pages: int = 20

    def __post_init__(self):
        store_python_numbers(self)
        check_real("interval_s", self.interval_s, 0.0, 86400.0, lo_open=True)
        check_real("requests_per_interval", self.requests_per_interval, 0.0, 1e6, lo_open=True)
        check_int("n_days", self.n_days, 1, 366)
        check_int("n_days", self.n_days, 1, max(1, int(MAX_DRAWN // self.requests_per_interval)),
                  why=f"{self.requests_per_interval:g} requests a day, {_DRAWN_WHY}")
        check_real("request_median_bytes", self.request_median_bytes, 1.0, 1e6)
        check_real("request_sigma", self.request_sigma, 0.0, 5.0)
        check_int("request_min_bytes", self.request_min_bytes, 1, 10**6)
        check_int("request_max_bytes", self.request_max_bytes, 1, 10**6)
        check_order("request_min_bytes", self.request_min_bytes, "request_max_bytes", self.request_max_bytes)
        check_real("reply_body_median_bytes", self.reply_body_median_bytes, 1.0, 1e9)
        check_real("reply_body_sigma", self.reply_body_sigma, 0.0, 5.0, lo_open=True)
        check_real("reply_tail_start_bytes", self.reply_tail_start_bytes, 2.0, 1e9)
        check_real("reply_tail_prob", self.reply_tail_prob, 0.0, 1.0, hi_open=True)
        check_real("reply_tail_alpha", self.reply_tail_alpha, 0.1, 10.0)
        check_real("reply_max_bytes", self.reply_max_bytes, 2.0, 1e12, lo_open=True)
        check_order("reply_tail_start_bytes", self.reply_tail_start_bytes, "reply_max_bytes", self.reply_max_bytes,
                    strict=True)
        if self.reply_body_median_bytes >= self.reply_tail_start_bytes:
            raise ValueError(f"reply_body_median_bytes={self.reply_body_median_bytes!r} is out of range: must be "
                             f"below reply_tail_start_bytes={self.reply_tail_start_bytes!r}")
        m = _check_discrete("mss", self.mss_values, self.mss_probs, 64, 65495)
        w = _check_discrete("window", self.window_values, self.window_probs, 512, 65535)
        object.__setattr__(self, "mss_values", m[0])
        object.__setattr__(self, "mss_probs", m[1])
        object.__setattr__(self, "window_values", w[0])
        object.__setattr__(self, "window_probs", w[1])
        check_real("us_delay_median_s", self.us_delay_median_s, 0.0, 1.0, lo_open=True)
        check_real("us_delay_sigma", self.us_delay_sigma, 0.0, 5.0)
        check_real("us_delay_max_s", self.us_delay_max_s, 0.0, 10.0, lo_open=True)
        check_order("us_delay_median_s", self.us_delay_median_s, "us_delay_max_s", self.us_delay_max_s)
        check_real("release_median_bps", self.release_median_bps, 1e3, 1e10)
        check_real("release_sigma", self.release_sigma, 0.0, 5.0)
        check_real("release_min_bps", self.release_min_bps, 1e3, 1e11)
        check_real("release_max_bps", self.release_max_bps, 1e3, 1e11)
        check_order("release_min_bps", self.release_min_bps, "release_median_bps", self.release_median_bps)
        check_order("release_median_bps", self.release_median_bps, "release_max_bps", self.release_max_bps)
        check_int("n_sample_pages", self.n_sample_pages, 1, 1000)


@dataclass(frozen=True)
class Workload:
    """Requests sorted by time (one row per request; arrays of equal length, units in names).

    ``day`` is the day-trace a request comes from, ``copy`` which offset copy of it (0 = the original).
    """

    time_s: np.ndarray
    request_bytes: np.ndarray
    reply_bytes: np.ndarray
    server_mss_bytes: np.ndarray
    server_window_bytes: np.ndarray
    us_delay_s: np.ndarray
    release_rate_bps: np.ndarray
    day: np.ndarray
    copy: np.ndarray

    def __len__(self) -> int:
        return int(self.time_s.shape[0])

    def take(self, idx: np.ndarray) -> Workload:
        """Return the requests at ``idx`` (an index or boolean array), in that order."""
        return Workload(**{f.name: getattr(self, f.name)[idx] for f in fields(self)})

    def presented_load_bps(self, duration_s: float) -> float:
        """Return the reply bytes of the requests made in [0, duration_s), as bits/s over ``duration_s``."""
        check_real("duration_s", duration_s, 0.0, lo_open=True)
        return float(self.reply_bytes[self.time_s < duration_s].sum()) * 8.0 / duration_s


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def _reply_sizes(p: WorkloadParams, rng: np.random.Generator, n: int) -> np.ndarray:
    tail = rng.uniform(size=n) < p.reply_tail_prob
    mu, s, c = math.log(p.reply_body_median_bytes), p.reply_body_sigma, p.reply_tail_start_bytes
    body = rng.lognormal(mu, s, size=n)
    bad = body >= c
    while bad.any():  # the body restricted to below the tail start: redraw (a fixed, seeded order)
        body[bad] = rng.lognormal(mu, s, size=int(bad.sum()))
        bad = body >= c
    u = rng.uniform(size=n)
    a, k, M = p.reply_tail_alpha, c, p.reply_max_bytes
    pareto = k * (1.0 - u * (1.0 - (k / M) ** a)) ** (-1.0 / a)  # truncated Pareto by inversion
    return np.maximum(1, np.ceil(np.where(tail, pareto, body))).astype(np.int64)


def _lognormal_clipped(rng, median, sigma, lo, hi, n):
    return np.clip(rng.lognormal(math.log(median), sigma, size=n), lo, hi)


def _draw(p: WorkloadParams, rng: np.random.Generator, n: int) -> dict:
    req = np.rint(_lognormal_clipped(rng, p.request_median_bytes, p.request_sigma, p.request_min_bytes,
                                     p.request_max_bytes, n)).astype(np.int64)
    reply = _reply_sizes(p, rng, n)
    mss = np.asarray(p.mss_values, np.int64)[rng.choice(len(p.mss_values), size=n, p=p.mss_probs)]
    win = np.asarray(p.window_values, np.int64)[rng.choice(len(p.window_values), size=n, p=p.window_probs)]
    delay = _lognormal_clipped(rng, p.us_delay_median_s, p.us_delay_sigma, 0.001, p.us_delay_max_s, n)
    rate = _lognormal_clipped(rng, p.release_median_bps, p.release_sigma, p.release_min_bps,
                              p.release_max_bps, n)
    return dict(request_bytes=req, reply_bytes=reply, server_mss_bytes=mss, server_window_bytes=win,
                us_delay_s=delay, release_rate_bps=rate)


def day_traces(params: WorkloadParams, seed: SeedLike) -> Workload:
    """Return the ``params.n_days`` day-traces, each a Poisson number (mean ``requests_per_interval``) of
    requests at uniform times on [0, interval_s), sorted by (day, time)."""
    if not isinstance(params, WorkloadParams):
        raise ValueError(f"params={params!r} is not allowed: must be a WorkloadParams")
    rng = make_generator(seed)
    day_seeds = rng.integers(0, 2**63, size=params.n_days)
    parts = []
    for d, s in enumerate(day_seeds):
        g = np.random.default_rng(int(s))
        n = int(g.poisson(params.requests_per_interval))
        t = np.sort(g.uniform(0.0, params.interval_s, size=n))
        parts.append(dict(time_s=t, **_draw(params, g, n), day=np.full(n, d, np.int64),
                          copy=np.zeros(n, np.int64)))
    return Workload(**{k: np.concatenate([q[k] for q in parts]) for k in parts[0]})


def merge_traces(days: Workload, n_traces: int, n_days: int, interval_s: float, *,
                 until_s: float | None = None) -> Workload:
    """Return ``n_traces`` day-traces merged into one interval, as the paper made heavier loads (sec. 3).

    Trace j is day ``j % n_days``, copy ``j // n_days``: first the successive days, then copies of them.
    With ``C = ceil(n_traces / n_days)`` copies in all, copy c is shifted by ``c * interval_s / C``
    (wrapping round the interval), spreading the copies evenly to weaken the artificial self-correlation.
    ``until_s``: keep only the requests made before it (the same rows, in the same order, as taking
    ``time_s < until_s`` of the whole merge; a run shorter than the interval sorts only its own requests).
    """
    check_int("n_traces", n_traces, 1, 10**5)
    check_int("n_days", n_days, 1, 366)
    if until_s is not None:
        check_real("until_s", until_s, 0.0)
    n_copies = -(-n_traces // n_days)
    of_day = [np.flatnonzero(days.day == d) for d in range(min(n_days, n_traces))]
    rows = np.concatenate([of_day[j % n_days] for j in range(n_traces)]).astype(np.int64)
    copy = np.concatenate([np.full(of_day[j % n_days].size, j // n_days, np.int64) for j in range(n_traces)])
    time_s = np.mod(days.time_s[rows] + copy * interval_s / n_copies, interval_s)
    if until_s is not None:  # a stable sort of a subset keeps the subset's order: filter first
        keep = time_s < until_s
        rows, copy, time_s = rows[keep], copy[keep], time_s[keep]
    order = np.lexsort((copy, days.day[rows], time_s))  # by time; ties by day, then copy
    rows = rows[order]
    return Workload(**{**{f.name: getattr(days, f.name)[rows] for f in fields(days)},
                       "copy": copy[order], "time_s": time_s[order]})


def make_workload(params: WorkloadParams, n_traces: int, seed: SeedLike) -> Workload:
    """Return the merged workload of ``n_traces`` day-traces drawn from ``seed``."""
    return merge_traces(day_traces(params, seed), n_traces, params.n_days, params.interval_s)


def _body_cdf(p: WorkloadParams, x: float) -> float:
    mu, s = math.log(p.reply_body_median_bytes), p.reply_body_sigma
    return _phi((math.log(x) - mu) / s) / _phi((math.log(p.reply_tail_start_bytes) - mu) / s)


def reply_quantile_bytes(params: WorkloadParams, q: float) -> float:
    """Return the ``q``-quantile of the reply-size distribution (before rounding up to whole bytes)."""
    check_real("q", q, 0.0, 1.0, lo_open=True, hi_open=True)
    p = params
    pb = 1.0 - p.reply_tail_prob
    if q < pb:  # invert the restricted body by bisection on the log scale
        lo, hi = -50.0, math.log(p.reply_tail_start_bytes)
        for _ in range(200):
            mid = 0.5 * (lo + hi)
            lo, hi = (mid, hi) if _body_cdf(p, math.exp(mid)) < q / pb else (lo, mid)
        return math.exp(0.5 * (lo + hi))
    a, k, M = p.reply_tail_alpha, p.reply_tail_start_bytes, p.reply_max_bytes
    u = (q - pb) / p.reply_tail_prob
    return k * (1.0 - u * (1.0 - (k / M) ** a)) ** (-1.0 / a)


def reply_mean_bytes(params: WorkloadParams) -> float:
    """Return the mean of the reply-size distribution in closed form (before rounding up to whole bytes)."""
    p = params
    mu, s, c = math.log(p.reply_body_median_bytes), p.reply_body_sigma, p.reply_tail_start_bytes
    body = math.exp(mu + s * s / 2.0) * _phi((math.log(c) - mu - s * s) / s) / _phi((math.log(c) - mu) / s)
    a, k, M = p.reply_tail_alpha, c, p.reply_max_bytes
    if abs(a - 1.0) < 1e-12:
        tail = k * math.log(M / k) / (1.0 - k / M)
    else:
        tail = a * k**a / (a - 1.0) * (k ** (1.0 - a) - M ** (1.0 - a)) / (1.0 - (k / M) ** a)
    return (1.0 - p.reply_tail_prob) * body + p.reply_tail_prob * tail


def request_mean_bytes(params: WorkloadParams) -> float:
    """Return the mean request size, bytes (lognormal mean; the clipping is ignored: it moves < 0.1%)."""
    return params.request_median_bytes * math.exp(params.request_sigma**2 / 2.0)


@functools.lru_cache(maxsize=16)
def _sample_sizes(params: WorkloadParams) -> tuple[int, ...]:
    """Return the sample pages' reply sizes (``sample_pages``): 200 bisection steps per page in Python, the
    same for every run of a sweep, so computed once per ``WorkloadParams``."""
    n = params.n_sample_pages
    return tuple(math.ceil(reply_quantile_bytes(params, float(x))) for x in (np.arange(n) + 0.5) / n)


def sample_pages(params: WorkloadParams) -> Workload:
    """Return the fixed sample pages present in every run (no randomness: the same for every seed and load).

    Page i (of n) is requested at ``(i + 0.5) / n`` of the interval; its reply size is the ``(i + 0.5) / n``
    quantile of the reply-size distribution, so the set spans the distribution evenly; its request size,
    server and US path are the medians/modes (MSS and window: the most probable value).
    """
    n = params.n_sample_pages
    q = (np.arange(n) + 0.5) / n
    sizes = np.array(_sample_sizes(params), np.int64)
    mss = params.mss_values[int(np.argmax(params.mss_probs))]
    win = params.window_values[int(np.argmax(params.window_probs))]
    return Workload(
        time_s=q * params.interval_s,
        request_bytes=np.full(n, round(params.request_median_bytes), np.int64),
        reply_bytes=sizes,
        server_mss_bytes=np.full(n, mss, np.int64),
        server_window_bytes=np.full(n, win, np.int64),
        us_delay_s=np.full(n, params.us_delay_median_s),
        release_rate_bps=np.full(n, params.release_median_bps),
        day=np.full(n, -1, np.int64),
        copy=np.zeros(n, np.int64),
    )
