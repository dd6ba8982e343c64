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
  values). A borrowed set gets back, as bytes of the template's, every row a run can read before writing it: the
  packet slots and free list below the last run's high-water mark (``st.pkt_hw``: slots above it were never
  taken, ``kernel.link.alloc``), the heap's entries below the template's count (the engine reads no other: a
  fresh build leaves them uninitialised, ``simcore.engine.heap_new``), no lane entry (a lane's ring is read
  only where the run pushed, ``kernel.lane``), and all of the others.
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

__all__ = ["fresh_state", "borrow", "remember", "give_back", "derive", "clear", "MAX_STATE_BYTES", "MAX_SCENARIOS",
           "SCRATCH"]

MAX_STATE_BYTES = 4 << 20  # a template's arrays, at most (small scenarios: the 10-file session's is ~0.45 MB)
MAX_SCENARIOS = 32  # templates kept (at most MAX_STATE_BYTES * MAX_SCENARIOS = 128 MB; typically a few MB)
SPARE_SETS = 2  # scratch sets kept per template (one per run in progress at once: threads, rows regrown)
# the event engine's tables: written during the run only, never read by the result (simulate._result)
SCRATCH = ("seg", "ooo", "pkt", "pkt_free", "ring", "heap_t", "heap_s", "heap_k", "heap_a", "lane")
_SCRATCH_IDX = tuple(L.State._fields.index(n) for n in SCRATCH)
_RNG, _MSG, _KNOWN_T, _KNOWN_K, _KNOWN_A = (L.State._fields.index(n) for n in ("rng", "msg", "known_t", "known_k",
                                                                             "known_a"))
