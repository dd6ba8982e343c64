"""Timing helpers shared by the benchmark scripts (run as ``python benchmarks/bench_*.py``)."""

from __future__ import annotations

import statistics
import time


def timed(fn, repeat: int = 30):
    """Return (median wall time in seconds over ``repeat`` calls after one warm-up call, last result)."""
    fn()  # warm-up: compile or load numba's cache
    times = []
    out = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def median_s(fn, repeat: int = 30) -> float:
    """Return the median wall time of ``fn()`` in seconds (after one warm-up call)."""
    return timed(fn, repeat)[0]


def median_ms(fn, repeat: int = 30) -> float:
    """Return the median wall time of ``fn()`` in milliseconds (after one warm-up call)."""
    return 1e3 * median_s(fn, repeat)
