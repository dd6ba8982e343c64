"""ns-3's side of ``bench_vs_ns3.py``: run simcore scenarios (converted to plain JSON by ``bench_vs_ns3.py``) in
ns-3 3.44 and print their wall and CPU times as one JSON object.

Run (by ``bench_vs_ns3.py``, with ns-3's own Python): /work/ns3venv/bin/python benchmarks/_ns3_side.py SPEC.json
(ns-3 from PyPI, ``pip install ns3==3.44.post0`` into a venv of its own; never a dependency of the lab).

The spec lists nodes, simplex links (a -> b, rate, delay, queue limit in packets or bytes, random loss per packet)
and connections (client, server, when it opens: at a time or when another connection's reply is complete, a
request of ``req`` bytes from the client (-1: endless, a bulk sender), a reply of ``reply`` bytes from the server
once the whole request has arrived (0: none), the TCP options). The whole run is built and driven in C++ (cppyy),
so ns-3's time is its simulator's, not Python's:
- each pair of links a -> b, b -> a is one point-to-point channel (one delay; each device its own rate), its
  device queue a drop-tail FIFO with the link's limit (the traffic-control layer's default FqCoDel removed);
- random loss: a ``RateErrorModel`` (per packet) on the receiving device, as simcore loses after transmission;
- every connection has its own listening socket (port 10000 + k) and client socket, so each carries its own
  MSS, window (``RcvBufSize``), initial window, delayed ACK, minimum and initial RTO, SACK and timestamps; TCP
  NewReno with classic recovery; the server closes after its reply, the client when the reply is complete;
- routes: ns-3's global routing (fewest hops on these topologies, as simcore's).
Not modelled on ns-3's side (speed comparison, not a fidelity one): BSD's coarse timer ticks and other preset
details of simcore's TCP presets.
"""

from __future__ import annotations

import json
import sys
import time

