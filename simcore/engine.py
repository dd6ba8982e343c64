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
def _less(time_s, seq, i, j):
    ti = time_s[i]
    tj = time_s[j]
    return ti < tj or (ti == tj and seq[i] < seq[j])


@njit(cache=True, inline="always")
def _swap(time_s, seq, kind, arg, i, j):
    t = time_s[i]
    time_s[i] = time_s[j]
    time_s[j] = t
    s = seq[i]
    seq[i] = seq[j]
    seq[j] = s
    k = kind[i]
    kind[i] = kind[j]
    kind[j] = k
    a = arg[i]
    arg[i] = arg[j]
    arg[j] = a


@njit(cache=True, inline="always")
def heap_insert(time_s, seq, kind, arg, meta, t, k, a):
    """Insert event (t, k, a) into a heap that has room (``meta[0] < time_s.shape[0]``); never allocates.

    For kernels compiled without numba's reference counting (``_nrt=False``): they check the room
    themselves and flag an overflow instead of growing.
    """
    n = meta[0]
    time_s[n] = t
    seq[n] = meta[1]
    kind[n] = k
    arg[n] = a
    meta[0] = n + 1
    meta[1] += 1
    i = n
    while i > 0:
        parent = (i - 1) >> 1
        if _less(time_s, seq, i, parent):
            _swap(time_s, seq, kind, arg, i, parent)
            i = parent
        else:
            break


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
        time_s[0] = time_s[n]
        seq[0] = seq[n]
        kind[0] = kind[n]
        arg[0] = arg[n]
        i = 0
        while True:
            left = 2 * i + 1
            if left >= n:
                break
            smallest = left
            right = left + 1
            if right < n and _less(time_s, seq, right, left):
                smallest = right
            if _less(time_s, seq, smallest, i):
                _swap(time_s, seq, kind, arg, i, smallest)
                i = smallest
            else:
                break
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
