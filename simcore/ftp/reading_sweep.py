"""The paper's four designs under every reading of its loss setting (``simcore.ftp.readings``), with a
fixed number of sessions per point, for the claims (``simcore.ftp.claims``) and the sample-size argument.

One point = (reading, file size, loss, design 1-4): ``n_seeds`` sessions with seeds 0, 1, ...; the
loss-free points are deterministic (every seed gives the same time), so they run 3 seeds. Sessions may
last up to ``MAX_TIME_S`` of simulated time (a 10 x 1 MB session at 30% loss each way lasts about a day).

``python -m simcore.ftp.reading_sweep`` re-writes ``data/ftp_sctp_readings.csv`` and, from it,
``data/ftp_sctp_verdicts.csv`` (the claims under every reading); the chapter reads both.
"""

from __future__ import annotations

import csv
import math
import sys
import time
from pathlib import Path

import numpy as np

from simcore._validate import check_choice, check_int

from .claims import verdicts
from .figure_sweep import MAX_TIME_S as FIGURE_MAX_TIME_S
from .params import FtpParams, paper_design
from .readings import READINGS, reading, reading_params
from .sampling import runs_needed
from .transfer import run_transfers

__all__ = ["READINGS_CSV", "VERDICTS_CSV", "MAX_TIME_S", "SEEDS", "SIZES", "reading_point", "run_reading_sweep",
           "write_readings", "load_readings", "load_verdicts", "evidence_rows"]

DATA = Path(__file__).resolve().parents[2] / "data"
READINGS_CSV = DATA / "ftp_sctp_readings.csv"
VERDICTS_CSV = DATA / "ftp_sctp_verdicts.csv"
MAX_TIME_S = FIGURE_MAX_TIME_S  # the same limit as the figure sweep
SIZES = (10 * 1024, 1 << 20)
SEEDS = {10 * 1024: 100, 1 << 20: 30}  # sessions per lossy point
FIELDS = ("reading", "file_size_bytes", "loss", "design", "n_runs", "n_done", "n_gave_up", "mean_s", "sd_s",
          "source")


def reading_point(reading_name: str, file_size_bytes: int, loss: float, design: int, n_seeds: int,
                  seed: int = 0) -> dict:
    """Return one point's sample, sessions with seeds ``seed`` ... ``seed + n_seeds - 1``: sessions run,
    finished, given up (a transport's give-up rule), and the mean and standard deviation (s) of the
    finished sessions' ``mget`` times."""
    rd = reading(reading_name)
    check_int("n_seeds", n_seeds, 2, 10**5)
    p = FtpParams(file_size_bytes=file_size_bytes, loss=loss, max_time_s=MAX_TIME_S, **paper_design(design),
                  **reading_params(rd))
    runs = run_transfers(p, [seed + i for i in range(n_seeds)])  # (as run_transfer per seed, bit for bit)
    x = np.array([t.time_s for t in runs if t.completed])
    gave_up = sum(1 for t in runs if getattr(t, "gave_up", False))
    return {"n_runs": n_seeds, "n_done": int(x.size), "n_gave_up": gave_up,
            "mean_s": float(x.mean()) if x.size else math.nan,
            "sd_s": float(x.std(ddof=1)) if x.size > 1 else math.nan}


def run_reading_sweep(readings=None, sizes=SIZES, seeds=None, *, progress: bool = False, executor=None,
                      max_workers: int = 2):
    """Return the ``SweepResult`` of every (reading, size, loss, design) point, heaviest first."""
    from simcore.sweep import run_sweep

    names = list(READINGS) if readings is None else list(readings)
    for n in names:
        check_choice("reading", n, tuple(READINGS))
    seeds = {**SEEDS, **(seeds or {})}
    grid = []
    for size in sorted(sizes, reverse=True):
        for name in names:
            for lo in sorted(READINGS[name].losses, reverse=True):
                for d in (1, 2, 3, 4):
                    grid.append({"reading_name": name, "file_size_bytes": size, "loss": lo, "design": d,
                                 "n_seeds": seeds[size] if lo > 0 else 3})
    grid.sort(key=lambda g: -(g["loss"] * g["file_size_bytes"]))  # the longest sessions first
    return run_sweep(reading_point, grid, [0], executor=executor, progress=progress, chunksize=1,
                     max_workers=max_workers)


