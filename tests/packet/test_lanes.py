"""The packet kernels' event queue (``kernel/lane.py``): FIFO lanes beside the heap must give back every event in
exactly the (time, number) order one heap would, whatever the pushes (in order or not, lanes full or not).

The oracle is independent of the code: each event's number is its push order, so the expected order is a
plain sort of the pushed (time, number) pairs.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.engine import heap_new, heap_pop
from simcore.packet.kernel import layout as L
from simcore.packet.kernel.lane import lane_first, lane_pop, lane_push, lane_skip_none, push
from simcore.packet.simulate import _empty_lanes


@njit
def _drive(S, times, lanes, out_t, out_a):
    """Push event i at ``times[i]`` into lane ``lanes[i]`` (-1: the heap) with argument i, popping the
    earliest event after every third push; then pop the rest. Record the order of the pops."""
    n_out = 0
    for i in range(times.shape[0]):
        if lanes[i] < 0:
            push(S, times[i], 0, i)
        else:
            lane_push(S, lanes[i], times[i], 0, i)
        if i % 3 == 2:
            out_t[n_out], out_a[n_out] = _pop_earliest(S)
            n_out += 1
    while lane_first(S)[1] < np.inf:
        out_t[n_out], out_a[n_out] = _pop_earliest(S)
        n_out += 1
    return n_out


@njit
def _pop_earliest(S):
    """Pop the earliest event, from a lane or the heap as ``run`` does; return its (time, argument)."""
    q, t = lane_first(S)
    if q >= 0:
        _, a = lane_pop(S, q)
    else:
        t, _, a = heap_pop(S.heap_t, S.heap_s, S.heap_k, S.heap_a, S.heap_m)
    return t, a


def _queue(lane_cap: int) -> L.State:
    """A ``State`` with only an event queue (the kernels' own type: a test-only type would end up in the
    numba cache index of ``kernel.lane``'s functions, which other processes could then not load)."""
    ht, hs, hk, ha, hm = heap_new(4096)
    lq = _empty_lanes()
    unused = {f: np.zeros(1, np.int64) for f in L.State._fields}
    return L.State(**dict(unused, lane=np.zeros((L.N_LANES, lane_cap), L.LANE), laneq=lq, heap_t=ht, heap_s=hs,
                          heap_k=hk, heap_a=ha, heap_m=hm, st=np.zeros(1, L.STATUS)))


def test_lanes_and_heap_pop_in_time_then_push_order():
    rng = np.random.default_rng(7)
    for lane_cap, n in ((4, 300), (64, 2000)):  # lanes that fill up (then the heap takes over) and roomy ones
        base = np.cumsum(rng.exponential(1.0, n))
        times = np.round(base + rng.choice([0.0, 0.0, 2.0, -1.5, 5.0], n), 1)  # ties, and times that go back
        lanes = rng.integers(-1, L.N_LANES, n)
        S = _queue(lane_cap)
        out_t = np.empty(n)
        out_a = np.empty(n, np.int64)
        got = _drive(S, times, lanes, out_t, out_a)
        assert got == n and int(S.st[0]["flags"]) == 0
        assert sorted(out_a.tolist()) == list(range(n))  # every event once
        assert np.array_equal(out_t, times[out_a])  # with its own time
        # a pop takes the earliest (time, push number) of the events pushed and not yet popped: replay it
        pending: set[int] = set()
        pops = iter(out_a.tolist())
        for i in range(n):
            pending.add(i)
            if i % 3 == 2:
                first = min(pending, key=lambda j: (times[j], j))
                assert next(pops) == first
                pending.remove(first)
        assert list(pops) == sorted(pending, key=lambda j: (times[j], j))


@njit
def _fill_pop_skip(S, q, times, kinds, t_end):
    """Push the events (``times``, ``kinds``, argument = index) into lane ``q``, pop its first as ``run`` does,
    then skip the cancelled entries behind it; return how many were skipped."""
    for i in range(times.shape[0]):
        lane_push(S, q, times[i], kinds[i], i)
    lane_pop(S, q)
    return lane_skip_none(S, q, t_end)


def _skip(entries, t_end):
    S = _queue(8)
    times = np.array([e[0] for e in entries])
    kinds = np.array([e[1] for e in entries], np.int64)
    return S, _fill_pop_skip(S, L.LANE_DELACK, times, kinds, t_end), S.laneq[L.LANE_DELACK]


def test_cancelled_entries_behind_a_pop_are_counted_and_only_they_go():
    # lane entries (time, kind): a live timer, three cancelled ones, a live one, a cancelled one after t_end
    entries = [(1.0, L.EV_DELACK), (1.2, L.EV_NONE), (1.2, L.EV_NONE), (1.4, L.EV_NONE), (1.6, L.EV_DELACK),
               (9.0, L.EV_NONE)]
    for t_end, skipped, next_t in ((5.0, 3, 1.6), (1.3, 2, 1.4)):  # t_end stops the skip at 1.4 in the second
        S, got, lq = _skip(entries, t_end)
        assert got == skipped
        assert lq["n"] == len(entries) - 1 - skipped
        assert lq["t_first"] == next_t and lq["s_first"] == 1 + skipped  # numbers are push order (heap count 0)
        assert S.lane[L.LANE_DELACK, lq["head"]]["a"] == 1 + skipped
    # nothing cancelled behind: nothing skipped, the lane as a plain pop leaves it
    S, got, lq = _skip([(1.0, L.EV_DELACK), (2.0, L.EV_DELACK)], 5.0)
    assert got == 0 and lq["n"] == 1 and lq["t_first"] == 2.0
    # all cancelled: the lane ends empty
    S, got, lq = _skip([(1.0, L.EV_DELACK), (2.0, L.EV_NONE)], 5.0)
    assert got == 1 and lq["n"] == 0 and lq["t_first"] == np.inf
