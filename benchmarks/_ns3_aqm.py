"""ns-3's queue discs on the AQM comparison dumbbell (run by ``bench_aqm_vs_ns3.py`` with ns-3's own Python).

Run: /work/ns3venv/bin/python benchmarks/_ns3_aqm.py '<scenario as JSON>'   (ns-3 3.44 from PyPI, ns3==3.44.post0)
Prints one JSON object: per queue discipline (a name ending in ``_ecn``: with ECN at the senders and the queue disc)
the bottleneck queue disc's sojourn times from ``measure_from_s`` on (mean, median, 95th percentile, s), its drops
and marks (in the whole run, and from ``measure_from_s`` on), the goodput over the whole run.

The network mirrors simcore's ``dumbbell``: ``n_flows`` senders, each on its own 1 Gbit/s access link (no delay)
to router 0, the bottleneck router 0 -> router 1 (``rate_bps``, ``delay_s``), access links to the receivers; one
BulkSend flow per pair (TCP NewReno, SACK, classic RFC 6675 recovery, no timestamps, delayed ACKs every 2
segments, MSS 1460, initial window 10, limited transmit), started at ``start_s[i]``.

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
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", S("ns3::TcpNewReno"))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(
        "ns3::TcpClassicRecovery")))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", B(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", B(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", B(True))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", U(sc["mss"]))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", U(sc["iw"]))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", U(2))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", U(sc["rwnd"]))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", U(sc["rwnd"]))
    ecn = qdisc.endswith("_ecn")
    qdisc = qdisc.removesuffix("_ecn")
    ns.Config.SetDefault("ns3::TcpSocketBase::UseEcn", S("On" if ecn else "Off"))
    n = sc["n_flows"]
    routers = ns.NodeContainer()
    routers.Create(2)
    left = ns.NodeContainer()
    left.Create(n)
    right = ns.NodeContainer()
    right.Create(n)
    stack = ns.InternetStackHelper()
    stack.Install(routers)
    stack.Install(left)
    stack.Install(right)
    bott = ns.PointToPointHelper()
    bott.SetDeviceAttribute("DataRate", S(f"{int(sc['rate_bps'])}bps"))
    bott.SetChannelAttribute("Delay", S(f"{sc['delay_s'] * 1e3}ms"))
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", S("1p"))
    acc = ns.PointToPointHelper()
    acc.SetDeviceAttribute("DataRate", S("1Gbps"))
    acc.SetChannelAttribute("Delay", S("0ms"))
    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10000p")))
    addr = ns.Ipv4AddressHelper()
    bdev = bott.Install(routers.Get(0), routers.Get(1))
    tch = ns.TrafficControlHelper()
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
    qds = tch.Install(bdev)
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bdev)
    sinks = []
    right_if = []
    for i in range(n):
        d1 = acc.Install(left.Get(i), routers.Get(0))
        d2 = acc.Install(routers.Get(1), right.Get(i))
        fifo.Install(d1)
        fifo.Install(d2)
        addr.SetBase(ns.Ipv4Address(f"10.2.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        addr.Assign(d1)
        addr.SetBase(ns.Ipv4Address(f"10.3.{i}.0"), ns.Ipv4Mask("255.255.255.0"))
        right_if.append(addr.Assign(d2))
    ns.Ipv4GlobalRoutingHelper.PopulateRoutingTables()
    port = 5000
    for i in range(n):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port)
                                   .ConvertTo())
        sa = sink.Install(right.Get(i))
        sa.Start(ns.Seconds(0.0))
        sinks.append(sa.Get(0))
        src = ns.BulkSendHelper("ns3::TcpSocketFactory",
                                ns.InetSocketAddress(right_if[i].GetAddress(1), port).ConvertTo())
        src.SetAttribute("MaxBytes", U(0))
        app = src.Install(left.Get(i))
        app.Start(ns.Seconds(sc["start_s"][i]))
    qd = qds.Get(0)
    ns.cppyy.gbl.aqmcmp.t_from = sc["measure_from_s"]
    ns.cppyy.gbl.aqmcmp.Connect(qd)
    ns.Simulator.Stop(ns.Seconds(sc["duration_s"]))
    t0 = time.process_time()
    ns.Simulator.Run()
    cpu = time.process_time() - t0
    g = ns.cppyy.gbl.aqmcmp
    stats = qd.GetStats()
    rx = [ns.cppyy.gbl.ns3.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
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
