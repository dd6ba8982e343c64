"""Figures 4 and 5 as a sweep: mean ``mget`` time per design ("curve") against loss, for 10 x 10 KB and
10 x 1 MB files, each point sampled by the paper's rule (``sample_point``: 90% interval, half-width at
most 0.5 s, 3 to 30 runs), through ``simcore.sweep.run_sweep`` (one task per point).

Curves: the paper's four designs (2-4 on simcore.packet's SCTP, ``SCTP_ASSUMED``: the RFC 2960 preset of
the 2002 KAME stack), the section 3 TCP alternatives, SACK TCP and parallel sessions. The two ``*_streams``
curves are the design 3/4 message patterns on TCP with per-stream delivery: NOT SCTP (no Max.Burst, TCP's
cwnd rules, TCP's loss recovery), kept as a contrast (what SCTP's own rules change) and labelled so.

``python -m simcore.ftp.figure_sweep`` re-writes ``data/ftp_sctp_sweep.csv`` (about a minute on 2 cores);
the chapter reads that file (``load_sweep``) so that opening it costs nothing.
"""

from __future__ import annotations

import csv
import math
import sys
import time
from dataclasses import replace
from pathlib import Path

from simcore._validate import check_choice, check_int

from .params import TCP_ASSUMED, FtpParams
from .transfer import sample_point

__all__ = ["CURVES", "CURVE_LABELS", "STAND_INS", "SCTP_CURVES",
           "LOSSES", "PERCENT_READING", "FRACTION_READING", "SIZES",
           "curve_params", "point", "run_figure_sweep", "write_sweep", "load_sweep", "SWEEP_CSV"]

TCP_SACK = replace(TCP_ASSUMED, variant="sack")  # FreeBSD 4.6 had no SACK (5.3 did): the paper's owed comparison

# curve -> FtpParams fields (besides loss and file size)
CURVES: dict[str, dict] = {
    "ftp_tcp": dict(design="ftp"),
    "sctp2_ftp": dict(design="ftp", transport="sctp"),
    "sctp3_multistream": dict(design="single", transport="sctp"),
    "sctp4_pipelined": dict(design="single_pipelined", transport="sctp"),
    "ftp_sack": dict(design="ftp", tcp=TCP_SACK),
    "A_single_tcp": dict(design="single"),
    "B_persistent_data": dict(design="persistent_data"),
    "C_persistent_pipelined": dict(design="persistent_data_pipelined"),
    "parallel4_tcp": dict(design="parallel", n_parallel=4),
    "pattern3_tcp_streams": dict(design="single", transport="tcp_streams"),
    "pattern4_tcp_streams": dict(design="single_pipelined", transport="tcp_streams"),
}
CURVE_LABELS = {
    "ftp_tcp": "1: FTP over TCP (NewReno)",
    "sctp2_ftp": "2: FTP over SCTP",
    "sctp3_multistream": "3: one SCTP association, 2 streams",
    "sctp4_pipelined": "4: 3 + command pipelining",
    "ftp_sack": "1 with SACK TCP",
    "A_single_tcp": "A: one TCP connection",
    "B_persistent_data": "B: persistent data conn.",
    "C_persistent_pipelined": "C: B + pipelining",
    "parallel4_tcp": "4 parallel FTP sessions",
    "pattern3_tcp_streams": "design-3 pattern on TCP with per-stream delivery, not SCTP",
    "pattern4_tcp_streams": "design-4 pattern on TCP with per-stream delivery, not SCTP",
}
STAND_INS = ("pattern3_tcp_streams", "pattern4_tcp_streams")
SCTP_CURVES = ("sctp2_ftp", "sctp3_multistream", "sctp4_pipelined")
PERCENT_READING = (0.0, 0.001, 0.003)  # "0, 0.1 and 0.3" read as percent (the chapter's primary reading)
FRACTION_READING = (0.0, 0.1, 0.3)  # ... read as fractions
LOSSES = (0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3)
SIZES = (10 * 1024, 1 << 20)
SWEEP_CSV = Path(__file__).resolve().parents[2] / "data" / "ftp_sctp_sweep.csv"
MAX_TIME_S = 1e6  # simulated seconds a session may last (a 10 x 1 MB mget at 30% loss each way lasts about a day)
FIELDS = ("curve", "file_size_bytes", "loss", "mean_s", "half_width_s", "n_runs", "reached", "completed",
          "sd_s", "gave_up", "source")


