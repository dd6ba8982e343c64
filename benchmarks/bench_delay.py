"""Benchmark of the chapter-4 delay model: the cost of one full slider update.

A slider update = closed form + simulation with packet trace of the selected configuration + all three
modes overlaid (closed form and simulation each) + rebuilding the space-time diagram's data.
Prints medians over repeated runs (first call excluded: numba compilation / cache load).
Run: ``.venv/bin/python benchmarks/bench_delay.py``.
"""

from __future__ import annotations

import statistics
import time

from _timing import median_ms as _median_ms

from simcore.delay import DelayParams, closed_form_ms, evaluate, simulate_ideal, space_time_figure
from simcore.delay.plots import update_space_time


def main() -> None:
    t0 = time.perf_counter()
    simulate_ideal(DelayParams())
    print(f"first call (compile or load numba cache): {(time.perf_counter() - t0) * 1e3:8.1f} ms")
    fig = space_time_figure(simulate_ideal(DelayParams()))
    configs = {
        "report case (P=2, C=2)": DelayParams(mode="1.2"),
        "slider max-ish (P=10, C=20)": DelayParams(mode="1.0", n_parents=10, n_children=20, cache=True,
                                                   hit_ratio=0.5),
        "big page (P=100, C=100)": DelayParams(mode="1.2", n_parents=100, n_children=100, pipelining=True),
    }
    print(f"{'configuration':32s} {'closed form':>12s} {'sim+trace':>10s} {'evaluate':>10s} {'+figure':>10s}")
    for name, p in configs.items():
        cf = _median_ms(lambda p=p: closed_form_ms(p))
        sim = _median_ms(lambda p=p: simulate_ideal(p))
        ev = _median_ms(lambda p=p: evaluate(p))

        def full(p=p):
            out = evaluate(p)
            update_space_time(fig, out["result"].trace)

        fu = _median_ms(full, repeat=10)
        print(f"{name:32s} {cf:10.3f}ms {sim:8.3f}ms {ev:8.3f}ms {fu:8.1f}ms")
    print("target: full slider update (last column) < 100 ms for slider-range pages")
    part2()


def part2() -> None:
    """Part 2 (real TCP): one panel slider move = simulate every mode on simcore.packet + redraw."""

    from simcore.chapters import delay_tcp

    panel = delay_tcp.make_panel()
    moves = [{"rtt_ms": v} for v in (50.0, 150.0, 300.0, 100.0)] + [{"n_objects": 10}, {"initial_window": 4}]
    times = []
    for move in moves:
        panel.set(**move)
        times.append(panel.last_run_ms)
    print(f"part 2 (real TCP) slider move, simulate all modes + redraw: median {statistics.median(times):.0f} ms, "
          f"max {max(times):.0f} ms over {len(moves)} moves (error: {panel.last_error})")
    # Random positions over every slider's whole range (seeded): how often is a move slower than 100 ms?
    import numpy as np

    rng = np.random.default_rng(0)
    times = []
    for _ in range(40):
        values = {}
        for name, (lo, hi, step) in delay_tcp.SLIDER_RANGES.items():
            v = lo + step * int(rng.integers(0, int(round((hi - lo) / step)) + 1))
            values[name] = int(v) if isinstance(lo, int) else v
        panel.set(**values)
        times.append(panel.last_run_ms)
    t = np.asarray(times)
    print(f"part 2 at 40 random slider positions: median {np.median(t):.0f} ms, 90th percentile "
          f"{np.percentile(t, 90):.0f} ms, max {t.max():.0f} ms, share over 100 ms {np.mean(t > 100):.0%}")


if __name__ == "__main__":
    main()
