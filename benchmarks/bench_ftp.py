"""Benchmark chapter 3's FTP sessions: one slider move (10 x 10 KB, every design available today) and
the full figure set through ``run_sweep`` on 2 workers.

Run: .venv/bin/python benchmarks/bench_ftp.py [--quick]   (--quick: the slider part only)
Targets (issue 11): a slider move under 300 ms for 10 x 10 KB; the figure set under 30 s on two cores.
"""

from __future__ import annotations

import statistics
import sys
import time

from _timing import timed

from simcore.ftp import FtpParams, run_transfer, transfer
from simcore.sweep import run_sweep

DESIGNS = [  # (label, design, transport): what runs today; SCTP (paper designs 2-4) waits for issue 10
    ("1 ftp/tcp", "ftp", "tcp"),
    ("A single/tcp", "single", "tcp"),
    ("B persistent data", "persistent_data", "tcp"),
    ("C persistent data + pipelining", "persistent_data_pipelined", "tcp"),
    ("3-pattern on tcp_streams", "single", "tcp_streams"),
    ("4-pattern on tcp_streams", "single_pipelined", "tcp_streams"),
]
LOSSES = [0.0, 0.001, 0.003, 0.01, 0.03, 0.1, 0.3]
SIZES = [10 * 1024, 1 << 20]


def slider_move() -> None:
    totals = {}
    for loss in (0.0, 0.003, 0.1):
        total = 0.0
        for label, design, transport in DESIGNS:
            moves = iter(range(10**6))  # each call a new slider position (a new loss a hair away, a new
            # seed), so nothing is served from the plan cache: the full cost of a move
            ms, t = timed(lambda d=design, tr=transport, lo=loss, m=moves: run_transfer(
                FtpParams(design=d, transport=tr, loss=lo + 1e-9 * (i := next(m))), seed=i), repeat=15)
            total += ms
            print(f"loss {loss:5.3f}  {label:32s} one run of 10 x 10 KB: median {1e3 * ms:6.1f} ms "
                  f"(last: {t.time_s:7.2f} s simulated, {t.passes} passes)")
        totals[loss] = total
        print(f"loss {loss:5.3f}  all {len(DESIGNS)} designs (one slider move): {1e3 * total:6.1f} ms (target 300)")


def figure_set(seeds: int = 30) -> None:
    grid = [{"design": d, "transport": tr, "loss": lo, "file_size_bytes": sz}
            for _, d, tr in DESIGNS for lo in LOSSES for sz in SIZES]
    t0 = time.perf_counter()
    res = run_sweep(transfer, grid, list(range(seeds)), progress=False, max_workers=2)
    wall = time.perf_counter() - t0
    done = res.column("completed")
    print(f"figure set: {len(DESIGNS)} designs x {len(LOSSES)} losses x {len(SIZES)} sizes x {seeds} runs = "
          f"{len(res)} sessions in {wall:.1f} s on 2 workers (target 30 s); {int((~done).sum())} not finished "
          f"within max_time_s")
    by_size = {sz: sum(1 for r in res.rows if r["file_size_bytes"] == sz) for sz in SIZES}
    print(f"sessions per size: {by_size}; median passes {statistics.median(res.column('passes')):.0f}")


if __name__ == "__main__":
    slider_move()
    if "--quick" not in sys.argv:
        figure_set()