def curve_params(curve: str, loss: float, file_size_bytes: int, n_files: int = 10, **kw) -> FtpParams:
    """Return the ``FtpParams`` of ``curve`` (a key of ``CURVES``) at ``loss`` and ``file_size_bytes``."""
    check_choice("curve", curve, tuple(CURVES))
    return FtpParams(n_files=n_files, file_size_bytes=file_size_bytes, loss=loss, **{**CURVES[curve], **kw})


def point(curve: str, loss: float, file_size_bytes: int, max_runs: int = 30, seed: int = 0) -> dict:
    """Return one point of the figures: the paper's sample of ``curve`` at ``loss`` and ``file_size_bytes``
    (seeds ``seed``, ``seed + 1``, ...): mean and 90% half-width (s), runs, whether the 0.5 s target was
    met, whether every run finished within ``MAX_TIME_S`` (a point with an unfinished run has nan), and
    how many sessions a transport gave up (left out of the sample and replaced by the next seed)."""
    s = sample_point(curve_params(curve, loss, file_size_bytes, max_runs=max_runs, min_runs=min(3, max_runs),
                                  max_time_s=MAX_TIME_S), first_seed=seed)
    done = bool(s.n >= 2 and all(math.isfinite(v) for v in s.values))
    sd = float(s.values.std(ddof=1)) if done else math.nan
    return {"mean_s": s.mean if done else math.nan, "half_width_s": s.half_width, "n_runs": s.n,
            "reached": s.reached, "completed": done, "sd_s": sd, "gave_up": s.discarded}


def run_figure_sweep(max_runs: int = 30, curves=None, losses=LOSSES, sizes=SIZES, *, progress: bool = False,
                     executor=None, max_workers: int = 2):
    """Return the ``SweepResult`` of every (curve, size, loss) point, heaviest first for load balance."""
    from simcore.sweep import run_sweep

    check_int("max_runs", max_runs, 2, 10**4)
    curves = list(CURVES) if curves is None else list(curves)
    for c in curves:
        check_choice("curve", c, tuple(CURVES))
    grid = [{"curve": c, "loss": lo, "file_size_bytes": sz, "max_runs": max_runs}
            for sz in sorted(sizes, reverse=True) for lo in sorted(losses, reverse=True) for c in curves]
    return run_sweep(point, grid, [0], executor=executor, progress=progress, chunksize=1,
                     max_workers=max_workers)


def write_sweep(path: str | Path = SWEEP_CSV, max_runs: int = 30, **kw) -> Path:
    """Run the sweep and write it as CSV with a ``source`` column (provenance); return the path."""
    import simcore

    t0 = time.perf_counter()
    res = run_figure_sweep(max_runs, **kw)
    wall = time.perf_counter() - t0
    source = (f"simcore {getattr(simcore, '__version__', 'dev')} simulation (not the paper's): "
              f"simcore.ftp.figure_sweep.point, FtpParams defaults (FreeBSD 4.6 TCP preset, rwnd 32768; "
              f"SCTP: rfc2960 preset, rwnd 32768; loss on arrival both ways), "
              f"seeds from 0, sequential 90% rule, at most {max_runs} runs (sessions given up by a transport "
              f"counted in gave_up and replaced), at most {MAX_TIME_S:g} s simulated per session")
    rows = sorted(res.to_records(), key=lambda r: (list(CURVES).index(r["curve"]), r["file_size_bytes"], r["loss"]))
    path = Path(path)
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, FIELDS, extrasaction="ignore", lineterminator="\n")
        w.writeheader()
        for r in rows:
            note = f"; {CURVE_LABELS[r['curve']]}" if r["curve"] in STAND_INS else ""
            w.writerow({**{k: (round(v, 4) if isinstance(v, float) and math.isfinite(v) else v)
                           for k, v in r.items()}, "source": source + note})
    tmp.replace(path)  # nothing half-written
    print(f"{len(rows)} points in {wall:.1f} s -> {path}", file=sys.stderr)
    return path


def load_sweep(path: str | Path = SWEEP_CSV) -> list[dict]:
    """Return the stored sweep as records (numbers parsed; nan where a point did not finish)."""
    with open(path, newline="") as f:
        out = []
        for r in csv.DictReader(f):
            out.append({"curve": r["curve"], "file_size_bytes": int(r["file_size_bytes"]), "loss": float(r["loss"]),
                        "mean_s": float(r["mean_s"]), "half_width_s": float(r["half_width_s"]),
                        "n_runs": int(r["n_runs"]), "reached": r["reached"] == "True",
                        "completed": r["completed"] == "True", "sd_s": float(r["sd_s"]),
                        "gave_up": int(r.get("gave_up") or 0), "source": r["source"]})
    return out


if __name__ == "__main__":
    write_sweep(max_runs=int(sys.argv[1]) if len(sys.argv) > 1 else 30, progress=True)
