"""Chapter 2's smaller stored tables: the hybrid fast mode against the full packet run (with timings), and
the beyond-the-paper switches, each written to ``data/`` by ``python -m simcore.chapters.satellite_extras``
so the notebook reads them instead of simulating.
"""

from __future__ import annotations

import csv
import math
import time
from dataclasses import replace
from functools import lru_cache
from pathlib import Path

import numpy as np

from simcore.satellite import SatelliteParams, simulate_satellite
from simcore.satellite.hybrid import (
    VALIDATED_MAX_WINDOW_BYTES,
    VALIDATED_TOLERANCE,
    VALIDATED_TOLERANCE_S,
    VALIDATED_UTILISATION,
    simulate_hybrid,
    within_tolerance,
)
from simcore.sweep import run_sweep

from .satellite import DATA_DIR, curve_label, traces_for_load
from .satellite_sweep import load_sweep

__all__ = ["HYBRID_PATH", "BEYOND_PATH", "SWITCHES", "CHECK_SETTINGS", "write_hybrid_check", "write_beyond",
           "load_rows", "hybrid_check_summary", "hybrid_check_text", "speedup_text", "beyond_text", "check_record"]

HYBRID_PATH = DATA_DIR / "satellite_hybrid_check.csv"
BEYOND_PATH = DATA_DIR / "satellite_beyond.csv"
BEYOND_LOAD_BPS = 20e6
# name -> what changes from the paper's setting (SatelliteParams fields)
SWITCHES = {
    "the paper's (GEO, 32767 B, 4.4BSD)": {},
    "window scaling (4 MB windows)": {"proxy_window_bytes": 4 * 2**20},
    "today's TCP (Linux: IW 10, SACK)": {"tcp_preset": "linux"},
    "low orbit (20 ms one way)": {"satellite_delay_s": 0.020},
    "HTTP/1.1 from the NZ proxy": {"http_version": "1.1"},
}
BASE_ONLY = ("http_version",)  # switches of the NZ proxy's own connections: the base case only

# The hybrid check: the fast mode against full packet runs over the live panel's range. At the paper's
# setting the full runs are the stored sweep's (every curve but one connection, where the hybrid keeps every
# request at packet level and is the full run; every load; every seed); off it, full runs of these settings
# (one per slider the panel adds), for the base case and 10 and 100 connections, at CHECK_LOADS_MBPS and
# CHECK_SEEDS.
CHECK_SETTINGS = {
    "paper": {},
    "LEO delay 20 ms": {"satellite_delay_s": 0.020},
    "delay 160 ms": {"satellite_delay_s": 0.160},
    "window 8192 B": {"proxy_window_bytes": 8192},
    "window 65535 B": {"proxy_window_bytes": 65535},
    "window 4 MB": {"proxy_window_bytes": 4 * 2**20},
    "buffer 128 KB": {"router_buffer_bytes": 128 * 1024},
    "Linux TCP": {"tcp_preset": "linux"},
}
CHECK_CURVES = (("base", 1), ("us_proxy", 10), ("us_proxy", 100))
CHECK_LOADS_MBPS = (2.0, 10.0, 20.0, 30.0, 38.0)
CHECK_SEEDS = (1, 2)
CHECK_COLUMNS = ("setting", "curve", "n_traces", "seed", "presented_mbps", "utilisation", "full_latency_s",
                 "full_unfinished", "hybrid_latency_s", "hybrid_unfinished", "latency_error", "full_carried_mbps",
                 "hybrid_carried_mbps", "full_requests", "hybrid_packet_requests", "full_s", "hybrid_s", "source")


def _write(path: Path, rows: list[dict]) -> Path:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)
    return path


def check_params(setting: str, architecture: str, n_proxy_connections: int, n_traces: int) -> SatelliteParams:
    """Return the ``SatelliteParams`` of one point of the hybrid check (600 s, as the panel's answers)."""
    return replace(SatelliteParams(architecture=architecture, n_proxy_connections=n_proxy_connections,
                                   n_traces=n_traces, duration_s=600.0, measure_buffers=False),
                   **CHECK_SETTINGS[setting])


