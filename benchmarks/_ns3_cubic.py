"""ns-3's TcpCubic on the CUBIC comparison dumbbell (run by ``bench_cubic_vs_ns3.py`` with ns-3's own Python).

Run: /work/ns3venv/bin/python benchmarks/_ns3_cubic.py '<scenario as JSON>'   (ns-3 3.44 from PyPI, ns3==3.44.post0)
Prints one JSON object: per case, flow 0's congestion window every ``sample_s`` (segments, the value at the end of
each interval), the times of its loss events (entries into recovery or loss), their counts (timeouts: loss),
and the goodput of every flow over the whole run and from ``measure_from_s`` on.

The network and TCP are ``_ns3_dumbbell``'s (simcore's ``dumbbell``; SACK, classic recovery, no timestamps, delayed
ACKs every 2 segments) with a FIFO of ``queue_packets`` at the bottleneck, a 200 ms delayed-ACK timer, MSS 1460,
initial window 10, minimum RTO 200 ms, buffers of ``rwnd`` bytes; CUBIC with HyStart off (simcore's CUBIC has
standard slow start), C = 0.4, beta = 0.7, fast convergence and the Reno-friendly region on (ns-3's defaults).
"""

from __future__ import annotations

import json
import sys
import time

from _ns3_dumbbell import build, bulk_flows, received, tcp_defaults

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
    tcp_defaults(ns, "ns3::TcpCubic", sc["mss"], sc["iw"], sc["rwnd"], min_rto_s=0.2, delack_timeout_s=0.2)
    ns.Config.SetDefault("ns3::TcpCubic::HyStart", ns.BooleanValue(False))
    n = case["n_flows"]

    def fifo(tch):
        tch.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize",
                             ns.QueueSizeValue(ns.QueueSize(f"{case['queue_packets']}p")))

    _, left, right, right_if = build(ns, n, case["rate_bps"], case["delay_s"], fifo)
    sinks = bulk_flows(ns, left, right, right_if, case["start_s"])
    # flow 0's socket exists once its application started
    g.ArmAt(case["start_s"][0] + 1e-6, f"/NodeList/{left.Get(0).GetId()}/$ns3::TcpL4Protocol/SocketList/0")
    t0 = time.process_time()
    ns.Simulator.Stop(ns.Seconds(case["measure_from_s"]))
    ns.Simulator.Run()
    rx0 = received(ns, sinks)
    ns.Simulator.Stop(ns.Seconds(case["duration_s"] - case["measure_from_s"]))
    ns.Simulator.Run()
    cpu = time.process_time() - t0
    rx = received(ns, sinks)
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