CPP = r"""
#include <algorithm>
#include <vector>
namespace simcmp {
using namespace ns3;
struct Conn {
    int client = 0, server = 0, after = -1;
    double open_t = 0.0;
    int64_t req = 0, reply = 0;
    uint32_t mss = 1460, rwnd = 65535, iw = 1, delack = 2;
    double delack_s = 0.2, min_rto = 1.0, init_rto = 3.0;
    bool sack = false, ts = false;
    Ptr<Socket> cs, ls, ss;
    int64_t sent_req = 0, got_req = 0, sent_reply = 0, got_reply = 0;
    bool replying = false, srv_closed = false, done = false;
};
std::vector<Conn> C;
std::vector<std::vector<int>> deps;
std::vector<Ipv4Address> node_addr;
NodeContainer nodes;
int completed = 0;

static void Fill(Ptr<Socket> s, int64_t& sent, int64_t total) {
    while (total < 0 || sent < total) {
        uint32_t avail = s->GetTxAvailable();
        if (avail == 0) return;
        int64_t n = std::min<int64_t>(avail, 1 << 16);
        if (total >= 0) n = std::min<int64_t>(n, total - sent);
        int r = s->Send(Create<Packet>((uint32_t)n));
        if (r <= 0) return;
        sent += r;
    }
}
static void Configure(Ptr<Socket> s, const Conn& c) {
    s->SetAttribute("SegmentSize", UintegerValue(c.mss));
    s->SetAttribute("RcvBufSize", UintegerValue(c.rwnd));
    s->SetAttribute("SndBufSize", UintegerValue(std::max<uint32_t>(c.rwnd, 131072)));
    s->SetAttribute("InitialCwnd", UintegerValue(c.iw));
    s->SetAttribute("DelAckCount", UintegerValue(c.delack));
    s->SetAttribute("DelAckTimeout", TimeValue(Seconds(c.delack_s)));
    s->SetAttribute("MinRto", TimeValue(Seconds(c.min_rto)));
    s->SetAttribute("ConnTimeout", TimeValue(Seconds(c.init_rto)));
    s->SetAttribute("Sack", BooleanValue(c.sack));
    s->SetAttribute("Timestamp", BooleanValue(c.ts));
}
static void Open(int k);
static void ClientSend(int k, Ptr<Socket> s, uint32_t) { Fill(s, C[k].sent_req, C[k].req); }
static void Connected(int k, Ptr<Socket> s) { Fill(s, C[k].sent_req, C[k].req); }
static void ConnFailed(int k, Ptr<Socket> s) {}
static void ClientRecv(int k, Ptr<Socket> s) {
    Ptr<Packet> p;
    while ((p = s->Recv())) C[k].got_reply += p->GetSize();
    if (!C[k].done && C[k].reply > 0 && C[k].got_reply >= C[k].reply) {
        C[k].done = true;
        completed++;
        s->Close();
        for (int j : deps[k]) Open(j);
    }
}
static void ServerSend(int k, Ptr<Socket> s, uint32_t) {
    Conn& c = C[k];
    if (!c.replying || c.srv_closed) return;
    Fill(s, c.sent_reply, c.reply);
    if (c.sent_reply >= c.reply) { c.srv_closed = true; s->Close(); }
}
static void ServerRecv(int k, Ptr<Socket> s) {
    Conn& c = C[k];
    Ptr<Packet> p;
    while ((p = s->Recv())) c.got_req += p->GetSize();
    if (c.req >= 0 && c.got_req >= c.req && !c.replying) {
        c.replying = true;
        if (c.reply > 0) ServerSend(k, s, 0);
        else { c.srv_closed = true; s->Close(); }
    }
}
static void Accepted(int k, Ptr<Socket> s, const Address&) {
    C[k].ss = s;
    s->SetRecvCallback(MakeBoundCallback(&ServerRecv, k));
    s->SetSendCallback(MakeBoundCallback(&ServerSend, k));
}
static void Open(int k) {
    Conn& c = C[k];
    if (c.cs) return;
    c.cs = Socket::CreateSocket(nodes.Get(c.client), TcpSocketFactory::GetTypeId());
    Configure(c.cs, c);
    c.cs->Bind();
    c.cs->SetConnectCallback(MakeBoundCallback(&Connected, k), MakeBoundCallback(&ConnFailed, k));
    c.cs->SetSendCallback(MakeBoundCallback(&ClientSend, k));
    c.cs->SetRecvCallback(MakeBoundCallback(&ClientRecv, k));
    c.cs->Connect(InetSocketAddress(node_addr[c.server], 10000 + k));
}

// links: 7 numbers each (a, b, rate_bps, delay_s, queue_packets, queue_bytes, loss); conns: 16 numbers each
// (client, server, open_t, after, req, reply, mss, rwnd, iw, delack_count, delack_s, min_rto, init_rto, sack, ts, 0)
// Returns {events, completed, delivered bytes}.
std::vector<double> Run(int n_nodes, const std::vector<double>& links, const std::vector<double>& conns,
                        double duration, int seed) {
    RngSeedManager::SetSeed(1);
    RngSeedManager::SetRun(seed + 1);
    Config::SetDefault("ns3::TcpL4Protocol::SocketType", TypeIdValue(TcpNewReno::GetTypeId()));
    Config::SetDefault("ns3::TcpL4Protocol::RecoveryType", TypeIdValue(TcpClassicRecovery::GetTypeId()));
    nodes = NodeContainer();
    nodes.Create(n_nodes);
    InternetStackHelper stack;
    stack.Install(nodes);
    Ipv4AddressHelper addr;
    addr.SetBase("10.0.0.0", "255.255.255.252");
    TrafficControlHelper tch;
    size_t nl = links.size() / 7;
    std::vector<bool> used(nl, false);
    for (size_t i = 0; i < nl; i++) {
        if (used[i]) continue;
        const double* f = &links[7 * i];
        int a = (int)f[0], b = (int)f[1];
        int back = -1;
        for (size_t j = i + 1; j < nl; j++)
            if (!used[j] && (int)links[7 * j] == b && (int)links[7 * j + 1] == a) { back = (int)j; break; }
        used[i] = true;
        if (back >= 0) used[back] = true;
        PointToPointHelper p2p;
        p2p.SetChannelAttribute("Delay", TimeValue(Seconds(f[3])));
        NetDeviceContainer d = p2p.Install(nodes.Get(a), nodes.Get(b));
        for (int side = 0; side < 2; side++) {
            const double* g = side == 0 ? f : (back >= 0 ? &links[7 * back] : f);
            Ptr<PointToPointNetDevice> dev = DynamicCast<PointToPointNetDevice>(d.Get(side));
            dev->SetDataRate(DataRate((uint64_t)g[2]));
            Ptr<Queue<Packet>> q = CreateObject<DropTailQueue<Packet>>();
            if (g[5] > 0) q->SetMaxSize(QueueSize(QueueSizeUnit::BYTES, (uint32_t)g[5]));
            else q->SetMaxSize(QueueSize(QueueSizeUnit::PACKETS, (uint32_t)g[4]));
            dev->SetQueue(q);
            if (g[6] > 0.0 && (side == 0 || back >= 0)) {  // lost on arrival at the far end's device
                Ptr<RateErrorModel> em = CreateObject<RateErrorModel>();
                em->SetUnit(RateErrorModel::ERROR_UNIT_PACKET);
                em->SetRate(g[6]);
                DynamicCast<PointToPointNetDevice>(d.Get(1 - side))->SetReceiveErrorModel(em);
            }
        }
        addr.Assign(d);
        tch.Uninstall(d);
        addr.NewNetwork();
    }
    Ipv4GlobalRoutingHelper::PopulateRoutingTables();
    node_addr.assign(n_nodes, Ipv4Address());
    for (int n = 0; n < n_nodes; n++) {
        Ptr<Ipv4> ip = nodes.Get(n)->GetObject<Ipv4>();
        if (ip->GetNInterfaces() > 1) node_addr[n] = ip->GetAddress(1, 0).GetLocal();
    }
    size_t nc = conns.size() / 16;
    C.assign(nc, Conn());
    deps.assign(nc, std::vector<int>());
    completed = 0;
    for (size_t k = 0; k < nc; k++) {
        const double* f = &conns[16 * k];
        Conn& c = C[k];
        c.client = (int)f[0]; c.server = (int)f[1]; c.open_t = f[2]; c.after = (int)f[3];
        c.req = (int64_t)f[4]; c.reply = (int64_t)f[5]; c.mss = (uint32_t)f[6]; c.rwnd = (uint32_t)f[7];
        c.iw = (uint32_t)f[8]; c.delack = (uint32_t)f[9]; c.delack_s = f[10]; c.min_rto = f[11];
        c.init_rto = f[12]; c.sack = f[13] != 0.0; c.ts = f[14] != 0.0;
        c.ls = Socket::CreateSocket(nodes.Get(c.server), TcpSocketFactory::GetTypeId());
        Configure(c.ls, c);
        c.ls->Bind(InetSocketAddress(Ipv4Address::GetAny(), 10000 + k));
        c.ls->Listen();
        c.ls->SetAcceptCallback(MakeNullCallback<bool, Ptr<Socket>, const Address&>(),
                                MakeBoundCallback(&Accepted, (int)k));
        if (c.after >= 0) deps[c.after].push_back((int)k);
        else Simulator::Schedule(Seconds(c.open_t), &Open, (int)k);
    }
    Simulator::Stop(Seconds(duration));
    Simulator::Run();
    double delivered = 0.0;
    for (auto& c : C) delivered += (double)(c.got_reply + c.got_req);
    std::vector<double> out{(double)Simulator::GetEventCount(), (double)completed, delivered};
    Simulator::Destroy();
    C.clear();
    deps.clear();
    nodes = NodeContainer();
    return out;
}
}
"""


