"""Move every live panel of the lab through many slider combinations and print what broke.

Each panel lives in a child process (``simcore.panel_check.PanelWorker``): every move may grow it by at
most ``--memory-gb`` (an address-space limit set before the move) and is killed after ``--hang-s``; its
CPU time is checked against ``--cpu-s``. Moves are drawn by hypothesis over each control's own positions
(slider grids from min to max, every dropdown option, both checkbox states), all controls at once: a move
re-runs whatever the panel re-runs when everything changed, the worst case of a student's move.

Run: .venv/bin/python benchmarks/sweep_panels.py [--examples 200] [--panels admission_panel,delay]
Prints per panel: moves, refusals (a ValueError with a reason), problems (dead or hung child, internal
error, over the CPU limit) with the values that caused them, median / max CPU per move and max memory
growth. Exit code 1 if any move had a problem. ``tests/test_panel_sweep.py`` runs a few moves per panel.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time

from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from simcore.panel_check import PanelWorker, move_problems, panel_builders


def positions_strategy(controls):
    """A hypothesis strategy over one move: a position for every control."""
    parts = {}
    for name, space in controls.items():
        if space.kind == "range":
            parts[name] = st.tuples(st.integers(0, space.n - 1), st.integers(0, space.n - 1))
        else:
            parts[name] = st.integers(0, space.n - 1)
    return st.fixed_dictionaries(parts)


def sweep(name: str, examples: int, args) -> tuple[list, list]:
    reports, problems = [], []
    with PanelWorker(name, memory_gb=args.memory_gb, hang_s=args.hang_s) as worker:

        @settings(max_examples=examples, deadline=None, database=None, phases=[Phase.generate],
                  suppress_health_check=list(HealthCheck))
        @given(positions=positions_strategy(worker.controls))
        def one(positions):
            report = worker.move(positions)
            found = move_problems(report, cpu_limit_s=args.cpu_s)
            if found and report.outcome == "ok" and report.cpu_s > args.cpu_s:
                report = worker.move(positions)  # slow once (a first load): count it only if slow again
                found = move_problems(report, cpu_limit_s=args.cpu_s)
            reports.append(report)
            if found:
                problems.append((report, found))

        one()
    return reports, problems


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--examples", type=int, default=200, help="moves per panel")
    ap.add_argument("--panels", default="", help="comma-separated module names (default: every panel)")
    ap.add_argument("--memory-gb", type=float, default=1.0)
    ap.add_argument("--cpu-s", type=float, default=2.0)
    ap.add_argument("--hang-s", type=float, default=60.0)
    args = ap.parse_args(argv)
    names = sorted(panel_builders())
    if args.panels:
        wanted = set(args.panels.split(","))
        names = [n for n in names if n.split(":")[0].rsplit(".", 1)[-1] in wanted]
    bad = 0
    for name in names:
        t0 = time.perf_counter()
        reports, problems = sweep(name, args.examples, args)
        cpu = [r.cpu_s for r in reports]
        wall = [r.wall_s for r in reports]
        refused = [r for r in reports if r.outcome == "refused"]
        print(f"{name}: {len(reports)} moves in {time.perf_counter() - t0:.0f} s, {len(refused)} refused, "
              f"{len(problems)} with problems; CPU per move median {statistics.median(cpu):.3f} s, "
              f"max {max(cpu):.3f} s; wall median {statistics.median(wall):.3f} s, max {max(wall):.3f} s; "
              f"memory growth max {max(r.peak_mb for r in reports):.0f} MB (load {os.getloadavg()[0]:.1f})",
              flush=True)
        slowest = max(reports, key=lambda r: r.cpu_s)
        print(f"   slowest move ({slowest.cpu_s:.3f} s CPU): {slowest.values}")
        for r in sorted(refused, key=lambda r: r.message)[:3]:
            print(f"   refused: {r.message[:300]}")
        for r, found in problems:
            print(f"   PROBLEM {found} at {r.values}", flush=True)
        bad += len(problems)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
