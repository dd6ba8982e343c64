"""ns-3's TcpBbr on the BBR comparison dumbbell (run by ``bench_bbr_vs_ns3.py`` with ns-3's own Python).

Run: /work/ns3venv/bin/python benchmarks/_ns3_bbr.py '<scenario as JSON>'   (ns-3 3.44 from PyPI, ns3==3.44.post0)
Prints one JSON object: per case, the goodput of every flow over the whole run and from ``measure_from_s`` on, and
the bottleneck's queue (its FIFO queue disc, packets, sampled every ``queue_sample_s`` from ``measure_from_s`` on:
mean and peak) and the queue disc's drops.

The network and TCP are ``_ns3_dumbbell``'s (simcore's ``dumbbell``: SACK with classic recovery, no timestamps,
delayed ACKs every 2 segments with a 200 ms timer, MSS 1460, initial window 10, minimum RTO 200 ms), a FIFO of
``queue_packets`` at the bottleneck. Each flow's congestion control is named per case (``cc``: ``"bbr"`` or
``"cubic"``, HyStart off as simcore's CUBIC); ns-3's TcpBbr turns pacing on itself.
"""

from __future__ import annotations

import json
import sys
import time

from _ns3_dumbbell import build, bulk_flows, received, tcp_defaults

CPP = r"""
#include <vector>
namespace bbrcmp {
std::vector<double> q;
ns3::Ptr<ns3::QueueDisc> qdisc;
void Sample(double dt, double until) {
    q.push_back(qdisc->GetNPackets());
    if (ns3::Simulator::Now().GetSeconds() + dt <= until)
        ns3::Simulator::Schedule(ns3::Seconds(dt), &Sample, dt, until);
}
void Start(ns3::Ptr<ns3::QueueDisc> qd, double t0, double dt, double until) {
    q.clear(); qdisc = qd;
    ns3::Simulator::Schedule(ns3::Seconds(t0), &Sample, dt, until);
}
}
"""

TYPES = {"bbr": "ns3::TcpBbr", "cubic": "ns3::TcpCubic"}


def run(sc: dict, case: dict) -> dict:
    from ns import ns

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    tcp_defaults(ns, TYPES[case["cc"][0]], sc["mss"], sc["iw"], sc["rwnd"], min_rto_s=0.2, delack_timeout_s=0.2)
    ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    n = case["n_flows"]

    def fifo(tch):
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                             ns.QueueSizeValue(ns.QueueSize(f"{case['queue_packets']}p")))

    qds, left, right, right_if = build(ns, n, case["rate_bps"], case["delay_s"], fifo)
    for i in range(n):  # each sender's own congestion control (a node's TcpL4Protocol makes its sockets)
        ns.Config.Set(f"/NodeList/{left.Get(i).GetId()}/$ns3::TcpL4Protocol/SocketType",
                      ns.TypeIdValue(ns.TypeId.LookupByName(TYPES[case["cc"][i]])))
    sinks = bulk_flows(ns, left, right, right_if, case["start_s"])
    g = ns.cppyy.gbl.bbrcmp
    g.Start(qds.Get(0), case["measure_from_s"], sc["queue_sample_s"], case["duration_s"])
    t0 = time.process_time()
    ns.Simulator.Stop(ns.Seconds(case["measure_from_s"]))
    ns.Simulator.Run()
    rx0 = received(ns, sinks)
    ns.Simulator.Stop(ns.Seconds(case["duration_s"] - case["measure_from_s"]))
    ns.Simulator.Run()
    cpu = time.process_time() - t0
    rx = received(ns, sinks)
    late = case["duration_s"] - case["measure_from_s"]
    q = list(g.q)
    out = {"goodput_bps": [x * 8.0 / case["duration_s"] for x in rx],
           "goodput_late_bps": [(x - x0) * 8.0 / late for x, x0 in zip(rx, rx0, strict=True)],
           "queue_mean_packets": sum(q) / max(len(q), 1), "queue_peak_packets": max(q) if q else 0,
           "queue_samples": len(q), "drops": int(qds.Get(0).GetStats().nTotalDroppedPackets), "cpu_s": cpu}
    ns.Simulator.Destroy()
    return out


def main() -> None:
    sc = json.loads(sys.argv[1])
    t0 = time.time()
    from ns import ns

    ns.cppyy.cppdef(CPP)
    out = {"import_s": time.time() - t0, "ns3": "3.44", "results": {}}
    for name, case in sc["cases"].items():
        out["results"][name] = run(sc, case)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