def main() -> None:
    spec = json.loads(open(sys.argv[1]).read())
    t0 = time.perf_counter()
    from ns import ns

    cppyy = ns.cppyy
    cppyy.cppdef(CPP)
    vec = cppyy.gbl.std.vector["double"]
    out = {"import_s": time.perf_counter() - t0, "ns3": "3.44", "cases": {}}
    for k, (name, case) in enumerate(spec.items()):
        links, conns = vec(case["links"]), vec(case["conns"])
        if k == 0:  # warm up: the first run pays ns-3's first-use costs (type registrations, JIT of the driver)
            cppyy.gbl.simcmp.Run(case["n_nodes"], links, conns, case["duration_s"], 0)
        walls, cpus, res = [], [], []
        for seed in case["seeds"]:
            w0, c0 = time.perf_counter(), time.process_time()
            r = cppyy.gbl.simcmp.Run(case["n_nodes"], links, conns, case["duration_s"], seed)
            walls.append(time.perf_counter() - w0)
            cpus.append(time.process_time() - c0)
            res.append([float(x) for x in r])
        out["cases"][name] = {"wall_s": walls, "cpu_s": cpus, "events": [r[0] for r in res],
                              "completed": [r[1] for r in res], "delivered_bytes": [r[2] for r in res]}
    print(json.dumps(out))


if __name__ == "__main__":
    main()
