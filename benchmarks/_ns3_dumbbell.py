"""The ns-3 side of the comparisons with simcore's ``dumbbell`` (``_ns3_aqm.py``, ``_ns3_cubic.py``, ``_ns3_bbr.py``,
run with ns-3's own Python: ns-3 3.44 from PyPI, ns3==3.44.post0).

``tcp_defaults`` sets TCP as simcore's side is configured: SACK with classic RFC 6675 recovery (not ns-3's default
PRR), no timestamps, delayed ACKs every 2 segments, Limited Transmit, the segment size, initial window and buffers
given. ``build`` makes the network of simcore's ``dumbbell``: each sender on its own 1 Gbit/s access link (no delay)
to router 0, the bottleneck router 0 -> router 1 (``rate_bps``, ``delay_s``) with the queue disc ``set_root``
installs, access links to the receivers. ``Ipv4AddressHelper::Assign`` would install FqCoDel on every device: the
access devices get a FIFO of 10000 packets, and the bottleneck device keeps a one-packet transmit queue (ns-3's
smallest), so its queue disc decides one transmission earlier than a link that asks at the end of each one.
``bulk_flows`` starts one BulkSend flow per pair at ``start_s[i]`` and returns the sinks (``received`` reads them).
"""

from __future__ import annotations


def tcp_defaults(ns, socket_type: str, mss: int, iw: int, rwnd: int, min_rto_s: float | None = None,
                 delack_timeout_s: float | None = None) -> None:
    """TCP ``socket_type`` (``"ns3::TcpCubic"`` ...) with classic recovery, SACK, no timestamps, Limited Transmit,
    [a minimum RTO], MSS ``mss``, IW ``iw``, delayed ACKs every 2 segments [with this timer], buffers of ``rwnd``."""
    S = ns.StringValue
    U = ns.UintegerValue
    B = ns.BooleanValue
    ns.Config.SetDefault("ns3::TcpL4Protocol::SocketType", S(socket_type))
    ns.Config.SetDefault("ns3::TcpL4Protocol::RecoveryType", ns.TypeIdValue(ns.TypeId.LookupByName(
        "ns3::TcpClassicRecovery")))
    ns.Config.SetDefault("ns3::TcpSocketBase::Sack", B(True))
    ns.Config.SetDefault("ns3::TcpSocketBase::Timestamp", B(False))
    ns.Config.SetDefault("ns3::TcpSocketBase::LimitedTransmit", B(True))
    if min_rto_s is not None:
        ns.Config.SetDefault("ns3::TcpSocketBase::MinRto", ns.TimeValue(ns.Seconds(min_rto_s)))
    ns.Config.SetDefault("ns3::TcpSocket::SegmentSize", U(mss))
    ns.Config.SetDefault("ns3::TcpSocket::InitialCwnd", U(iw))
    ns.Config.SetDefault("ns3::TcpSocket::DelAckCount", U(2))
    if delack_timeout_s is not None:
        ns.Config.SetDefault("ns3::TcpSocket::DelAckTimeout", ns.TimeValue(ns.Seconds(delack_timeout_s)))
    ns.Config.SetDefault("ns3::TcpSocket::SndBufSize", U(rwnd))
    ns.Config.SetDefault("ns3::TcpSocket::RcvBufSize", U(rwnd))


def build(ns, n: int, rate_bps: float, delay_s: float, set_root) -> tuple:
    """Return ``(qdiscs, left, right, right_if)``: the dumbbell of ``n`` pairs, its bottleneck's queue discs
    (``set_root(tch)`` sets the root queue disc of a ``TrafficControlHelper``), senders, receivers and the
    receivers' interfaces."""
    S = ns.StringValue
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
    bott.SetDeviceAttribute("DataRate", S(f"{int(rate_bps)}bps"))
    bott.SetChannelAttribute("Delay", S(f"{delay_s * 1e3}ms"))
    bott.SetQueue("ns3::DropTailQueue<Packet>", "MaxSize", S("1p"))
    acc = ns.PointToPointHelper()
    acc.SetDeviceAttribute("DataRate", S("1Gbps"))
    acc.SetChannelAttribute("Delay", S("0ms"))
    fifo = ns.TrafficControlHelper()
    fifo.SetRootQueueDisc("ns3::FifoQueueDisc", "MaxSize", ns.QueueSizeValue(ns.QueueSize("10000p")))
    addr = ns.Ipv4AddressHelper()
    bdev = bott.Install(routers.Get(0), routers.Get(1))
    tch = ns.TrafficControlHelper()
    set_root(tch)
    qds = tch.Install(bdev)
    addr.SetBase(ns.Ipv4Address("10.1.0.0"), ns.Ipv4Mask("255.255.255.0"))
    addr.Assign(bdev)
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
    return qds, left, right, right_if


def bulk_flows(ns, left, right, right_if, start_s) -> list:
    """One BulkSend flow (unlimited) from each sender to its receiver, started at ``start_s[i]``; return the sinks."""
    U = ns.UintegerValue
    port = 5000
    sinks = []
    for i in range(len(right_if)):
        sink = ns.PacketSinkHelper("ns3::TcpSocketFactory", ns.InetSocketAddress(ns.Ipv4Address.GetAny(), port)
                                   .ConvertTo())
        sa = sink.Install(right.Get(i))
        sa.Start(ns.Seconds(0.0))
        sinks.append(sa.Get(0))
        src = ns.BulkSendHelper("ns3::TcpSocketFactory",
                                ns.InetSocketAddress(right_if[i].GetAddress(1), port).ConvertTo())
        src.SetAttribute("MaxBytes", U(0))
        app = src.Install(left.Get(i))
        app.Start(ns.Seconds(start_s[i]))
    return sinks


def received(ns, sinks) -> list:
    """Bytes each sink has received so far."""
    return [ns.cppyy.gbl.ns3.DynamicCast[ns.PacketSink](s).GetTotalRx() for s in sinks]