def _check_row(setting: str, p: SatelliteParams, seed: int, full: dict, full_s: float) -> dict:
    """Return one row of the check: the hybrid run now beside the given full run's numbers."""
    fast = simulate_hybrid(p, seed)
    return dict(setting=setting, curve=curve_label(p.architecture, p.n_proxy_connections), n_traces=p.n_traces,
                seed=seed, presented_mbps=round(full["presented_load_bps"] / 1e6, 4),
                utilisation=round(fast.utilisation, 4),
                full_latency_s=round(full["sample_latency_mean_s"], 4), full_unfinished=full["sample_unfinished"],
                hybrid_latency_s=round(fast.sample_latency_mean_s, 4), hybrid_unfinished=fast.sample_unfinished,
                latency_error=round(fast.sample_latency_mean_s / full["sample_latency_mean_s"] - 1.0, 4),
                full_carried_mbps=round(full["carried_nz_bound_bps"] / 1e6, 4),
                hybrid_carried_mbps=round(fast.carried_nz_bound_bps / 1e6, 4), full_requests=full["requests"],
                hybrid_packet_requests=fast.packet_requests, full_s=round(full_s, 3), hybrid_s=round(fast.elapsed_s, 3),
                source=f"simcore.satellite full vs hybrid, 600 s simulated, seed {seed}")


@lru_cache(maxsize=1)
def _stored() -> dict:
    return {(r["architecture"], r["n_proxy_connections"], r["n_traces"], r["seed"]): r for r in load_sweep()}


_FULL_FIELDS = ("presented_mbps", "full_latency_s", "full_unfinished", "full_carried_mbps", "full_requests", "full_s")


@lru_cache(maxsize=1)
def _stored_check() -> dict:
    """The stored check's full runs by (setting, curve, n_traces, seed), in the units of ``_check_row``."""
    if not HYBRID_PATH.exists():
        return {}
    out = {}
    for r in load_rows(HYBRID_PATH):
        if set(_FULL_FIELDS) <= set(r):
            out[(r["setting"], r["curve"], int(r["n_traces"]), int(r["seed"]))] = dict(
                presented_load_bps=float(r["presented_mbps"]) * 1e6, sample_latency_mean_s=float(r["full_latency_s"]),
                sample_unfinished=int(r["full_unfinished"]), carried_nz_bound_bps=float(r["full_carried_mbps"]) * 1e6,
                requests=int(r["full_requests"]), full_s=float(r["full_s"]))
    return out


def check_record(setting: str, architecture: str, n_proxy_connections: int, n_traces: int, seed: int,
                 reuse_full: bool = False) -> dict:
    """Return one row of the hybrid check (without its parameters, for ``run_sweep``): the hybrid beside a
    full run, the stored sweep's at the paper's setting, else one run here (``reuse_full``: the stored
    check's, when it has this point: the full runs cost ~40 CPU-minutes, the hybrids ~3)."""
    p = check_params(setting, architecture, n_proxy_connections, n_traces)
    key = (setting, curve_label(architecture, n_proxy_connections), n_traces, seed)
    if setting == "paper":
        full = _stored()[(architecture, n_proxy_connections, n_traces, seed)]
        row = _check_row(setting, p, seed, full, full["simulate_s"])
    elif reuse_full and key in _stored_check():
        full = _stored_check()[key]
        row = _check_row(setting, p, seed, full, full["full_s"])
    else:
        t0 = time.perf_counter()
        r = simulate_satellite(p, seed)
        row = _check_row(setting, p, seed, r.__dict__, time.perf_counter() - t0)
    return {k: v for k, v in row.items() if k not in ("setting", "n_traces", "seed")}


def check_grid() -> list[tuple[dict, tuple]]:
    """Return the hybrid check's grid as (points, seeds) pairs: the stored sweep's points (but one
    connection) at its seeds, and the other settings' points at ``CHECK_SEEDS``."""
    stored = sorted({(r["architecture"], r["n_proxy_connections"], r["n_traces"]) for r in load_sweep()
                     if r["curve"] != "1 connections"})
    paper = [dict(setting="paper", architecture=a, n_proxy_connections=n, n_traces=t) for a, n, t in stored]
    other = [dict(setting=s, architecture=a, n_proxy_connections=n, n_traces=traces_for_load(x * 1e6))
             for s in CHECK_SETTINGS if s != "paper" for a, n in CHECK_CURVES for x in CHECK_LOADS_MBPS]
    return [(paper, tuple(sorted({r["seed"] for r in load_sweep()}))), (other, CHECK_SEEDS)]


