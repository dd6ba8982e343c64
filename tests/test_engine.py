import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit

from simcore.engine import heap_new, heap_peek_time, heap_pop, heap_push, heap_size


@njit(cache=True)
def _push_all_pop_all(times, kinds, pops_between):
    time_s, seq, kind, arg, meta = heap_new(1)
    out_t = np.empty(times.shape[0])
    out_a = np.empty(times.shape[0], np.int64)
    j = 0
    for i in range(times.shape[0]):
        time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, times[i], kinds[i], i)
        if pops_between[i] and meta[0] > 0:
            t, k, a = heap_pop(time_s, seq, kind, arg, meta)
            out_t[j] = t
            out_a[j] = a
            j += 1
    while heap_size(meta) > 0:
        t, k, a = heap_pop(time_s, seq, kind, arg, meta)
        out_t[j] = t
        out_a[j] = a
        j += 1
    return out_t, out_a, heap_peek_time(time_s, meta)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.integers(0, 20), min_size=1, max_size=300))
def test_heap_pops_in_time_then_push_order(times):
    """Without interleaved pops, the pop order is exactly a stable sort by (time, push order)."""
    t = np.asarray(times, dtype=float)
    out_t, out_a, empty = _push_all_pop_all(t, np.zeros(t.size, np.int64), np.zeros(t.size, np.bool_))
    expected = np.argsort(t, kind="stable")
    assert np.array_equal(out_a, expected)
    assert np.array_equal(out_t, t[expected])
    assert empty == np.inf


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 10), st.booleans()), min_size=1, max_size=200))
def test_heap_with_interleaved_pops_returns_every_event_once(items):
    t = np.asarray([x for x, _ in items], dtype=float)
    pops = np.asarray([p for _, p in items], dtype=np.bool_)
    out_t, out_a, _ = _push_all_pop_all(t, np.zeros(t.size, np.int64), pops)
    assert sorted(out_a.tolist()) == list(range(t.size))
    assert np.array_equal(out_t, t[out_a])


@njit(cache=True)
def _script(times, pops):
    """Push times[i] (kind 0, arg i); after push i pop pops[i] events (while any). Return the pops' args."""
    time_s, seq, kind, arg, meta = heap_new(1)
    out = np.empty(times.shape[0], np.int64)
    j = 0
    for i in range(times.shape[0]):
        time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, times[i], 0, i)
        for _ in range(pops[i]):
            if meta[0] == 0:
                break
            out[j] = heap_pop(time_s, seq, kind, arg, meta)[2]
            j += 1
    while heap_size(meta) > 0:
        out[j] = heap_pop(time_s, seq, kind, arg, meta)[2]
        j += 1
    return out


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 15), st.integers(0, 3)), min_size=1, max_size=400))
def test_heap_pops_the_earliest_pending_event_like_heapq(items):
    """Interleaved pushes and pops: each pop returns what Python's heapq on (time, push number) returns
    (an independent heap), so ties go in push order whatever the heap's shape (4-ary: up to 4 children)."""
    import heapq

    times = np.asarray([x for x, _ in items], dtype=float)
    pops = np.asarray([p for _, p in items], np.int64)
    ref, expected = [], []
    for i, (t, p) in enumerate(items):
        heapq.heappush(ref, (float(t), i))
        for _ in range(p):
            if ref:
                expected.append(heapq.heappop(ref)[1])
    expected += [heapq.heappop(ref)[1] for _ in range(len(ref))]
    assert _script(times, pops).tolist() == expected
