"""The two architectures of Pearson & McGregor as packet-level scenarios, and ``simulate_satellite``.

``build_satellite(params, seed)`` returns the ``BulkScenario`` and a ``Plan`` (which message and connection
stands for what); ``simulate_satellite(params, seed)`` runs it and returns a ``SatelliteResult``.

Per request i made at time t (message indices in brackets):
- base: connection NZ proxy -> server slot, opened at t, closed by the server (HTTP/1.0); the request
  [2i] is written at t, the reply [2i+1] when the request has reached the server.
- us_proxy: connections 0..N-1 are the persistent inter-proxy connections (one pool, rule
  'fewest_outstanding'). The request [4i] goes on the pool at t; when it reaches the US proxy, the proxy
  opens a connection to the server slot and forwards it [4i+1]; the server replies [4i+2]; the US proxy
  sends the reply to NZ on the pool [4i+3] with ``mux_overhead_bytes`` per server segment added, either
  once it has all arrived ('store_and_forward') or as it arrives ('cut_through', a relay; the pool
  connection is then chosen when the first reply segment is due at the proxy).
Random draws: the workload's (``day_traces``, from ``seed``); the packet level draws nothing (no losses).
"""

from __future__ import annotations

import functools
import math
import time
from dataclasses import dataclass

import numpy as np

from simcore.packet import BulkScenario, ConnectionPool, FluidBackground, LinkParams, simulate
from simcore.rng import SeedLike, make_generator

from ._slots import assign
from .network import NZ, SAT_NZ_US, SAT_US_NZ, US, star_network
from .params import SatelliteParams, SatelliteResult
from .persistent import as_servers, persistent_columns, server_ids
from .tcp import era_tcp
from .workload import Workload, day_traces, merge_traces, sample_pages

__all__ = ["Plan", "build_satellite", "simulate_satellite", "run_requests"]

_SLOT_QUEUE_PACKETS = 256  # > any window in packets (65535 / 512 = 128): the release never drops


@dataclass(frozen=True)
class Plan:
    """How a built scenario maps onto the study (one row per request: workload requests, then samples)."""

    made_s: np.ndarray  # when the request was made
    reply_bytes: np.ndarray  # the server's reply (without multiplexing overhead)
    is_sample: np.ndarray
    slot: np.ndarray  # server slot (node 2 + slot)
    request_msg: np.ndarray  # message written at made_s
    done_msg: np.ndarray  # message whose completion at the NZ proxy ends the request
    server_conn: np.ndarray  # the per-request connection to the server
    open_msg: np.ndarray  # us_proxy: the server connection opens when this message completes; base: -1
    n_slots: int


