"""Benchmark the TCP primer's live panel: simulate + redraw time per slider move (median of 3 moves).

Run: .venv/bin/python benchmarks/bench_tcp_primer.py   (first run compiles the packet kernels, ~60 s)
"""

from __future__ import annotations

import statistics

from simcore.chapters import tcp_primer as chapter

SETTINGS = [
    {},
    {"rtt_ms": 200.0},
    {"variant": "newreno"},
    {"loss_pct": 1.0},
    {"rtt_ms": 10.0, "rate_mbps": 50.0, "buffer_packets": 400, "flows": 4, "duration_s": 30.0},
]


def median_move_ms(panel, values: dict, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        panel.set(**values)
        panel.set(seed=(panel.values()["seed"] + 1) % 100)  # force a re-run even if values did not change
        times.append(panel.last_run_ms)
    return statistics.median(times)


def main() -> None:
    panel = chapter.make_panel()
    for values in SETTINGS:
        ms = median_move_ms(panel, values)
        print(f"slider move {values or 'defaults'}: {ms:.0f} ms (simulate + redraw), error: {panel.last_error}")
    times = []
    for window in [(0.0, 2.0), (1.0, 5.0), (3.0, 10.0), (0.0, 30.0)]:
        panel.set(ts_window_s=window)
        times.append(panel.last_run_ms)
    print(f"time-sequence window only (no re-run): {statistics.median(times):.0f} ms")


if __name__ == "__main__":
    main()
