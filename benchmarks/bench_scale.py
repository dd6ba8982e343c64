"""Benchmark of simcore.packet at scale: setup cost and memory against the number of connections.

Two scenarios over the satellite link of the HTTP/proxy study (34.368 Mbit/s, 320 ms one way):

(i)  ``bulk``: 200 concurrent bulk TCP flows (32767-byte windows, 512 KB router buffers), 60 s, in a
     dumbbell of 200 host pairs. Aim: build under 0.2 s.
(ii) ``web``: 100,000 short request/response connections (HTTP/1.0: a 300-byte request, a Pareto
     reply, shape 1.2, mean sized for ~90% load on the reply direction, server closes) opened at
     Poisson times over 10 simulated minutes, spread over 20 client/server host pairs. Aims: peak RSS
     under 500 MB, the whole run under 30 s.

Each scenario runs in a child process (so that peak RSS is its own), after a tiny warm-up run that
loads (or compiles) the kernels. Prints: scenario construction, build (routes and arrays), kernel, total
``simulate()`` time, events/s and peak RSS (``ru_maxrss``) before/after.

Run: .venv/bin/python benchmarks/bench_scale.py [--only bulk|web] [--connections N]
"""

from __future__ import annotations

import argparse
import resource
import subprocess
import sys
import time

import numpy as np

RATE_BPS = 34.368e6
DELAY_S = 0.32
BUFFER_BYTES = 512 * 1024
WINDOW_BYTES = 32767


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: kB


def _sat_link():
    from simcore.packet import LinkParams
    return LinkParams(rate_bps=RATE_BPS, delay_s=DELAY_S, queue_packets=100_000, queue_bytes=BUFFER_BYTES)


def bulk_scenario_200():
    from simcore.packet import TcpParams, bulk_scenario, dumbbell
    db = dumbbell(200, _sat_link())
    return bulk_scenario(db.network, db.pairs, TcpParams(rwnd_bytes=WINDOW_BYTES), duration_s=60.0,
                         start_times_s=[0.005 * i for i in range(200)])


def web_scenario(n_conns: int = 100_000, duration_s: float = 600.0, pairs: int = 20, load: float = 0.9,
                 seed: int = 1):
    from simcore.packet import Connection, Message, Scenario, TcpParams, dumbbell
    rng = np.random.default_rng(seed)
    # servers on the left (the bottleneck link 0 carries the replies), clients on the right
    db = dumbbell(pairs, _sat_link())
    shape = 1.2
    mean_reply = load * RATE_BPS / 8.0 * duration_s / n_conns * 1460 / 1500  # payload bytes
    xm = mean_reply * (shape - 1.0) / shape
    replies = np.minimum(xm * (1.0 + rng.pareto(shape, n_conns)), 50e6).astype(np.int64)
    opens = np.sort(rng.uniform(0.0, duration_s, n_conns))
    tcp = TcpParams(rwnd_bytes=WINDOW_BYTES, initial_rto_s=3.0)
    conns, msgs = [], []
    for k in range(n_conns):
        server, client = db.pairs[k % pairs]
        conns.append(Connection(client, server, tcp, open_time_s=float(opens[k]), closer="server"))
        msgs.append(Message(k, 300, "client", start_time_s=float(opens[k])))
        msgs.append(Message(k, int(replies[k]), "server", after_message=2 * k))
    return Scenario(db.network, tuple(conns), tuple(msgs), duration_s=duration_s)


def _child(which: str, n_conns: int) -> None:
    from simcore.packet import LinkParams, TcpParams, bulk_scenario, chain, simulate
    from simcore.packet.simulate import _build, run_to_end

    simulate(bulk_scenario(chain(1, LinkParams()), [(0, 1)], TcpParams(), duration_s=0.5))  # warm-up
    rss0 = _rss_mb()
    t0 = time.perf_counter()
    sc = bulk_scenario_200() if which == "bulk" else web_scenario(n_conns)
    t_make = time.perf_counter() - t0
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    t0 = time.perf_counter()
    X = _build(sc, seeds, False, {})[0]
    t_build = time.perf_counter() - t0
    t0 = time.perf_counter()
    X = run_to_end(X)
    t_kernel = time.perf_counter() - t0
    events = int(X.st[0]["events"])
    overflow = int(X.st[0]["flags"])
    del X
    t0 = time.perf_counter()
    res = simulate(sc, seed=1)
    t_sim = time.perf_counter() - t0
    done = np.isfinite(res.message_done_s).sum()
    print(f"  scenario construction: {t_make:7.2f} s   ({len(sc.connections)} connections, "
          f"{len(sc.messages)} messages, {len(sc.network.links)} links)")
    print(f"  build (routes, arrays): {t_build:6.3f} s")
    print(f"  kernel (one run):      {t_kernel:7.3f} s   {events} events -> {events / t_kernel / 1e6:.2f} M events/s"
          + ("   [first run overflowed: simulate() reran it]" if overflow else ""))
    print(f"  simulate() total:      {t_sim:7.3f} s   {res.events} events -> {res.events / t_sim / 1e6:.2f} M events/s")
    print(f"  peak RSS: {_rss_mb():.0f} MB (after warm-up: {rss0:.0f} MB)")
    print(f"  goodput {res.goodput_bps.sum() / 1e6:.2f} Mbit/s, bottleneck utilization "
          f"{res.link_utilization[0]:.3f}, messages done {done}/{len(sc.messages)}, "
          f"timeouts {int(res.timeouts.sum())}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=("bulk", "web"))
    ap.add_argument("--connections", type=int, default=100_000, help="connections of the web scenario")
    ap.add_argument("--child", choices=("bulk", "web"), help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.child:
        _child(a.child, a.connections)
        return
    titles = {"bulk": "(i) 200 bulk flows, 34.368 Mbit/s, 320 ms, 32767-byte windows, 512 KB buffers, 60 s",
              "web": f"(ii) {a.connections} short request/response connections, Poisson, Pareto replies, "
                     "~90% load, 600 s"}
    for which in ([a.only] if a.only else ["bulk", "web"]):
        print(f"== {titles[which]} ==", flush=True)
        t0 = time.perf_counter()
        subprocess.run([sys.executable, __file__, "--child", which, "--connections", str(a.connections)],
                       check=True)
        print(f"  whole child process: {time.perf_counter() - t0:.1f} s", flush=True)


if __name__ == "__main__":
    main()
