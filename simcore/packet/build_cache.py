"""Built kernel states kept per scenario, so that running one small scenario again (another seed, another pass)
costs a copy of its arrays instead of a build.

``simulate`` builds the kernel's state (``simulate._build``: routes, records, heap, known events) from the
scenario's objects, which for a small scenario costs an order of magnitude more than running it. Everything
in that state depends on the scenario alone except the per-link seeds (``State.rng``) and the streams a congestion
control draws from them (``conn_par.cc_seed``, BBR's), so the state built for a
scenario is kept here as a template, and a later call with the same scenario object gets a copy with its own
seeds: the same arrays, bit for bit, as a new build would give (``tests/packet/test_build_cache.py``).

- **Derived scenarios.** ``derive(child, parent)`` says that ``child`` is ``parent`` with only some messages'
  ``start_time_s`` changed (``simcore.ftp``'s fixed point over write times makes one per pass): its state is
  the parent's template with the message start column and the events known before the run (``simulate.
  _first_events``) made again, instead of a whole build.
- **Scratch tables.** The event engine's own tables (packets, heap, lanes, rings, scoreboards: ``SCRATCH``) are
  large beside the rest of a small state (the 10-file session: ~0.4 of its ~0.45 MB), and a fresh allocation of
  that size is mapped and faulted in page by page on every run. They are never read once the run is over, so
  each template keeps a few sets of them and a run borrows one and gives it back (``give_back``), which also
  removes them from the finished state (a later read of one fails loudly instead of seeing another run's
  values). A borrowed set gets back, as bytes of the template's, every row a run can read before writing it that
  the last run may have written: the packet slots and free list below its high-water mark (``st.pkt_hw``: slots
  above it were never taken, ``kernel.link.alloc``), the scoreboard and out-of-order rows below theirs
  (``st.seg_hw``, ``st.ooo_hw``: ``kernel.link.take_row``; the 10-file session takes 2 of its 20), the heap's
  entries below the template's count (the engine reads no other: a fresh build leaves them uninitialised,
  ``simcore.engine.heap_new``), no lane entry (a lane's ring is read only where the run pushed, ``kernel.lane``),
  and all of the others.
- **Blocks.** The other arrays of a state are views of one block, copied from the template's in one go. Making
  the ~40 views cost more than the copy, so a template keeps up to ``BLOCKS`` copies with their views and a run
  takes one that nothing refers to any more (by CPython's reference counts: a finished state or lazy result
  holds the views, and any array taken from a view refers to the block), else makes a new one.
- **Bounds.** Only first builds (no capacity raised by an overflowing run) of states up to ``MAX_STATE_BYTES``
  are kept (a large scenario's tables are mapped lazily, and copying them would touch every page), for the
  ``MAX_SCENARIOS`` most recently used scenarios, each held by a weak reference (a scenario no longer used
  anywhere drops its template). Templates are never written.
"""

from __future__ import annotations

import sys
import weakref
from collections import OrderedDict

import numpy as np

from .kernel import layout as L
from .kernel.batch import B_CC, B_I, B_LINKS, B_N, B_NOUT, B_NPLAN, B_PLAN, HW_OOO, HW_PKT, HW_SEG, SINGLE

__all__ = ["fresh_state", "borrow", "borrow_batch", "same_template", "remember", "give_back", "derive", "clear",
           "MAX_STATE_BYTES", "MAX_SCENARIOS", "SCRATCH"]

MAX_STATE_BYTES = 4 << 20  # a template's arrays, at most (small scenarios: the 10-file session's is ~0.45 MB)
MAX_SCENARIOS = 32  # templates kept (at most MAX_STATE_BYTES * MAX_SCENARIOS = 128 MB; typically a few MB)
SPARE_SETS = 2  # scratch sets kept per template (one per run in progress at once: threads, rows regrown)
# the event engine's tables: written during the run only, never read by the result (simulate._result)
SCRATCH = ("seg", "ooo", "pkt", "pkt_free", "ring", "heap_t", "heap_s", "heap_k", "heap_a", "lane")
_SCRATCH_IDX = tuple(L.State._fields.index(n) for n in SCRATCH)
_RNG, _MSG, _KNOWN_T, _KNOWN_K, _KNOWN_A = (L.State._fields.index(n) for n in ("rng", "msg", "known_t", "known_k",
                                                                             "known_a"))
