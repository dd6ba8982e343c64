"""simcore against ns-3 3.44 on the same scenarios, in one invocation: wall time of each side and the ratio.

Run: .venv/bin/python benchmarks/bench_vs_ns3.py [--ns3 PYTHON] [--quick]
``--ns3``: a Python that has ns-3 (default: $NS3_PYTHON, else /work/ns3venv/bin/python if it exists). ns-3 is a
reference for this benchmark only, never a dependency of the lab; install it into a venv of its own:
    python3 -m venv ~/ns3venv && ~/ns3venv/bin/pip install ns3==3.44.post0     (~0.5 GB; import takes 10-16 s)
Without it, the script prints simcore's side and says that ns-3 is missing.

Scenarios (aims from issue 27: >= 50x on the first two, >= 250x on the third):
- sequential files: ten 10 KB files, each fetched on its own TCP connection opened when the previous file has
  arrived (a 100-byte request, the file as the reply, the server closes), over 1 Mbit/s and 35 ms each way, a
  50-packet drop-tail queue, random loss in both directions at 0, 1 % and 3 % x 30 seeds = 90 runs;
- the 10-flow dumbbell (benchmarks/bench_packet.py): 10 NewReno bulk flows, 10 Mbit/s 20 ms bottleneck, 60 s;
- the satellite base case (chapter 2) at 5 Mbit/s presented load (``n_traces=traces_for_load(5e6)``) for 60 s:
  the run's own requests (one connection per request through the satellite, per-request MSS and window).
Each scenario is built by simcore and handed to ns-3 as the same links and connections (benchmarks/_ns3_side.py
says how they map and what ns-3's side does not model): a speed comparison on the same work, with the events,
completed replies and delivered bytes of both sides printed beside it. Times: simcore's include building the
scenario's arrays and the result (numba's cache warm); ns-3's include building its nodes, sockets and routes and
tearing them down (its import and the compilation of the C++ driver excluded). Medians (dumbbell, satellite) or
totals (sequential files) of wall time; CPU time beside it, since the machine is shared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from simcore.packet import BulkScenario, LinkParams, Network, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.packet.scenarios import request_response_scenario

try:
    from simcore.packet.batch import simulate_many
except ImportError:  # a tree from before it (for an A/B with --simcore-only)
    simulate_many = None

ROOT = Path(__file__).resolve().parent.parent
LOSSES = (0.0, 0.01, 0.03)
SEEDS = 30
AIMS = {"sequential files": 50, "dumbbell": 50, "satellite": 250}


def seqfiles_scenario(loss: float):
    link = LinkParams(rate_bps=1e6, delay_s=0.035, queue_packets=50, loss_prob=loss)
    net = Network(2, Network.duplex(0, 1, link))
    return request_response_scenario(net, 0, 1, 100, [10 * 1024] * 10, TcpParams(), persistent=False,
                                     duration_s=600.0)


def dumbbell_scenario():
    db = dumbbell(10, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    return bulk_scenario(db.network, db.pairs, TcpParams(variant="newreno"), duration_s=60.0,
                         start_times_s=[0.1 * i for i in range(10)])


def satellite_params():
    from simcore.chapters.satellite import traces_for_load
    from simcore.satellite import SatelliteParams

    return SatelliteParams(n_traces=traces_for_load(5e6), duration_s=60.0)  # 5 Mbit/s presented (the load axis)


# ---- simcore's side ---------------------------------------------------------------------------------------------

def _cpu_wall(fn):
    w0, c0 = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w0, time.process_time() - c0, out


def simcore_seqfiles() -> dict:
    """All 90 runs, building each loss's scenario once and running its 30 seeds as a sweep over seeds does:
    ``simulate_many`` (back to back in one call of the event loop), or one ``simulate`` call per seed on a tree
    without it."""
    def go():
        res = []
        for loss in LOSSES:
            sc = seqfiles_scenario(loss)
            if simulate_many is None:
                res += [simulate(sc, seed=s) for s in range(SEEDS)]
            else:
                res += simulate_many(sc, list(range(SEEDS)))
        return res

    go()  # warm
    walls, cpus = [], []
    for _ in range(15):  # (a go takes ~5 ms: 15 make its median robust to the odd slow one, e.g. a GC pass)
        w, c, res = _cpu_wall(go)
        walls.append(w)
        cpus.append(c)
    done = [int(np.isfinite(r.message_done_s[1::2]).sum()) for r in res]
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "runs": len(res),
            "events": sum(r.events for r in res), "completed": sum(done),
            "delivered_bytes": float(sum(r.delivered_bytes.sum() for r in res))}


def simcore_one(build, run, repeat: int) -> dict:
    run(build())  # warm
    walls, cpus = [], []
    for _ in range(repeat):
        w, c, r = _cpu_wall(lambda: run(build()))
        walls.append(w)
        cpus.append(c)
    return {"wall_s": statistics.median(walls), "cpu_s": statistics.median(cpus), "result": r}


def simcore_dumbbell(repeat: int) -> dict:
    out = simcore_one(dumbbell_scenario, lambda sc: simulate(sc, seed=1), repeat)
    r = out.pop("result")
    out.update(events=r.events, completed=0, delivered_bytes=float(r.delivered_bytes.sum()))
    return out


def simcore_satellite(repeat: int) -> dict:
    """The chapter's own entry point, ``simulate_satellite`` (its scenario, the run and its result), timed."""
    from simcore.satellite import simulate_satellite
    from simcore.satellite.model import build_satellite

    p = satellite_params()
    out = simcore_one(lambda: p, lambda q: simulate_satellite(q, 1), repeat)
    out.pop("result")
    res = simulate(build_satellite(p, 1)[0], seed=1)  # the same run, for its counts
    done = np.isfinite(res.message_done_s[1::2])
    out.update(events=res.events, completed=int(done.sum()), delivered_bytes=float(res.delivered_bytes.sum()))
    return out


