"""What one small ``simulate()`` call costs, and how much of it is the kernel (issue 27 item 1: <= 60 us).

Run: .venv/bin/python benchmarks/bench_small_runs.py [--runs N] [--profile]
The scenario is bench_vs_ns3.py's sequential files: ten 10 KB files, each on its own TCP connection opened when the
previous file has arrived, over 1 Mbit/s and 35 ms each way, random loss 0, 1 and 3 % x 30 seeds (90 runs). Each
call reads what a sweep over seeds reads (the last file's completion time, the bytes delivered, the events). Printed:
CPU microseconds per call (process time: the machine is shared; the least of ``--runs`` passes of 90 calls), the
kernel's own share (``run_to_end`` on states made the same way), and with ``--profile`` where the rest goes.
It also runs on a tree without ``simcore.packet.build_cache`` (every call then builds its state), for an A/B.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib
import pstats
import time

import numpy as np

from simcore.packet import LinkParams, Network, TcpParams, simulate

try:
    from simcore.packet.batch import simulate_many
except ImportError:  # a tree from before it
    simulate_many = None
from simcore.packet.scenarios import request_response_scenario

LOSSES = (0.0, 0.01, 0.03)
SEEDS = 30


def scenario(loss: float):
    link = LinkParams(rate_bps=1e6, delay_s=0.035, queue_packets=50, loss_prob=loss)
    net = Network(2, Network.duplex(0, 1, link))
    return request_response_scenario(net, 0, 1, 100, [10 * 1024] * 10, TcpParams(), persistent=False,
                                     duration_s=600.0)


def sweep(scs) -> float:
    """The 90 calls, reading what a sweep over seeds reads; returns a checksum (so nothing is optimised away)."""
    out = 0.0
    for sc in scs:
        for s in range(SEEDS):
            r = simulate(sc, seed=s)
            out += float(r.message_done_s[-1]) + float(r.delivered_bytes.sum()) + r.events
    return out


def sweep_many(scs) -> float:
    """The same 90 runs as ``simulate_many(sc, seeds)`` per loss (runs back to back in the event loop), reading
    the same fields; the checksum is ``sweep``'s."""
    out = 0.0
    for sc in scs:
        for r in simulate_many(sc, list(range(SEEDS))):
            out += float(r.message_done_s[-1]) + float(r.delivered_bytes.sum()) + r.events
    return out


def kernel_only(scs) -> float:
    """CPU seconds of the kernel alone (``run_to_end``) over the same 90 runs, on states built beforehand."""
    from simcore.rng import make_generator

    sim = importlib.import_module("simcore.packet.simulate")  # the module (``simcore.packet.simulate`` is the function)
    states = []
    for sc in scs:
        for s in range(SEEDS):
            seeds = make_generator(s).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
            states.append(sim._build(sc, seeds, False, {})[0])
    t0 = time.process_time()
    for S in states:
        sim.run_to_end(S)
    return time.process_time() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args()
    scs = [scenario(x) for x in LOSSES]
    n = len(scs) * SEEDS
    sweep(scs)  # warm: numba's cache, and the scenarios' kept states where there is a build cache
    best = []
    for _ in range(args.runs):
        t0 = time.process_time()
        sweep(scs)
        best.append(time.process_time() - t0)
    kern = min(kernel_only(scs) for _ in range(3))
    print(f"sequential files, {n} calls: {1e6 * min(best) / n:.1f} us CPU per call (least of {args.runs}; median "
          f"{1e6 * sorted(best)[len(best) // 2] / n:.1f}), kernel alone {1e6 * kern / n:.1f} us per run "
          "(aim: <= 60 us per call)")
    if simulate_many is not None:
        assert sweep_many(scs) == sweep(scs)
        many = []
        for _ in range(args.runs):
            t0 = time.process_time()
            sweep_many(scs)
            many.append(time.process_time() - t0)
        print(f"the same {n} runs as simulate_many(scenario, seeds), one call per loss: {1e6 * min(many) / n:.1f} us "
              f"CPU per run (least of {args.runs}; median {1e6 * sorted(many)[len(many) // 2] / n:.1f})")
    if args.profile:
        pr = cProfile.Profile()
        pr.enable()
        for _ in range(5):
            sweep(scs)
        pr.disable()
        pstats.Stats(pr).sort_stats("tottime").print_stats(25)


if __name__ == "__main__":
    main()
