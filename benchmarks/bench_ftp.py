"""Benchmark chapter 3's FTP sessions: one slider move (10 x 10 KB, every design available today), the
chapter's live panel (re-run + redraw of its figures, Python side: 10 x 10 KB and 10 x 1 MB), and the full
figure set through ``run_sweep`` on 2 workers, both as a flat 30 seeds per point and as the chapter's
sequential sample (the paper's 90% / 0.5 s rule, at most 30 runs: ``simcore.ftp.figure_sweep``).

Run: .venv/bin/python benchmarks/bench_ftp.py [--quick]   (--quick: the slider and panel parts only)
Targets (issue 11): a slider move under 300 ms for 10 x 10 KB; the figure set under 30 s on two cores.
The browser's own redraw is measured by benchmarks/bench_browser.py (it drives every chapter's panels).
"""

from __future__ import annotations

import statistics
import sys
import time

from _timing import timed

from simcore.ftp import FtpParams, run_transfer, transfer
from simcore.sweep import run_sweep

DESIGNS = [  # (label, design, transport)
    ("1 ftp/tcp", "ftp", "tcp"),
    ("2 ftp/sctp", "ftp", "sctp"),
    ("3 single/sctp", "single", "sctp"),
    ("4 single pipelined/sctp", "single_pipelined", "sctp"),
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


def panel_moves() -> None:
    from simcore.chapters import ftp_sctp as ch

    panel = ch.make_panel()
    for group in ch.DESIGN_GROUPS:
        for size_kb in (10, 1024):
            ms = []
            for i in range(5 if size_kb == 10 else 2):
                panel.set(designs=group, file_kb=size_kb, loss_pct=0.3 + 0.1 * (i % 2))  # a real move each time
                ms.append(panel.last_run_ms)
            print(f"panel, {group:44s} 10 x {size_kb:4d} KB: re-run + redraw (Python) median "
                  f"{statistics.median(ms):7.1f} ms (target 300 for 10 KB)")
        panel.set(file_kb=10)


def chapter_sweep() -> None:
    from simcore.ftp.figure_sweep import run_figure_sweep

    t0 = time.perf_counter()
    res = run_figure_sweep(30)
    wall = time.perf_counter() - t0
    n = res.column("n_runs")
    print(f"chapter sweep (sequential 90% rule, <= 30 runs): {len(res)} points, {int(n.sum())} sessions in "
          f"{wall:.1f} s on 2 workers (target 30 s)")


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
    panel_moves()
    if "--quick" not in sys.argv:
        chapter_sweep()
        figure_set()
