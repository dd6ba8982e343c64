"""How often do start-here's "95 % confidence intervals" contain the closed form? Print the coverage.

For each queue and load, the interval is computed over seeds 0-99 (the panel's seed slider) exactly as the
panel computes it (``simcore.queueing.replications``: 10 independent replications sized from the queue's
memory, warm-up dropped), and compared with the closed form (M/M/1, M/D/1: Pollaczek-Khinchine, M/M/c: Erlang
C). A 95 % interval should contain it in about 95 of 100 runs (binomial spread: 91-99). For comparison, the
panel's earlier intervals: batch means, one run of 5,000 packets less a 500-packet warm-up, 20 batches.

Run: .venv/bin/python benchmarks/bench_coverage.py [--seeds 100] [--quick]   (--quick: M/M/1 only, ~10 s)
"""

from __future__ import annotations

import argparse
import time

from simcore import theory
from simcore.queueing import QueueParams, simulate_queue
from simcore.queueing.replications import estimate_mean_wait
from simcore.stats import batch_means_ci

LOADS = (0.5, 0.72, 0.90, 0.95)
QUEUES = (("M/M/1", 1, "exponential"), ("M/D/1", 1, "deterministic"), ("M/M/4", 4, "exponential"))


def coverage(servers: int, service: str, rho: float, seeds: range) -> tuple[int, int, int]:
    """Return (intervals containing the closed form, misses below it, packets simulated per interval)."""
    params = QueueParams(arrival_rate_per_s=rho * servers, mean_service_s=1.0, servers=servers, service=service)
    truth = theory.mean_wait_s(params.arrival_rate_per_s, 1.0, servers, service)
    hits = low = 0
    packets = 0
    for seed in seeds:
        est = estimate_mean_wait(params, seed)
        hits += est.covers(truth)
        low += (not est.covers(truth)) and est.mean_wait_s < truth
        packets = est.plan.total_customers
    return hits, low, packets


def old_coverage(rho: float, seeds: range) -> int:
    """Intervals of the earlier panel (batch means over one 5,000-packet run) that contain the M/M/1 mean."""
    params = QueueParams(arrival_rate_per_s=rho, mean_service_s=1.0, n_customers=5000, warmup_customers=500)
    truth = theory.mean_wait_s(rho, 1.0, 1, "exponential")
    hits = 0
    for seed in seeds:
        res = simulate_queue(params, seed)
        mean, half = batch_means_ci(res.wait_s[500:], 20)
        hits += abs(mean - truth) <= half
    return hits


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=100)
    parser.add_argument("--quick", action="store_true", help="M/M/1 only")
    args = parser.parse_args()
    seeds = range(args.seeds)
    estimate_mean_wait(QueueParams(arrival_rate_per_s=0.5), 0)  # compile / load the cache
    print(f"coverage of the 95 % intervals over {len(seeds)} seeds (closed form inside the interval):")
    for name, servers, service in QUEUES[:1] if args.quick else QUEUES:
        for rho in LOADS:
            t0 = time.perf_counter()
            hits, low, packets = coverage(servers, service, rho, seeds)
            line = (f"  {name} La/(cR) = {rho:.2f}: {hits}/{len(seeds)} ({low} misses below, "
                    f"{len(seeds) - hits - low} above), {packets:,} packets an interval")
            if name == "M/M/1":
                line += f"; earlier panel (batch means, 5,000 packets): {old_coverage(rho, seeds)}/{len(seeds)}"
            print(line + f"  [{time.perf_counter() - t0:.1f} s]", flush=True)


if __name__ == "__main__":
    main()
