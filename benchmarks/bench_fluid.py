"""Benchmark of simcore.fluid and simcore.sweep: one fluid run, one max_min_rates call, a small sweep.

Prints medians after the first call (numba compilation or cache load), and ratios.
Run: ``.venv/bin/python benchmarks/bench_fluid.py``.
"""

from __future__ import annotations

import concurrent.futures as cf
import math
import time

import numpy as np
from _timing import median_s as _median_s

from simcore.fluid import (
    FluidParams,
    fluid_summary,
    max_min_rates,
    max_min_rates_scratch,
    poisson_flows,
    simulate_flows,
    simulate_fluid,
)
from simcore.sweep import run_sweep


def _per_call_us(fn, calls: int, repeat: int = 15) -> float:
    return 1e6 * _median_s(lambda: [fn() for _ in range(calls)], repeat) / calls


def main() -> None:
    t = time.perf_counter()
    simulate_fluid(FluidParams(n_flows=10), 0)
    print(f"first call (compile or load cache): {time.perf_counter() - t:.2f} s")

    print("simulate_fluid, median after warm-up:")
    for n, lam, cap in (
        (400, 5.0, math.inf),
        (400, 9.0, math.inf),
        (400, 9.0, 2.5e5),
        (100_000, 9.0, math.inf),
    ):
        p = FluidParams(n_flows=n, arrival_rate_per_s=lam, access_rate_Bps=cap)
        r = simulate_fluid(p, 1)
        ms = 1e3 * _median_s(lambda p=p: simulate_fluid(p, 1), repeat=30 if n < 10_000 else 5)
        print(
            f"  {n:7d} flows, load {p.load:.1f}, cap {cap:8.3g} B/s: {ms:8.3f} ms  "
            f"({r.n_events} events, {1e6 * ms / 1e3 / r.n_events:.2f} us/event)"
        )
    p = FluidParams(n_flows=400)
    arrays = poisson_flows(p, 1)
    ms_kernel = 1e3 * _median_s(lambda: simulate_flows(*arrays, p.capacity_Bps))
    ms_total = 1e3 * _median_s(lambda: simulate_fluid(p, 1))
    print(f"  400 flows: arrays-in simulate_flows {ms_kernel:.3f} ms; with draws {ms_total:.3f} ms")

    print("max_min_rates per call (all flows active), median, includes the Python call overhead:")
    rng = np.random.default_rng(0)
    for n in (10, 100, 400, 4000):
        active = np.ones(n, np.bool_)
        out = np.empty(n)
        scratch = np.empty(n)
        cap_Bps = 1e3 * n
        for label, caps in (
            ("uncapped", np.full(n, np.inf)),
            ("half capped", np.where(rng.random(n) < 0.5, rng.uniform(1e2, 1e4, n), np.inf)),
            ("all capped", rng.uniform(1e2, 1e4, n)),
        ):
            args = (caps, active, cap_Bps, out)
            us = _per_call_us(lambda args=args: max_min_rates(*args), 2000)
            us_s = _per_call_us(
                lambda args=args, scratch=scratch: max_min_rates_scratch(*args, scratch), 2000
            )
            print(f"  n={n:5d} {label:12s}: {us:7.2f} us (allocating)  {us_s:7.2f} us (scratch)")

    print("run_sweep of fluid_summary (400 flows), 5 loads x 8 seeds = 40 runs:")
    grid = {"arrival_rate_per_s": [2.0, 4.0, 6.0, 8.0, 9.0], "n_flows": [400]}
    seeds = list(range(8))
    import tqdm.auto  # noqa: F401  (imported on the first sweep: keep its ~0.2 s import out of the timing)

    def loop():
        return [
            fluid_summary(seed=s, arrival_rate_per_s=a, n_flows=400)
            for a in grid["arrival_rate_per_s"]
            for s in seeds
        ]

    serial = _median_s(loop, repeat=7)
    with cf.ThreadPoolExecutor(1) as pool:
        thread1 = _median_s(lambda: run_sweep(fluid_summary, grid, seeds, executor=pool, progress=False), 7)
    procs = _median_s(lambda: run_sweep(fluid_summary, grid, seeds, progress=False), 3)
    print(
        f"  plain loop {1e3 * serial:.1f} ms; 1 thread {1e3 * thread1:.1f} ms; "
        f"default 2 processes (pool start included) {1e3 * procs:.1f} ms"
    )
    print(f"  sweep overhead ratio (1 thread / loop): {thread1 / serial:.2f}")


if __name__ == "__main__":
    main()
