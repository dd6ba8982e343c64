"""The discrete-event engine: a binary min-heap over plain arrays, ordered by (time, sequence number).

This is the one event queue every numba model in simcore uses. A heap is four parallel arrays plus a
two-slot counter array, so it can live inside ``@njit`` code with no Python objects:

- ``time_s``  float64: when the event fires, seconds;
- ``seq``     int64:   the push order, which breaks ties so equal-time events pop in push order;
- ``kind``    int64:   what the event is (each model numbers its own kinds);
- ``arg``     int64:   the event's argument (a customer, a packet, a flow index ...);
- ``meta``    int64[2]: ``meta[0]`` is the number of events held, ``meta[1]`` the next sequence number.

Use::

    time_s, seq, kind, arg, meta = heap_new(capacity)
    time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, t, k, a)   # grows when full
    heap_insert(time_s, seq, kind, arg, meta, t, k, a)   # no allocation: the caller ensures room
    t, k, a = heap_pop(time_s, seq, kind, arg, meta)

``heap_push`` returns the (possibly reallocated) arrays: always rebind them. All functions are
``@njit(cache=True)`` and may be called from other kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit

__all__ = ["heap_new", "heap_push", "heap_insert", "heap_pop", "heap_peek_time", "heap_size"]


@njit(cache=True)
def heap_new(capacity):
    """Return an empty heap ``(time_s, seq, kind, arg, meta)`` with room for ``capacity`` events."""
    cap = max(capacity, 4)
    return (
        np.empty(cap, np.float64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.empty(cap, np.int64),
        np.zeros(2, np.int64),
    )


@njit(cache=True, inline="always")
def heap_insert(time_s, seq, kind, arg, meta, t, k, a):
    """Insert event (t, k, a) into a heap that has room (``meta[0] < time_s.shape[0]``); never allocates.

    For kernels compiled without numba's reference counting (``_nrt=False``): they check the room
    themselves and flag an overflow instead of growing.
    """
    n = meta[0]
    sq = meta[1]
    meta[0] = n + 1
    meta[1] = sq + 1
    # sift up through a hole: parents later than the new event move down one level, the event is written once
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        pt = time_s[parent]
        if t < pt or (t == pt and sq < seq[parent]):
            time_s[i] = pt
            seq[i] = seq[parent]
            kind[i] = kind[parent]
            arg[i] = arg[parent]
            i = parent
        else:
            break
    time_s[i] = t
    seq[i] = sq
    kind[i] = k
    arg[i] = a


@njit(cache=True)
def heap_push(time_s, seq, kind, arg, meta, t, k, a):
    """Insert event (t, k, a); return the heap arrays, reallocated at twice the size if they were full."""
    n = meta[0]
    if n == time_s.shape[0]:
        cap = 2 * n
        nt = np.empty(cap, np.float64)
        ns = np.empty(cap, np.int64)
        nk = np.empty(cap, np.int64)
        na = np.empty(cap, np.int64)
        nt[:n] = time_s[:n]
        ns[:n] = seq[:n]
        nk[:n] = kind[:n]
        na[:n] = arg[:n]
        time_s, seq, kind, arg = nt, ns, nk, na
    heap_insert(time_s, seq, kind, arg, meta, t, k, a)
    return time_s, seq, kind, arg


@njit(cache=True)
def heap_pop(time_s, seq, kind, arg, meta):
    """Remove and return the earliest event as ``(time_s, kind, arg)``; ties pop in push order.

    The caller must check ``heap_size(meta) > 0`` first.
    """
    t = time_s[0]
    k = kind[0]
    a = arg[0]
    n = meta[0] - 1
    meta[0] = n
    if n > 0:
        # sift the last event down from the root through a hole: the earlier child moves up while it precedes
        # the event, which is written once where it stops (the same places as swapping it down)
        xt = time_s[n]
        xs = seq[n]
        i = 0
        while True:
            c = 2 * i + 1
            if c >= n:
                break
            ct = time_s[c]
            cs = seq[c]
            if c + 1 < n:
                rt = time_s[c + 1]
                rs = seq[c + 1]
                if rt < ct or (rt == ct and rs < cs):
                    c += 1
                    ct = rt
                    cs = rs
            if ct < xt or (ct == xt and cs < xs):
                time_s[i] = ct
                seq[i] = cs
                kind[i] = kind[c]
                arg[i] = arg[c]
                i = c
            else:
                break
        time_s[i] = xt
        seq[i] = xs
        kind[i] = kind[n]
        arg[i] = arg[n]
    return t, k, a


@njit(cache=True)
def heap_peek_time(time_s, meta):
    """Return the time of the earliest event, or +inf for an empty heap."""
    if meta[0] == 0:
        return np.inf
    return time_s[0]


@njit(cache=True)
def heap_size(meta):
    """Return the number of events held."""
    return meta[0]
