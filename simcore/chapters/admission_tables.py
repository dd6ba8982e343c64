"""Chapter 1's reproduction of the thesis's tables: the grid swept over seeds, summarised beside its numbers.

``scenario_record`` runs one scenario and its control (HTTP, 30 sockets, same load and clients) and is the
function ``simcore.sweep.run_sweep`` calls for every point of ``sweep_grid()`` (2 experiments x 3 loads x
11 scenarios of figure 6) and every seed. ``reproduction_table`` puts our mean and spread over seeds next
to the thesis's cells (figures 7-9, 17-19, ``data/admission_results.csv``), ``bound_table`` adds the hard
lower bound on the mean session time, ``relative_times`` figure 20 with its 'ideal'. Times in s, shares in %.
"""

from __future__ import annotations

import csv
from concurrent.futures import Executor
from pathlib import Path

import numpy as np

from simcore.admission import (
    LOADS,
    THESIS_SCENARIOS,
    AdmissionParams,
    compare_to_control,
    simulate_admission,
    thesis_table_records,
)
from simcore.sweep import SweepResult, run_sweep

__all__ = [
    "LOAD_LABELS",
    "TABLE_FIGURE",
    "BAR_FIGURES",
    "sweep_grid",
    "scenario_record",
    "run_thesis_sweep",
    "reproduction_table",
    "bound_table",
    "relative_times",
    "findings",
    "thesis_share_check",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
LOAD_LABELS = {
    "sufficient": "sufficient load (100 %)",
    "light": "light overload (75 %)",
    "heavy": "heavy overload (50 %)",
}
#: thesis figure of each results table, by (experiment, load)
TABLE_FIGURE = {
    (1, "sufficient"): 7,
    (1, "light"): 8,
    (1, "heavy"): 9,
    (2, "sufficient"): 17,
    (2, "light"): 18,
    (2, "heavy"): 19,
}
#: thesis bar charts by experiment: (time improvement, net proportion faster)
BAR_FIGURES = {1: (14, 15), 2: (25, 26)}
_METRICS = (
    "mean_session_s",
    "time_improvement_pct",
    "net_faster_pct",
    "lower_bound_mean_session_s",
    "mean_waiting_s",
    "mean_attempts",
)


def _label(policy: str, extra_sockets: int) -> str:
    return f"{policy} +{round(100 * extra_sockets / 30)}%"


def sweep_grid(experiments=(1, 2)) -> list[dict]:
    """Return the thesis's grid as sweep points: experiments x 3 loads x 11 scenarios (66 dicts)."""
    return [
        dict(experiment=e, load=load, policy=pol, extra_sockets=extra)
        for e in experiments
        for load in LOADS
        for pol, extra in THESIS_SCENARIOS
    ]


def scenario_record(experiment: int, load: str, policy: str, extra_sockets: int, seed: int) -> dict:
    """Return one scenario's measures against its control (HTTP, 30 sockets, same load and clients):
    mean session, waiting and lower bound in s, time improvement and net faster share in %."""
    p = AdmissionParams(
        experiment=experiment, bandwidth_fraction=LOADS[load], policy=policy, extra_sockets=extra_sockets
    )
    r = simulate_admission(p, seed)
    is_control = policy == "HTTP" and extra_sockets == 0
    ctrl = (
        r
        if is_control
        else simulate_admission(AdmissionParams(experiment=experiment, bandwidth_fraction=LOADS[load]), seed)
    )
    c = compare_to_control(r, ctrl)
    return {
        "mean_session_s": c.mean_session_s,
        "control_mean_session_s": c.control_mean_session_s,
        "time_improvement_pct": 100 * c.time_improvement,
        "net_faster_clients": c.net_faster_clients,
        "net_faster_pct": 100 * c.net_faster_fraction,
        "n_clients": c.n_compared,
        "lower_bound_mean_session_s": r.lower_bound_mean_session_s,
        "mean_waiting_s": float(np.nanmean(r.waiting_s)),
        "mean_attempts": float(r.attempts.mean()),
    }


def run_thesis_sweep(
    seeds=range(10), executor: Executor | None = None, progress: bool = True, experiments=(1, 2)
) -> SweepResult:
    """Return the sweep of the thesis's grid over ``seeds`` (one row per scenario and seed, times in s).

    ``executor``: None runs on 2 local processes; a Dask client's ``get_executor(pure=False)`` runs it on
    a cluster with identical results (each row depends only on its parameters and seed)."""
    return run_sweep(
        scenario_record, sweep_grid(experiments), list(seeds), executor=executor, progress=progress
    )


def _thesis_cells() -> dict[tuple, dict]:
    return {
        (t["experiment"], t["load"], t["policy"], t["extra_sockets_pct"]): t for t in thesis_table_records()
    }


def reproduction_table(sweep: SweepResult) -> list[dict]:
    """Return one record per (experiment, load, scenario) in grid order: ours over the seeds (``<metric>``
    mean, ``_sd``, ``_min``, ``_max``) beside the thesis's cell (``thesis_*``, None where it prints n/a)
    and its figure number. Net faster shares are % of the experiment's clients (200 or 400)."""
    groups: dict[tuple, list[dict]] = {}
    for row in sweep.to_records():
        key = (row["experiment"], row["load"], row["policy"], row["extra_sockets"])
        groups.setdefault(key, []).append(row)
    thesis = _thesis_cells()
    out = []
    for (exp, load, policy, extra), rows in groups.items():
        pct = round(100 * extra / 30)
        rec = {
            "experiment": exp,
            "load": load,
            "policy": policy,
            "extra_sockets": extra,
            "scenario": _label(policy, extra),
            "n_seeds": len(rows),
            "figure": TABLE_FIGURE[(exp, load)],
        }
        for m in _METRICS:
            v = np.array([r[m] for r in rows], float)
            rec[m], rec[f"{m}_min"], rec[f"{m}_max"] = float(v.mean()), float(v.min()), float(v.max())
            rec[f"{m}_sd"] = float(v.std(ddof=1)) if v.size > 1 else 0.0
        t = thesis[(exp, load, policy, pct)]
        n = rows[0]["n_clients"]
        rec["thesis_mean_session_s"] = t["avg_client_time_s"]
        rec["thesis_time_improvement_pct"] = t["time_improvement_pct"]
        rec["thesis_net_faster_clients"] = t["net_faster_clients"]
        rec["thesis_net_faster_pct"] = (
            None if t["net_faster_clients"] is None else 100 * t["net_faster_clients"] / n
        )
        rec["thesis_net_faster_pct_printed"] = t["net_faster_pct"]
        out.append(rec)
    return out


def bound_table(table: list[dict]) -> list[dict]:
    """Return per (experiment, load): the lower bound on the mean session (s; mean, min, max over seeds),
    the thesis's and our scenario means (s; smallest and largest of the 11) and the thesis's 'ideal' (%)."""
    ideal = {r["load"]: float(r["ideal_rel_time_pct"]) for r in _relative_csv()}
    out = []
    for exp in sorted({r["experiment"] for r in table}):
        for load in LOADS:
            rows = [r for r in table if r["experiment"] == exp and r["load"] == load]
            th = [r["thesis_mean_session_s"] for r in rows]
            ours = [r["mean_session_s"] for r in rows]
            out.append(
                {
                    "experiment": exp,
                    "load": load,
                    "bound_s": rows[0]["lower_bound_mean_session_s"],
                    "bound_min_s": rows[0]["lower_bound_mean_session_s_min"],
                    "bound_max_s": rows[0]["lower_bound_mean_session_s_max"],
                    "thesis_min_s": min(th),
                    "thesis_max_s": max(th),
                    "ours_min_s": min(ours),
                    "ours_max_s": max(ours),
                    "thesis_control_s": rows[0]["thesis_mean_session_s"],
                    "ours_control_s": rows[0]["mean_session_s"],
                    "ideal_pct": ideal[load],
                }
            )
    return out


def _relative_csv() -> list[dict]:
    with open(DATA_DIR / "admission_relative_times.csv", newline="") as f:
        return list(csv.DictReader(f))


def relative_times(sweep: SweepResult) -> list[dict]:
    """Return figure 20 (experiment 2, session times in % of HTTP-30 at sufficient load) beside ours and
    beside the lower bound in the same unit (ours and bound: per seed, then mean over seeds)."""
    rows = [r for r in sweep.to_records() if r["experiment"] == 2]
    base = {
        r["seed"]: r["mean_session_s"]
        for r in rows
        if r["load"] == "sufficient" and r["policy"] == "HTTP" and r["extra_sockets"] == 0
    }
    ours: dict[tuple, list] = {}
    for r in rows:
        ours.setdefault((r["load"], r["policy"], r["extra_sockets"]), []).append(
            (
                100 * r["mean_session_s"] / base[r["seed"]],
                100 * r["lower_bound_mean_session_s"] / base[r["seed"]],
            )
        )
    out = []
    for t in _relative_csv():
        extra = round(int(t["extra_sockets_pct"]) * 30 / 100)
        v = np.array(ours[(t["load"], t["policy"], extra)])
        out.append(
            {
                "load": t["load"],
                "policy": t["policy"],
                "extra_sockets": extra,
                "scenario": _label(t["policy"], extra),
                "ideal_pct": float(t["ideal_rel_time_pct"]),
                "thesis_pct": float(t["rel_session_time_pct"]),
                "ours_pct": float(v[:, 0].mean()),
                "bound_pct": float(v[:, 1].mean()),
                "bound_pct_max": float(v[:, 1].max()),
            }
        )
    return out


def findings(table: list[dict], rel: list[dict] | None = None) -> dict[str, float]:
    """Return the chapter's key comparison numbers (s, %, ratios), each computed from the table."""
    get = {(r["experiment"], r["load"], r["scenario"]): r for r in table}
    out = {}
    for exp in (1, 2):
        for load in LOADS:
            r = get[(exp, load, "HTTP +0%")]
            out[f"exp{exp}_{load}_control_ours_s"] = r["mean_session_s"]
            out[f"exp{exp}_{load}_control_thesis_s"] = r["thesis_mean_session_s"]
    reserved = [
        r
        for r in table
        if r["experiment"] == 2 and r["policy"] in ("Reserve", "Ticket") and r["extra_sockets"]
    ]
    for load in ("light", "heavy"):
        imp = [r["time_improvement_pct"] for r in reserved if r["load"] == load]
        th = [r["thesis_time_improvement_pct"] for r in reserved if r["load"] == load]
        (
            out[f"exp2_{load}_reserved_improvement_ours_min"],
            out[f"exp2_{load}_reserved_improvement_ours_max"],
        ) = min(imp), max(imp)
        (
            out[f"exp2_{load}_reserved_improvement_thesis_min"],
            out[f"exp2_{load}_reserved_improvement_thesis_max"],
        ) = min(th), max(th)
    for load in ("light", "heavy"):
        ftp = get[(2, load, "FTP +0%")]
        out[f"exp2_{load}_ftp_improvement_ours"] = ftp["time_improvement_pct"]
        out[f"exp2_{load}_ftp_improvement_thesis"] = ftp["thesis_time_improvement_pct"]
    heavy = get[(2, "heavy", "HTTP +0%")]
    out["exp2_heavy_control_thesis_over_bound"] = (
        heavy["thesis_mean_session_s"] / heavy["lower_bound_mean_session_s"]
    )
    if rel is not None:
        out["exp2_heavy_bound_pct_of_sufficient_control"] = next(
            r["bound_pct"] for r in rel if r["load"] == "heavy"
        )
    return out


def thesis_share_check() -> str:
    """Return a printable check of the thesis's 'net faster proportion': in how many cells its printed % is
    net / 400 and net / clients, for experiment 1 (200 clients) and experiment 2 (400 clients)."""
    lines = []
    for exp, n in ((1, 200), (2, 400)):
        cells = [t for t in thesis_table_records() if t["experiment"] == exp and not t["is_control"]]
        net = np.array([t["net_faster_clients"] for t in cells])
        printed = np.array([t["net_faster_pct"] for t in cells])
        by400 = int(np.sum(np.abs(100 * net / 400 - printed) <= 0.5 + 1e-9))
        byn = int(np.sum(np.abs(100 * net / n - printed) <= 0.5 + 1e-9))
        lines.append(
            f"experiment {exp} ({n} clients): printed % = net/400 in {by400} of {len(cells)} cells, "
            f"= net/clients in {byn} of {len(cells)}"
        )
    ex = next(
        t
        for t in thesis_table_records()
        if (t["experiment"], t["load"], t["policy"], t["extra_sockets_pct"]) == (1, "sufficient", "FTP", 0)
    )
    lines.append(
        f"e.g. figure 7, FTP +0%: net {ex['net_faster_clients']:.0f} of 200 clients faster, printed "
        f"{ex['net_faster_pct']:.0f} %, but {ex['net_faster_clients']:.0f} / 200 = "
        f"{ex['net_faster_clients'] / 2:.0f} %"
    )
    return "\n".join(line.rstrip() for line in lines)