def _write(path: Path, fields, rows) -> None:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fields, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            w.writerow({k: (round(v, 4) if isinstance(v, float) and math.isfinite(v) else v) for k, v in r.items()})
    tmp.replace(path)  # nothing half-written


def write_readings(path: str | Path = READINGS_CSV, verdicts_path: str | Path = VERDICTS_CSV, **kw) -> Path:
    """Run the sweep, write it as CSV with a ``source`` column, and write the verdicts computed from it."""
    import simcore

    t0 = time.perf_counter()
    res = run_reading_sweep(**kw)
    wall = time.perf_counter() - t0
    source = (f"simcore {getattr(simcore, '__version__', 'dev')} simulation (not the paper's): "
              f"simcore.ftp.reading_sweep.reading_point, FtpParams defaults (FreeBSD 4.6 TCP, KAME 2002 SCTP), "
              f"the paper's designs 1-4, seeds from 0, at most {MAX_TIME_S:g} s simulated per session")
    order = list(READINGS)
    rows = sorted(({**r, "reading": r["reading_name"], "source": source} for r in res.to_records()),
                  key=lambda r: (order.index(r["reading"]), r["file_size_bytes"], r["loss"], r["design"]))
    _write(Path(path), FIELDS, rows)
    write_verdicts(verdicts_path, load_readings(path))
    print(f"{len(rows)} points in {wall:.1f} s -> {path}", file=sys.stderr)
    return Path(path)


def write_verdicts(path: str | Path = VERDICTS_CSV, records: list[dict] | None = None) -> Path:
    """Write the claims' verdicts (``simcore.ftp.claims.verdicts``) of the stored sweep as CSV."""
    vs = verdicts(records if records is not None else load_readings())
    rows = [{"claim": v.claim, "reading": v.reading, "file_size_bytes": v.file_size_bytes, "verdict": v.verdict,
             "why": v.why, "source": "simcore.ftp.claims.verdicts on data/ftp_sctp_readings.csv (simulation, "
             "not the paper's)"} for v in vs]
    _write(Path(path), ("claim", "reading", "file_size_bytes", "verdict", "why", "source"), rows)
    return Path(path)


def load_readings(path: str | Path = READINGS_CSV) -> list[dict]:
    """Return the stored reading sweep as records (numbers parsed)."""
    with open(path, newline="") as f:
        return [{"reading": r["reading"], "file_size_bytes": int(r["file_size_bytes"]), "loss": float(r["loss"]),
                 "design": int(r["design"]), "n_runs": int(r["n_runs"]), "n_done": int(r["n_done"]),
                 "n_gave_up": int(r["n_gave_up"]), "mean_s": float(r["mean_s"]), "sd_s": float(r["sd_s"]),
                 "source": r["source"]} for r in csv.DictReader(f)]


def load_verdicts(path: str | Path = VERDICTS_CSV) -> list[dict]:
    """Return the stored verdicts (rows of ``data/ftp_sctp_verdicts.csv``)."""
    with open(path, newline="") as f:
        return [{**r, "file_size_bytes": int(r["file_size_bytes"])} for r in csv.DictReader(f)]


def evidence_rows(records: list[dict] | None = None) -> list[dict]:
    """Return, per reading and file size, what the paper's sample-size rule (90% interval, half-width at
    most 0.5 s) asks at the reading's highest loss: the most runs any design needs (sigma from the
    sweep) and the testbed hours of that point for all four designs (runs x mean session time)."""
    recs = records if records is not None else load_readings()
    out = []
    for name, rd in READINGS.items():
        for size in SIZES:
            pts = [r for r in recs if r["reading"] == name and r["file_size_bytes"] == size
                   and r["loss"] == rd.losses[2]]
            if not pts:
                continue
            need = {r["design"]: (runs_needed(r["sd_s"]) if math.isfinite(r["sd_s"]) else math.nan) for r in pts}
            hours = sum(need[r["design"]] * r["mean_s"] for r in pts) / 3600.0
            out.append({"reading": name, "file_size_bytes": size, "loss": rd.losses[2],
                        "max_runs_needed": max(need.values()), "worst_design": max(need, key=need.get),
                        "testbed_hours": hours, "gave_up": sum(r["n_gave_up"] for r in pts),
                        "runs": sum(r["n_runs"] for r in pts)})
    return out


if __name__ == "__main__":
    write_readings(progress=True)