def _quantize(x: np.ndarray, lo: float, hi: float, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (class index, class centre) of ``k`` log-spaced classes spanning [lo, hi]."""
    edges = np.linspace(math.log(lo), math.log(hi), k + 1)
    idx = np.clip(np.searchsorted(edges, np.log(x), side="right") - 1, 0, k - 1)
    return idx, np.exp(0.5 * (edges[:-1] + edges[1:]))


def _requests(p: SatelliteParams, seed: SeedLike) -> tuple[Workload, np.ndarray]:
    wp = p.workload
    wl = merge_traces(day_traces(wp, seed), p.n_traces, wp.n_days, wp.interval_s, until_s=p.duration_s)
    sp = sample_pages(wp)
    n = len(sp)
    sp = Workload(**{**sp.__dict__, "time_s": (np.arange(n) + 0.5) / n * p.duration_s * p.sample_window_fraction})
    both = Workload(**{k: np.concatenate([getattr(wl, k), getattr(sp, k)]) for k in wl.__dict__})
    return both, np.r_[np.zeros(len(wl), bool), np.ones(n, bool)]


def _slot_inputs(p: SatelliteParams, w: Workload) -> tuple:
    """Return each request's (rate class, rate centres, delay class, delay centres), the time its server
    is first needed, and when its slot is free again by a generous estimate (``slot_slack`` x a nominal
    duration + 1 s)."""
    wp = p.workload
    r_idx, r_val = _quantize(w.release_rate_bps, wp.release_min_bps, wp.release_max_bps, p.n_rate_classes)
    d_idx, d_val = _quantize(w.us_delay_s, 0.001, wp.us_delay_max_s, p.n_delay_classes)
    base = p.architecture == "base"
    rate, delay = r_val[r_idx], d_val[d_idx]
    rtt = 2.0 * delay + (2.0 * p.satellite_delay_s if base else 0.0)
    win = np.minimum(w.server_window_bytes.astype(np.int64), p.proxy_window_bytes)
    size = w.reply_bytes.astype(np.float64)
    log2 = np.array([math.log2(x) for x in (1.0 + size / w.server_mss_bytes).tolist()])  # libm, as math does
    nominal = 2.0 * rtt + size * 8.0 / np.minimum(rate, win * 8.0 / rtt) + log2 * rtt
    start = (w.time_s + (0.0 if base else p.satellite_delay_s)).astype(np.float64)
    return (r_idx, r_val, d_idx, d_val), start, start + p.slot_slack * nominal + 1.0


@functools.lru_cache(maxsize=4096)
def _slot_link(rate_bps: float, delay_s: float) -> LinkParams:
    """Return a slot class's link (made once: every run of a sweep has the same ~140 classes)."""
    return LinkParams(rate_bps=rate_bps, delay_s=delay_s, queue_packets=_SLOT_QUEUE_PACKETS)


def _assign_slots(p: SatelliteParams, w: Workload) -> tuple[np.ndarray, list[LinkParams]]:
    """Give each request a server slot of its (rate, delay) class, reusing a slot once the previous request
    on it is over by a generous estimate (``_slot_inputs``)."""
    (r_idx, r_val, d_idx, d_val), start, free_after = _slot_inputs(p, w)
    key = r_idx.astype(np.int64) * p.n_delay_classes + d_idx.astype(np.int64)
    out, slot_key = assign(np.argsort(w.time_s, kind="stable").astype(np.int64), key, start, free_after,
                           p.n_rate_classes * p.n_delay_classes)
    keys = slot_key.tolist()
    nd = p.n_delay_classes
    per_class = {k: _slot_link(float(r_val[k // nd]), float(d_val[k % nd])) for k in set(keys)}  # ~140 classes
    return out, [per_class[k] for k in keys]


def build_satellite(params: SatelliteParams, seed: SeedLike, requests: Workload | None = None, *,
                    sample_mask: np.ndarray | None = None,
                    backgrounds: tuple[FluidBackground | None, FluidBackground | None] = (None, None),
                    ) -> tuple[BulkScenario, Plan]:
    """Return the scenario of one run (a ``BulkScenario``: columns, no object per request) and its ``Plan``.

    ``requests``: use exactly these requests instead of the seeded merged workload (with the sample pages);
    ``sample_mask`` marks which of them are sample pages (default: none). ``backgrounds``: fluid traffic
    on the NZ -> US and US -> NZ satellite links (the hybrid fast mode, ``simcore.satellite.hybrid``).
    """
    if not isinstance(params, SatelliteParams):
        raise ValueError(f"params={params!r} is not allowed: must be a SatelliteParams")
    p = params
    if requests is None:
        gen = make_generator(seed)
        w, is_sample = _requests(p, gen)
    elif isinstance(requests, Workload):
        w = requests
        is_sample = np.zeros(len(w), bool) if sample_mask is None else np.asarray(sample_mask, bool)
        if is_sample.shape != (len(w),):
            raise ValueError(f"sample_mask has shape {is_sample.shape}: must be ({len(w)},), one per request")
    else:
        raise ValueError(f"requests={requests!r} is not allowed: must be a Workload or None")
    sat = [LinkParams(rate_bps=p.satellite_rate_bps, delay_s=p.satellite_delay_s,
                      queue_packets=p.router_queue_packets, queue_bytes=p.router_buffer_bytes, background=bg)
           for bg in backgrounds]
    if p.http_version == "1.1":  # beyond the paper: persistent connections (simcore/satellite/persistent.py)
        rng = make_generator(seed) if requests is not None else gen
        n_wl = int((~is_sample).sum())
        server = np.full(len(w), p.n_servers, np.int64)  # the sample pages' own server
        server[~is_sample] = server_ids(n_wl, p.n_servers, p.server_zipf_alpha, rng)
        w = as_servers(w, server)
        classes, _, free_after = _slot_inputs(p, w)
        slot, slot_links, sc, plan_cols = persistent_columns(
            p, w, server, free_after, classes, _SLOT_QUEUE_PACKETS, lambda links: star_network(sat[0], sat[1], links))
    else:
        slot, slot_links = _assign_slots(p, w)
        net = star_network(sat[0], sat[1], slot_links)
        sc, plan_cols = _columns(p, w, slot, slot_links, net)
    plan = Plan(w.time_s.copy(), w.reply_bytes.copy(), is_sample, slot, *plan_cols, len(slot_links))
    return sc, plan


def _columns(p: SatelliteParams, w: Workload, slot: np.ndarray, slot_links: list[LinkParams], net
             ) -> tuple[BulkScenario, tuple]:
    """Return the run as a ``BulkScenario`` (columns, no object per request) and the Plan's
    (request_msg, done_msg, server_conn, open_msg) columns. Layout: see the module docstring."""
    n = len(w)
    i = np.arange(n, dtype=np.int64)
    mss = w.server_mss_bytes.astype(np.int64)
    rwnd = np.maximum(mss, np.minimum(w.server_window_bytes.astype(np.int64), p.proxy_window_bytes))
    pairs, which = np.unique(mss << 32 | rwnd, return_inverse=True)  # the distinct (MSS, window) pairs
    tcps = [era_tcp(int(k >> 32), int(k & 0xFFFFFFFF), p.tcp_preset) for k in pairs.tolist()]
    srv_tcp = which.reshape(-1).astype(np.int64)
    t = w.time_s.astype(np.float64)
    req = w.request_bytes.astype(np.int64)
    size = w.reply_bytes.astype(np.int64)
    node = 2 + slot.astype(np.int64)
    if p.architecture == "base":
        two = lambda a, b: np.stack([a, b], axis=1).reshape(-1)  # noqa: E731 (interleave per request)
        sc = BulkScenario(
            net, tuple(tcps) or (era_tcp(p.proxy_mss_bytes, p.proxy_window_bytes, p.tcp_preset),),
            conn_client=np.full(n, NZ), conn_server=node, conn_tcp=srv_tcp, conn_open_time_s=t,
            conn_open_after=np.full(n, -1), conn_closer=np.ones(n, np.int64),
            msg_conn=np.repeat(i, 2), msg_pool=np.full(2 * n, -1), msg_sender=np.tile([0, 1], n),
            msg_size_bytes=two(req, size), msg_start_s=two(t, np.zeros(n)), msg_after=two(np.full(n, -1), 2 * i),
            msg_delay_s=np.zeros(2 * n), msg_relay_of=np.full(2 * n, -1), duration_s=p.duration_s)
        return sc, (2 * i, 2 * i + 1, i, np.full(n, -1, np.int64))
    N = p.n_proxy_connections
    c = N + i
    m = 4 * i
    muxed = size + p.mux_overhead_bytes * -(-size // mss)
    four = lambda a, b, d, e: np.stack([a, b, d, e], axis=1).reshape(-1)  # noqa: E731
    none = np.full(n, -1, np.int64)
    zero = np.zeros(n)
    if p.relay == "store_and_forward":
        sizes = four(req, req, size, muxed)
        after = four(none, m, m + 1, m + 2)
        delay = np.zeros(4 * n)
        relay = np.full(4 * n, -1, np.int64)
    else:  # the pool connection is chosen when the first reply segment is due at the US proxy
        s_delay = np.array([lk.delay_s for lk in slot_links])[slot]
        s_rate = np.array([lk.rate_bps for lk in slot_links])[slot]
        first_s = s_delay + (mss + 40) * 8.0 / s_rate if n else zero
        sizes = four(req, req, muxed, muxed)
        after = four(none, m, m + 1, m + 1)
        delay = four(zero, zero, zero, first_s)
        relay = four(none, none, none, m + 2)
    proxy_tcp = len(tcps)
    tcps.append(era_tcp(p.proxy_mss_bytes, p.proxy_window_bytes, p.tcp_preset))
    sc = BulkScenario(
        net, tuple(tcps),
        conn_client=np.r_[np.full(N, NZ), np.full(n, US)], conn_server=np.r_[np.full(N, US), node],
        conn_tcp=np.r_[np.full(N, proxy_tcp), srv_tcp], conn_open_time_s=np.zeros(N + n),
        conn_open_after=np.r_[np.full(N, -1), m], conn_closer=np.r_[np.full(N, -1), np.ones(n, np.int64)],
        msg_conn=four(none, c, c, none), msg_pool=four(zero.astype(np.int64), none, none, zero.astype(np.int64)),
        msg_sender=np.tile([0, 0, 1, 1], n), msg_size_bytes=sizes, msg_start_s=four(t, zero, zero, zero),
        msg_after=after, msg_delay_s=delay, msg_relay_of=relay, duration_s=p.duration_s,
        pools=(ConnectionPool(tuple(range(N)), "fewest_outstanding"),))
    return sc, (m, m + 3, c, m)


def _occupancy(res, link: int, measured: bool) -> tuple[float, float]:
    """Return (mean, peak) bytes in ``link``'s buffer over the kernel's samples at packet arrivals (the
    engine keeps these statistics without tracing: the same numbers its queue trace would give)."""
    if not measured:
        return math.nan, math.nan
    return float(res.link_queue_mean_bytes[link]), float(res.link_queue_peak_bytes[link])


def _connections(plan: Plan, res, T: float, persistent: bool = False) -> tuple[float, int, int]:
    """Return (mean, peak) concurrent server connections and the number of slot overlaps."""
    if persistent:  # HTTP/1.1: one slot per connection, open from its first request to the end
        first = np.full(plan.n_slots, np.inf)
        np.minimum.at(first, plan.server_conn, plan.made_s)
        first = first[first < T]
        return float((T - first).sum() / T), int(first.size), 0
    if (plan.open_msg >= 0).any():
        opened = res.message_done_s[plan.open_msg]
    else:
        opened = plan.made_s.copy()
    closed = res.closed_s[plan.server_conn]
    ok = np.isfinite(opened) & (opened < T)
    o, c = opened[ok], np.where(np.isfinite(closed[ok]), np.minimum(closed[ok], T), T)
    mean = float((c - o).sum() / T)
    ev = np.r_[o, c]
    step = np.r_[np.ones(o.size, np.int64), -np.ones(c.size, np.int64)]
    order = np.lexsort((step, ev))  # at equal times a close before an open
    peak = int(np.cumsum(step[order]).max()) if ev.size else 0
    return mean, peak, _slot_overlaps(np.asarray(plan.slot), opened, closed)


def _slot_overlaps(slot: np.ndarray, opened: np.ndarray, closed: np.ndarray) -> int:
    """Return how many requests open while an earlier-opened request of their slot is still open
    (unclosed = open for ever; ties in opening time go in request order)."""
    idx = np.flatnonzero(np.isfinite(opened))
    if idx.size == 0:
        return 0
    order = idx[np.lexsort((idx, opened[idx], slot[idx]))]  # by slot, then opening time, then request
    end = np.where(np.isfinite(closed[order]), closed[order], math.inf)
    # the latest end among the earlier requests of the same slot: a running maximum of the ends' ranks,
    # each slot's ranks lifted above the previous slot's so the maximum restarts at every slot
    ends = np.unique(end)
    group = np.r_[0, np.cumsum(slot[order][1:] != slot[order][:-1])]
    key = group * (ends.size + 1) + np.searchsorted(ends, end) + 1
    before = np.r_[0, np.maximum.accumulate(key)[:-1]] - group * (ends.size + 1)  # < 1: none earlier
    busy_until = np.where(before >= 1, ends[np.maximum(before, 1) - 1], -math.inf)
    return int((busy_until > opened[order]).sum())


def simulate_satellite(params: SatelliteParams, seed: SeedLike = 0, requests: Workload | None = None
                       ) -> SatelliteResult:
    """Run one simulation of the study and return its ``SatelliteResult`` (same seed => same result).

    ``requests``: simulate exactly these requests (no sample pages) instead of the seeded workload.
    """
    t0 = time.perf_counter()
    sc, plan = build_satellite(params, seed, requests)
    t1 = time.perf_counter()
    res = simulate(sc, seed=0)  # buffer statistics come without traces
    t2 = time.perf_counter()
    return _result(params, sc, plan, res, t1 - t0, t2 - t1)


def _result(p: SatelliteParams, sc: BulkScenario, plan: Plan, res, build_s: float, sim_s: float) -> SatelliteResult:
    T = p.duration_s
    done = res.message_done_s[plan.done_msg]
    times = done - plan.made_s
    lb = res.link_bytes
    nz_mean, nz_peak = _occupancy(res, SAT_NZ_US, p.measure_buffers)
    us_mean, us_peak = _occupancy(res, SAT_US_NZ, p.measure_buffers)
    conn_mean, conn_peak, overlaps = _connections(plan, res, T, p.http_version == "1.1")
    # Latency is timed over the requests made in the first ``sample_window_fraction`` of the run (the sample
    # pages all are); the rest of the run is their drain: requests keep arriving, so the load stays as it was,
    # and each timed request has at least that long to finish. One still unfinished at the end is counted at
    # its age then (duration_s - made): the mean is then a lower bound of the true one (``*_unfinished`` > 0)
    timed = plan.made_s < p.measured_until_s
    fin = np.isfinite(times)
    censored = np.where(fin, times, T - plan.made_s)
    samples = times[plan.is_sample]
    return SatelliteResult(
        architecture=p.architecture,
        n_proxy_connections=p.n_proxy_connections if p.architecture == "us_proxy" else 0,
        n_traces=p.n_traces,
        duration_s=T,
        requests=int(len(times)),
        presented_load_bps=float(plan.reply_bytes.sum()) * 8.0 / T,
        carried_nz_bound_bps=float(lb[SAT_US_NZ]) * 8.0 / T,
        carried_us_bound_bps=float(lb[SAT_NZ_US]) * 8.0 / T,
        inbound_outbound_ratio=float(lb[SAT_US_NZ] / lb[SAT_NZ_US]) if lb[SAT_NZ_US] > 0 else math.nan,
        sample_latency_mean_s=float(censored[plan.is_sample].mean()) if plan.is_sample.any() else math.nan,
        sample_unfinished=int((~np.isfinite(samples)).sum()),
        request_time_mean_s=float(censored[timed].mean()) if timed.any() else math.nan,
        requests_unfinished=int((timed & ~fin).sum()),
        buffer_mean_bytes_us_end=us_mean,
        buffer_peak_bytes_us_end=us_peak,
        buffer_mean_bytes_nz_end=nz_mean,
        buffer_peak_bytes_nz_end=nz_peak,
        us_connections_mean=conn_mean,
        us_connections_peak=conn_peak,
        drops_us_end=int(res.link_drops_queue[SAT_US_NZ]),
        drops_nz_end=int(res.link_drops_queue[SAT_NZ_US]),
        retransmits=int(res.retransmits.sum()),
        timeouts=int(res.timeouts.sum()),
        slots=plan.n_slots,
        slot_overlaps=overlaps,
        events=int(res.events),
        build_s=build_s,
        simulate_s=sim_s,
        sample_latency_s=samples,
        request_time_s=times,
        request_made_s=plan.made_s.copy(),
    )


def run_requests(**kw) -> SatelliteResult:
    """Return ``simulate_satellite(SatelliteParams(**kw without seed), seed)`` (for ``run_sweep``)."""
    seed = kw.pop("seed", 0)
    return simulate_satellite(SatelliteParams(**kw), seed)
