"""The hybrid fast mode of chapter 2: the sample pages packet by packet over a fluid background.

The full run simulates every request's packets. The hybrid keeps at packet level only what the sample
pages' latency depends on, and lets simcore's fluid background (``FluidBackground`` on the two satellite
links) stand for the rest of the load:

- base: the sample pages' own connections; every other request becomes fluid on the satellite links.
- us_proxy with N inter-proxy connections: a scaled-down pool is kept at packet level: N / k connections
  carrying the sample pages and every k-th other request (in time order), k = the smallest factor that
  keeps about ``packet_budget`` requests (at most N). Each packet-level connection is then as loaded as
  in the full run, and the 'fewest outstanding' rule still concentrates light load on a few warm
  connections (which is why one connection alone would not do: at light load it would idle, and restart
  from slow start, where the full run's first connection stays warm). The other requests are fluid,
  capped at what the N - N / k other window-limited connections can carry (``full_segment_plateau``),
  the excess carried over (a fluid backlog) rather than lost.

Each fluid request is spread evenly over its estimated transfer (from ``start`` one-way trips after it is
made, at its release rate capped by its window over its round trip), in bins of ``bin_s`` seconds, with
its on-wire bytes: data plus 40-byte headers per segment, handshake and FIN packets, and ACKs (one per
two segments) in the other direction. The fluid has no sub-bin burstiness: queueing at the satellite
buffers is underestimated when the link is nearly full (tests/satellite/test_hybrid.py measures how much).
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

__all__ = ["HybridResult", "simulate_hybrid", "fluid_profiles"]

HEADER_BYTES = 40


@dataclass(frozen=True)
class HybridResult:
    """What the hybrid returns (bits/s over ``duration_s``; latency in s). ``packet_requests``: how many
    requests ran packet by packet (sample pages included), ``fluid_requests`` how many became fluid."""

    architecture: str
    n_proxy_connections: int
    n_traces: int
    duration_s: float
    presented_load_bps: float
    carried_nz_bound_bps: float
    carried_us_bound_bps: float
    sample_latency_mean_s: float
    sample_unfinished: int
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
        prof.append(_spread(a, b, dens, n_bins) / bin_s)  # bits/s per bin
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


def simulate_hybrid(params: SatelliteParams, seed: SeedLike = 0, bin_s: float = 0.5,
                    packet_budget: int = 1500) -> HybridResult:
    """Run the hybrid fast mode of ``params`` (same seed => same workload as ``simulate_satellite``).

    ``packet_budget``: about how many workload requests (besides the sample pages) the US-proxy case
    keeps at packet level; ``bin_s``: the fluid profile's time step (s)."""
    if not isinstance(params, SatelliteParams):
        raise ValueError(f"params={params!r} is not allowed: must be a SatelliteParams")
    check_int("packet_budget", packet_budget, 1, 10**7)
    t0 = time.perf_counter()
    p = params
    w, is_sample = _requests(p, make_generator(seed))
    order = np.flatnonzero(~is_sample)  # the workload's requests, in time order
    if p.architecture == "us_proxy":
        n = p.n_proxy_connections
        k = max(1, min(n, math.ceil(order.size / packet_budget)))  # keep 1 request in k ...
        n_pk = max(1, round(n / k))  # ... on n / k connections: each as loaded as in the full run
        keep = np.zeros(len(w), bool)
        keep[order[::k]] = True
        cap = (n - n_pk) * full_segment_plateau(p).wire_bps if n > n_pk else 0.0
        pk = SatelliteParams(**{**p.__dict__, "n_proxy_connections": n_pk, "measure_buffers": False})
    else:
        keep, cap, pk = np.zeros(len(w), bool), math.inf, SatelliteParams(**{**p.__dict__, "measure_buffers": False})
    keep |= is_sample
    fluid = w.take(~keep)
    bg_us, bg_nz, _ = fluid_profiles(p, fluid, bin_s, cap)
    packet = w.take(keep)
    sc, plan = build_satellite(pk, seed, packet, sample_mask=is_sample[keep], backgrounds=(bg_us, bg_nz))
    res = simulate(sc, seed=0, trace=False)
    T = p.duration_s
    done = res.message_done_s[plan.done_msg] - plan.made_s
    samples = done[plan.is_sample]
    carried = [res.link_bytes[k] + res.fluid_offered_bytes[k] - res.fluid_dropped_bytes[k]
               for k in (SAT_NZ_US, SAT_US_NZ)]
    return HybridResult(
        architecture=p.architecture, n_proxy_connections=p.n_proxy_connections if p.architecture == "us_proxy" else 0,
        n_traces=p.n_traces, duration_s=T,
        presented_load_bps=float(w.reply_bytes.sum()) * 8.0 / T,
        carried_nz_bound_bps=float(carried[1]) * 8.0 / T, carried_us_bound_bps=float(carried[0]) * 8.0 / T,
        sample_latency_mean_s=float(np.nanmean(samples)) if np.isfinite(samples).any() else math.nan,
        sample_unfinished=int((~np.isfinite(samples)).sum()),
        packet_requests=int(keep.sum()), fluid_requests=int((~keep).sum()),
        fluid_dropped_bytes_us_end=float(res.fluid_dropped_bytes[SAT_US_NZ]),
        events=int(res.events), elapsed_s=time.perf_counter() - t0, sample_latency_s=samples)
