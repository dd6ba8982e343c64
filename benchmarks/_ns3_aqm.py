"""ns-3's queue discs on the AQM comparison dumbbell (run by ``bench_aqm_vs_ns3.py`` with ns-3's own Python).

Run: /work/ns3venv/bin/python benchmarks/_ns3_aqm.py '<scenario as JSON>'   (ns-3 3.44 from PyPI, ns3==3.44.post0)
Prints one JSON object: per queue discipline (a name ending in ``_ecn``: with ECN at the senders and the queue disc)
the bottleneck queue disc's sojourn times from ``measure_from_s`` on (mean, median, 95th percentile, s), its drops
and marks (in the whole run, and from ``measure_from_s`` on), the goodput over the whole run.

The network and TCP are ``_ns3_dumbbell``'s (simcore's ``dumbbell``: ``n_flows`` senders, one BulkSend flow per
pair started at ``start_s[i]``; TCP NewReno, SACK, classic RFC 6675 recovery, no timestamps, delayed ACKs every 2
segments, MSS 1460, initial window 10, limited transmit).

Configured explicitly, because ns-3's defaults differ from simcore's: the queue disc of each bottleneck device
(``Ipv4AddressHelper::Assign`` would install FqCoDel on every device), a FIFO of 10000 packets on the access
devices, CUBIC and PRR replaced by NewReno and classic recovery, RED's "Wait" off (Floyd & Jacobson's drop
spacing) and its idle rule set from the link's rate and 1500-byte packets. The bottleneck device keeps a
one-packet transmit queue (ns-3's smallest): a packet waits there while the one before it is sent, so the queue
disc decides one transmission earlier than a link that asks at the end of each transmission. The sojourn is the
queue disc's own ``SojournTime`` (from entering it to leaving it for the device queue): simcore's runs to the start
of the transmission, up to one packet's transmission time more (0.24 ms at 50 Mbit/s).
"""

from __future__ import annotations

import json
import sys
import time

from _ns3_dumbbell import build, bulk_flows, received, tcp_defaults

CPP = r"""
#include <algorithm>
#include <vector>
namespace aqmcmp {
std::vector<double> soj;
double t_from = 0.0;
uint64_t drops_before = 0, marks_before = 0;
ns3::Ptr<ns3::QueueDisc> qdisc;
void Snapshot() {
    drops_before = qdisc->GetStats().nTotalDroppedPackets;
    marks_before = qdisc->GetStats().nTotalMarkedPackets;
}
void OnSojourn(ns3::Time t) {
    if (ns3::Simulator::Now().GetSeconds() >= t_from) soj.push_back(t.GetSeconds());
}
double Mean() {
    double s = 0.0;
    for (double x : soj) s += x;
    return soj.empty() ? 0.0 : s / soj.size();
}
double Quantile(double q) {  // the lower empirical quantile (numpy's 'lower')
    if (soj.empty()) return 0.0;
    std::vector<double> v(soj);
    size_t k = (size_t)(q * (v.size() - 1));
    std::nth_element(v.begin(), v.begin() + k, v.end());
    return v[k];
}
void Connect(ns3::Ptr<ns3::QueueDisc> q) {
    soj.clear(); drops_before = marks_before = 0; qdisc = q;
    ns3::Simulator::Schedule(ns3::Seconds(t_from), &Snapshot);
    q->TraceConnectWithoutContext("SojournTime", ns3::MakeCallback(&OnSojourn));
}
}
"""


def run(sc: dict, qdisc: str) -> dict:
    from ns import ns

    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    S = ns.StringValue
    U = ns.UintegerValue
    B = ns.BooleanValue
    tcp_defaults(ns, "ns3::TcpNewReno", sc["mss"], sc["iw"], sc["rwnd"])
    ecn = qdisc.endswith("_ecn")
    qdisc = qdisc.removesuffix("_ecn")
    ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", S("On" if ecn else "Off"))
    n = sc["n_flows"]

    def root(tch):
        limit = ns.QueueSizeValue(ns.QueueSize(f"{sc['queue_packets']}p"))
        if qdisc == "droptail":
            tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", limit)
        elif qdisc == "red":
            r = sc["red"]
            tch.SetRootQueueDisc("ns3::RedQueueDisc", "MaxSize", limit, "MinTh", ns.DoubleValue(r["min_th"]),
                                 "MaxTh", ns.DoubleValue(r["max_th"]), "QW", ns.DoubleValue(r["w_q"]),
                                 "LInterm", ns.DoubleValue(1.0 / r["max_p"]), "Gentle", B(r["gentle"]),
                                 "Wait", B(False), "MeanPktSize", U(1500),
                                 "LinkBandwidth", ns.DataRateValue(ns.DataRate(f"{int(sc['rate_bps'])}bps")),
                                 "LinkDelay", ns.TimeValue(ns.Seconds(sc["delay_s"])))
        elif qdisc == "codel":
            tch.SetRootQueueDisc("ns3::CoDelQueueDisc", "MaxSize", limit, "UseEcn", B(ecn))
        elif qdisc == "fq_codel":
            tch.SetRootQueueDisc("ns3::FqCoDelQueueDisc", "MaxSize", limit, "UseEcn", B(ecn))

    qds, left, right, right_if = build(ns, n, sc["rate_bps"], sc["delay_s"], root)
    sinks = bulk_flows(ns, left, right, right_if, sc["start_s"])
    qd = qds.Get(0)
    ns.cppyy.gbl.aqmcmp.t_from = sc["measure_from_s"]
    ns.cppyy.gbl.aqmcmp.Connect(qd)
    ns.Simulator.Stop(ns.Seconds(sc["duration_s"]))
    t0 = time.process_time()
    ns.Simulator.Run()
    cpu = time.process_time() - t0
    g = ns.cppyy.gbl.aqmcmp
    stats = qd.GetStats()
    rx = received(ns, sinks)
    out = {"sojourn_mean_s": g.Mean(), "sojourn_p50_s": g.Quantile(0.5), "sojourn_p95_s": g.Quantile(0.95),
           "sojourn_packets": int(g.soj.size()),
           "drops": int(stats.nTotalDroppedPackets), "marks": int(stats.nTotalMarkedPackets),
           "drops_measured": int(stats.nTotalDroppedPackets) - int(g.drops_before),
           "marks_measured": int(stats.nTotalMarkedPackets) - int(g.marks_before),
           "goodput_bps": sum(rx) * 8.0 / sc["duration_s"], "cpu_s": cpu}
    ns.Simulator.Destroy()
    return out


def main() -> None:
    sc = json.loads(sys.argv[1])
    t0 = time.time()
    from ns import ns

    ns.cppyy.cppdef(CPP)
    out = {"import_s": time.time() - t0, "ns3": "3.44", "results": {}}
    for q in sc["queues"]:
        out["results"][q] = run(sc, q)
    print(json.dumps(out))


if __name__ == "__main__":
    main()
