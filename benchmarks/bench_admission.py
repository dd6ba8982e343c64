"""Benchmark of simcore.admission: one experiment-2 run, and the thesis's whole grid over 10 seeds.

Prints medians (after compilation). Targets: one run of experiment 2 (400 clients) < 2 ms; the grid
(2 experiments x 3 loads x 11 scenarios x 10 seeds = 660 runs) < 2 s on 2 cores.
Run: .venv/bin/python benchmarks/bench_admission.py
"""

from __future__ import annotations

import time

import numpy as np
from _timing import median_ms as _median_ms

from simcore.admission import AdmissionParams, run_grid, simulate_admission, thesis_scenarios


def main():
    t = time.perf_counter()
    simulate_admission(AdmissionParams(), 0)
    print(f"first call (compile or load cache): {time.perf_counter() - t:.2f} s")

    print("one run of experiment 2 (400 clients), median ms after compilation:")
    per = []
    for frac, load in ((1.0, "sufficient"), (0.75, "light"), (0.5, "heavy")):
        for p in thesis_scenarios(2, frac):
            ms = _median_ms(lambda p=p: simulate_admission(p, 1))
            per.append(ms)
            if p.extra_sockets in (0, 6):
                label = f"{p.policy} +{p.extra_sockets}"
                print(f"  {load:10s} {label:12s} {ms:6.2f} ms")
    print(f"  median over the 33 experiment-2 scenarios: {np.median(per):.2f} ms (target < 2 ms)")
    print(f"  slowest: {max(per):.2f} ms")

    for workers in (1, 2):
        run_grid(seeds=[0], workers=workers)  # warm the worker processes' caches
        t = time.perf_counter()
        recs = run_grid(seeds=range(10), workers=workers)
        dt = time.perf_counter() - t
        print(f"whole grid, {len(recs)} runs, {workers} worker(s): {dt:.2f} s (target < 2 s on 2 cores)")


if __name__ == "__main__":
    main()
