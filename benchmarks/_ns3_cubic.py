"""ns-3's TcpCubic on the CUBIC comparison dumbbell (run by ``bench_cubic_vs_ns3.py`` with ns-3's own Python).

Run: /work/ns3venv/bin/python benchmarks/_ns3_cubic.py '<scenario as JSON>'   (ns-3 3.44 from PyPI, ns3==3.44.post0)
Prints one JSON object: per case, flow 0's congestion window every ``sample_s`` (segments, the value at the end of
each interval), the times of its loss events (entries into recovery or loss), their counts (timeouts: loss),
and the goodput of every flow over the whole run and from ``measure_from_s`` on.

The network mirrors simcore's ``dumbbell``: each sender on its own 1 Gbit/s access link (no delay) to router 0, the
bottleneck router 0 -> router 1 (``rate_bps``, ``delay_s``, a FIFO of ``queue_packets``), access links to the
receivers; one BulkSend flow per pair. TCP as simcore's side is configured: SACK with classic RFC 6675 recovery
(not ns-3's default PRR), no timestamps, delayed ACKs every 2 segments (200 ms timer), MSS 1460, initial window
10, Limited Transmit, minimum RTO 200 ms, buffers of ``rwnd`` bytes; CUBIC with HyStart off (simcore's CUBIC has
standard slow start), C = 0.4, beta = 0.7, fast convergence and the Reno-friendly region on (ns-3's defaults).
``Ipv4AddressHelper::Assign`` would install FqCoDel on every device: the bottleneck gets a FIFO queue disc and a
one-packet device queue instead, as ``_ns3_aqm.py`` does.
"""

from __future__ import annotations

import json
import sys
import time

CPP = r"""
#include <vector>
namespace cubiccmp {
std::vector<double> cw_t, cw_v, loss_t;
int n_rec = 0, n_loss = 0;
uint32_t seg = 1460;
void OnCwnd(uint32_t o, uint32_t n) {
    cw_t.push_back(ns3::Simulator::Now().GetSeconds());
    cw_v.push_back(n / (double)seg);
}
void OnState(ns3::TcpSocketState::TcpCongState_t o, ns3::TcpSocketState::TcpCongState_t n) {
    if (n == o) return;
    if (n == ns3::TcpSocketState::CA_RECOVERY) n_rec++;
    if (n == ns3::TcpSocketState::CA_LOSS) n_loss++;
    if (n == ns3::TcpSocketState::CA_RECOVERY || n == ns3::TcpSocketState::CA_LOSS)
        loss_t.push_back(ns3::Simulator::Now().GetSeconds());
}
void Arm(std::string base) {
    ns3::Config::ConnectWithoutContext(base + "/CongestionWindow", ns3::MakeCallback(&OnCwnd));
    ns3::Config::ConnectWithoutContext(base + "/CongState", ns3::MakeCallback(&OnState));
}
void ArmAt(double t, std::string base) { ns3::Simulator::Schedule(ns3::Seconds(t), &Arm, base); }
void Clear() { cw_t.clear(); cw_v.clear(); loss_t.clear(); n_rec = n_loss = 0; }
}
"""


def run(sc: dict, case: dict) -> dict:
    from ns import ns

    g = ns.cppyy.gbl.cubiccmp
    g.Clear()
    g.seg = sc["mss"]
    ns.RngSeedManager.SetSeed(1)
    ns.RngSeedManager.SetRun(1)
    S = ns.StringValue
    U = ns.UintegerValue
    B = ns.BooleanValue
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", S("ns3::TcpCubic"))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(
        "ns3::TcpClassicRecovery")))
    ns.Config.SetDefault("ns3::TcpCubic::HyStart", B(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", B(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", B(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", B(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(0.2)))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", U(sc["mss"]))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", U(sc["iw"]))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", U(2))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(0.2)))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", U(sc["rwnd"]))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", U(sc["rwnd"]))
    n = case["n_flows"]
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
    bott.SetDeviceAttribute("DataRate", S(f"{int(case['rate_bps'])}bps"))
    bott.SetChannelAttribute("Delay", S(f"{case['delay_s'] * 1e3}ms"))
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", S("1p"))
    acc = ns.PointToPointHelper()
    acc.SetDeviceAttribute("DataRate", S("1Gbps"))
    acc.SetChannelAttribute("Delay", S("0ms"))
    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10000p")))
    addr = ns.Ipv4AddressHelper()
    bdev = bott.Install(routers.Get(0), routers.Get(1))
    tch = ns.TrafficControlHelper()
    tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                         ns.QueueSizeValue(ns.QueueSize(f"{case['queue_packets']}p")))
    tch.Install(bdev)
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
        app.Start(ns.Seconds(case["start_s"][i]))
    # flow 0's socket exists once its application started
    g.ArmAt(case["start_s"][0] + 1e-6, f"/NodeList/{left.Get(0).GetId()}/$ns3::TcpL4Protocol/SocketList/0")
    t0 = time.process_time()
    ns.Simulator.Stop(ns.Seconds(case["measure_from_s"]))
    ns.Simulator.Run()
    rx0 = [ns.cppyy.gbl.ns3.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
    ns.Simulator.Stop(ns.Seconds(case["duration_s"] - case["measure_from_s"]))
    ns.Simulator.Run()
    cpu = time.process_time() - t0
    rx = [ns.cppyy.gbl.ns3.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
    late = case["duration_s"] - case["measure_from_s"]
    cw_t, cw_v = list(g.cw_t), list(g.cw_v)
    dt = sc["sample_s"]
    samples, j, last = [], 0, float(sc["iw"])
    for k in range(int(round(case["duration_s"] / dt))):
        end = (k + 1) * dt
        while j < len(cw_t) and cw_t[j] <= end:
            last = cw_v[j]
            j += 1
        samples.append(last)
    out = {"cwnd_seg": samples, "loss_event_s": list(g.loss_t), "recoveries": int(g.n_rec),
           "timeouts": int(g.n_loss), "goodput_bps": [x * 8.0 / case["duration_s"] for x in rx],
           "goodput_late_bps": [(x - x0) * 8.0 / late for x, x0 in zip(rx, rx0, strict=True)], "cpu_s": cpu}
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