# ---- the spec ns-3's side runs ------------------------------------------------------------------------------------

def _columns(sc):
    """Return (client, server, tcp params per connection, open_t, open_after_msg, msg conn/sender/size/after)."""
    if isinstance(sc, BulkScenario):
        return (sc.conn_client, sc.conn_server, [sc.tcps[k] for k in sc.conn_tcp], sc.conn_open_time_s,
                sc.conn_open_after, sc.msg_conn, sc.msg_sender, sc.msg_size_bytes, sc.msg_after)
    cs, ms = sc.connections, sc.messages
    return ([c.client for c in cs], [c.server for c in cs], [c.tcp for c in cs], [c.open_time_s for c in cs],
            [c.open_after_message for c in cs], [m.conn for m in ms], [0 if m.sender == "client" else 1 for m in ms],
            [-1 if m.size_bytes is None else m.size_bytes for m in ms], [m.after_message for m in ms])


def to_spec(sc, seeds) -> dict:
    """Return ``sc`` as ns-3's side reads it (``_ns3_side.py``): a request (or an endless stream) from each
    connection's client, and a reply from its server once the request is in; a connection opening after a
    message opens when that message's connection is complete."""
    client, server, tcps, open_t, open_after, m_conn, m_sender, m_size, m_after = _columns(sc)
    nc = len(client)
    req = np.zeros(nc, np.int64)
    reply = np.zeros(nc, np.int64)
    for c, snd, size in zip(m_conn, m_sender, m_size, strict=True):
        if snd == 0:
            req[c] = size
        else:
            reply[c] = size
    links = []
    for lk in sc.network.links:
        p = lk.params
        links += [lk.src, lk.dst, p.rate_bps, p.delay_s, p.queue_packets, p.queue_bytes or 0, p.loss_prob]
    conns = []
    for k in range(nc):
        tp = tcps[k]
        after = int(m_conn[open_after[k]]) if open_after[k] >= 0 else -1
        conns += [int(client[k]), int(server[k]), float(open_t[k]), after, int(req[k]), int(reply[k]),
                  tp.segment_bytes, tp.rwnd_bytes, tp.initial_window_segments, 2 if tp.delayed_ack else 1,
                  tp.delayed_ack_timeout_s, tp.min_rto_s, tp.initial_rto_s, tp.variant == "sack", tp.timestamps, 0]
    return {"n_nodes": sc.network.n_nodes, "links": [float(x) for x in links], "conns": [float(x) for x in conns],
            "duration_s": sc.duration_s, "seeds": list(seeds)}


