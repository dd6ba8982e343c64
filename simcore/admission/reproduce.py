"""The thesis's result tables (figures 7-9, 17-19) beside ours over several seeds, as plain records.

``thesis_table_records`` reads ``data/admission_results.csv``; ``reproduce_thesis_tables`` runs the grid
(``run_grid``) and returns one record per (experiment, load, scenario) with our mean, standard deviation,
min and max over seeds next to the thesis's number, for: average session time (s), time improvement over
control (%), net number of clients faster than control, and net faster share (% of clients). The thesis's
printed share is net / 400 in both experiments (see ASSUMPTIONS.md); we also give net / clients.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np

from simcore.admission.compare import run_grid, thesis_grid
from simcore.admission.params import CLIENTS_PER_EXPERIMENT

__all__ = ["THESIS_RESULTS_CSV", "thesis_table_records", "reproduce_thesis_tables"]

THESIS_RESULTS_CSV = Path(__file__).resolve().parents[2] / "data" / "admission_results.csv"

_METRICS = (
    ("mean_session_s", "avg_client_time_s"),
    ("time_improvement_pct", "time_improvement_pct"),
    ("net_faster_clients", "net_faster_clients"),
    ("net_faster_pct", None),
)


def thesis_table_records(path: Path | str = THESIS_RESULTS_CSV) -> list[dict]:
    """Return the thesis's table cells as dicts (times in s, shares in %; None where it prints 'n/a')."""
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            rec = dict(r)
            for k in ("experiment", "extra_sockets_pct", "total_sockets"):
                rec[k] = int(r[k])
            rec["bandwidth_fraction"] = float(r["bandwidth_fraction"])
            rec["is_control"] = r["is_control"] == "True"
            for k in ("avg_client_time_s", "time_improvement_pct", "slower_clients", "faster_clients",
                      "net_faster_clients", "net_faster_pct"):  # fmt: skip
                rec[k] = None if r[k] == "" else float(r[k])
            out.append(rec)
    return out


def reproduce_thesis_tables(seeds=range(10), workers: int = 1, experiments=(1, 2), **overrides) -> list[dict]:
    """Return one record per thesis table cell group: ours over ``seeds`` (mean, sd, min, max) and theirs.

    ``overrides`` go to every scenario's AdmissionParams (e.g. ``sharing='equal'``). Keys: experiment,
    load, policy, extra_sockets_pct, n_seeds, ``ours_<metric>_{mean,sd,min,max}`` and ``thesis_<metric>``
    for metric in mean_session_s, time_improvement_pct, net_faster_clients, net_faster_pct (ours: net /
    clients; ``thesis_net_faster_pct`` is recomputed as net / clients too, and
    ``thesis_net_faster_pct_printed`` is the thesis's printed value), and
    ``ours_lower_bound_mean_session_s_mean``.
    """
    grid = thesis_grid(experiments=experiments, **overrides)
    recs = run_grid(grid, seeds=seeds, workers=workers)
    thesis = {
        (t["experiment"], t["load"], t["policy"], t["extra_sockets_pct"]): t for t in thesis_table_records()
    }
    groups: dict[tuple, list[dict]] = {}
    for r in recs:
        groups.setdefault((r["experiment"], r["load"], r["policy"], r["extra_sockets_pct"]), []).append(r)
    out = []
    for key, rows in groups.items():
        exp, load, policy, pct = key
        rec = {
            "experiment": exp,
            "load": load,
            "policy": policy,
            "extra_sockets_pct": pct,
            "n_seeds": len(rows),
        }
        for ours, _ in _METRICS:
            v = np.array([r[ours] for r in rows], float)
            rec[f"ours_{ours}_mean"] = float(v.mean())
            rec[f"ours_{ours}_sd"] = float(v.std(ddof=1)) if v.size > 1 else float("nan")
            rec[f"ours_{ours}_min"] = float(v.min())
            rec[f"ours_{ours}_max"] = float(v.max())
        lb = np.array([r["lower_bound_mean_session_s"] for r in rows])
        rec["ours_lower_bound_mean_session_s_mean"] = float(lb.mean())
        t = thesis.get(key)
        n = CLIENTS_PER_EXPERIMENT[exp]
        rec["thesis_mean_session_s"] = None if t is None else t["avg_client_time_s"]
        rec["thesis_time_improvement_pct"] = None if t is None else t["time_improvement_pct"]
        rec["thesis_net_faster_clients"] = None if t is None else t["net_faster_clients"]
        net = None if t is None else t["net_faster_clients"]
        rec["thesis_net_faster_pct"] = None if net is None else 100 * net / n
        rec["thesis_net_faster_pct_printed"] = None if t is None else t["net_faster_pct"]
        out.append(rec)
    return out
