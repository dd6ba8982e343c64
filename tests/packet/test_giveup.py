"""Transports giving a connection up, as FreeBSD 4.6 and RFC 2960/4960 do: times and counts derived by hand
from the BSD constants (Netsem's FreeBSD 4.6 parameters: tcp_syn_backoff, TCPTV_KEEP_INIT 75 s,
TCP_MAXRXTSHIFT 12, SYNCACHE_MAXREXMTS 3) and the RFCs (Association.Max.Retrans); and links that spare
retransmissions."""

import numpy as np
import pytest

from simcore.packet import Connection, LinkParams, Message, Scenario, SctpParams, TcpParams, chain, simulate

D = 0.035


def _run(tcp_or_sctp, fwd_drops=(), rev_drops=(), duration=200.0, size=10000, sender="client", **link):
    fwd = LinkParams(rate_bps=1e6, delay_s=D, queue_packets=50, drop_sequence=tuple(fwd_drops), **link)
    rev = LinkParams(rate_bps=1e6, delay_s=D, queue_packets=50, drop_sequence=tuple(rev_drops), **link)
    kw = {"transport": "sctp", "sctp": tcp_or_sctp} if isinstance(tcp_or_sctp, SctpParams) else {}
    tcp = tcp_or_sctp if isinstance(tcp_or_sctp, TcpParams) else TcpParams()
    sc = Scenario(chain(1, fwd, rev), (Connection(0, 1, tcp, **kw),), (Message(0, size, sender),),
                  duration_s=duration)
    return simulate(sc, seed=1, trace=True)


def _sent(res, flags, direction):
    pt = res.packet_trace
    m = (pt.kind == 0) & ((pt.flags & flags) == flags) & (pt.direction == direction)
    return pt.time_s[m]


def test_freebsd46_retransmits_the_syn_on_its_table_and_gives_up_at_75_s():
    # tcp_syn_backoff x the 3 s base: 3, 3, 3, 3, 3, 6, 12, 24, then 48 s, which would end past 75 s
    tcp = TcpParams.preset("freebsd46")
    res = _run(tcp, fwd_drops=range(40))
    syns = _sent(res, 1, 0)
    assert syns.tolist() == pytest.approx([0, 3, 6, 9, 12, 15, 21, 33, 57])
    assert res.aborted_s[0] == pytest.approx(75.0) and np.isnan(res.established_s[0])
    pt = res.packet_trace
    assert not np.any((pt.kind == 0) & (pt.time_s > 75.0))  # the connection is dead: nothing more leaves


def test_doubling_syn_timer_with_a_connect_timeout():
    # 3 s doubling: SYNs at 0, 3, 9, 21, 45; the next would be at 93 > 75
    tcp = TcpParams(initial_rto_s=3.0, max_rto_s=64.0, connect_timeout_s=75.0)
    res = _run(tcp, fwd_drops=range(40))
    assert _sent(res, 1, 0).tolist() == pytest.approx([0, 3, 9, 21, 45])
    assert res.aborted_s[0] == pytest.approx(75.0)


def test_without_a_give_up_rule_the_syn_is_retried_for_the_whole_run():
    res = _run(TcpParams(initial_rto_s=3.0, max_rto_s=64.0), fwd_drops=range(40), duration=300.0)
    assert _sent(res, 1, 0).tolist() == pytest.approx([0, 3, 9, 21, 45, 93, 157, 221, 285])  # 64 s cap
    assert np.isnan(res.aborted_s[0])


def test_a_connection_is_dropped_at_the_timeout_after_max_retransmits():
    # handshake through (forward packet 0 is the SYN), then every data segment lost; RTO pinned at 1 s:
    # the segment leaves at t0 and again at t0 + 1, + 2, + 3; the 4th expiry (t0 + 4) drops the connection
    tcp = TcpParams(min_rto_s=1.0, max_rto_s=1.0, initial_rto_s=1.0, max_retransmits=3, initial_window_segments=1)
    res = _run(tcp, fwd_drops=range(1, 100))
    pt = res.packet_trace
    data = pt.time_s[(pt.kind == 0) & (pt.direction == 0) & (pt.seqlen > 1)]  # data segments, not SYN or ACKs
    t0 = data[0]
    assert data.tolist() == pytest.approx([t0, t0 + 1, t0 + 2, t0 + 3])
    assert res.aborted_s[0] == pytest.approx(t0 + 4)
    assert res.timeouts[0, 0] == 3  # the dropping expiry is not a retransmission