def _check_cost(q: dict) -> float:
    if q["setting"] == "paper" or q["reuse_full"]:  # the hybrid only (ten connections: most at packet level)
        return q["n_traces"] * (0.3 if q["n_proxy_connections"] == 10 else 0.03)
    return q["n_traces"] * (3.0 if q["architecture"] == "base" else 1.0)


def write_hybrid_check(path: Path = HYBRID_PATH, executor=None, progress: bool = False,
                       reuse_full: bool = False) -> Path:
    """Run the hybrid check (see ``CHECK_SETTINGS``, ``check_grid``) and write it (2 processes unless
    ``executor``); ``reuse_full``: take the full runs off the paper's setting from the stored check where it
    has them (after a change of the hybrid only)."""
    rows = []
    for grid, seeds in check_grid():
        grid = [dict(q, reuse_full=reuse_full) for q in grid]
        sw = run_sweep(check_record, grid, list(seeds), executor=executor, progress=progress, chunksize=1,
                       cost=_check_cost)
        rows += [{k: r[k] for k in CHECK_COLUMNS} for r in sw.to_records()]
    return _write(path, rows)


def write_beyond(path: Path = BEYOND_PATH, duration_s: float = 600.0, seed: int = 1) -> Path:
    """Run every switch of ``SWITCHES`` for the base case and 100 connections at 20 Mbit/s presented (full
    packet runs) and write the sample latency and carried load."""
    rows = []
    nt = traces_for_load(BEYOND_LOAD_BPS)
    for name, change in SWITCHES.items():
        for arch, n in (("base", 1), ("us_proxy", 100), ("us_proxy", 10)):
            if arch != "base" and any(k in BASE_ONLY for k in change):
                continue
            p = replace(SatelliteParams(architecture=arch, n_proxy_connections=n, n_traces=nt, duration_s=duration_s,
                                        measure_buffers=False), **change)
            r = simulate_satellite(p, seed)
            rows.append(dict(switch=name, curve="base" if arch == "base" else f"{n} connections",
                             presented_mbps=round(r.presented_load_bps / 1e6, 3),
                             carried_mbps=round(r.carried_nz_bound_bps / 1e6, 3),
                             latency_s=round(r.sample_latency_mean_s, 3), sample_unfinished=r.sample_unfinished,
                             source=f"simcore.satellite packet-level run, {duration_s:g} s simulated, seed {seed}"))
    return _write(path, rows)


