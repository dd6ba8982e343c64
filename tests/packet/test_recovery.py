"""Loss recovery packet by packet, against times derived by hand from RFC 5681, 6582, 6675, 3042, 6298.

The setting of every test (unless it says otherwise): one link each way, 8 Mbit/s (1 byte per us),
one-way delay D; the client sends ``n`` segments of 1000 bytes with a 40-byte header and an initial
window of 10 segments; the server ACKs every segment at once (40-byte ACKs). Then, by hand:
a = 40 us (a SYN, SYN-ACK or ACK on the wire), T = 1040 us (a segment), and
- the SYN-ACK reaches the client at t_e = 2 (a + D), and segments 1..10 leave back to back: segment i
  (forward packet i; packet 0 is the SYN) reaches the server at t_e + i T + D;
- its ACK (or duplicate ACK) reaches the client at ack_t(i) = t_e + i T + 2 D + a, the ACK link being
  idle (an ACK takes a << T);
- so with segment k lost, the j-th duplicate ACK is the ACK of segment k + j.
"""

import numpy as np
import pytest

from simcore.packet import VARIANTS, Connection, Link, LinkParams, Message, Network, Scenario, TcpParams, simulate

D = 0.05
RATE = 8e6
A = 40e-6
T = 1040e-6
T_E = 2 * (A + D)
F_FIN, F_RETX = 4, 16


def ack_t(i):
    return T_E + i * T + 2 * D + A


def _run(n_segments, drops=(), ack_drops=(), **tcp_kw):
    fwd = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000, drop_sequence=drops)
    back = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000, drop_sequence=ack_drops)
    kw = dict(mss_bytes=1000, initial_window_segments=10, rwnd_bytes=1 << 20, min_rto_s=1.0)
    kw.update(tcp_kw)
    net = Network(2, (Link(0, 1, fwd), Link(1, 0, back)))
    sc = Scenario(net, (Connection(0, 1, TcpParams(**kw)),), (Message(0, 1000 * n_segments),), duration_s=20.0)
    r = simulate(sc, trace=True)
    assert r.delivered_bytes[0, 0] == 1000 * n_segments
    return r


def _retransmissions(r):
    """Return [(time, offset of the first data byte)] of the client's retransmissions, in order."""
    pt = r.packet_trace
    sel = (pt.kind == 0) & (pt.direction == 0) & (pt.flags & F_RETX > 0)
    return [(float(t), int(s) - 1) for t, s in zip(pt.time_s[sel], pt.seq[sel], strict=True)]


def _same(got, expected):
    """Return True if the (time, offset) lists match: offsets exactly, times within 1 ns."""
    return len(got) == len(expected) and all(
        o == eo and abs(t - et) < 1e-9 for (t, o), (et, eo) in zip(got, expected, strict=True))


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("thresh", [3, 5])
def test_first_retransmission_leaves_at_the_dupthresh_th_duplicate_ack(variant, thresh):
    # segment 3 lost: the j-th duplicate ACK is segment 3 + j's; fast retransmit at the thresh-th
    r = _run(30, drops=(3,), variant=variant, dupack_threshold=thresh)
    first = _retransmissions(r)[0]
    assert first[0] == pytest.approx(ack_t(3 + thresh), abs=1e-9)
    assert first[1] == 2000  # segment 3: bytes 2000..2999
    assert r.timeouts[0, 0] == 0 and r.fast_retransmits[0, 0] == 1


def test_sack_enters_recovery_when_the_first_hole_is_lost_before_three_duplicate_acks():
    # ACK-link packets: 0 the SYN-ACK, 1-2 the ACKs of segments 1-2, 3-4 the duplicate ACKs of segments
    # 4-5, lost. The first duplicate ACK to arrive (segment 6's) SACKs segments 4-6: IsLost(HighACK + 1)
    # holds (RFC 6675 sec. 5 step 2), so SACK retransmits then; NewReno counts it as the first duplicate
    # ACK and waits for segment 8's.
    sack = _retransmissions(_run(30, drops=(3,), ack_drops=(3, 4), variant="sack"))[0]
    newreno = _retransmissions(_run(30, drops=(3,), ack_drops=(3, 4), variant="newreno"))[0]
    assert _same([sack], [(ack_t(6), 2000)]) and _same([newreno], [(ack_t(8), 2000)])


def test_sack_nextseg_rule_3_retransmits_a_hole_not_yet_lost_when_no_new_data_can_go():
    # 10 segments, the whole message in the initial window; segments 3 and 8 lost. Entry at segment 6's
    # duplicate ACK: cwnd = ssthresh = FlightSize / 2 = 8000 / 2; segment 3 resent (step 4.3); pipe =
    # 1000 (its retransmission) + segments 7-10 = 5000. Segment 7's ACK: pipe 4000, no room. Segment 9's:
    # SACKed 4-7, 9; segment 8 has one SACKed segment above (not lost), pipe = 1000 + 8 + 10 = 3000, room
    # 1000: no lost segment (rule 1), no new data (rule 2), so rule 3 resends segment 8.
    r = _run(10, drops=(3, 8), variant="sack")
    assert _same(_retransmissions(r), [(ack_t(6), 2000), (ack_t(9), 7000)])
    assert r.timeouts[0, 0] == 0


