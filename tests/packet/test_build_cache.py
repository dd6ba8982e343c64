"""Small runs reuse their scenario's built state (``build_cache``) and assemble their result when read
(``lazy_result``): every field must be what a fresh build and the eager ``simulate._result`` give, bit for bit.

The reference is the code path every run took before: no template kept, the result assembled at once
(``build_cache.MAX_STATE_BYTES = 0`` turns both off). The scenarios are the golden check's (every kernel path:
the TCP variants with losses, presets, relays, pools, CBR, fluid, SCTP associations), run without traces.
"""

from __future__ import annotations

import dataclasses
import importlib.util
import pickle
from pathlib import Path

import numpy as np
import pytest

from simcore.packet import PacketResult, build_cache, simulate
from simcore.packet.lazy_result import LazyPacketResult

_GOLDEN = Path(__file__).resolve().parents[2] / "benchmarks" / "_golden_packet.py"


def _golden_scenarios():
    spec = importlib.util.spec_from_file_location("_golden_packet", _GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(name, sc) for name, sc, _ in mod._scenarios() if name != "slot-recycling"]


SCENARIOS = _golden_scenarios()


@pytest.mark.parametrize("name,sc", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_cached_builds_and_lazy_results_are_bit_identical(name, sc, assert_same, eager):
    build_cache.clear()
    want = [eager(sc, s) for s in (3, 11)]
    first = simulate(sc, seed=3)  # builds and keeps the template
    again = simulate(sc, seed=11)  # from the template, another seed
    third = simulate(sc, seed=3)  # the template again: the first seed's run once more
    assert_same(first, want[0], f"{name}/first")
    assert_same(again, want[1], f"{name}/cached")
    assert_same(third, want[0], f"{name}/cached-again")


def test_lazy_result_pickles_as_a_plain_result_and_replace_keeps_every_field(assert_same, eager):
    name, sc = SCENARIOS[0]
    want = eager(sc, 5)
    res = simulate(sc, seed=5)
    res = simulate(sc, seed=5)
    assert isinstance(res, LazyPacketResult)
    back = pickle.loads(pickle.dumps(res))
    assert type(back) is PacketResult
    assert_same(back, want, "pickled")
    other = dataclasses.replace(simulate(sc, seed=5), events=-1)
    assert other.events == -1
    assert_same(dataclasses.replace(other, events=want.events), want, "replaced")
    with pytest.raises(dataclasses.FrozenInstanceError):
        res.events = 3


def test_the_cache_is_bounded_and_follows_the_scenario_object():
    _, sc = SCENARIOS[0]
    build_cache.clear()
    simulate(sc, seed=1)
    assert build_cache.fresh_state(sc, False, np.zeros(len(sc.network.links), np.uint64)) is not None
    twin = dataclasses.replace(sc)  # equal, but another object: built afresh, not taken from sc's template
    assert build_cache.fresh_state(twin, False, np.zeros(len(sc.network.links), np.uint64)) is None
    for _, other in SCENARIOS[: build_cache.MAX_SCENARIOS + 2]:
        simulate(other, seed=1)
    assert len(build_cache._cache) <= build_cache.MAX_SCENARIOS


# np.empty in simcore.engine.heap_new (only entries < meta[0] are read); a lane's ring, read only where the run pushed
# (a borrowed one keeps the last run's entries: build_cache)
UNSET = ("heap_t", "heap_s", "heap_k", "heap_a", "lane")


def _state_bytes(S):
    return {n: (a.dtype, a.shape, b"" if n in UNSET else np.ascontiguousarray(a).tobytes())
            for n, a in zip(S._fields, S, strict=True)}


def test_a_derived_scenario_gets_the_state_its_own_build_gives(assert_same, eager):
    """A scenario derived by changing message start times (simcore.ftp's fixed point) is made from its root's
    template with the start column and the known events made again: every array as ``_build`` makes it."""
    import sys

    from simcore.ftp._waits import _with_messages

    sim = sys.modules["simcore.packet.simulate"]
    _, root = next((n, s) for n, s in SCENARIOS if n == "http10")
    build_cache.clear()
    simulate(root, seed=1)
    msgs = list(root.messages)
    for j in (0, 3, 8):  # a message written at a time (a known event) and messages that follow others
        msgs[j] = dataclasses.replace(msgs[j], start_time_s=msgs[j].start_time_s + 0.25 * (j + 1))
    child = _with_messages(root, tuple(msgs))
    grandchild = _with_messages(child, tuple(dataclasses.replace(m, start_time_s=m.start_time_s + 0.5)
                                             if k == 5 else m for k, m in enumerate(msgs)))
    seeds = np.array([123, 456], np.uint64)[: len(root.network.links)]
    for sc in (child, grandchild):
        got = build_cache.fresh_state(sc, False, seeds)
        assert got is not None
        want = sim._build(sc, seeds.copy(), False, {})
        assert got[1:] == want[1:]
        assert _state_bytes(got[0]) == _state_bytes(want[0])
        assert_same(simulate(sc, seed=9), eager(sc, 9), "derived")


def test_a_connection_that_never_opens_reports_how_a_half_starts(assert_same, eager):
    """A connection opened after the run's end never takes a slot: its halves report the starting values (the
    initial RTO of its own TcpParams, nothing sent, never established), from the lazy result as from the eager."""
    from simcore.packet import Connection, LinkParams, Message, Scenario, TcpParams, chain

    sc = Scenario(chain(1, LinkParams(rate_bps=1e6, delay_s=0.01)),
                  (Connection(0, 1, TcpParams()), Connection(0, 1, TcpParams(initial_rto_s=2.5), open_time_s=50.0)),
                  (Message(0, 5000),), duration_s=5.0)
    build_cache.clear()
    simulate(sc, seed=2)
    res = simulate(sc, seed=2)
    assert res.rto_s[1].tolist() == [2.5, 2.5]
    assert res.segments_sent[1].tolist() == [0, 0] and res.segments_sent[0, 0] >= 4  # 5000 B in 1460-B segments
    assert np.isnan(res.established_s[1]) and res.established_s[0] > 0
    assert_same(res, eager(sc, 2), "never-opened")


@pytest.mark.parametrize("name,sc", SCENARIOS[::3], ids=[n for n, _ in SCENARIOS[::3]])
def test_rows_a_borrowed_scratch_set_does_not_restore_are_never_read(name, sc, assert_same, eager):
    """build_cache restores no lane entry and no heap entry beyond the heap's count: a run must give the same
    result when every such byte holds garbage (here 0xA5, a valid-looking time and event kind if read)."""
    import sys

    sim = sys.modules["simcore.packet.simulate"]
    seeds = sim._link_seeds(4, max(len(sc.network.links), 1))
    S, _, _ = sim._build(sc, seeds, False, {})
    S.lane.view(np.uint8)[:] = 0xA5
    for a in (S.heap_t, S.heap_s, S.heap_k, S.heap_a):
        a[int(S.heap_m[0]):].view(np.uint8)[:] = 0xA5
    S = sim.run_to_end(S)
    if S.st[0]["flags"]:
        pytest.skip("the first try overflowed a table (simulate redoes it with another build)")
    got = sim._result(sc, S, *[getattr(eager(sc, 4), n) for n in ("tcp_isn", "tcp_ts_offset")])
    assert_same(got, eager(sc, 4), f"{name}/garbage")


@pytest.mark.parametrize("name,sc", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_rows_above_a_runs_high_water_marks_are_never_written(name, sc):
    """build_cache (and a batch, ``kernel.batch``) restores the packet slots and the scoreboard and out-of-order
    rows only below the finished run's high-water marks (``st.pkt_hw``, ``st.seg_hw``, ``st.ooo_hw``): every
    byte above them must still be the fresh build's zero after a whole run, on every kernel path."""
    import sys

    sim = sys.modules["simcore.packet.simulate"]
    S, _, _ = sim._build(sc, sim._link_seeds(4, max(len(sc.network.links), 1)), False, {})
    S = sim.run_to_end(S)
    st = S.st[0]
    for table, mark in (("seg", "seg_hw"), ("ooo", "ooo_hw"), ("pkt", "pkt_hw"), ("pkt_free", "pkt_hw")):
        a = getattr(S, table)
        hw = int(st[mark])
        assert 0 <= hw <= a.shape[0], (table, hw, a.shape)
        raw = np.ascontiguousarray(a[hw:]).view(np.uint8).reshape(a.shape[0] - hw, a[:1].nbytes)
        written = np.flatnonzero(raw.any(axis=1))
        assert written.size == 0, f"{name}: {table} rows {(hw + written[:5]).tolist()} written above {mark}={hw}"
    # the marks are not vacuous: a run that sent a segment took a scoreboard row and a packet slot
    if int(st["delivered"]) > 0:
        assert int(st["pkt_hw"]) > 0
        if (S.conn_par["proto"] >= 0).any() and S.half_out.shape[0] > 1:
            assert int(st["seg_hw"]) > 0, name


def test_later_runs_never_write_into_a_result_still_held(assert_same, eager):
    """A finished run's block of arrays is reused only once nothing refers to it: a result held (or one array
    taken from it) keeps its values while many runs of the same scenario come and go."""
    _, sc = next((n, s) for n, s in SCENARIOS if n == "http10")
    build_cache.clear()
    simulate(sc, seed=1)  # builds the template: the runs below are made from it
    held = simulate(sc, seed=3)
    part = simulate(sc, seed=4).segments_sent  # one field kept (a view of the run's rows), its result dropped
    for s in range(3 * build_cache.BLOCKS):
        assert simulate(sc, seed=100 + s).events > 0  # runs whose results are dropped at once: their blocks reused
    assert_same(held, eager(sc, 3), "held")
    assert part.tobytes() == eager(sc, 4).segments_sent.tobytes()
    tpl = build_cache._template(sc, False)
    assert len(tpl.blocks) <= build_cache.BLOCKS and any(b.unused() for b in tpl.blocks)