def load_rows(path: Path) -> list[dict]:
    """Return a stored table's rows (strings; the notebook formats them)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


UTILISATION_BANDS = ((0.0, 0.5), (0.5, 0.75), (0.75, VALIDATED_UTILISATION), (VALIDATED_UTILISATION, 1.0),
                     (1.0, 1.2), (1.2, math.inf))


def _scaled(r: dict) -> bool:
    return int(CHECK_SETTINGS[r["setting"]].get("proxy_window_bytes", 0)) > VALIDATED_MAX_WINDOW_BYTES


def hybrid_check_summary(rows: list[dict] | None = None) -> list[dict]:
    """Return the stored hybrid check by utilisation band (the bottleneck's, ``hybrid.utilisation``), windows
    with RFC 1323 scaling apart: points, how many within tolerance of the full run's sample latency
    (``hybrid.within_tolerance``), the median and largest relative error and the largest absolute error of the
    latency, and the largest relative error of the carried load."""
    rows = load_rows(HYBRID_PATH) if rows is None else rows
    groups = [(f"{lo:.2f}-{hi:.2f}" if math.isfinite(hi) else f"> {lo:.2f}",
               [r for r in rows if not _scaled(r) and (lo < float(r["utilisation"]) <= hi)])
              for lo, hi in UTILISATION_BANDS]
    groups.append(("4 MB windows", [r for r in rows if _scaled(r)]))
    out = []
    for band, mine in groups:
        if not mine:
            continue
        full = np.array([float(r["full_latency_s"]) for r in mine])
        fast = np.array([float(r["hybrid_latency_s"]) for r in mine])
        err = np.abs(fast / full - 1)
        car = np.array([abs(float(r["hybrid_carried_mbps"]) / float(r["full_carried_mbps"]) - 1) for r in mine])
        ok = sum(within_tolerance(a, b) for a, b in zip(fast, full, strict=True))
        out.append(dict(band=band, points=len(mine), within=ok,
                        median_error=float(np.median(err)), max_error=float(err.max()),
                        max_abs_error_s=float(np.abs(fast - full).max()), max_carried_error=float(car.max()),
                        settings=len({r["setting"] for r in mine})))
    return out


def hybrid_check_text(rows: list[dict] | None = None) -> str:
    """Return the stored hybrid check's summary as fixed-width text (``hybrid_check_summary``)."""
    head = (f"{'utilisation':<14}{'points':>7}{'within':>8}{'median error':>14}{'largest':>9}{'largest (s)':>13}"
            f"{'carried, largest':>18}")
    lines = [head, "-" * len(head)]
    for b in hybrid_check_summary(rows):
        lines.append(f"{b['band']:<14}{b['points']:>7}{b['within']:>8}{b['median_error']:>14.1%}{b['max_error']:>9.0%}"
                     f"{b['max_abs_error_s']:>13.2f}{b['max_carried_error']:>18.1%}")
    lines.append(f"(sample-page latency, fast mode against the full run of the same seed; within: "
                 f"{100 * VALIDATED_TOLERANCE:.0f} % or {VALIDATED_TOLERANCE_S:g} s;")
    lines.append(f" the panel answers with the fast mode up to {VALIDATED_UTILISATION:.2f} and windows up to "
                 f"{VALIDATED_MAX_WINDOW_BYTES} bytes)")
    return "\n".join(lines)


def speedup_text(rows: list[dict] | None = None) -> str:
    """Return the median wall-clock times of the stored hybrid check's full runs and hybrids made here (off
    the paper's setting), per curve (machine-dependent: not a checked output)."""
    rows = load_rows(HYBRID_PATH) if rows is None else rows
    out = []
    for curve in dict.fromkeys(r["curve"] for r in rows):
        mine = [r for r in rows if r["curve"] == curve and r["setting"] != "paper"]
        if mine:
            full = float(np.median([float(r["full_s"]) for r in mine]))
            fast = float(np.median([float(r["hybrid_s"]) for r in mine]))
            out.append(f"{curve:<16} full {full:6.2f} s, hybrid {fast:5.2f} s (medians of {len(mine)} runs off "
                       f"the paper's setting), x{full / fast:.0f}")
    return "\n".join(out)


def beyond_text(rows: list[dict] | None = None) -> str:
    """Return the stored switches as a table: sample latency (s) and carried load (Mbit/s) per curve."""
    rows = load_rows(BEYOND_PATH) if rows is None else rows
    cols = list(dict.fromkeys(r["curve"] for r in rows))
    head = f"{'switch':<36}" + "".join(f"{c:>24}" for c in cols)
    lines = [head, "-" * len(head)]
    for s in dict.fromkeys(r["switch"] for r in rows):
        cells = []
        for c in cols:
            r = next((x for x in rows if x["switch"] == s and x["curve"] == c), None)
            cells.append("(base only)" if r is None else
                         f"{'>=' if int(r['sample_unfinished']) else ''}{float(r['latency_s']):.2f} s "
                         f"{float(r['carried_mbps']):5.1f} Mbit/s")
        lines.append(f"{s:<36}" + "".join(f"{x:>24}" for x in cells))
    lines.append("(mean sample-page latency, carried NZ-bound load; 20 Mbit/s presented; >=: a lower bound)")
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    which = sys.argv[1:] or ["check", "beyond"]
    if "check" in which or "hybrid" in which:  # "hybrid": rerun the hybrids only, beside the stored full runs
        print(write_hybrid_check(progress=True, reuse_full="hybrid" in which))
    if "beyond" in which:
        print(write_beyond())