_CONN_PAR = L.State._fields.index("conn_par")
# arrays of the block no result reads (a connection slot's rows: a finished run leaves its connections' results in
# half_out and conn_id, kernel.batch.results_of_slots), not copied out of a batch's runs (the 10-file session: 16 of
# its 33 KB a run). A result that read one would fail loudly (packet.batch._Runs), not see another run's values.
NOT_OUT = ("half", "conn", "cc", "rate")
_NOT_OUT_IDX = frozenset(L.State._fields.index(n) for n in NOT_OUT)
# a run's batch fields (kernel.batch): set per state, not kept in the block
_BATCH_IDX = {L.State._fields.index(n): n for n in SINGLE}
_BAT, _BLK, _TPL, _SCR, _STPL, _BSEED, _BOUT = (L.State._fields.index(n) for n in ("bat", "blk", "tpl", "scr", "stpl",
                                                                                  "bseed", "bout"))
BLOCKS = 4  # copies of a template's block kept for reuse (one per result alive at once, beyond: made anew)


class _Block:
    """One copy of a template's block and the state's arrays viewing it, reused by a later run once nothing
    refers to them any more (no finished state, result or array taken from one)."""

    def __init__(self, tpl: _Template):
        self.block = tpl.block.copy()
        self.views = [np.ndarray(a.shape, a.dtype, self.block, tpl.offset[i]) if i in tpl.offset else None
                      for i, a in enumerate(tpl.arrays)]
        self.live = [v for v in self.views if v is not None]
        self.first = self.live[0]  # every state made from this block holds it
        self.idle_first = sys.getrefcount(self.first)  # the references they have while unused, counted as unused()
        self.idle = self._refs()  # counts them

    def _refs(self) -> tuple:
        return sys.getrefcount(self.block), list(map(sys.getrefcount, self.live))

    def unused(self) -> bool:
        """True if nothing but this object refers to the block and its views: CPython's reference counts, those
        they had when made (a state holds the views, and an array made from a view refers to the block)."""
        return sys.getrefcount(self.first) == self.idle_first and self._refs() == self.idle


