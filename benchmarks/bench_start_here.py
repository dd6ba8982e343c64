"""Start-here's live panel, the Python side of a slider move: median time per kind of move.

Moves the arrival rate over 12 positions (La/R 0.1 to 0.96 and two past 1), then the links, the transmission
time law and the seed (each of these re-runs the whole curve unless cached: first visits are timed), all as a
student would (``panel.set``), and prints the panel's own Python time per move (``panel.last_run_ms``).
The browser's share is measured by ``benchmarks/bench_browser.py --chapters 00_start_here``.

Run: .venv/bin/python benchmarks/bench_start_here.py [--rounds 3]   (works on any checkout with make_panel())
"""

from __future__ import annotations

import argparse
import os
import statistics

from simcore.chapters import start_here as chapter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    panel = chapter.make_panel()
    rates = [83.0, 250.0, 420.0, 500.0, 600.0, 670.0, 710.0, 750.0, 780.0, 800.0, 900.0, 1000.0]
    times: dict[str, list[float]] = {"arrival rate": [], "links (first visit)": [], "law (first visit)": [],
                                     "seed (first visit)": []}
    seed = 10
    for _ in range(args.rounds):
        for rate in rates:
            panel.set(arrival_rate_pps=rate)
            times["arrival rate"].append(panel.last_run_ms)
        panel.set(arrival_rate_pps=600.0)
        for servers in (2, 3, 4, 5, 6, 7, 8, 1):
            seed += 1
            panel.set(seed=seed)  # a new seed: the curve for each link count below is a first visit
            times["seed (first visit)"].append(panel.last_run_ms)
            panel.set(servers=servers)
            times["links (first visit)"].append(panel.last_run_ms)
        seed += 1
        panel.set(seed=seed)
        for law in ("deterministic", "exponential"):
            seed += 1
            panel.set(seed=seed)
            panel.set(service=law)
            times["law (first visit)"].append(panel.last_run_ms)
        assert panel.last_error is None, panel.last_error
    load = os.getloadavg()[0]
    print(f"start-here panel, Python side per move (median / max over {args.rounds} rounds; load {load:.1f}):")
    for kind, ms in times.items():
        print(f"  {kind:<20} {statistics.median(ms):6.0f} ms median, {max(ms):6.0f} ms max ({len(ms)} moves)")


if __name__ == "__main__":
    main()