_CONN_PAR = L.State._fields.index("conn_par")
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

    def __init__(self, ref, S: L.State, pool: int, heap_cap: int):
        self.ref = ref
        self.arrays = tuple(_copy(a) for a in S)
        self.bytes = tuple(_bytes(a) for a in self.arrays)
        self.zero = tuple(not b.any() for b in self.bytes)
        # a congestion control's own streams (BBR's) are drawn from the links' seeds too: redrawn per run
        self.cc_seeded = bool(self.arrays[_CONN_PAR]["cc_seed"].any())
        self.pool = pool
        self.heap_cap = heap_cap
        # (scratch tables, their bytes, st.pkt_hw of the run that used them last)
        self.spare: list[tuple[list[np.ndarray], list[np.ndarray], int]] = []
        self.sets: dict[int, tuple] = {}  # id(first table) -> (tables, their bytes): the sets made for this template
        self.heap_n = int(S.heap_m[0])  # events in the heap before the run
        self._first = None  # first_events(), made on first use
        # every other array lives in one block, copied at once: one allocation and one memcpy per run instead of
        # one of each per array; each starts on a 64-byte boundary (aligned, as numba's signatures expect)
        self.offset = {}
        end = 0
        for i, a in enumerate(self.arrays):
            if i not in _SCRATCH_IDX:
                self.offset[i] = end
                end += -(-a.nbytes // 64) * 64
        self.block = np.zeros(max(end, 64), np.uint8)
        for i, off in self.offset.items():
            self.block[off:off + self.arrays[i].nbytes] = self.bytes[i]
        self.first = min(self.offset)  # the first array in the block (every state of it holds it)
        self.blocks: list[_Block] = []  # at most BLOCKS, most recently taken first
        # how a borrowed scratch set is reset: (its table k, bytes per row, rows or -1 for the last run's pkt_hw,
        # the template's bytes or None for zeros), for the tables with rows a run can read before writing them
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
        """How many first rows of scratch table ``name`` (of ``n`` rows) a run may read before writing them:
        -1 for the rows below the high-water mark of the run that used the table last (``st.pkt_hw``)."""
        if name in ("pkt", "pkt_free"):  # only slots below pkt_hw were ever taken or listed (kernel.link.alloc)
            return -1
        if name in ("heap_t", "heap_s", "heap_k", "heap_a"):  # only entries below heap_m[0] are read (engine)
            return min(self.heap_n, n)
        if name == "lane" and self.zero[L.State._fields.index("lane")]:  # read only where this run pushed
            return 0
        return n

    def _take_block(self) -> list:
        """The arrays of a state (views of a copy of the block; None for the scratch tables): those of an unused
        copy if there is one, reset to the template's bytes, else of a new copy (kept if there is room)."""
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
                return views
            blocks.append(b)
        b = _Block(self)
        if len(blocks) < BLOCKS:
            blocks.append(b)
        return list(b.views)

    def state(self, seed_vals: np.ndarray, patch=None) -> L.State:
        arrays = self._take_block()
        try:
            scratch, raw, hw = self.spare.pop()
        except IndexError:  # a new set: zeros, then whatever of the template is not zero
            scratch = [np.zeros(self.arrays[i].shape, self.arrays[i].dtype) for i in _SCRATCH_IDX]
            raw = [_bytes(a) for a in scratch]
            for i, b in zip(_SCRATCH_IDX, raw, strict=True):
                if not self.zero[i]:
                    b[:] = self.bytes[i]
            if len(self.sets) >= 4 * SPARE_SETS:  # sets never given back (a table regrown): forgotten
                self.sets = {id(sp[0][0]): sp[:2] for sp in self.spare}
            self.sets[id(scratch[0])] = (scratch, raw)
        else:  # a set a finished run gave back: the rows it may have written and a run may read, as the template's
            for k, row_bytes, rows, tpl in self.plan:
                end = row_bytes * (hw if rows < 0 else rows)
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
        return L.State._make(arrays)


def _bytes(a: np.ndarray) -> np.ndarray:
    """``a``'s memory as bytes (a structured array's copy field by field is ~20x slower than its memcpy)."""
    return a.reshape(-1).view(np.uint8)


def _copy(a: np.ndarray) -> np.ndarray:
    return np.ndarray(a.shape, a.dtype, _bytes(a).copy())


# (id(scenario), trace) -> _Template
_cache: OrderedDict = OrderedDict()
# id(derived scenario) -> (weak reference to it, weak reference to its root: the scenario it was derived from)
_roots: dict = {}


def remember(scenario, trace: bool, S: L.State, pool: int, heap_cap: int) -> _Template | None:
    """Keep ``S`` (a state just built for ``scenario``, not yet run) as its template if it is small enough;
    return the template, or None if it is not kept."""
    if sum(a.nbytes for a in S) > MAX_STATE_BYTES:
        return None
    try:
        ref = weakref.ref(scenario)
    except TypeError:
        return None
    key = (id(scenario), bool(trace))
    tpl = _cache[key] = _Template(ref, S, pool, heap_cap)
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


def borrow(scenario, trace: bool, seed_vals: np.ndarray) -> tuple | None:
    """``fresh_state``, and the template it came from (to ``give_back`` the run's scratch tables to)."""
    tpl = _template(scenario, trace)
    if tpl is not None:
        return tpl.state(seed_vals), tpl.pool, tpl.heap_cap, tpl
    hit = _roots.get(id(scenario))
    if hit is None or hit[0]() is not scenario:
        return None
    root = hit[1]()
    tpl = _template(root, trace) if root is not None else None
    if tpl is None:
        return None
    return tpl.state(seed_vals, lambda arrays: _patch_starts(scenario, tpl, arrays)), tpl.pool, tpl.heap_cap, tpl


def _patch_starts(sc, tpl: _Template, arrays: list) -> None:
    """Write ``sc``'s message start times, and the events known before the run, into a copy of its root's state
    (``tpl``'s): the known events are the root's with the times of the messages written at a time replaced."""
    from .simulate import _at_least_one, _known_events

    starts = np.array([m.start_time_s for m in sc.messages], np.float64)
    if starts.size:
        arrays[_MSG]["start"][:starts.size] = starts
    t, kind, arg, at, wm = tpl.first_events()
    t = t.copy()
    t[at] = starts[wm]
    kt, kk, ka = _known_events(t, kind, arg)
    arrays[_KNOWN_T] = _at_least_one(kt)
    arrays[_KNOWN_K] = _at_least_one(kk)
    arrays[_KNOWN_A] = _at_least_one(ka)


def give_back(tpl: _Template, S: L.State) -> L.State:
    """Return ``S`` (a finished run from ``tpl``, what ``borrow`` or ``remember`` returned) without its scratch
    tables, which go back to ``tpl`` if they are a set it made (not if the run regrew one of its tables)."""
    made = tpl.sets.get(id(S[_SCRATCH_IDX[0]]))
    if made is not None and all(a is S[i] for a, i in zip(made[0], _SCRATCH_IDX, strict=True)):
        if len(tpl.spare) < SPARE_SETS:
            tpl.spare.append((made[0], made[1], int(S.st[0]["pkt_hw"])))
        else:
            del tpl.sets[id(made[0][0])]
    out = list(S)
    for i in _SCRATCH_IDX:
        out[i] = None
    return L.State._make(out)


def derive(child, parent) -> None:
    """Record that ``child`` is ``parent`` (or a scenario derived from it) with only message start times changed,
    so that its state is made from the template of the scenario they both come from."""
    hit = _roots.get(id(parent))
    root_ref = hit[1] if hit is not None and hit[0]() is parent else weakref.ref(parent)
    key = id(child)
    _roots[key] = (weakref.ref(child, lambda _r, k=key: _roots.pop(k, None)), root_ref)


def clear() -> None:
    """Forget every template."""
    _cache.clear()
    _roots.clear()