class _Template:
    """A scenario's built state, never written, spare sets of its scratch tables and copies of its block."""

    def __init__(self, ref, S: L.State, pool: int, heap_cap: int, adopt: bool = False):
        self.ref = ref
        # (a state built only to be kept is not copied: nothing else holds it)
        self.arrays = tuple(a if adopt and a.flags.c_contiguous else _copy(a) for a in S)
        self.bytes = tuple(_bytes(a) for a in self.arrays)
        # (whether a scratch table is all zeros: how a new set of them is made, and which rows a run resets)
        self.zero = {i: not self.bytes[i].any() for i in _SCRATCH_IDX}
        # a congestion control's own streams (BBR's) are drawn from the links' seeds too: redrawn per run
        self.cc_seeded = bool(self.arrays[_CONN_PAR]["cc_seed"].any())
        self.pool = pool
        self.heap_cap = heap_cap
        # (scratch tables, their bytes, the high-water marks of the run that used them last, their block)
        self.spare: list[tuple[list[np.ndarray], list[np.ndarray], int, np.ndarray]] = []
        # id(first table) -> (tables, their bytes, their block): the sets made for this template
        self.sets: dict[int, tuple] = {}
        self.heap_n = int(S.heap_m[0])  # events in the heap before the run
        self._first = None  # first_events(), made on first use
        # every other array lives in one block, copied at once: one allocation and one memcpy per run instead of
        # one of each per array; each starts on a 64-byte boundary (aligned, as numba's signatures expect)
        self.offset = {}
        end = 0
        for i, a in enumerate(self.arrays):
            if i not in _SCRATCH_IDX and i not in _BATCH_IDX:
                self.offset[i] = end
                end += -(-a.nbytes // 64) * 64
        self.block = np.zeros(max(end, 64), np.uint8)
        for i, off in self.offset.items():
            self.block[off:off + self.arrays[i].nbytes] = self.bytes[i]
        self.first = min(self.offset)  # the first array in the block (every state of it holds it)
        # what a batch copies out of each finished run: ranges of the block's 8-byte words, one after another in
        # a row of S.bout, and where each array copied lands in that row (bytes)
        ranges: list[list[int]] = []  # [first word in the block, words]
        at = {}  # array -> (its range, its first word in that range)
        for i, off in sorted(self.offset.items(), key=lambda kv: kv[1]):
            if i in _NOT_OUT_IDX:
                continue
            first, words = off // 8, -(-self.arrays[i].nbytes // 8)
            if ranges and first < ranges[-1][0] + ranges[-1][1] + 8:  # right after the last one (its padding apart)
                ranges[-1][1] = first + words - ranges[-1][0]
            else:
                ranges.append([first, words])
            at[i] = (len(ranges) - 1, first - ranges[-1][0])
        starts = np.cumsum([0] + [n for _, n in ranges]).tolist()
        self.out_ranges = ranges
        self.out_offset = {i: 8 * (starts[r] + d) for i, (r, d) in at.items()}
        self.out_words = max(starts[-1], 1)
        # a set of scratch tables is one block too (each table on a 64-byte boundary): a batch resets it in numba
        self.scratch_offset = []
        end = 0
        for i in _SCRATCH_IDX:
            self.scratch_offset.append(end)
            end += -(-self.arrays[i].nbytes // 64) * 64
        self.scratch_bytes = max(end, 64)
        self._stpl = None  # the template's scratch tables as one block, made for the first batch
        self.blocks: list[_Block] = []  # at most BLOCKS, most recently taken first
        # how a borrowed scratch set is reset: (its table k, bytes per row, rows or a HW_* for the last run's
        # high-water mark, the template's bytes or None for zeros), for the tables with rows a run can read before
        # writing them
        self.plan = []
        for k, name in enumerate(SCRATCH):
            i = _SCRATCH_IDX[k]
            a = self.arrays[i]
            rows = self._rows_read(name, a.shape[0])
            if rows:
                self.plan.append((k, a.nbytes // a.shape[0], rows, None if self.zero[i] else self.bytes[i]))

    def first_events(self) -> tuple:
        """The root scenario's events known before the run (``simulate._first_events``: time, kind, argument, in
        numbering order), where in them the messages written at a time are, and which messages those are."""
        if self._first is None:
            from .simulate import _first_events

            sc = self.ref()
            t, kind, arg = _first_events(sc)
            at = np.flatnonzero(kind == L.EV_WRITE)
            self._first = (t, kind, arg, at, arg[at])
        return self._first

    def _rows_read(self, name: str, n: int) -> int:
        """How many first rows of scratch table ``name`` (of ``n`` rows) a run may read before writing them: a
        ``HW_*`` for the rows below the high-water mark of the run that used the table last (``kernel.batch``)."""
        if n == 0:  # (no connection: no scoreboard row)
            return 0
        if name in ("pkt", "pkt_free"):  # only slots below pkt_hw were ever taken or listed (kernel.link.alloc)
            return HW_PKT
        if name in ("seg", "ooo"):  # only rows below seg_hw / ooo_hw were ever taken (kernel.link.take_row)
            return HW_SEG if name == "seg" else HW_OOO
        if name in ("heap_t", "heap_s", "heap_k", "heap_a"):  # only entries below heap_m[0] are read (engine)
            return min(self.heap_n, n)
        if name == "lane" and self.zero[L.State._fields.index("lane")]:  # read only where this run pushed
            return 0
        return n

    def _take_block(self) -> tuple[list, np.ndarray]:
        """The arrays of a state (views of a copy of the block; None for the scratch tables) and that copy: those
        of an unused copy if there is one, reset to the template's bytes, else of a new copy (kept if there is
        room)."""
        blocks = self.blocks
        for _ in range(len(blocks)):
            try:
                b = blocks.pop(0)  # (out of the list while tested: another thread cannot take it too)
            except IndexError:
                break
            if b.unused():
                b.block[:] = self.block
                views = list(b.views)
                blocks.append(b)
                return views, b.block
            blocks.append(b)
        b = _Block(self)
        if len(blocks) < BLOCKS:
            blocks.append(b)
        return list(b.views), b.block

    def _new_set(self, sblock: np.ndarray | None = None) -> tuple:
        """A new set of scratch tables, views of one zeroed block (``sblock``, zeroed, if given: else a new one),
        with the template's bytes where they are not zero: (tables, their bytes, the block)."""
        if sblock is None:
            sblock = np.zeros(self.scratch_bytes, np.uint8)
        else:
            sblock[:] = 0
        scratch, raw = [], []
        for i, off in zip(_SCRATCH_IDX, self.scratch_offset, strict=True):
            a = self.arrays[i]
            scratch.append(np.ndarray(a.shape, a.dtype, sblock, off))
            raw.append(sblock[off:off + a.nbytes])
            if not self.zero[i]:
                raw[-1][:] = self.bytes[i]
        return scratch, raw, sblock

    def stpl(self) -> np.ndarray:
        """The template's scratch tables as one block (as a new set starts)."""
        if self._stpl is None:
            self._stpl = self._new_set()[2]
        return self._stpl

    def batch_control(self, n: int, n_links: int, n_cc: int) -> np.ndarray:
        """``S.bat`` for a batch of ``n`` runs (``kernel.batch``): counts, then the reset plan and the copy-out ranges
        in 8-byte words (every record of the state is a whole number of them: its fields are 8 bytes each)."""
        bat = np.zeros(B_PLAN + 4 * len(self.plan) + 2 * len(self.out_ranges), np.int64)
        bat[B_N] = n
        bat[B_I] = 0
        bat[B_LINKS] = n_links
        bat[B_CC] = n_cc
        bat[B_NPLAN] = len(self.plan)
        bat[B_NOUT] = len(self.out_ranges)
        for r, (k, row_bytes, rows, tpl) in enumerate(self.plan):
            bat[B_PLAN + 4 * r: B_PLAN + 4 * r + 4] = (self.scratch_offset[k] // 8, row_bytes // 8, rows,
                                                      tpl is not None)
        w = B_PLAN + 4 * len(self.plan)
        bat[w:] = np.array(self.out_ranges, np.int64).reshape(-1)
        return bat

    def state(self, seed_vals: np.ndarray, patch=None, batch=None) -> L.State:
        """A run's state with links' seeds ``seed_vals`` (``patch(arrays)`` applied, for a derived scenario); with
        ``batch=(bseed, n_cc)``, the state of a batch of ``bseed.shape[0]`` runs (``kernel.batch``) whose first
        run's seeds are ``seed_vals``."""
        arrays, block = self._take_block()
        try:
            scratch, raw, marks, sblock = self.spare.pop()
        except IndexError:  # a new set: zeros, then whatever of the template is not zero
            scratch, raw, sblock = self._new_set(_idle_scratch(self.scratch_bytes))
            if len(self.sets) >= 4 * SPARE_SETS:  # sets never given back (a table regrown): forgotten
                self.sets = {id(sp[0][0]): (sp[0], sp[1], sp[3]) for sp in self.spare}
            self.sets[id(scratch[0])] = (scratch, raw, sblock)
        else:  # a set a finished run gave back: the rows it may have written and a run may read, as the template's
            for k, row_bytes, rows, tpl in self.plan:
                end = row_bytes * (marks[rows] if rows < 0 else rows)
                if tpl is None:
                    raw[k][:end] = 0
                else:
                    raw[k][:end] = tpl[:end]
        for i, a in zip(_SCRATCH_IDX, scratch, strict=True):
            arrays[i] = a
        arrays[_RNG][:] = seed_vals
        if self.cc_seeded:
            from .simulate import cc_seeds

            arrays[_CONN_PAR]["cc_seed"] = cc_seeds(seed_vals, arrays[_CONN_PAR].shape[0])
        if patch is not None:
            patch(arrays)
        for i, name in _BATCH_IDX.items():
            arrays[i] = SINGLE[name]
        if batch is not None:
            bseed, n_cc = batch
            n, n_links = bseed.shape[0], seed_vals.shape[0]
            arrays[_BAT] = self.batch_control(n, n_links, n_cc)
            # (as 8-byte words: the kernel copies them word by word)
            arrays[_BLK] = block.view(np.uint64)
            arrays[_TPL] = arrays[_BLK].copy()  # the first run's block as it starts (a derived scenario's patch in it)
            arrays[_SCR] = sblock.view(np.uint64)
            # (the template's scratch bytes only where the plan resets rows to them: else no copy of them is made)
            arrays[_STPL] = self.stpl().view(np.uint64) if any(p[3] is not None for p in self.plan) else SINGLE["stpl"]
            arrays[_BSEED] = bseed
            arrays[_BOUT] = _bout(n, self.out_words)
        return L.State._make(arrays)


RECENT = 8  # templates used most recently, whose spare scratch tables are not taken by another


def _idle_scratch(nbytes: int) -> np.ndarray | None:
    """A block of scratch tables of ``nbytes`` that another template keeps spare, taken from it (a sweep that makes
    a scenario object per point would otherwise map and fault in a new set, ~0.4 MB for the 10-file session, per
    scenario: its pages cost ~6x more on first touch than zeroing them again), or None. From a template whose
    scenario is gone, or that is not among the ``RECENT`` used last (scenarios run in turn keep their own), if
    there is one; else from the least recently used that has one (it takes or makes another when it runs again)."""
    tpls = list(_cache.values())
    old = len(tpls) - RECENT
    for recent_too in (False, True):
        for j, tpl in enumerate(tpls):
            if not recent_too and j >= old and tpl.ref() is not None:
                continue
            for k, sp in enumerate(tpl.spare):
                if sp[3].nbytes == nbytes:
                    del tpl.spare[k]
                    tpl.sets.pop(id(sp[0][0]), None)
                    return sp[3]
    return None


BOUTS = 8  # blocks of batch copies kept for reuse once no result refers to them
BOUT_BYTES = 4 << 20  # ... of at most this size each
_bouts: list[np.ndarray] = []


def _bout(n: int, words: int) -> np.ndarray:
    """``S.bout`` for ``n`` runs of ``words`` each (``kernel.batch``: every word is written before it is read): one
    kept that nothing refers to any more (CPython's reference count: every result of a batch refers to it), else a
    new one, kept if there is room."""
    for b in _bouts:
        if b.shape == (n, words) and sys.getrefcount(b) == 3:  # (the list, ``b`` and getrefcount's argument)
            return b
    b = np.empty((n, words), np.uint64)
    if b.nbytes <= BOUT_BYTES:
        _bouts.append(b)
        if len(_bouts) > BOUTS:
            del _bouts[0]
    return b


def _bytes(a: np.ndarray) -> np.ndarray:
    """``a``'s memory as bytes (a structured array's copy field by field is ~20x slower than its memcpy)."""
    return a.reshape(-1).view(np.uint8)


def _copy(a: np.ndarray) -> np.ndarray:
    return np.ndarray(a.shape, a.dtype, _bytes(a).copy())


# (id(scenario), trace) -> _Template
_cache: OrderedDict = OrderedDict()
# id(derived scenario) -> (weak reference to it, weak reference to its root: the scenario it was derived from, its
# message start times or None)
_roots: dict = {}


def remember(scenario, trace: bool, S: L.State, pool: int, heap_cap: int, adopt: bool = False) -> _Template | None:
    """Keep ``S`` (a state just built for ``scenario``, not yet run) as its template if it is small enough;
    return the template, or None if it is not kept. ``adopt``: ``S`` is built only for this (it is never run), so
    the template keeps its arrays instead of copies."""
    if sum(a.nbytes for a in S) > MAX_STATE_BYTES:
        return None
    try:
        ref = weakref.ref(scenario)
    except TypeError:
        return None
    key = (id(scenario), bool(trace))
    tpl = _cache[key] = _Template(ref, S, pool, heap_cap, adopt)
    _cache.move_to_end(key)
    while len(_cache) > MAX_SCENARIOS:
        _cache.popitem(last=False)
    return tpl


def _template(scenario, trace: bool) -> _Template | None:
    key = (id(scenario), bool(trace))
    tpl = _cache.get(key)
    if tpl is None:
        return None
    if tpl.ref() is not scenario:  # another object now has that id: the old one is gone
        del _cache[key]
        return None
    _cache.move_to_end(key)
    return tpl


def fresh_state(scenario, trace: bool, seed_vals: np.ndarray) -> tuple | None:
    """Return ``(S, pool, heap_cap)`` for ``scenario`` with ``seed_vals`` as the links' seeds, from its template
    or its root's (what ``simulate._build(scenario, seed_vals, trace, {})`` returns), or None if it has none."""
    out = borrow(scenario, trace, seed_vals)
    return None if out is None else out[:3]


def _find(scenario, trace: bool) -> tuple:
    """(the template ``scenario``'s states are made from, the patch a derived scenario's needs or None), or
    (None, None)."""
    tpl = _template(scenario, trace)
    if tpl is not None:
        return tpl, None
    hit = _roots.get(id(scenario))
    if hit is None or hit[0]() is not scenario:
        return None, None
    root = hit[1]()
    tpl = _template(root, trace) if root is not None else None
    if tpl is None:
        return None, None
    return tpl, lambda arrays: _patch_starts(scenario, tpl, arrays)


def borrow(scenario, trace: bool, seed_vals: np.ndarray) -> tuple | None:
    """``fresh_state``, and the template it came from (to ``give_back`` the run's scratch tables to)."""
    tpl, patch = _find(scenario, trace)
    if tpl is None:
        return None
    return tpl.state(seed_vals, patch), tpl.pool, tpl.heap_cap, tpl


def borrow_batch(scenario, seeds: np.ndarray) -> tuple | None:
    """``(S, template)``: the state of a batch of runs of ``scenario`` (``kernel.batch``), run ``r`` with links'
    seeds ``seeds[r]``, from its template (or its root's); None if it has none. ``give_back`` it after the run.
    ``scenario`` may also be a list, one scenario per run, all made from one template (``same_template``: a root
    and scenarios derived from it)."""
    scenarios = scenario if isinstance(scenario, list) else None
    tpl, patch = _find(scenarios[0] if scenarios else scenario, False)
    if tpl is None:
        return None
    bseed, n_cc = seeds, 0
    if tpl.cc_seeded:  # each run's congestion-control streams, as ``state`` draws them for one run
        from .simulate import cc_seeds

        n_cc = tpl.arrays[_CONN_PAR].shape[0]
        bseed = np.concatenate([seeds, np.stack([cc_seeds(v, n_cc).view(np.uint64) for v in seeds])], axis=1)
    S = tpl.state(seeds[0], patch, (np.ascontiguousarray(bseed, np.uint64), n_cc))
    if scenarios is not None and any(sc is not scenarios[0] for sc in scenarios):
        S = S._replace(tpl=_run_blocks(tpl, S, scenarios))
    return S, tpl


def same_template(a, b) -> bool:
    """True if scenarios ``a`` and ``b`` have their states made from one kept template (one is the other, or both
    come from one root by ``derive``): their runs can share a batch (``borrow_batch``)."""
    if a is b:
        return True
    ta = _find(a, False)[0]
    return ta is not None and ta is _find(b, False)[0]


def _starts_and_known(sc, tpl: _Template) -> tuple:
    """``sc``'s message start times and the events known before its run (time, kind, argument, sorted): its root's
    (``tpl``'s) with the times of the messages written at a time replaced."""
    from .simulate import _at_least_one, _known_events

    hit = _roots.get(id(sc))
    starts = hit[2] if hit is not None and hit[0]() is sc and hit[2] is not None else \
        np.array([m.start_time_s for m in sc.messages], np.float64)
    t, kind, arg, at, wm = tpl.first_events()
    t = t.copy()
    t[at] = starts[wm]
    return (starts, *(_at_least_one(a) for a in _known_events(t, kind, arg)))


def _patch_starts(sc, tpl: _Template, arrays: list) -> None:
    """Write ``sc``'s message start times, and the events known before the run, into a copy of its root's state
    (``tpl``'s), in place: they are as many as the root's (only their times differ), so the state stays one block
    (a batch can then start each run from its own copy of it: ``borrow_batch``)."""
    starts, *known = _starts_and_known(sc, tpl)
    if starts.size:
        arrays[_MSG]["start"][:starts.size] = starts
    for i, a in zip((_KNOWN_T, _KNOWN_K, _KNOWN_A), known, strict=True):
        if arrays[i].shape == a.shape:
            arrays[i][:] = a
        else:  # (not reached: a derived scenario has its root's messages and connections)
            arrays[i] = a


def _run_blocks(tpl: _Template, S: L.State, scenarios: list) -> np.ndarray:
    """``S.tpl`` for a batch whose run ``r`` is of ``scenarios[r]`` (each ``tpl``'s root or derived from it): run
    ``r``'s block as it starts, one after another (run 0's is ``S``'s block as it starts)."""
    blk = S.blk
    nw = blk.shape[0]
    blocks = np.empty((len(scenarios), nw), np.uint64)
    blocks[:] = blk
    raw = blocks.reshape(-1).view(np.uint8)
    row = nw * 8
    msg = tpl.arrays[_MSG]
    start_at = tpl.offset[_MSG] + msg.dtype.fields["start"][1]
    first = scenarios[0]
    for r in range(1, len(scenarios)):
        sc = scenarios[r]
        if sc is first:
            continue
        starts, *known = _starts_and_known(sc, tpl)
        if starts.size:
            np.ndarray(starts.shape, np.float64, raw, r * row + start_at, (msg.strides[0],))[:] = starts
        for i, a in zip((_KNOWN_T, _KNOWN_K, _KNOWN_A), known, strict=True):
            np.ndarray(a.shape, a.dtype, raw, r * row + tpl.offset[i])[:] = a
    return blocks.reshape(-1)


def give_back(tpl: _Template, S: L.State) -> L.State:
    """Return ``S`` (a finished run from ``tpl``, what ``borrow`` or ``remember`` returned) without its scratch
    tables, which go back to ``tpl`` if they are a set it made (not if the run regrew one of its tables)."""
    made = tpl.sets.get(id(S[_SCRATCH_IDX[0]]))
    if made is not None and all(a is S[i] for a, i in zip(made[0], _SCRATCH_IDX, strict=True)):
        if len(tpl.spare) < SPARE_SETS:
            st = S.st[0]
            marks = {HW_PKT: int(st["pkt_hw"]), HW_SEG: int(st["seg_hw"]), HW_OOO: int(st["ooo_hw"])}
            tpl.spare.append((made[0], made[1], marks, made[2]))
        else:
            del tpl.sets[id(made[0][0])]
    out = list(S)
    for i in _SCRATCH_IDX:
        out[i] = None
    return L.State._make(out)


def derive(child, parent, starts: np.ndarray | None = None) -> None:
    """Record that ``child`` is ``parent`` (or a scenario derived from it) with only message start times changed,
    so that its state is made from the template of the scenario they both come from. ``starts``: ``child``'s
    message start times as an array, if the caller has them (else they are read from its messages when needed)."""
    hit = _roots.get(id(parent))
    root_ref = hit[1] if hit is not None and hit[0]() is parent else weakref.ref(parent)
    key = id(child)
    _roots[key] = (weakref.ref(child, lambda _r, k=key: _roots.pop(k, None)), root_ref, starts)


def clear() -> None:
    """Forget every template."""
    _cache.clear()
    _roots.clear()
