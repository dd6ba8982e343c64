"""``simulate_many``: many runs of small scenarios in one call (seeds of one scenario, or one seed per scenario).

Each run is ``simulate(scenario, seed)``, with the same ``PacketResult`` fields, bit for bit
(``tests/packet/test_batch.py``). The runs of one scenario (a small one: its state kept by ``build_cache``) go
to the event loop in batches of up to ``BATCH_RUNS``, one call each: the loop runs them back to back, resetting
the state from the scenario's template in numba between two runs and copying each finished run's arrays out
(``kernel.batch``), so a run costs its events and two copies of its ~30 KB block, without the Python of a
``simulate`` call around it (the state's arrays handed to numba, the borrowed tables, the result). Each result
is assembled when its fields are read (``lazy_result``), from views of its run's copy. Runs in a row of scenarios
made from one template (a root and scenarios ``build_cache.derive``d from it: only message start times differ)
share a batch too, each run starting from its own copy of the block. A run that overflows a
table ends its batch; it is redone alone by ``simulate`` (which regrows the table) and the batch goes on after it.
Traced runs, and scenarios too large to keep, are separate ``simulate`` calls.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from simcore._validate import check_bool
from simcore.rng import SeedLike, check_seed

from . import build_cache
from .bulk import BulkScenario
from .kernel import layout as L
from .kernel.batch import B_I
from .lazy_result import lazy_result
from .params import Scenario
from .results import PacketResult
from .simulate import _build, _link_seeds, _sizes, run_kernel, simulate

__all__ = ["simulate_many", "BATCH_RUNS", "BATCH_BYTES"]

BATCH_RUNS = 64  # runs per call of the event loop (their copies: ~2 MB for the 10-file session) ...
BATCH_BYTES = 16 << 20  # ... fewer if their copies would take more than this


def simulate_many(scenario: Scenario | BulkScenario | Sequence[Scenario | BulkScenario],
                  seeds: SeedLike | Sequence[SeedLike], trace: bool = False) -> list[PacketResult]:
    """Return ``[simulate(sc, seed, trace) ...]``: one result per run, bit-identical to separate calls.

    ``scenario``: one scenario, run once per seed of ``seeds`` (a sequence); or a sequence of scenarios, run
    with ``seeds`` (a single seed for all, or one per scenario, as many as there are scenarios).
    """
    check_bool("trace", trace)
    one = isinstance(scenario, (Scenario, BulkScenario))
    if not one:
        if isinstance(scenario, (str, bytes)) or not isinstance(scenario, Sequence):
            raise ValueError(f"scenario={scenario!r} is not allowed: must be a Scenario, a BulkScenario or a sequence "
                             "of them")
        for i, sc in enumerate(scenario):
            if not isinstance(sc, (Scenario, BulkScenario)):
                raise ValueError(f"scenario[{i}]={sc!r} is not allowed: must be a Scenario or a BulkScenario")
    many_seeds = isinstance(seeds, Sequence) and not isinstance(seeds, (str, bytes))
    if one:
        if not many_seeds:
            raise ValueError(f"seeds={seeds!r} is not allowed: with one scenario, give a sequence of seeds")
        pairs = [(scenario, s) for s in seeds]
    elif many_seeds:
        if len(seeds) != len(scenario):
            raise ValueError(f"seeds has {len(seeds)} entries: must have one per scenario ({len(scenario)}), "
                             "or be a single seed")
        pairs = list(zip(scenario, seeds, strict=True))
    else:
        pairs = [(sc, seeds) for sc in scenario]
    for i, (_, s) in enumerate(pairs):  # every seed checked before any run
        check_seed(s, f"seeds[{i}]" if many_seeds else "seeds")
    if trace:
        return [simulate(sc, seed=s, trace=True) for sc, s in pairs]
    out: list[PacketResult] = []
    k = 0
    while k < len(pairs):  # runs in a row of one scenario object, or of scenarios made from one template, go together
        sc = pairs[k][0]
        j = k + 1
        while j < len(pairs) and (pairs[j][0] is sc or build_cache.same_template(pairs[j][0], sc)):
            j += 1
        out += _runs([p[0] for p in pairs[k:j]], [s for _, s in pairs[k:j]])
        k = j
    return out


def _runs(scs: list, seeds: list) -> list[PacketResult]:
    """The runs of ``scs[r]`` with ``seeds[r]`` (one scenario object, or scenarios made from one template), in
    batches where their state is kept (``build_cache``)."""
    out: list[PacketResult] = []
    sc = scs[0]
    n_links = max(len(sc.network.links), 1)
    nc, nm = _sizes(sc)[:2]
    if len(seeds) > 1 and build_cache._find(sc, False)[0] is None:  # keep its state first (it then runs as a batch)
        S, pool, heap_cap = _build(sc, _link_seeds(seeds[0], n_links), False, {})
        build_cache.remember(sc, False, S, pool, heap_cap, adopt=True)
        del S
    tpl = build_cache._find(sc, False)[0]
    per_call = BATCH_RUNS if tpl is None else max(2, min(BATCH_RUNS, BATCH_BYTES // tpl.block.nbytes))
    i = 0
    while i < len(seeds):
        chunk = seeds[i:i + per_call]
        got = build_cache.borrow_batch(scs[i:i + per_call], np.stack([_link_seeds(s, n_links) for s in chunk])) \
            if len(chunk) > 1 else None
        if got is None:  # one run, or a state too big to keep
            out.append(simulate(scs[i], seed=seeds[i]))
            i += 1
            continue
        S, tpl = got
        run_kernel(S)
        done = int(S.bat[B_I])  # runs finished: all, or up to the one that ended the batch with a flag
        runs = _Runs(tpl, S)
        build_cache.give_back(tpl, S)
        del S
        for r in range(done):
            out.append(lazy_result(scs[i + r], _RunState(runs, r), _link_seeds(chunk[r], n_links), nc, nm))
        i += done
        if done < len(chunk):  # that run overflowed a table (or paused for rows): alone, regrown
            out.append(simulate(scs[i], seed=seeds[i]))
            i += 1
    return out


class _Runs:
    """The finished runs of a batch: each run's arrays are views of its row of ``S.bout`` (where the batch copied
    them, ``build_cache._Template.out_offset``), made per field for every run at once, when a result first reads
    that field."""

    def __init__(self, tpl: build_cache._Template, S: L.State):
        self.bout = S.bout.view(np.uint8)
        self.views: dict = {}
        self.where: dict = {}
        self.same: dict = {}
        blk = S.blk.base  # (the block's words are a view of its bytes, which the state's arrays view)
        for i, name in enumerate(L.State._fields):
            a = S[i]
            if i not in tpl.offset:
                continue
            if a.base is not blk:  # an array of its own (a derived scenario's known events): the same for every run
                self.same[name] = a
            elif i in tpl.out_offset:  # (not the connection slots' rows: build_cache.NOT_OUT, never copied out)
                self.where[name] = (tpl.out_offset[i], a.shape, a.dtype, a.strides)

    def get(self, name: str, r: int):
        v = self.views.get(name)
        if v is None:
            w = self.where.get(name)
            if w is None:
                if name in self.same:
                    return self.same[name]
                # the engine's scratch tables (as ``build_cache.give_back``) and the slots' rows: not kept
                raise AttributeError(name)
            off, shape, dtype, strides = w
            nb = self.bout.shape[1]
            v = self.views[name] = np.ndarray((self.bout.shape[0], *shape), dtype, self.bout, off, (nb, *strides))
        return v[r]


class _RunState:
    """Run ``r`` of a batch, read as its ``L.State`` (the fields a result reads)."""

    __slots__ = ("_runs", "_r", "__dict__")

    def __init__(self, runs: _Runs, r: int):
        self._runs = runs
        self._r = r

    def __getattr__(self, name: str):
        v = self._runs.get(name, self._r)
        self.__dict__[name] = v
        return v