def test_sack_nextseg_rule_4_rescues_a_lost_tail_without_a_timeout():
    # 10 segments, segments 3 and 10 (the tail) lost. After entry (segment 6's duplicate ACK, cwnd 4000),
    # segment 8's duplicate ACK leaves pipe = 1000 + segments 9, 10 = 3000: no rule 1-3 segment, so the
    # rescue retransmission (rule 4) resends the highest unSACKed segment, 10, once.
    r = _run(10, drops=(3, 10), variant="sack")
    assert _same(_retransmissions(r), [(ack_t(6), 2000), (ack_t(8), 9000)])
    assert r.timeouts[0, 0] == 0
    # NewReno resends segment 10 on the partial ACK of segment 3's retransmission (RFC 6582), which
    # reaches the client a round trip after that retransmission left: ack_t(6) + T + 2 D + a
    nr = _retransmissions(_run(10, drops=(3, 10), variant="newreno"))
    assert _same(nr, [(ack_t(6), 2000), (ack_t(6) + T + 2 * D + A, 9000)])


@pytest.mark.parametrize("variant", VARIANTS)
def test_limited_transmit_sends_one_new_segment_on_each_of_the_first_two_duplicate_acks(variant):
    # Segment 3 lost. ACKs 1 and 2 grow cwnd to 12000 and send segments 11-14, so at the first duplicate
    # ACK 12000 bytes (= cwnd) are outstanding: only Limited Transmit may send (segment 15, then 16 at the
    # second). ssthresh = (FlightSize without those two) / 2 = (16000 - 2000 - 2000) / 2 (RFC 5681 sec. 3.2).
    on = _run(40, drops=(3,), variant=variant, limited_transmit=True)
    off = _run(40, drops=(3,), variant=variant, limited_transmit=False)
    for r, expected in ((on, [14000, 15000]), (off, [])):
        pt = r.packet_trace
        sel = (pt.kind == 0) & (pt.direction == 0) & ((np.abs(pt.time_s - ack_t(4)) < 1e-9)
                                                      | (np.abs(pt.time_s - ack_t(5)) < 1e-9))
        assert (pt.seq[sel] - 1).tolist() == expected
        tr = r.tcp_trace
        at_entry = np.flatnonzero((tr.event == 1) & (np.abs(tr.time_s - ack_t(6)) < 1e-9))[0]
        assert tr.ssthresh_bytes[at_entry] == 6000
        assert _same(_retransmissions(r)[:1], [(ack_t(6), 2000)])


@pytest.mark.parametrize("initial_rto", [1.0, 3.0])
def test_rto_is_reset_to_three_seconds_when_data_starts_after_a_syn_timeout(initial_rto):
    # RFC 6298 sec. 5.7: the SYN (forward packet 0) is lost; it is resent after initial_rto (the RTO
    # backs off to 2 x initial_rto). With an initial RTO below 3 s, data starts with RTO = 3 s; with 3 s,
    # the backed-off 6 s stays until an RTT sample.
    r = _run(5, drops=(0,), initial_rto_s=initial_rto)
    tr = r.tcp_trace
    est = np.flatnonzero((tr.direction == 0) & (tr.event == 0))[0]
    assert tr.time_s[est] == pytest.approx(initial_rto + T_E, abs=1e-9)
    assert tr.rto_s[est] == (3.0 if initial_rto < 3.0 else 2 * initial_rto)


def test_fin_rides_on_the_last_data_segment():
    # HTTP/1.0: the server writes its 2500-byte reply and closes at once: the reply's last segment
    # carries the FIN; the client's FIN (it has no data left) goes alone.
    link = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000)
    net = Network(2, Network.duplex(0, 1, link))
    conn = Connection(0, 1, TcpParams(mss_bytes=1000), closer="server")
    sc = Scenario(net, (conn,), (Message(0, 100), Message(0, 2500, "server", after_message=0)), duration_s=5.0)
    pt = simulate(sc, trace=True).packet_trace
    sent = pt.kind == 0
    fins = sent & (pt.flags & F_FIN > 0)
    assert (pt.direction[fins].tolist(), pt.seqlen[fins].tolist()) == ([1, 0], [501, 1])
    assert (pt.seq[fins & (pt.direction == 1)] == 1 + 2000).all()  # after bytes 1..2000 of the reply
    assert np.sum(sent & (pt.direction == 1) & (pt.seqlen > 0)) == 1 + 3  # SYN-ACK + 3 segments


def test_delayed_ack_waits_for_two_full_sized_segments():
    # A 1000-byte segment then a 500-byte one (1500 < 2 SMSS): no ACK until the timer, 0.2 s after the
    # first arrives; two full-sized segments are ACKed at once (RFC 5681 sec. 4.2).
    for size, wait in ((1500, 0.2), (2000, T)):
        fwd = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000)
        net = Network(2, Network.duplex(0, 1, fwd))
        tcp = TcpParams(mss_bytes=1000, initial_window_segments=2, delayed_ack=True, delayed_ack_timeout_s=0.2)
        r = simulate(Scenario(net, (Connection(0, 1, tcp),), (Message(0, size),), duration_s=5.0), trace=True)
        pt = r.packet_trace
        first = pt.time_s[(pt.kind == 1) & (pt.direction == 0) & (pt.seq == 1)][0]
        ack = pt.time_s[(pt.kind == 0) & (pt.direction == 1) & (pt.ack == 1 + size)][0]
        assert ack - first == pytest.approx(wait, abs=1e-9)


def test_timestamps_make_52_byte_headers_and_1448_byte_segments():
    link = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000)
    net = Network(2, Network.duplex(0, 1, link))
    tcp = TcpParams(timestamps=True)  # mss_bytes 1460 on a 1500-byte MTU
    assert tcp.segment_bytes == 1448
    r = simulate(Scenario(net, (Connection(0, 1, tcp),), (Message(0, 10 * 1448),), duration_s=5.0))
    assert r.link_packets[0] == 1 + 10  # the SYN and ten full segments
    assert r.link_bytes[0] == 52 + 10 * 1500
