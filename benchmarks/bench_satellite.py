"""Benchmark of chapter 2's model (simcore.satellite) on today's packet engine, so the engine's scale work
(issue 8: fast routes, memory bounded by concurrent connections) can be measured against it.

Run: .venv/bin/python benchmarks/bench_satellite.py [--quick] [--duration S]
Each configuration runs in a fresh process (so peak RSS is its own) after numba's cache is warm, and
prints: requests and connections; scenario build (our Python), engine build (``simulate._build``: routes,
arrays), kernel time, events/s (kernel), peak RSS; and the paper's-scale extrapolation at the end.
Target (issue 12): the highest load of the figure-5 sweep, 10 simulated minutes, in under 5 s.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


def one(arch: str, n_traces: int, n_conn: int, duration_s: float, buffers: bool) -> dict:
    """Run one configuration in this process and return its figures."""
    import numpy as np

    from simcore.packet import _layout as L
    from simcore.packet._kernel import run
    from simcore.packet.simulate import _build
    from simcore.satellite import SatelliteParams, build_satellite, simulate_satellite

    simulate_satellite(SatelliteParams(n_traces=1, duration_s=5.0, measure_buffers=buffers), 0)  # load the cache
    p = SatelliteParams(architecture=arch, n_traces=n_traces, n_proxy_connections=n_conn, duration_s=duration_s,
                        measure_buffers=buffers)
    t0 = time.perf_counter()
    sc, plan = build_satellite(p, 1)
    t1 = time.perf_counter()
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    caps: dict = {}
    t_build = t_kernel = 0.0
    reruns = 0
    while True:  # as simulate() does: rerun with larger arrays after an overflow
        a = time.perf_counter()
        X, pool, heap_cap, tr_rows, _ = _build(sc, seeds, buffers, caps)
        b = time.perf_counter()
        run(X)
        c = time.perf_counter()
        t_build += b - a
        t_kernel += c - b
        flags = int(X.st[0]["flags"])
        if flags == 0:
            break
        reruns += 1
        if flags & L.OVF_POOL:
            caps["pool"] = 2 * pool
        if flags & L.OVF_HEAP:
            caps["heap"] = 2 * heap_cap
        if flags & (L.OVF_PKTTR | L.OVF_TCPTR | L.OVF_QTR):
            st = X.st[0]
            caps["trace"] = int(max(st["n_pkttr"], st["n_tcptr"], st["n_qtr"])) + 1
    events = int(X.st[0]["events"])
    return dict(arch=arch if arch == "base" else f"proxy{n_conn}", n_traces=n_traces, duration_s=duration_s,
                buffers=buffers, requests=len(plan.made_s), connections=len(sc.connections),
                links=len(sc.network.links),
                scenario_s=t1 - t0, engine_build_s=t_build, kernel_s=t_kernel, reruns=reruns, events=events,
                rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)


def main(quick: bool, duration_s: float) -> None:
    configs = [("base", 10, 1, False), ("us_proxy", 10, 100, False), ("base", 50, 1, False),
               ("us_proxy", 50, 100, False), ("base", 50, 1, True)]
    if not quick:
        configs += [("base", 150, 1, False), ("us_proxy", 150, 100, False), ("us_proxy", 150, 10, False)]
    for buf in "10":  # compile into numba's cache first (both trace modes)
        subprocess.run([sys.executable, __file__, "--one", "base", "2", "1", "10", buf], check=True,
                       capture_output=True)
    print(f"== simcore.satellite on today's engine: {duration_s:g} simulated s per run, one process per run ==")
    print(f"{'config':>10} {'traces':>6} {'buffers':>7} {'requests':>8} {'conns':>6} {'links':>5} {'scenario s':>10} "
          f"{'engine build s':>14} {'kernel s':>8} {'events':>8} {'Mev/s':>6} {'RSS MB':>7} {'reruns':>6}")
    rows = []
    for arch, nt, nc, buf in configs:
        out = subprocess.run([sys.executable, __file__, "--one", arch, str(nt), str(nc), str(duration_s),
                              str(int(buf))], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        rows.append(r)
        print(f"{r['arch']:>10} {r['n_traces']:>6} {str(r['buffers']):>7} {r['requests']:>8} {r['connections']:>6} "
              f"{r['links']:>5} {r['scenario_s']:>10.2f} {r['engine_build_s']:>14.2f} {r['kernel_s']:>8.3f} "
              f"{r['events']:>8} {r['events'] / max(r['kernel_s'], 1e-9) / 1e6:>6.2f} {r['rss_mb']:>7.0f} "
              f"{r['reruns']:>6}")
    big = max((r for r in rows if r["arch"] == "base" and not r["buffers"]), key=lambda r: r["requests"])
    per_req = (big["scenario_s"] + big["engine_build_s"]) / big["requests"]
    paper = 550 * 421  # requests in 10 min at the E3's saturation (~550 day-traces of ~62 kbit/s)
    print(f"\nsetup per request (base, largest run): {per_req * 1e3:.2f} ms; kernel "
          f"{big['events'] / big['requests']:.0f} events per request")
    print(f"paper's scale, base at saturation: ~{paper} requests in 600 s -> setup ~{per_req * paper:.0f} s if "
          f"linear (the engine's routes and arrays grow faster than linearly), kernel ~"
          f"{big['kernel_s'] / big['requests'] * paper:.0f} s at today's events/s")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--one":
        a = sys.argv[2:]
        print(json.dumps(one(a[0], int(a[1]), int(a[2]), float(a[3]), bool(int(a[4])))))
    else:
        ap = argparse.ArgumentParser(description=__doc__)
        ap.add_argument("--quick", action="store_true", help="the three smallest loads only")
        ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds per run")
        args = ap.parse_args()
        main(args.quick, args.duration)
