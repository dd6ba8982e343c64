"""Warm events/s of the reference dumbbell (``bench_compile.py``'s: 10 flows, 10 Mbit/s 20 ms bottleneck, 60 s) with
NewReno, CUBIC and BBR (each with NewReno's loss recovery), then Reno's window and BBR with SACK recovery (``sack``,
``bbr+sack``: the ``bbr`` preset's pair), and each one's ratio to NewReno's: the per-event cost of a congestion
control without ``bench_compile.py``'s cold compile, so that two commits can be compared A/B/A/B in a few seconds a
round.

Run: .venv/bin/python benchmarks/bench_cc_events.py [--repeats N] [--rounds R]
(``bench_compile.py`` gives the same ratios after a cold compile). Warm: the first call of each scenario compiles
or loads the cache and is not timed. Prints medians of CPU time: per round, each algorithm's
median of ``--repeats`` runs in a row (a run right after another algorithm's pays for bringing its tables back
into the caches, which would pull every ratio towards 1); the rounds interleave the algorithms, so a drift in the
machine's speed (tens of per cent here) falls on each alike; the spread of the per-round ratios beside.
"""

from __future__ import annotations

import argparse
import dataclasses
import resource
import statistics


def _cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def main(repeats: int = 5, rounds: int = 5) -> None:
    from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
    ref = dumbbell(10, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    sc = bulk_scenario(ref.network, ref.pairs, TcpParams(variant="newreno"), duration_s=60.0,
                       start_times_s=[0.01 * i for i in range(10)])
    runs = {"newreno": ("newreno", "reno"), "cubic": ("newreno", "cubic"), "bbr": ("newreno", "bbr"),
            "sack": ("sack", "reno"), "bbr+sack": ("sack", "bbr")}  # name: (recovery, congestion control)
    scenarios = {name: dataclasses.replace(sc, connections=tuple(
        dataclasses.replace(c, tcp=dataclasses.replace(c.tcp, recovery=rec, congestion_control=cc))
        for c in sc.connections)) for name, (rec, cc) in runs.items()}
    events = {cc: simulate(s, seed=1).events for cc, s in scenarios.items()}  # warm: not timed
    times = {cc: [] for cc in scenarios}
    for _ in range(rounds):  # rounds interleaved: a drift in the machine's speed falls on every algorithm alike
        for cc, s in scenarios.items():
            simulate(s, seed=1)  # after another scenario's runs: not timed (its tables come back into the caches)
            block = []
            for _ in range(repeats):
                c0 = _cpu()
                simulate(s, seed=1)
                block.append(_cpu() - c0)
            times[cc].append(statistics.median(block))
    rates = {cc: events[cc] / statistics.median(t) for cc, t in times.items()}
    for cc, rate in rates.items():
        pairs = zip(times[cc], times["newreno"], strict=True)
        ratios = sorted(events[cc] / a / (events["newreno"] / b) for a, b in pairs)
        print(f"{cc:8s} {events[cc]} events, median CPU {statistics.median(times[cc]) * 1e3:7.1f} ms -> "
              f"{rate / 1e6:.2f} M events/s ({rate / rates['newreno']:.3f} x NewReno's; per round "
              f"{ratios[0]:.2f}-{ratios[-1]:.2f})", flush=True)


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeats", type=int, default=5, help="timed runs per algorithm per round")
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    main(args.repeats, args.rounds)
