"""The thesis's comparison against control, its scenario grid, and runs of the whole grid over seeds.

Control: 'HTTP' with 30 sockets at the same load on the same clients (same seed). Measures (thesis,
'Two performance measures'): the relative average session time improvement ``(control - test) /
control`` of the mean session times, and the net proportion of clients faster than control, counting only
significant differences: "an absolute time difference both greater than 5% of the control value and
greater than 5000 ms".
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, replace

import numpy as np

from simcore._validate import check_instance
from simcore.admission.model import AdmissionResult, simulate_admission
from simcore.admission.params import LOADS, AdmissionParams

__all__ = [
    "ControlComparison",
    "compare_to_control",
    "THESIS_SCENARIOS",
    "scenario_label",
    "thesis_scenarios",
    "thesis_grid",
    "run_grid",
]

#: the 11 scenarios of figure 6, in the thesis's column order: (policy, extra sockets)
THESIS_SCENARIOS = (
    ("HTTP", 0), ("FTP", 0), ("Ticket", 0),
    ("HTTP", 3), ("FTP", 3), ("Reserve", 3), ("Ticket", 3),
    ("HTTP", 6), ("FTP", 6), ("Reserve", 6), ("Ticket", 6),
)  # fmt: skip


@dataclass(frozen=True)
class ControlComparison:
    """One scenario against its control: mean session times (s), improvement and client counts.

    ``time_improvement`` = (control mean - mean) / control mean (fraction; positive = faster);
    ``net_faster_fraction`` = (faster - slower) / ``n_compared`` (clients that completed in both runs).
    """

    mean_session_s: float
    control_mean_session_s: float
    time_improvement: float
    faster_clients: int
    slower_clients: int
    net_faster_clients: int
    n_compared: int
    net_faster_fraction: float


def compare_to_control(
    result: AdmissionResult,
    control: AdmissionResult,
    *,
    rel_threshold: float = 0.05,
    abs_threshold_s: float = 5.0,
) -> ControlComparison:
    """Return the thesis's two measures of ``result`` against ``control`` (same clients, same seed).

    A client counts as faster (slower) when its session is shorter (longer) than its counterpart's in the
    control by more than ``rel_threshold`` of the control session AND by more than ``abs_threshold_s``.
    Clients that gave up in either run are left out. Raises ValueError if the clients differ.
    """
    check_instance("result", result, AdmissionResult)
    check_instance("control", control, AdmissionResult)
    if result.arrival_s.shape != control.arrival_s.shape or not np.array_equal(
        result.arrival_s, control.arrival_s
    ):
        raise ValueError("result and control were run on different clients: use the same seed and experiment")
    if not 0 <= rel_threshold < 1 or not abs_threshold_s >= 0:
        raise ValueError(
            f"rel_threshold={rel_threshold!r} must be in [0, 1) and abs_threshold_s={abs_threshold_s!r} >= 0"
        )
    ok = result.completed & control.completed
    test = result.session_s[ok]
    ctrl = control.session_s[ok]
    diff = ctrl - test
    significant = (np.abs(diff) > rel_threshold * ctrl) & (np.abs(diff) > abs_threshold_s)
    faster = int(np.count_nonzero(significant & (diff > 0)))
    slower = int(np.count_nonzero(significant & (diff < 0)))
    m = float(result.mean_session_s)
    mc = float(control.mean_session_s)
    n = int(np.count_nonzero(ok))
    return ControlComparison(
        mean_session_s=m,
        control_mean_session_s=mc,
        time_improvement=(mc - m) / mc,
        faster_clients=faster,
        slower_clients=slower,
        net_faster_clients=faster - slower,
        n_compared=n,
        net_faster_fraction=(faster - slower) / n if n else float("nan"),
    )


def scenario_label(params: AdmissionParams) -> str:
    """Return the thesis's label of a scenario, e.g. 'Reserve +10%' (extra sockets as % of sockets)."""
    pct = round(100 * params.extra_sockets / params.sockets)
    return f"{params.policy} +{pct}%"


def thesis_scenarios(
    experiment: int = 2, bandwidth_fraction: float = 1.0, **overrides
) -> list[AdmissionParams]:
    """Return the 11 scenarios of figure 6 (30 sockets, +0/+3/+6 extra) as AdmissionParams, control first.

    ``overrides`` are passed to every AdmissionParams (e.g. ``ready_list_size=4``).
    """
    return [
        AdmissionParams(
            experiment=experiment, bandwidth_fraction=bandwidth_fraction, policy=pol, sockets=30,
            extra_sockets=extra, **overrides,
        )
        for pol, extra in THESIS_SCENARIOS
    ]  # fmt: skip


def thesis_grid(experiments=(1, 2), loads=None, **overrides) -> list[tuple[str, AdmissionParams]]:
    """Return ``(load name, params)`` for experiments x loads x the 11 scenarios (66 for the thesis's)."""
    loads = LOADS if loads is None else loads
    return [
        (name, p)
        for exp in experiments
        for name, frac in loads.items()
        for p in thesis_scenarios(exp, frac, **overrides)
    ]


def _group_records(grid, seed):
    """Run one seed of the whole grid; return one record per scenario (its control is in the grid)."""
    records = []
    controls = {}
    results = []
    for load, p in grid:
        r = simulate_admission(p, seed)
        results.append((load, p, r))
        if p.policy == "HTTP" and p.extra_sockets == 0:
            controls[(p.experiment, load)] = r
    for load, p, r in results:
        ctrl = controls.get((p.experiment, load))
        if ctrl is None:
            ctrl = simulate_admission(
                replace(p, policy="HTTP", extra_sockets=0, max_large_connections=None), seed
            )
            controls[(p.experiment, load)] = ctrl
        c = compare_to_control(r, ctrl)
        records.append(
            {
                "seed": seed,
                "experiment": p.experiment,
                "load": load,
                "bandwidth_fraction": p.bandwidth_fraction,
                "policy": p.policy,
                "extra_sockets": p.extra_sockets,
                "extra_sockets_pct": round(100 * p.extra_sockets / p.sockets),
                "total_sockets": p.total_sockets,
                "mean_session_s": c.mean_session_s,
                "control_mean_session_s": c.control_mean_session_s,
                "time_improvement_pct": 100 * c.time_improvement,
                "faster_clients": c.faster_clients,
                "slower_clients": c.slower_clients,
                "net_faster_clients": c.net_faster_clients,
                "net_faster_pct": 100 * c.net_faster_fraction,
                "lower_bound_mean_session_s": r.lower_bound_mean_session_s,
                "mean_attempts": float(r.attempts.mean()),
                "mean_waiting_s": float(np.nanmean(r.waiting_s)),
                "completed_fraction": float(r.completed.mean()),
            }
        )
    return records


def run_grid(grid=None, seeds=range(10), workers: int = 1) -> list[dict]:
    """Return one plain record per (seed, scenario) with the thesis's measures (times in s, shares in %).

    ``grid`` is a list of ``(load name, AdmissionParams)`` (default ``thesis_grid()``, 66 scenarios);
    each scenario is compared with HTTP/30 sockets at its load on the same seed. ``workers`` > 1 runs
    seeds in that many processes.
    """
    grid = thesis_grid() if grid is None else list(grid)
    seeds = [int(s) for s in seeds]
    if workers <= 1:
        out = [_group_records(grid, s) for s in seeds]
    else:
        with ProcessPoolExecutor(max_workers=workers) as pool:
            out = list(pool.map(_group_records, [grid] * len(seeds), seeds))
    return [rec for recs in out for rec in recs]
