"""Benchmark chapter 5's live panel: one slider move (re-run every method + redraw, Python side).

Run: .venv/bin/python benchmarks/bench_objpack.py   (the first run compiles the packet kernels)
Target: median under 150 ms at the chapter's settings.
"""

from __future__ import annotations

import statistics

from simcore.chapters import objpack as chapter

MOVES = [
    {"n_files": 100, "mean_kb": 1.0},
    {"mean_kb": 4.0},
    {"mean_kb": 10.0},
    {"n_files": 50},
    {"rtt_ms": 5.0},
    {"rate_mbps": 100.0},
    {"file_ms": 10.0},
    {"distribution": "lognormal"},
    {"method": "package"},
    {"compress": "on"},
]


def main() -> None:
    panel = chapter.make_panel()
    for _ in range(2):  # warm-up: compile or load numba's cache
        panel.set(mean_kb=2.0)
        panel.set(mean_kb=1.0)
    times = []
    for _ in range(3):
        for move in MOVES:
            panel.set(**move)
            times.append(panel.last_run_ms)
        panel.set(n_files=100, mean_kb=1.0, rtt_ms=0.1, rate_mbps=10.0, file_ms=4.75, distribution="fixed",
                  method="http10", compress="off")
    print(f"slider move (all six methods re-run + redraw): median {statistics.median(times):.0f} ms, "
          f"max {max(times):.0f} ms over {len(times)} moves; target < 150 ms; last error: {panel.last_error}")
    worst = chapter.panel_params({**panel.values(), "n_files": 200, "mean_kb": 50.0, "rate_mbps": 1.0})
    panel.set(n_files=200, mean_kb=50.0, rate_mbps=1.0)
    print(f"extreme corner ({worst.n_files} files of {worst.mean_file_bytes} B at 1 Mbit/s): "
          f"{panel.last_run_ms:.0f} ms")


if __name__ == "__main__":
    main()
