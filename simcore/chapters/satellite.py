"""Chapter 2 wiring (draft, before the notebook): the figure-5 sweep through ``run_sweep``, its curves, the
paper's claims, and the conversions the chapter needs. Reduced scale until the engine's scale work lands
(issue 8): a full sweep is 7 curves x >= 15 loads x 600 simulated s, today only 60 s runs at moderate load.
"""

from __future__ import annotations

import csv
import math
from concurrent.futures import Executor
from pathlib import Path

import numpy as np

from simcore._validate import check_int, check_real
from simcore.satellite import SatelliteResult, WorkloadParams, reply_mean_bytes, run_requests
from simcore.sweep import SweepResult, run_sweep

__all__ = ["CURVES", "curve_label", "assumptions_markdown", "figure5_grid", "figure5_record", "run_figure5_sweep",
           "figure5_cost", "figure5_curves",
           "traces_for_load", "presented_bps_per_trace", "light_load_slope", "paper_claims"]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
CURVES = (("base", 1), ("us_proxy", 1), ("us_proxy", 10), ("us_proxy", 50), ("us_proxy", 100),
          ("us_proxy", 150), ("us_proxy", 200))  # the paper's figure-5 curves: (architecture, connections)


def curve_label(architecture: str, n_proxy_connections: int) -> str:
    """Return the paper's label of a curve: 'base' or '<N> connections'."""
    return "base" if architecture == "base" else f"{n_proxy_connections} connections"


def presented_bps_per_trace(workload: WorkloadParams | None = None) -> float:
    """Return the mean reply load one day-trace presents, bits/s (421 requests x mean reply / 600 s)."""
    w = WorkloadParams() if workload is None else workload
    return w.requests_per_interval * reply_mean_bytes(w) * 8.0 / w.interval_s


def traces_for_load(presented_bps: float, workload: WorkloadParams | None = None) -> int:
    """Return the number of day-traces whose mean presented load is nearest ``presented_bps`` (at least 1)."""
    check_real("presented_bps", presented_bps, 0.0, 1e11, lo_open=True)
    return max(1, round(presented_bps / presented_bps_per_trace(workload)))


def figure5_grid(n_traces_values, curves=CURVES, duration_s: float = 60.0, measure_buffers: bool = False) -> list[dict]:
    """Return the sweep grid: every curve at every load (loads vary fastest), as ``run_requests`` keywords."""
    loads = [check_int("n_traces_values", n, 1, 100_000) for n in n_traces_values]
    if not loads:
        raise ValueError("n_traces_values=[] is not allowed: give at least one load")
    check_real("duration_s", duration_s, 0.0, 600.0, lo_open=True)
    return [dict(architecture=a, n_proxy_connections=int(n), n_traces=t, duration_s=float(duration_s),
                 measure_buffers=bool(measure_buffers)) for a, n in curves for t in loads]


_PARAM_FIELDS = ("architecture", "n_proxy_connections", "n_traces", "duration_s")


def figure5_record(seed: int = 0, **params) -> dict:
    """Return one run's scalar outputs (``SatelliteResult`` fields other than its parameters) for a sweep."""
    r = run_requests(seed=seed, **params)
    return {k: v for k, v in r.__dict__.items()
            if k not in _PARAM_FIELDS and not isinstance(v, np.ndarray) and k in SatelliteResult.__dataclass_fields__}


def run_figure5_sweep(n_traces_values=(5, 20, 60), curves=CURVES, duration_s: float = 60.0, seeds=(1,),
                      executor: Executor | None = None, progress: bool = True,
                      measure_buffers: bool = False) -> SweepResult:
    """Return the figure-5 sweep (one row per curve, load and seed; ``SatelliteResult``'s scalar fields).

    ``executor``: None runs on 2 local processes; a Dask ``client.get_executor(pure=False)`` also works.
    The runs start costliest first (``figure5_cost``); rows come back in grid order."""
    grid = figure5_grid(n_traces_values, curves, duration_s, measure_buffers)
    return run_sweep(figure5_record, grid, list(seeds), executor=executor, progress=progress, chunksize=1,
                     cost=figure5_cost)


def figure5_cost(params: dict) -> float:
    """Return a run's estimated cost for scheduling: the requests it simulates (day-traces x simulated
    seconds); a single inter-proxy connection carries a quarter of the events of the other curves at the
    same load (it saturates near 0.4 Mbit/s: replies wait at the US proxy instead of being sent)."""
    single = params["architecture"] == "us_proxy" and params["n_proxy_connections"] == 1
    return params["n_traces"] * params["duration_s"] * (0.25 if single else 1.0)


def figure5_curves(sweep: SweepResult) -> dict[str, dict[str, np.ndarray]]:
    """Return, per curve label, the mean over seeds of each load point, sorted by presented load:
    ``presented_mbps``, ``carried_mbps`` (NZ-bound), ``latency_s`` (sample pages), ``us_bound_mbps``,
    ``ratio`` (NZ-bound : US-bound), ``connections`` (mean US connections)."""
    groups: dict[str, dict[int, list[dict]]] = {}
    for r in sweep.to_records():
        groups.setdefault(curve_label(r["architecture"], r["n_proxy_connections"]), {}) \
            .setdefault(r["n_traces"], []).append(r)
    cols = {"presented_mbps": ("presented_load_bps", 1e-6), "carried_mbps": ("carried_nz_bound_bps", 1e-6),
            "us_bound_mbps": ("carried_us_bound_bps", 1e-6), "latency_s": ("sample_latency_mean_s", 1.0),
            "ratio": ("inbound_outbound_ratio", 1.0), "connections": ("us_connections_mean", 1.0)}
    out = {}
    for label, by_load in groups.items():
        pts = {k: np.array([np.mean([r[src] for r in rows]) * f for rows in by_load.values()])
               for k, (src, f) in cols.items()}
        order = np.argsort(pts["presented_mbps"], kind="stable")
        out[label] = {k: v[order] for k, v in pts.items()}
    return out


def light_load_slope(presented: np.ndarray, carried: np.ndarray, capacity_bps: float = 34.368e6,
                     below: float = 0.9) -> float:
    """Return the least-squares slope through the origin of carried against presented load over the points
    carried below ``below`` x capacity (the paper's figure-5a slope, ~1.09); NaN if there are none."""
    p, c = np.asarray(presented, float), np.asarray(carried, float)
    keep = c < below * capacity_bps * (1e-6 if c.max(initial=0.0) < 1e3 else 1.0)
    if not keep.any():
        return math.nan
    return float((p[keep] * c[keep]).sum() / (p[keep] ** 2).sum())


def paper_claims() -> dict[str, dict]:
    """Return the paper's numbers and claims (``data/satellite_claims.csv``) keyed by ``id``."""
    with open(DATA_DIR / "satellite_claims.csv", newline="") as f:
        return {r["id"]: r for r in csv.DictReader(f)}


ASSUMPTIONS_PATH = Path(__file__).resolve().parents[1] / "satellite" / "ASSUMPTIONS.md"


def assumptions_markdown(section: str) -> str:
    """Return the ``## <section>`` block of simcore/satellite/ASSUMPTIONS.md (the paper's words beside our
    choices) as Markdown, its heading dropped; ValueError if there is no such section."""
    text = ASSUMPTIONS_PATH.read_text()
    blocks = {b.split("\n", 1)[0].strip(): b.split("\n", 1)[1] for b in text.split("\n## ")[1:]}
    for title, body in blocks.items():
        if title.lower().startswith(section.lower()):
            return body.strip()
    raise ValueError(f"section={section!r} is not allowed: must start one of {list(blocks)}")
