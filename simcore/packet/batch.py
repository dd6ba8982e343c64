"""``simulate_many``: many runs of small scenarios in one call (seeds of one scenario, or one seed per scenario).

Each run is ``simulate(scenario, seed)``, with the same ``PacketResult`` fields, bit for bit
(``tests/packet/test_batch.py``). What makes the runs cheap is what makes repeated ``simulate`` calls cheap:
a small scenario's kernel state is built once and copied for every run (``build_cache``), the engine's own tables
are reused from run to run, and each result is assembled when its fields are read (``lazy_result``). The runs
are back to back, one kernel call each, on a state reset from the scenario's template: the kernel's work is the
same as in separate calls.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcore._validate import check_bool
from simcore.rng import SeedLike, check_seed

from .bulk import BulkScenario
from .params import Scenario
from .results import PacketResult
from .simulate import simulate

__all__ = ["simulate_many"]


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
    return [simulate(sc, seed=s, trace=trace) for sc, s in pairs]
