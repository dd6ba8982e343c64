"""Chapter 2's stored sweep: the figure-5/6/7 runs precomputed once and kept in ``data/satellite_sweep.csv``
so the chapter, its live panel and nbval read numbers instead of simulating.

``python -m simcore.chapters.satellite_sweep [figure4]`` (or ``python -m simcore figures satellite`` when the CSV is
missing) runs every curve of the paper (base; US proxy with 1, 10, 50, 100, 150, 200 inter-proxy
connections) at ``SWEEP_LOADS`` day-traces, ``SWEEP_DURATION_S`` simulated seconds each, seeds
``SWEEP_SEEDS`` (the spread over seeds shows which differences are noise), through
``simcore.sweep.run_sweep`` (2 local processes, or a Dask executor), and writes one row per run with a
``source`` column saying how the row was made.
"""

from __future__ import annotations

import csv
import math
import sys
import time
from concurrent.futures import Executor
from pathlib import Path

from simcore.chapters.satellite import CURVES, DATA_DIR, curve_label, run_figure5_sweep

__all__ = ["FIGURE4_LOADS", "FIGURE4_PATH", "write_figure4", "load_figure4",
           "SWEEP_LOADS", "SWEEP_DURATION_S", "SWEEP_SEED", "SWEEP_SEEDS", "SWEEP_PATH", "SWEEP_COLUMNS", "write_sweep",
           "load_sweep", "sweep_source"]

# 15 loads from ~0.6 to ~40 Mbit/s presented (one day-trace ~62 kbit/s; the E3 saturates near 550)
SWEEP_LOADS = (10, 40, 80, 120, 160, 200, 250, 300, 350, 400, 450, 500, 550, 600, 650)
SWEEP_DURATION_S = 600.0  # simulated seconds per run: the paper's 10-minute interval
SWEEP_SEED = 1  # the seed of figure 4, the live panel and the single-seed benchmarks
SWEEP_SEEDS = (1, 2, 3)  # figures 5-7: every point at three seeds (the workload's heavy tail moves them)
SWEEP_PATH = DATA_DIR / "satellite_sweep.csv"
SWEEP_COLUMNS = ("curve", "architecture", "n_proxy_connections", "n_traces", "duration_s", "seed", "requests",
                 "presented_load_bps", "carried_nz_bound_bps", "carried_us_bound_bps", "inbound_outbound_ratio",
                 "sample_latency_mean_s", "sample_unfinished", "request_time_mean_s", "requests_unfinished",
                 "buffer_mean_bytes_us_end", "buffer_peak_bytes_us_end", "buffer_mean_bytes_nz_end",
                 "buffer_peak_bytes_nz_end", "us_connections_mean", "us_connections_peak", "drops_us_end",
                 "drops_nz_end", "retransmits", "timeouts", "slot_overlaps", "events", "simulate_s", "source")


FIGURE4_LOADS = (1, 2, 3, 4, 5, 6, 7, 8, 10, 12, 15, 20, 30)  # one connection: ~62 kbit/s per day-trace
FIGURE4_PATH = DATA_DIR / "satellite_figure4.csv"
FIGURE4_DURATION_S = 600.0  # as the rest of the chapter: the paper's 10-minute interval (~900 window cycles)


def write_figure4(path: str | Path = FIGURE4_PATH, loads=FIGURE4_LOADS, duration_s: float = FIGURE4_DURATION_S,
                  seed: int = SWEEP_SEED, executor: Executor | None = None, progress: bool = True) -> Path:
    """Run figure 4 (the US proxy with ONE inter-proxy connection at light loads) and write it as CSV."""
    return write_sweep(path, loads, (("us_proxy", 1),), duration_s, (seed,), executor, progress)


def load_figure4(path: str | Path = FIGURE4_PATH) -> list[dict]:
    """Return the stored figure-4 rows (as ``load_sweep``)."""
    return load_sweep(path)


def sweep_source(duration_s: float = SWEEP_DURATION_S, seed: int = SWEEP_SEED) -> str:
    """Return the ``source`` of a stored row: which model, TCP, run length and seed made it."""
    return f"simcore.satellite packet-level run (bsd44lite TCP), {duration_s:g} s simulated, seed {seed}"


def write_sweep(path: str | Path = SWEEP_PATH, loads=SWEEP_LOADS, curves=CURVES,
                duration_s: float = SWEEP_DURATION_S, seeds=SWEEP_SEEDS, executor: Executor | None = None,
                progress: bool = True) -> Path:
    """Run the sweep and write it as CSV (one row per curve, load and seed, ``SWEEP_COLUMNS``); return the
    path."""
    sw = run_figure5_sweep(tuple(loads), curves, duration_s=duration_s, seeds=tuple(seeds), executor=executor,
                           progress=progress, measure_buffers=True)
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(SWEEP_COLUMNS)
        for r in sw.to_records():
            r = {**r, "curve": curve_label(r["architecture"], r["n_proxy_connections"]),
                 "source": sweep_source(duration_s, r["seed"])}
            w.writerow([_fmt(r[c]) for c in SWEEP_COLUMNS])
    tmp.replace(path)  # nothing half-written
    return path


def _fmt(v) -> str:
    if isinstance(v, float):
        return "nan" if math.isnan(v) else f"{v:.6g}"
    return str(v)


def load_sweep(path: str | Path = SWEEP_PATH) -> list[dict]:
    """Return the stored sweep's rows, numbers as int/float (``curve``, ``architecture``, ``source`` str)."""
    out = []
    with open(path, newline="") as f:
        for r in csv.DictReader(f):
            row = {}
            for k, v in r.items():
                if k in ("curve", "architecture", "source"):
                    row[k] = v
                else:
                    x = float(v)
                    row[k] = int(x) if x.is_integer() and k not in ("duration_s",) and "bps" not in k \
                        and not k.endswith("_s") and "bytes" not in k and k != "inbound_outbound_ratio" \
                        and k != "us_connections_mean" else x
            out.append(row)
    return out


if __name__ == "__main__":
    t0 = time.perf_counter()
    p = write_figure4() if sys.argv[1:] == ["figure4"] else write_sweep()
    print(f"wrote {p} in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
