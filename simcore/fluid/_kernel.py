"""Numba kernels of the fluid (flow-level) model: max-min fair sharing and exact event-driven completions.

Units, decided once for the whole fluid package: data in BYTES, rates in BYTES PER SECOND (suffix
``_Bps``, capital B), times in seconds (``_s``). A per-flow cap of ``+inf`` means "no access-rate limit".

Reusable building blocks (all ``@njit(cache=True)``; other kernels may call them):

- ``max_min_rates(caps_Bps, active, capacity_Bps, out_rates_Bps) -> total_Bps``: water-filling over the
  flows flagged in the boolean mask ``active``; O(n + b log b), b = active caps below the capacity.
- ``max_min_rates_scratch(...)``: the same with a caller-provided float64 scratch (no allocation).
- ``water_level(sorted_caps_Bps, k, n_flows, capacity_Bps) -> level_Bps``: the uncapped flows' share.
- ``advance_remaining(remaining_bytes, rates_Bps, active, dt_s) -> delivered_bytes``: drain for dt_s.
- ``next_completion(remaining_bytes, rates_Bps, active) -> (index, dt_s)``: the next flow to finish.

``fluid_kernel`` is the single-bottleneck simulator behind ``simcore.fluid.simulate_flows``: arrivals and
capacity changes are events in the simcore.engine heap; between two events every active flow drains at its
max-min rate, so the next completion time is computed exactly (no time stepping). Internally the active
flows are kept packed (swap-remove), so an event costs O(k log k) for k active flows, not O(n).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.engine import heap_new, heap_peek_time, heap_pop, heap_push, heap_size

__all__ = [
    "water_level",
    "max_min_rates",
    "max_min_rates_scratch",
    "advance_remaining",
    "next_completion",
    "fluid_kernel",
    "EV_ARRIVAL",
    "EV_CAPACITY",
]

EV_ARRIVAL = 0
EV_CAPACITY = 1


@njit(cache=True)
def water_level(sorted_caps_Bps, k, n_flows, capacity_Bps):
    """Return the water level (bytes/s) of ``n_flows`` flows sharing ``capacity_Bps``; rate = min(cap, level).

    ``sorted_caps_Bps[:k]`` holds, ascending, the caps that may bind; the other ``n_flows - k`` flows have
    caps at least ``capacity_Bps`` (or inf), which never bind below the level. The level is ``+inf`` when
    every flow is held by its cap, and ``capacity_Bps / n_flows`` when no cap binds.
    """
    remaining = capacity_Bps
    left = n_flows
    for j in range(k):
        c = sorted_caps_Bps[j]
        share = remaining / left
        if c <= share:
            remaining -= c
            left -= 1
        else:
            return share
    if left == 0:
        return np.inf
    return remaining / left


@njit(cache=True)
def max_min_rates_scratch(caps_Bps, active, capacity_Bps, out_rates_Bps, scratch):
    """Return the total allocated rate (bytes/s); write max-min fair rates into ``out_rates_Bps``.

    Same as ``max_min_rates`` but uses ``scratch`` (float64, length >= number of flows) instead of
    allocating: nothing is allocated, so it suits the innermost loop of a kernel.
    """
    n = caps_Bps.shape[0]
    m = 0
    k = 0
    for i in range(n):
        if active[i]:
            m += 1
            c = caps_Bps[i]
            if c < capacity_Bps:  # only caps below the capacity can bind: sort just those
                scratch[k] = c
                k += 1
    if m == 0:
        for i in range(n):
            out_rates_Bps[i] = 0.0
        return 0.0
    buf = scratch[:k]
    buf.sort()
    level = water_level(buf, k, m, capacity_Bps)
    total = 0.0
    for i in range(n):
        if active[i]:
            r = min(caps_Bps[i], level)
            out_rates_Bps[i] = r
            total += r
        else:
            out_rates_Bps[i] = 0.0
    return total


@njit(cache=True)
def max_min_rates(caps_Bps, active, capacity_Bps, out_rates_Bps):
    """Return the total allocated rate (bytes/s); write each flow's max-min fair rate (bytes/s).

    ``caps_Bps`` float64[n] per-flow access-rate caps (``+inf`` = uncapped), ``active`` bool[n] mask,
    ``capacity_Bps`` the shared capacity. Water-filling: the active caps are sorted ascending and each in
    turn gets ``min(cap, remaining / flows_left)`` (only caps below the capacity, the ones that can bind,
    are sorted: no sort at all for uncapped flows); inactive flows get 0. The result is the unique max-min
    fair allocation: a flow below its cap gets the largest rate of all flows. The total is at most
    ``capacity_Bps`` (up to rounding, relative 1e-15) and equals it unless every active flow is capped.
    O(n + b log b) for b active caps below the capacity; allocates one float64[b] buffer
    (``max_min_rates_scratch`` allocates nothing).
    """
    n = caps_Bps.shape[0]
    m = 0
    for i in range(n):
        if active[i] and caps_Bps[i] < capacity_Bps:
            m += 1
    scratch = np.empty(m, np.float64)
    return max_min_rates_scratch(caps_Bps, active, capacity_Bps, out_rates_Bps, scratch)


@njit(cache=True)
def advance_remaining(remaining_bytes, rates_Bps, active, dt_s):
    """Return the bytes delivered in ``dt_s`` seconds; drain each active flow's ``remaining_bytes`` in place.

    Each active flow loses ``rates_Bps[i] * dt_s`` bytes, floored at 0 (rounding never makes it negative).
    """
    delivered = 0.0
    for i in range(remaining_bytes.shape[0]):
        if active[i]:
            d = rates_Bps[i] * dt_s
            r = remaining_bytes[i]
            if d >= r:
                d = r
                remaining_bytes[i] = 0.0
            else:
                remaining_bytes[i] = r - d
            delivered += d
    return delivered


@njit(cache=True)
def next_completion(remaining_bytes, rates_Bps, active):
    """Return ``(index, dt_s)``: the active flow that finishes first at the current rates and in how long.

    ``dt_s`` is relative to now (seconds). Ties go to the lowest index. ``(-1, inf)`` when no active flow
    has a positive rate.
    """
    best = -1
    best_dt = np.inf
    for i in range(remaining_bytes.shape[0]):
        if active[i] and rates_Bps[i] > 0.0:
            dt = remaining_bytes[i] / rates_Bps[i]
            if dt < best_dt:
                best_dt = dt
                best = i
    return best, best_dt


@njit(cache=True)
def _packed_rates(p_caps, k, capacity_Bps, p_rates, scratch):
    """Fill ``p_rates[:k]`` with the max-min rates of the packed caps ``p_caps[:k]``; return their total."""
    if k == 0:
        return 0.0
    nb = 0
    for j in range(k):
        c = p_caps[j]
        if c < capacity_Bps:
            scratch[nb] = c
            nb += 1
    buf = scratch[:nb]
    buf.sort()
    level = water_level(buf, nb, k, capacity_Bps)
    total = 0.0
    for j in range(k):
        r = min(p_caps[j], level)
        p_rates[j] = r
        total += r
    return total


@njit(cache=True)
def fluid_kernel(arrival_s, size_bytes, cap_Bps, cap_change_s, cap_change_Bps, capacity0_Bps, horizon_s):
    """Return per-flow ``(start_s, finish_s, delivered_bytes, remaining_bytes)`` and ``stats``.

    One bottleneck of capacity ``capacity0_Bps`` (bytes/s) that becomes ``cap_change_Bps[j]`` at time
    ``cap_change_s[j]``. Flow i arrives at ``arrival_s[i]`` with ``size_bytes[i]`` and access cap
    ``cap_Bps[i]``; all times >= 0, the run starts at 0. Events at the same time: completions first, then
    heap events in push order (capacity changes were pushed after all arrivals). Events at times
    <= ``horizon_s`` (may be +inf) are processed; the run stops at the horizon or when nothing is left.
    ``start_s`` is when the flow first got a positive rate, ``finish_s`` when its last byte left (NaN if
    not by the horizon). ``stats`` float64[4]: end time (s), busy time (s, at least one flow
    active), bytes delivered (integrated total rate), number of events processed.
    """
    n = arrival_s.shape[0]
    nc = cap_change_s.shape[0]
    start = np.full(n, np.nan)
    finish = np.full(n, np.nan)
    delivered = np.zeros(n)
    remaining = size_bytes.copy()
    # packed active set: position j holds flow p_id[j]
    p_id = np.empty(n, np.int64)
    p_caps = np.empty(n, np.float64)
    p_rates = np.empty(n, np.float64)
    scratch = np.empty(n, np.float64)
    k = 0

    time_s, seq, kind, arg, meta = heap_new(n + nc)
    for i in range(n):
        time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, arrival_s[i], EV_ARRIVAL, i)
    for j in range(nc):
        time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, cap_change_s[j], EV_CAPACITY, j)

    capacity = capacity0_Bps
    now = 0.0
    busy = 0.0
    total_delivered = 0.0
    n_events = 0
    while True:
        # the next completion at the current rates
        best = -1
        best_dt = np.inf
        for j in range(k):
            r = p_rates[j]
            if r > 0.0:
                dt = remaining[p_id[j]] / r
                if dt < best_dt:
                    best_dt = dt
                    best = j
        t_ev = heap_peek_time(time_s, meta)
        completion = best >= 0 and now + best_dt <= t_ev
        t_next = now + best_dt if completion else t_ev
        stop = t_next > horizon_s
        if stop:
            t_next = horizon_s
        elif t_next == np.inf:
            break
        dt = best_dt if completion and not stop else t_next - now
        # drain every active flow for dt
        if k > 0 and dt > 0.0:
            busy += dt
            for j in range(k):
                i = p_id[j]
                d = p_rates[j] * dt
                if d >= remaining[i]:
                    d = remaining[i]
                    remaining[i] = 0.0
                else:
                    remaining[i] -= d
                delivered[i] += d
                total_delivered += d
        now = t_next
        if stop:
            break
        n_events += 1
        if completion:
            i = p_id[best]
            total_delivered += remaining[i]
            delivered[i] += remaining[i]
            remaining[i] = 0.0
            finish[i] = now
            k -= 1
            p_id[best] = p_id[k]
            p_caps[best] = p_caps[k]
            p_rates[best] = p_rates[k]
        else:
            t, ev, a = heap_pop(time_s, seq, kind, arg, meta)
            if ev == EV_ARRIVAL:
                p_id[k] = a
                p_caps[k] = cap_Bps[a]
                k += 1
            else:
                capacity = cap_change_Bps[a]
        _packed_rates(p_caps, k, capacity, p_rates, scratch)
        for j in range(k):
            i = p_id[j]
            if p_rates[j] > 0.0 and np.isnan(start[i]):
                start[i] = now
        if heap_size(meta) == 0 and k == 0:
            break
    stats = np.empty(4, np.float64)
    stats[0] = now
    stats[1] = busy
    stats[2] = total_delivered
    stats[3] = n_events
    return start, finish, delivered, remaining, stats