def test_the_passive_side_stops_retransmitting_its_syn_ack_after_synack_retries():
    # only the first SYN arrives; every SYN-ACK is lost. The passive side answers at D + a(0) and then on its
    # own doubling 3 s timer: at +3, +9, +21 (then +45 ... without a limit)
    def synacks(retries):
        tcp = TcpParams(initial_rto_s=3.0, max_rto_s=64.0, synack_retries=retries)
        res = _run(tcp, fwd_drops=range(1, 100), rev_drops=range(100), duration=120.0)
        return _sent(res, 3, 1)

    first = synacks(3)[0]
    assert (synacks(3) - first).tolist() == pytest.approx([0, 3, 9, 21])
    assert (synacks(None) - first).tolist() == pytest.approx([0, 3, 9, 21, 45, 93])


def test_a_half_open_connection_fails_when_the_passive_side_forgets_it():
    # the SYN-ACK arrives (the opener is established) but every packet the opener sends after its SYN is lost,
    # and only the passive side has data (as an FTP server's greeting): it retransmits its SYN-ACK at +3, +9,
    # +21 and forgets the connection at the next expiry, +45: the opener's connection is half-open, and fails
    tcp = TcpParams(initial_rto_s=3.0, max_rto_s=64.0, synack_retries=3)
    res = _run(tcp, fwd_drops=range(1, 100), size=1000, sender="server", duration=120.0)
    first = _sent(res, 3, 1)[0]
    assert np.isfinite(res.established_s[0])
    assert res.aborted_s[0] == pytest.approx(first + 45)


def test_sctp_association_is_given_up_after_association_max_retrans():
    # forward packets 0 (INIT) and 1 (COOKIE-ECHO) arrive, every DATA packet is lost; RTO pinned at 1 s:
    # T3 expiries at t0 + 1, + 2 retransmit, the 3rd (t0 + 3) exceeds Association.Max.Retrans = 2
    sctp = SctpParams(rto_min_s=1.0, rto_max_s=1.0, rto_initial_s=1.0, max_retransmits=2)
    res = _run(sctp, fwd_drops=range(2, 100), size=1000)
    pt = res.packet_trace
    data = pt.time_s[(pt.kind == 0) & (pt.direction == 0) & (pt.seqlen > 0)]
    t0 = data[0]
    assert data.tolist() == pytest.approx([t0, t0 + 1, t0 + 2])
    assert res.aborted_s[0] == pytest.approx(t0 + 3)
    never = _run(SctpParams(rto_min_s=1.0, rto_max_s=1.0, rto_initial_s=1.0), fwd_drops=range(2, 100), size=1000,
                 duration=20.0)
    assert np.isnan(never.aborted_s[0])


@pytest.mark.parametrize("spared, transport", [(("tcp",), "tcp"), (("sctp",), "sctp"), (("tcp", "sctp"), "tcp")])
def test_a_link_that_spares_retransmissions_never_loses_one(spared, transport):
    proto = SctpParams() if transport == "sctp" else TcpParams()
    res = _run(proto, size=200_000, duration=600.0, loss_prob=0.2, spared_retransmissions=spared)
    pt = res.packet_trace
    lost = pt.kind == 3
    assert lost.sum() > 20 and not np.any(lost & (pt.flags & 16 > 0))
    assert res.retransmits.sum() > 10  # there were retransmissions to spare


def test_sparing_one_transport_leaves_the_other_lossy():
    res = _run(TcpParams(), size=200_000, duration=600.0, loss_prob=0.2, spared_retransmissions=("sctp",))
    pt = res.packet_trace
    assert np.any((pt.kind == 3) & (pt.flags & 16 > 0))  # TCP's retransmissions are still lost


@pytest.mark.parametrize("kw, match", [
    ({"syn_backoff": "linear"}, "syn_backoff='linear'"),
    ({"connect_timeout_s": 0.0}, "connect_timeout_s=0.0"),
    ({"max_retransmits": -1}, "max_retransmits=-1"),
    ({"synack_retries": 2.5}, "synack_retries=2.5"),
])
def test_bad_give_up_parameters_are_refused_by_name(kw, match):
    with pytest.raises(ValueError, match=match):
        TcpParams(**kw)


def test_bad_spared_transports_and_sctp_limit_are_refused_by_name():
    with pytest.raises(ValueError, match="spared_retransmissions\\[0\\]='udp'"):
        LinkParams(spared_retransmissions=("udp",))
    with pytest.raises(ValueError, match="spared_retransmissions='tcp'"):
        LinkParams(spared_retransmissions="tcp")
    with pytest.raises(ValueError, match="max_retransmits=-2"):
        SctpParams(max_retransmits=-2)
