"""Benchmark of chapter 2's model (simcore.satellite) on today's packet engine, so the engine's scale work
(issue 8: fast routes, memory bounded by concurrent connections) can be measured against it.

Run: .venv/bin/python benchmarks/bench_satellite.py [--quick] [--duration S] [--highest]
Each configuration runs in a fresh process (so peak RSS is its own) after numba's cache is warm, and
prints: requests and connections; scenario build (our Python), engine build (``simulate._build``: routes,
arrays), kernel time, events/s (kernel), peak RSS; and the paper's-scale extrapolation at the end.
Target (issue 12): the highest load of the figure-5 sweep, 10 simulated minutes, in under 5 s
(``--highest --duration 600``; CPU seconds are printed beside wall seconds: on a shared machine the wall
time is inflated by the other processes).

--highest also splits each run's time (wall and CPU) into scenario build (our Python: workload, slots,
columns), engine build (``simulate._build``: routes, records), kernel (``run_to_end``) and result assembly
(``PacketResult`` and ``SatelliteResult``), and prints events/s of the kernel alone beside the reference
dumbbell's (``bench_packet.py``).

--sweep: the whole figure-5 sweep (``satellite_sweep.SWEEP_LOADS`` x 7 curves, 600 s each) through
``run_figure5_sweep`` on 2 local processes, costliest runs first; prints its wall time (target < 2 min),
the workers' CPU time (half of it is what 2 idle cores would take) and the load average. Minutes on a
busy machine.

--panel: the chapter's live panel, median Python time of a slider move (target < 300 ms) answered from the
stored sweep and from the hybrid fast mode, and the hybrid's speed-up over the full run at the same setting.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time


class _Split:
    """Timers around ``simcore.packet.simulate``'s and ``simcore.satellite.model``'s phases (wall and CPU)."""

    PHASES = (("scenario", "simcore.satellite.model", "build_satellite"),
              ("engine_build", "simcore.packet.simulate", "_build"),
              ("kernel", "simcore.packet.simulate", "run_to_end"),
              ("packet_result", "simcore.packet.simulate", "_result"),
              ("satellite_result", "simcore.satellite.model", "_result"))

    def __init__(self):
        import importlib

        self.wall: dict[str, float] = {}
        self.cpu: dict[str, float] = {}
        self.kinds: dict[str, int] = {}
        for name, mod, fn in self.PHASES:
            m = importlib.import_module(mod)
            setattr(m, fn, self._wrap(name, getattr(m, fn)))

    def _wrap(self, name, f):
        def timed(*a, **k):
            t0, c0 = time.perf_counter(), time.process_time()
            try:
                out = f(*a, **k)
                if name == "packet_result":
                    self.kinds = _event_kinds(out)
                return out
            finally:
                self.wall[name] = self.wall.get(name, 0.0) + time.perf_counter() - t0
                self.cpu[name] = self.cpu.get(name, 0.0) + time.process_time() - c0
        return timed


def _event_kinds(res) -> dict[str, int]:
    """Return a run's events by kind, from its ``PacketResult``: packet arrivals (one per link transmission),
    application events (timed writes and opens, then those released by a completion) and, the rest, timer
    events (retransmission and delayed-ACK timers, stale ones included)."""
    sc = res.scenario
    arrivals = int(res.link_packets.sum())
    app = int(sc.msg_after.size + sc.conn_open_after.size)
    return dict(arrivals=arrivals, app=app, timers=int(res.events) - arrivals - app)


def one(arch: str, n_traces: int, n_conn: int, duration_s: float, buffers: bool, split: bool = False) -> dict:
    """Run one configuration in this process through the public API and return its figures.

    (It used to replay ``simulate``'s overflow-and-rerun loop on the kernel's internals; that copy missed
    the ring and row overflows and looped forever at high load, and the kernel is being refactored.)"""
    from simcore.satellite import SatelliteParams, simulate_satellite

    simulate_satellite(SatelliteParams(n_traces=1, duration_s=5.0, measure_buffers=buffers), 0)  # load the cache
    timers = _Split() if split else None
    p = SatelliteParams(architecture=arch, n_traces=n_traces, n_proxy_connections=n_conn, duration_s=duration_s,
                        measure_buffers=buffers)
    t0, c0 = time.perf_counter(), time.process_time()
    r = simulate_satellite(p, 1)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(arch=arch if arch == "base" else f"proxy{n_conn}", n_traces=n_traces, duration_s=duration_s,
                buffers=buffers, requests=r.requests, connections=r.requests + (n_conn if arch != "base" else 0),
                links=2 + 2 * r.slots, scenario_s=r.build_s, engine_build_s=0.0, kernel_s=r.simulate_s,
                wall_s=wall, cpu_s=cpu, reruns=0, events=r.events,
                rss_mb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
                split_wall=timers.wall if timers else {}, split_cpu=timers.cpu if timers else {},
                kinds=timers.kinds if timers else {})


def main(quick: bool, duration_s: float, highest: bool = False) -> None:
    configs = [("base", 10, 1, False), ("us_proxy", 10, 100, False), ("base", 50, 1, False),
               ("us_proxy", 50, 100, False), ("base", 50, 1, True)]
    if highest:  # issue 12's target: the sweep's highest load (650 day-traces), buffers measured
        configs = [("base", 650, 1, True), ("us_proxy", 650, 100, True)]
    elif not quick:
        configs += [("base", 150, 1, False), ("us_proxy", 150, 100, False), ("us_proxy", 150, 10, False)]
    for buf in "10":  # compile into numba's cache first (both trace modes)
        subprocess.run([sys.executable, __file__, "--one", "base", "2", "1", "10", buf, "0"], check=True,
                       capture_output=True)
    print(f"== simcore.satellite on today's engine: {duration_s:g} simulated s per run, one process per run ==")
    print(f"{'config':>10} {'traces':>6} {'buffers':>7} {'requests':>8} {'conns':>6} {'links':>5} {'scenario s':>10} "
          f"{'(unused)':>14} {'simulate s':>8} {'events':>8} {'Mev/s':>6} {'RSS MB':>7} {'reruns':>6} {'wall s':>7} "
          f"{'CPU s':>6}")
    rows = []
    for arch, nt, nc, buf in configs:
        out = subprocess.run([sys.executable, __file__, "--one", arch, str(nt), str(nc), str(duration_s),
                              str(int(buf)), str(int(highest))], check=True, capture_output=True, text=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        rows.append(r)
        print(f"{r['arch']:>10} {r['n_traces']:>6} {str(r['buffers']):>7} {r['requests']:>8} {r['connections']:>6} "
              f"{r['links']:>5} {r['scenario_s']:>10.2f} {r['engine_build_s']:>14.2f} {r['kernel_s']:>8.3f} "
              f"{r['events']:>8} {r['events'] / max(r['kernel_s'], 1e-9) / 1e6:>6.2f} {r['rss_mb']:>7.0f} "
              f"{r['reruns']:>6} {r['wall_s']:>7.2f} {r['cpu_s']:>6.2f}")
    if highest:
        _print_split(rows)
        return
    big = max((r for r in rows if r["arch"] == "base"), key=lambda r: (r["requests"], not r["buffers"]))
    per_req = (big["scenario_s"] + big["engine_build_s"]) / big["requests"]
    paper = 550 * 421  # requests in 10 min at the E3's saturation (~550 day-traces of ~62 kbit/s)
    print(f"\nsetup per request (base, largest run): {per_req * 1e3:.2f} ms; kernel "
          f"{big['events'] / big['requests']:.0f} events per request")
    print(f"paper's scale, base at saturation: ~{paper} requests in 600 s -> setup ~{per_req * paper:.0f} s if "
          f"linear (the engine's routes and arrays grow faster than linearly), kernel ~"
          f"{big['kernel_s'] / big['requests'] * paper:.0f} s at today's events/s")


def _print_split(rows: list[dict]) -> None:
    """Print each run's phases (wall / CPU seconds), its kernel's events/s and the load average."""
    import os

    print("\nphases, wall s / CPU s (the kernel's events/s on its CPU time; the reference dumbbell, "
          "bench_packet.py, runs ~4-11 M events/s)")
    for r in rows:
        w, c = r["split_wall"], r["split_cpu"]
        rest = r["wall_s"] - sum(w.values())
        print(f"{r['arch']:>10}: " + ", ".join(f"{k} {w[k]:.2f}/{c[k]:.2f}" for k in w)
              + f", other {rest:.2f}; kernel {r['events'] / max(c['kernel'], 1e-9) / 1e6:.2f} M events/s (CPU), "
              f"not kernel {r['wall_s'] - w['kernel']:.2f} s wall")
        k = r["kinds"]
        print(f"{'':>10}  events: {k['arrivals']} packet arrivals, {k['app']} application writes and opens, "
              f"{k['timers']} timer events ({100 * k['timers'] / r['events']:.0f} %, stale ones included)")
    print(f"load average at the end: {os.getloadavg()[0]:.2f} (2 cores)")


def sweep() -> None:
    """Run the whole figure-5 sweep as ``satellite_sweep.write_sweep`` does (not written) and print its time."""
    import os

    from simcore.chapters.satellite import CURVES, run_figure5_sweep
    from simcore.chapters.satellite_sweep import SWEEP_DURATION_S, SWEEP_LOADS, SWEEP_SEED
    from simcore.satellite import SatelliteParams, simulate_satellite

    simulate_satellite(SatelliteParams(n_traces=1, duration_s=5.0, measure_buffers=True), 0)  # load the cache
    load0 = os.getloadavg()[0]
    kids0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    sw = run_figure5_sweep(SWEEP_LOADS, CURVES, duration_s=SWEEP_DURATION_S, seeds=(SWEEP_SEED,), progress=False,
                           measure_buffers=True)
    wall = time.perf_counter() - t0
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)  # the pool's workers, joined at its shutdown
    cpu = kids.ru_utime + kids.ru_stime - kids0.ru_utime - kids0.ru_stime
    ev = sum(r["events"] for r in sw.to_records())
    print(f"== figure-5 sweep: {len(sw)} runs x {SWEEP_DURATION_S:g} s on 2 processes (costliest first) ==")
    print(f"wall {wall:.0f} s (target < 120 s); {ev / 1e6:.0f} M events, {ev / wall / 1e6:.2f} M events/s overall; "
          f"sum of the runs' simulate_s {sum(r['simulate_s'] for r in sw.to_records()):.0f} s; workers' CPU "
          f"{cpu:.0f} s (/ 2 = the wall time on 2 idle cores, ~{cpu / 2:.0f} s); "
          f"load average {load0:.2f} at the start, {os.getloadavg()[0]:.2f} at the end (2 cores)")


def panel() -> None:
    """Print the live panel's slider-move times (median of 3) per kind of answer, and hybrid vs full."""
    import statistics

    from simcore.chapters import satellite_panel as live
    from simcore.satellite import simulate_satellite
    from simcore.satellite.hybrid import simulate_hybrid

    pan = live.make_panel()
    moves = [("stored sweep", dict(load_mbps=v)) for v in (5.0, 15.0, 30.0)]
    moves += [("hybrid, base", dict(architecture="base", delay_ms=d)) for d in (300.0, 200.0, 100.0)]
    moves += [("hybrid, proxy 100", dict(architecture="us_proxy", n_conn=100, delay_ms=d, load_mbps=20.0))
              for d in (300.0, 200.0, 100.0)]
    moves += [("hybrid, proxy 10", dict(architecture="us_proxy", n_conn=10, delay_ms=d, load_mbps=5.0))
              for d in (300.0, 200.0, 100.0)]
    times: dict[str, list[float]] = {}
    for kind, values in moves:
        pan.set(**values)
        times.setdefault(kind, []).append(pan.last_run_ms)
    print("== live panel: Python time of one slider move (ms), median of 3; target < 300 ms ==")
    for kind, t in times.items():
        print(f"{kind:>20}: {statistics.median(t):7.0f} ms")
    p = live.panel_params(dict(pan.values(), load_mbps=20.0, architecture="base", delay_ms=300.0))
    t0 = time.perf_counter()
    simulate_satellite(p, 1)
    full = time.perf_counter() - t0
    h = simulate_hybrid(p, 1)
    print(f"hybrid vs full at 20 Mbit/s, base, {p.duration_s:g} s simulated: full {full:.2f} s, hybrid "
          f"{h.elapsed_s:.2f} s, speed-up x{full / h.elapsed_s:.0f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--panel":
        panel()
    elif len(sys.argv) > 1 and sys.argv[1] == "--sweep":
        sweep()
    elif len(sys.argv) > 1 and sys.argv[1] == "--one":
        a = sys.argv[2:]
        print(json.dumps(one(a[0], int(a[1]), int(a[2]), float(a[3]), bool(int(a[4])), bool(int(a[5])))))
    else:
        ap = argparse.ArgumentParser(description=__doc__)
        ap.add_argument("--quick", action="store_true", help="the three smallest loads only")
        ap.add_argument("--duration", type=float, default=60.0, help="simulated seconds per run")
        ap.add_argument("--highest", action="store_true", help="only the sweep's highest load (use --duration 600)")
        args = ap.parse_args()
        main(args.quick, args.duration, args.highest)
