"""The hybrid fast mode of chapter 2: the sample pages packet by packet over a fluid background.

The full run simulates every request's packets. The hybrid keeps at packet level only what the sample
pages' latency depends on, and lets simcore's fluid background (``FluidBackground`` on the two satellite
links) stand for the rest of the load. It runs the same requests over the same simulated time as the full
run (the sample pages at the same moments), so the two measure the same thing:

- base: the sample pages' own connections; every other request becomes fluid on the satellite links.
- us_proxy with N inter-proxy connections: a scaled-down pool is kept at packet level: n of the N
  connections carrying the sample pages and the share n / N of the other requests (spread evenly in time
  order), so each packet-level connection is as loaded as in the full run. n is the smallest number that
  keeps about ``packet_budget`` requests, but at least ``min_pool`` (at most N) while they carry at most
  ``max_packet_requests``: the 'fewest outstanding' rule needs a few connections to choose from, or a
  sample page waits behind a multi-megabyte reply of the heavy tail that the full run's N connections would
  let it pass.
- The fluid is each other request's on-wire bytes spread evenly over its estimated transfer (from
  ``start`` one-way trips after it is made, at its release rate capped by its window over its round trip),
  in bins of ``bin_s`` seconds: data plus 40-byte headers per segment, handshake and FIN packets, and ACKs
  (one per two segments) in the other direction. It is not elastic as TCP is, so the NZ-bound fluid is
  capped at what its connections could carry: their fair share of the E3 ((N - n) / N of it; all of it in
  the base case) and their windows ((N - n) x ``full_segment_plateau``); the excess waits (a fluid backlog)
  rather than being lost.

The fluid has no burstiness below its bins and does not back off as TCP does: near the E3's capacity or
the pool's (``utilisation``) the hybrid drifts from the full run. ``data/satellite_hybrid_check.csv`` holds
both over the live panel's range at several seeds; ``validated`` says where they agree (``VALIDATED_*``).
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_int, check_real
from simcore.packet import FluidBackground, simulate
from simcore.rng import SeedLike, make_generator

from .figure4 import full_segment_plateau
from .model import _requests, build_satellite
from .network import SAT_NZ_US, SAT_US_NZ
from .params import SatelliteParams
from .workload import Workload

__all__ = ["HybridResult", "simulate_hybrid", "fluid_profiles", "capacity", "utilisation", "validated",
           "within_tolerance", "VALIDATED_UTILISATION", "VALIDATED_MAX_WINDOW_BYTES", "VALIDATED_TOLERANCE",
           "VALIDATED_TOLERANCE_S"]

HEADER_BYTES = 40
# Where the stored check (data/satellite_hybrid_check.csv, 480 points) shows the hybrid agreeing with the full run
# of the same seed: the bottleneck at most 85 % loaded and windows without RFC 1323 scaling (4 MB windows: their
# cwnd's losses at the full buffer are what the fluid cannot show, -86 % at 55 %). There every one of its 235
# points is within 15 % or 0.35 s of the full run, whichever is larger: 0.35 s is the full runs' own spread
# between seeds below 85 % (up to 0.33 s: one sample page more or less on a cold connection). Beyond 85 % the
# errors reach a factor of 10 (100 connections with 65535-byte windows at 99 %).
VALIDATED_UTILISATION = 0.85
VALIDATED_MAX_WINDOW_BYTES = 65535
VALIDATED_TOLERANCE = 0.15
VALIDATED_TOLERANCE_S = 0.35


@dataclass(frozen=True)
class HybridResult:
    """What the hybrid returns (bits/s over ``duration_s``; latency in s, as ``SatelliteResult``'s).
    ``utilisation``: the bottleneck's (``utilisation``); ``packet_requests``: how many requests ran packet
    by packet (sample pages included), ``fluid_requests`` how many became fluid."""

    architecture: str
    n_proxy_connections: int
    n_traces: int
    duration_s: float
    presented_load_bps: float
    carried_nz_bound_bps: float
    carried_us_bound_bps: float
    sample_latency_mean_s: float
    sample_unfinished: int
    utilisation: float
    packet_requests: int
    fluid_requests: int
    fluid_dropped_bytes_us_end: float
    events: int
    elapsed_s: float
    sample_latency_s: np.ndarray


def _wire_bytes(p: SatelliteParams, w: Workload) -> tuple[np.ndarray, np.ndarray]:
    """Return per request the on-wire bytes NZ-bound (replies) and US-bound (requests, ACKs) on the
    satellite (estimates: data + headers per segment, SYN/SYN-ACK/FIN, one ACK per two segments)."""
    reply, req, mss = w.reply_bytes.astype(float), w.request_bytes.astype(float), w.server_mss_bytes.astype(float)
    if p.architecture == "base":
        segs = np.ceil(reply / mss)
        nz = reply + HEADER_BYTES * (segs + 3)  # data segments, SYN-ACK, FIN, ACK of the request
        us = req + HEADER_BYTES * (np.ceil(segs / 2) + 4)  # SYN, request, ACKs, FIN + its ACK
    else:
        muxed = reply + p.mux_overhead_bytes * np.ceil(reply / mss)
        segs = np.ceil(muxed / p.proxy_mss_bytes)
        nz = muxed + HEADER_BYTES * (segs + 0.5)  # full segments; an ACK of the request now and then
        us = req + HEADER_BYTES * (np.ceil(segs / 2) + 1)
    return nz, us


def fluid_profiles(p: SatelliteParams, w: Workload, bin_s: float = 0.5, cap_nz_bps: float = math.inf
                   ) -> tuple[FluidBackground, FluidBackground, float]:
    """Return the fluid backgrounds (NZ -> US, US -> NZ) standing for the requests ``w`` and the NZ-bound
    bits the cap held back at the end of the run (a backlog still waiting: not carried)."""
    check_real("bin_s", bin_s, 0.0, 60.0, lo_open=True)
    T = p.duration_s
    n_bins = int(math.ceil(T / bin_s))
    nz, us = _wire_bytes(p, w)
    one_way = p.satellite_delay_s + w.us_delay_s
    rtt = 2.0 * one_way if p.architecture == "base" else 2.0 * w.us_delay_s + 2.0 * p.satellite_delay_s
    win = np.minimum(w.server_window_bytes, p.proxy_window_bytes).astype(float)
    rate = np.minimum(w.release_rate_bps, win * 8.0 / np.maximum(rtt, 1e-3))
    start = w.time_s + (3.0 if p.architecture == "base" else 1.0) * one_way
    dur = np.maximum(nz * 8.0 / rate, bin_s)
    prof = []
    for nbytes in (us, nz):
        a, b = start / bin_s, (start + dur) / bin_s  # each request's transfer, in bins
        dens = nbytes * 8.0 / (b - a)  # bits per bin
        a, b = np.clip(a, 0.0, n_bins), np.clip(b, 0.0, n_bins)  # what falls after the run is not sent in it
        prof.append(np.maximum(_spread(a, b, dens, n_bins), 0.0) / bin_s)  # bits/s per bin (the running sum's
        # rounding can leave -1e-12 where a bin is empty)
    us_bps, nz_bps = prof
    backlog = 0.0
    if math.isfinite(cap_nz_bps):
        out = np.empty(n_bins)
        for k in range(n_bins):  # a fluid queue in front of the capped connections
            avail = backlog + nz_bps[k] * bin_s
            out[k] = min(cap_nz_bps * bin_s, avail) / bin_s
            backlog = avail - out[k] * bin_s
        nz_bps = out
    times = tuple(float(x) for x in np.arange(n_bins) * bin_s)
    return (FluidBackground(times, tuple(float(x) for x in us_bps), 1500, "packets"),
            FluidBackground(times, tuple(float(x) for x in nz_bps), 1500, "packets"), backlog)


def _spread(a: np.ndarray, b: np.ndarray, dens: np.ndarray, n_bins: int) -> np.ndarray:
    """Return the sum over items of ``dens`` per unit of [a, b) falling in each unit bin (a <= b <= n)."""
    ia, ib = np.floor(a).astype(np.int64), np.floor(b).astype(np.int64)
    out = np.zeros(n_bins + 1)
    same = ia == ib
    np.add.at(out, ia[same], dens[same] * (b - a)[same])
    ia, ib, a, b, d = ia[~same], ib[~same], a[~same], b[~same], dens[~same]
    np.add.at(out, ia, d * (ia + 1 - a))  # the first, partial bin
    np.add.at(out, ib, d * (b - ib))  # the last, partial bin (zero if b is a bin edge)
    diff = np.zeros(n_bins + 2)
    np.add.at(diff, ia + 1, d)  # the whole bins in between
    np.add.at(diff, ib, -d)
    out += np.cumsum(diff)[: n_bins + 1]
    return out[:n_bins]


def capacity(p: SatelliteParams) -> tuple[float, str]:
    """Return (capacity in on-wire bits/s, name) of the NZ-bound bottleneck: the E3 or, in the US-proxy case,
    the N inter-proxy connections' window limit (N x ``full_segment_plateau``), whichever is smaller."""
    cap, name = p.satellite_rate_bps, "the E3"
    if p.architecture == "us_proxy":
        pool = p.n_proxy_connections * full_segment_plateau(p).wire_bps
        if pool < cap:
            cap, name = pool, f"the {p.n_proxy_connections} inter-proxy connection" + \
                ("s" if p.n_proxy_connections > 1 else "")
    return cap, name


def utilisation(p: SatelliteParams, w: Workload) -> tuple[float, float, str]:
    """Return (utilisation, capacity in on-wire bits/s, the bottleneck's name) of the requests ``w``: their
    estimated NZ-bound on-wire load over the run (``_wire_bytes``) divided by the bottleneck's ``capacity``.
    Above 1 the run is overloaded: the backlog, and with it the latency, grows for as long as the run lasts."""
    nz, _ = _wire_bytes(p, w)
    cap, name = capacity(p)
    return float(nz.sum()) * 8.0 / p.duration_s / cap, cap, name


def validated(p: SatelliteParams, util: float) -> tuple[bool, str]:
    """Return (whether the hybrid is checked for ``p`` at this bottleneck ``utilisation``, why not if not)."""
    if p.proxy_window_bytes > VALIDATED_MAX_WINDOW_BYTES:
        return False, (f"windows above {VALIDATED_MAX_WINDOW_BYTES} bytes (window scaling) fill the router buffer in "
                       "bursts the fast mode's fluid cannot show")
    if util > VALIDATED_UTILISATION:
        return False, f"the fast mode is checked only up to {100 * VALIDATED_UTILISATION:.0f} % utilisation"
    return True, ""


def within_tolerance(hybrid_s: float, full_s: float) -> bool:
    """Return whether a hybrid latency is within the checked tolerance of the full run's (the larger of
    ``VALIDATED_TOLERANCE`` of it and ``VALIDATED_TOLERANCE_S``)."""
    return abs(hybrid_s - full_s) <= max(VALIDATED_TOLERANCE * abs(full_s), VALIDATED_TOLERANCE_S)


def simulate_hybrid(params: SatelliteParams, seed: SeedLike = 0, bin_s: float = 0.5,
                    packet_budget: int = 10_000, min_pool: int = 8, max_packet_requests: int = 20_000,
                    requests: tuple[Workload, np.ndarray] | None = None) -> HybridResult:
    """Run the hybrid fast mode of ``params`` (same seed => same workload as ``simulate_satellite``).

    ``packet_budget``: about how many workload requests (besides the sample pages) the US-proxy case
    keeps at packet level; ``min_pool``: at least this many inter-proxy connections at packet level (at
    most N), as long as they carry at most ``max_packet_requests`` requests (the cost of a move);
    ``bin_s``: the fluid profile's time step (s). Latency is measured as in the full run
    (``SatelliteResult``: requests made in the first ``sample_window_fraction`` of the run; an unfinished
    sample page counts with its age at the end, the mean is then a lower bound). ``requests``: the
    (requests, sample mask) that ``model._requests(params, seed)`` gives, if the caller has them already."""
    if not isinstance(params, SatelliteParams):
        raise ValueError(f"params={params!r} is not allowed: must be a SatelliteParams")
    check_int("packet_budget", packet_budget, 1, 10**7)
    check_int("min_pool", min_pool, 1, 10_000)
    check_int("max_packet_requests", max_packet_requests, packet_budget, 10**8)
    t0 = time.perf_counter()
    p = params
    w, is_sample = _requests(p, make_generator(seed)) if requests is None else requests
    order = np.flatnonzero(~is_sample)  # the workload's requests, in time order
    util, _, _ = utilisation(p, w.take(order))
    if p.architecture == "us_proxy":
        n = p.n_proxy_connections
        per = n / max(order.size, 1)  # connections per request kept
        n_pk = min(n, max(math.ceil(per * packet_budget), min(min_pool, math.ceil(per * max_packet_requests))))
        j = np.arange(order.size)
        keep = np.zeros(len(w), bool)
        keep[order[(j + 1) * n_pk // n > j * n_pk // n]] = True  # the share n_pk / n, evenly in time order
        cap = min((n - n_pk) * full_segment_plateau(p).wire_bps, p.satellite_rate_bps * (n - n_pk) / n)
        pk = SatelliteParams(**{**p.__dict__, "n_proxy_connections": n_pk, "measure_buffers": False})
    else:
        keep, cap = np.zeros(len(w), bool), p.satellite_rate_bps
        pk = SatelliteParams(**{**p.__dict__, "measure_buffers": False})
    keep |= is_sample
    fluid = w.take(~keep)
    bg_us, bg_nz, _ = fluid_profiles(p, fluid, bin_s, cap)
    packet = w.take(keep)
    sc, plan = build_satellite(pk, seed, packet, sample_mask=is_sample[keep], backgrounds=(bg_us, bg_nz))
    res = simulate(sc, seed=0, trace=False)
    T = p.duration_s
    done = res.message_done_s[plan.done_msg] - plan.made_s
    samples = done[plan.is_sample]
    censored = np.where(np.isfinite(samples), samples, T - plan.made_s[plan.is_sample])
    carried = [res.link_bytes[k] + res.fluid_offered_bytes[k] - res.fluid_dropped_bytes[k]
               for k in (SAT_NZ_US, SAT_US_NZ)]
    return HybridResult(
        architecture=p.architecture, n_proxy_connections=p.n_proxy_connections if p.architecture == "us_proxy" else 0,
        n_traces=p.n_traces, duration_s=T,
        presented_load_bps=float(w.reply_bytes.sum()) * 8.0 / T,
        carried_nz_bound_bps=float(carried[1]) * 8.0 / T, carried_us_bound_bps=float(carried[0]) * 8.0 / T,
        sample_latency_mean_s=float(censored.mean()) if censored.size else math.nan,
        sample_unfinished=int((~np.isfinite(samples)).sum()),
        utilisation=util,
        packet_requests=int(keep.sum()), fluid_requests=int((~keep).sum()),
        fluid_dropped_bytes_us_end=float(res.fluid_dropped_bytes[SAT_US_NZ]),
        events=int(res.events), elapsed_s=time.perf_counter() - t0, sample_latency_s=samples)
