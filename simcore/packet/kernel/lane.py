"""Numba: the event queue of the packet kernels: the heap (``push``) and lanes, FIFO queues beside it for
events whose times come in the order they are pushed.

- Delayed-ACK timers (``LANE_DELACK``): one fires a fixed delay after it is armed, or at the next tick of a
  clock (BSD), so the times of successive arms never go back. Most are stale (the ACK left with the next
  segment); at the paper's scale they were a tenth of all events. ``kernel.delack`` turns a cancelled timer's entry
  into an ``EV_NONE`` (``lane_push`` returns the entry's position), which the event loop skips.
- Packet arrivals over the links with the largest bandwidth-delay products (``LANE_LINK0`` on, chosen by
  ``simulate``; ``S.link[k].lane``): a link sends its packets in order and delays each by the same
  propagation time, so they arrive in the order they left. A satellite link holds most of the packets in
  flight, which were most of the heap (some 16k events at chapter 2's highest load).
- BSD retransmission timers (``LANE_RTO0 + n - 1``, ``kernel.rtt``): one set n ticks ahead expires at the n-th
  tick from now, never before one set earlier with the same n (a lane per n up to ``N_RTO_LANES``).

Kept in a ring in push order, a lane is already sorted by (time, number), and a push or a pop costs O(1)
instead of a sift through the heap, which also holds fewer events. An event whose time is before its
lane's last one (another delay, a link's fluid background), or that finds its lane full, goes to the heap.

Every event, in a lane or in the heap, takes its number from the heap's counter (``heap_m[1]``) when it
is pushed, and ``kernel.loop.run`` takes the earliest of the known events, the heap's first and each lane's
first in (time, number) order: the events are processed in exactly the order of one heap.
"""

from __future__ import annotations

import math

from numba import njit

from simcore.engine import heap_insert

from .._numba.outline import one_signature
from . import layout as L

_NO_NUMBER = 1 << 62  # above every event number


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def push(S, t, k, a):
    """Push event (t, k, a) into the preallocated heap; set the heap-full flag instead of growing."""
    if S.heap_m[0] >= S.heap_t.shape[0]:
        S.st[0].flags |= L.OVF_HEAP
        return
    heap_insert(S.heap_t, S.heap_s, S.heap_k, S.heap_a, S.heap_m, t, k, a)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def lane_push(S, q, t, k, a):
    """Push event (t, k, a) into lane ``q`` if it comes after the lane's last event and the lane has room,
    and return its position in the lane's ring (``S.lane[q, i]``); else push it into the heap (``push``) and
    return -1."""
    lq = S.laneq
    lane = S.lane
    n = lq[q].n
    cap = lane.shape[1]
    if n == cap or (n > 0 and t < lq[q].t_last):
        push(S, t, k, a)
        return -1
    i = lq[q].head + n
    if i >= cap:
        i -= cap
    s = S.heap_m[1]
    lane[q, i].t = t
    lane[q, i].s = s
    lane[q, i].k = k
    lane[q, i].a = a
    S.heap_m[1] = s + 1
    lq[q].n = n + 1
    lq[q].t_last = t
    if n == 0:
        lq[q].t_first = t
        lq[q].s_first = s
    return i


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def lane_first(S):
    """Return ``(q, t)``: the lane whose first event precedes every other lane's and the heap's first in
    (time, number) order, and its time; ``(-1, t)`` when the heap's first comes first (t = its time, inf
    when the heap and the lanes are empty)."""
    lq = S.laneq
    best = -1
    bt = math.inf
    bs = _NO_NUMBER
    if S.heap_m[0] > 0:
        bt = S.heap_t[0]
        bs = S.heap_s[0]
    for q in range(L.N_LANES):  # an empty lane's first time is inf
        tq = lq[q].t_first
        if tq < bt or (tq == bt and lq[q].s_first < bs):
            best = q
            bt = tq
            bs = lq[q].s_first
    return best, bt


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def lane_pop(S, q):
    """Remove lane ``q``'s first event and return its ``(kind, arg)``."""
    lq = S.laneq
    lane = S.lane
    h = lq[q].head
    k = lane[q, h].k
    a = lane[q, h].a
    h += 1
    if h == lane.shape[1]:
        h = 0
    _set_front(S, q, h, lq[q].n - 1)
    return k, a


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _set_front(S, q, h, n):
    """Make entry ``h`` the first of lane ``q``, which holds ``n`` events from it, and note its time and number."""
    lq = S.laneq
    lq[q].head = h
    lq[q].n = n
    if n > 0:
        lq[q].t_first = S.lane[q, h].t
        lq[q].s_first = S.lane[q, h].s
    else:
        lq[q].t_first = math.inf


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def lane_skip_none(S, q, t_end):
    """Remove the ``EV_NONE`` entries (cancelled timers, ``kernel.delack``) at the front of lane ``q`` due by ``t_end``
    and return how many: the event loop counts them as events it has processed, as it would have one by one
    (they change nothing, so taking them before the events of other lanes due earlier changes no result)."""
    lq = S.laneq
    lane = S.lane
    cap = lane.shape[1]
    n = lq[q].n
    h = lq[q].head
    k = 0
    while n > 0 and lane[q, h].k == L.EV_NONE and lane[q, h].t <= t_end:
        h += 1
        if h == cap:
            h = 0
        n -= 1
        k += 1
    if k > 0:
        _set_front(S, q, h, n)
    return k