def ns3_python(arg: str | None) -> str | None:
    cand = arg or os.environ.get("NS3_PYTHON") or "/work/ns3venv/bin/python"
    if not Path(cand).exists():
        return None
    ok = subprocess.run([cand, "-c", "import importlib.util as u; import sys; sys.exit(u.find_spec('ns') is None)"],
                        capture_output=True)
    return cand if ok.returncode == 0 else None


def run_ns3(python: str, spec: dict) -> dict:
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
        json.dump(spec, f)
    try:
        out = subprocess.run([python, str(ROOT / "benchmarks" / "_ns3_side.py"), f.name], capture_output=True,
                             text=True, check=True)
    finally:
        os.unlink(f.name)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ns3", help="a Python with ns-3 3.44 (ns3==3.44.post0)")
    ap.add_argument("--quick", action="store_true", help="fewer repeats")
    ap.add_argument("--simcore-only", action="store_true", help="simcore's side only (e.g. to compare two versions)")
    args = ap.parse_args()
    repeat = 3 if args.quick else 7
    print(f"load: {os.getloadavg()[0]:.2f} {os.getloadavg()[1]:.2f} {os.getloadavg()[2]:.2f} (1, 5, 15 min) "
          f"on {os.cpu_count()} cores")
    ours = {"sequential files": simcore_seqfiles(), "dumbbell": simcore_dumbbell(repeat),
            "satellite": simcore_satellite(repeat)}
    python = None if args.simcore_only else ns3_python(args.ns3)
    theirs = None
    if args.simcore_only:
        pass
    elif python is None:
        print("ns-3 is missing: only simcore's side is printed. For the ratios, install ns-3 into a venv of its own "
              "and pass its Python:\n    python3 -m venv ~/ns3venv && ~/ns3venv/bin/pip install ns3==3.44.post0\n"
              "    .venv/bin/python benchmarks/bench_vs_ns3.py --ns3 ~/ns3venv/bin/python")
    else:
        from simcore.satellite.model import build_satellite

        spec = {f"seq{lo}": to_spec(seqfiles_scenario(lo), range(SEEDS)) for lo in LOSSES}
        spec["dumbbell"] = to_spec(dumbbell_scenario(), range(1 if args.quick else 3))
        spec["satellite"] = to_spec(build_satellite(satellite_params(), 1)[0], range(1))  # minutes a run
        t0 = time.perf_counter()
        raw = run_ns3(python, spec)["cases"]
        print(f"ns-3 3.44 ({python}) ran in {time.perf_counter() - t0:.1f} s, import and C++ driver included")
        seq = [raw[f"seq{lo}"] for lo in LOSSES]
        theirs = {"sequential files": {k: sum(sum(c[k]) for c in seq)
                                       for k in ("wall_s", "cpu_s", "events", "completed", "delivered_bytes")}}
        for name in ("dumbbell", "satellite"):
            c = raw[name]
            theirs[name] = {"wall_s": statistics.median(c["wall_s"]), "cpu_s": statistics.median(c["cpu_s"]),
                            "events": c["events"][0], "completed": c["completed"][0],
                            "delivered_bytes": c["delivered_bytes"][0]}
    what = {"sequential files": f"90 runs ({len(LOSSES)} losses x {SEEDS} seeds), total",
            "dumbbell": "10 bulk flows, 60 s, median", "satellite": "base case, 5 Mbit/s load, 60 s, median"}
    for name, o in ours.items():
        line = (f"{name:17s} {what[name]:38s} simcore {1e3 * o['wall_s']:9.2f} ms wall {1e3 * o['cpu_s']:9.2f} ms CPU"
                f"  ({o['events']:,} events, {o['completed']:,} replies done, {o['delivered_bytes'] / 1e6:.2f} MB)")
        print(line)
        if theirs is not None:
            t = theirs[name]
            print(f"{'':17s} {'':38s} ns-3    {1e3 * t['wall_s']:9.2f} ms wall {1e3 * t['cpu_s']:9.2f} ms CPU"
                  f"  ({int(t['events']):,} events, {int(t['completed']):,} replies done, "
                  f"{t['delivered_bytes'] / 1e6:.2f} MB)")
            print(f"{'':17s} ratio ns-3 / simcore: {t['wall_s'] / o['wall_s']:.0f}x wall, "
                  f"{t['cpu_s'] / o['cpu_s']:.0f}x CPU   (aim >= {AIMS[name]}x)")


if __name__ == "__main__":
    sys.exit(main())
