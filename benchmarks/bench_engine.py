"""Benchmark of simcore.engine's event heap: the classic hold model (pop the earliest event, push it back
an exponential time later) at a steady number of pending events, in one numba kernel.

Run: .venv/bin/python benchmarks/bench_engine.py [--ops N]
Prints the median CPU time of one pop + push (ns) over 3 repeats at each heap size. 16k pending events is
chapter 2's highest load (the packet kernel's heap peak there); 300 is a small dumbbell's.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np
from numba import njit

from simcore.engine import heap_insert, heap_new, heap_pop


@njit(cache=True)
def _hold(n_pending, ops, inc):
    ht, hs, hk, ha, hm = heap_new(n_pending + 16)
    for i in range(n_pending):
        heap_insert(ht, hs, hk, ha, hm, inc[i], 0, i)
    acc = 0.0
    for j in range(ops):
        t, k, a = heap_pop(ht, hs, hk, ha, hm)
        acc += t
        heap_insert(ht, hs, hk, ha, hm, t + inc[j % inc.shape[0]], 0, a)
    return acc


def main(ops: int) -> None:
    inc = np.random.default_rng(0).exponential(1.0, 1 << 20)
    print(f"== simcore.engine heap, hold model, {ops} pop+push per run, median CPU of 3 ==")
    for n in (300, 4_000, 16_000, 64_000):
        _hold(n, 1000, inc)  # compile / load the cache
        times = []
        for _ in range(3):
            c0 = time.process_time()
            _hold(n, ops, inc)
            times.append(time.process_time() - c0)
        print(f"{n:>7} pending events: {statistics.median(times) / ops * 1e9:6.0f} ns per pop + push")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--ops", type=int, default=5_000_000)
    main(ap.parse_args().ops)
