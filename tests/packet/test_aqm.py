"""Queue disciplines at links (``LinkParams(queue=...)``) and ECN (``TcpParams(ecn=True)``), each checked against
numbers worked by hand from its own source: RFC 8289's CoDel pseudocode, Floyd & Jacobson's RED formulas, RFC
8290's deficit round robin, RFC 3168's rules. Nothing here is copied from the simulator's output.

Most scenarios use one link fed by constant-bit-rate sources on a binary time grid: 1500-byte packets take
``2u`` on the link (u = 2**-11 s, 0.48828125 ms), so every arrival and transmission time is exact in floating point
and the schedules below are exact too. A packet whose transmission ends at the instant another arrives has left
(the link's convention).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from simcore.packet import (
    CbrSource,
    CoDelParams,
    FqCoDelParams,
    LinkParams,
    RedParams,
    Scenario,
    TcpParams,
    bulk_scenario,
    chain,
    dumbbell,
    simulate,
)

U = 2.0**-11  # s
LINK_BPS = 12_000 / (2 * U)  # a 1500-byte packet takes 2u


def _cbr_link(queue, sources, duration_s, queue_packets=2000):
    net = chain(1, LinkParams(rate_bps=LINK_BPS, delay_s=0.001, queue_packets=queue_packets, queue=queue))
    return simulate(Scenario(network=net, cbr=tuple(sources), duration_s=duration_s), seed=0, trace=True)


def test_codel_drops_a_standing_queue_on_rfc8289s_schedule():
    # 1500-byte packets arrive every u (packet i at i u), twice what the link sends (one every 2u from t = 0):
    # the k-th transmission starts at 2uk, and after d drops it is packet i = k + d, which waited
    # 2uk - u(k + d) = u(k - d). RFC 8289 sec. 5 (dodequeue / dequeue):
    # - the sojourn first reaches target (5 ms = 10.24 u) at k = 11: first_above_time = 22u + 100 ms = 110.742 ms;
    # - the first dequeue at or after it: 2uk >= 110.742 ms -> k = 114, t = 111.328125 ms: drop packet 114, enter
    #   the dropping state with count = 1, drop_next = 111.328 + 100 = 211.328 ms;
    # - then at the first dequeue at or after drop_next: drop, count += 1, drop_next += 100 / sqrt(count) ms:
    #   211.328 -> k = 217 (211.914 ms, packet 217 + 1); drop_next 282.039 -> k = 289 (282.227, packet 291);
    #   339.774 -> k = 348 (339.844, packet 351); 389.774 -> k = 400 (390.625, packet 404);
    #   434.495 -> k = 445 (434.570, packet 450); 475.320 -> k = 487 (475.586, packet 493);
    #   513.116 -> k = 526 (513.672, packet 533). The sojourn u(k - d) stays far above target throughout.
    r = _cbr_link("codel", [CbrSource(0, 1, (12_000 / U,), (0.0,), 1500, stop_s=0.55)], 0.53)
    pt = r.packet_trace
    dropped = (pt.kind == 2) & (pt.link == 0)
    times_ms = [111.328125, 211.9140625, 282.2265625, 339.84375, 390.625, 434.5703125, 475.5859375, 513.671875]
    assert pt.time_s[dropped].tolist() == [t / 1e3 for t in times_ms]
    assert pt.seq[dropped].tolist() == [114, 218, 291, 351, 404, 450, 493, 533]
    assert r.link_drops_aqm[0] == r.link_drops_queue[0] == 8
    # the drop spacing follows the control law: the scheduled times differ by 100 ms / sqrt(count)
    sched = [111.328125 + 100.0]
    for n in range(2, 8):
        sched.append(sched[-1] + 100.0 / math.sqrt(n))
    assert all(0 <= a - s < 2 * U * 1e3 for a, s in zip(times_ms[1:], sched, strict=True))


def test_codel_lets_a_burst_shorter_than_an_interval_pass():
    # packets 0 .. 81 arrive every u (until 40 ms), the link sends one every 2u: packet k starts at 2uk and
    # waits uk, up to 81u = 39.55 ms. The wait is at or above target from k = 11 (10.74 ms) to the last
    # (k = 81, 79.10 ms): 68.4 ms, less than an interval, so CoDel drops nothing (RFC 8289 sec. 3.2)
    r = _cbr_link("codel", [CbrSource(0, 1, (12_000 / U,), (0.0,), 1500, stop_s=0.04)], 0.2)
    assert r.link_sojourn_packets[0] == 82 and r.link_drops_queue[0] == 0
    assert r.link_sojourn_max_s[0] == 81 * U


def test_red_average_and_forced_drops_follow_the_papers_formula():
    # Packet i arrives at iu, the link sends one every 2u: arrival i finds ceil(i/2) packets (the first on the
    # wire), so q_i = ceil(i/2) - 1 wait. avg <- (1 - w) avg + w q with w = 1/2 (arrival 0 finds the link idle
    # for no time: avg stays 0):
    # i    1  2  3    4     5      6       7        8        9        10       11       12       13
    # q    0  0  1    1     2      2       3        3        4        4        5        5        6
    # avg  0  0  0.5  0.75  1.375  1.6875  2.34375  2.67188  3.33594  3.66797  4.33398  4.66699  5.33350
    # Without gentle, avg >= max_th = 5 drops (13). Then (13 not queued) 14: q = 5, avg 5.16675: drop;
    # 15: q = 5, avg 5.08337: drop; 16: q = 4, avg 4.54169; 17: q = 5, 4.77084; 18: q = 5, 4.88542 (all below
    # min_th = 4.9: admitted with no draw); 19: q = 6, avg 5.44271: drop.
    p = RedParams(min_th=4.9, max_th=5.0, max_p=1e-6, w_q=0.5, gentle=False)
    r = _cbr_link(p, [CbrSource(0, 1, (12_000 / U,), (0.0,), 1500, stop_s=20 * U)], 0.1)
    pt = r.packet_trace
    assert pt.seq[pt.kind == 2].tolist() == [13, 14, 15, 19]
    assert r.link_drops_aqm[0] == 4


def test_red_settles_where_its_drop_probability_matches_the_overload():
    # CBR at 1.02 x the link: RED must drop a fraction 1 - 1/1.02 of the arrivals, one every 51 on average.
    # With count (Floyd & Jacobson sec. 7: p_a = p_b / (1 - count p_b)) the gaps between drops are uniform on
    # 1 .. 1/p_b, of mean (1/p_b + 1) / 2 = 51: p_b = 1/101, so the average queue sits at
    # min_th + (max_th - min_th) p_b / max_p = 5 + 10 (1/101) / 0.02 = 9.95 packets (drops at the rate of a
    # geometric gap, without count, would need avg = 14.8). The mean wait (Little: packets waiting = wait / 2u,
    # the link never idle) measures it.
    r = _cbr_link("red", [CbrSource(0, 1, (1.02 * LINK_BPS,), (0.0,), 1500)], 60.0)
    st = r.sojourn_trace
    late = st.time_s > 10.0
    waiting = st.sojourn_s[late].mean() / (2 * U)
    assert abs(waiting - 9.95) < 0.75
    offered = r.link_packets[0] + r.link_drops_queue[0]
    assert r.link_drops_aqm[0] == r.link_drops_queue[0]
    assert abs(r.link_drops_queue[0] / offered - (1 - 1 / 1.02)) < 0.002


def test_fq_codel_serves_flows_by_deficit_round_robin():
    # A: 1500-byte packets from t = 0; B: 500-byte packets from t = 0.1 ms; both faster than the link. Quantum 1514,
    # a queue is served while its deficit is positive (RFC 8290 sec. 4.2):
    # A0 (t = 0, deficit 1514 -> 14; A stays in the new list), A1 (14 -> -1486; then +1514 = 28, to the old list),
    # B (new: 1514) B0 B1 B2 B3 (-> -486; +1514 = 1028, to the old list), A (28) A2 (-> -1472, +1514 = 42),
    # B (1028) B4 B5 B6 (-> -472, +1514 = 1042), A (42) A3, B (1042) B7 B8 B9, A4, B10 B11 B12, A5 ...
    # A sends one packet a round and B three (their deficits grow by 14 bytes a round): equal bytes.
    a = CbrSource(0, 1, (12_000 / U,), (0.0,), 1500, stop_s=0.05)
    b = CbrSource(0, 1, (12_000 / U,), (0.0,), 500, start_s=1e-4, stop_s=0.05)
    r = _cbr_link("fq_codel", [a, b], 0.12)
    pt, st = r.packet_trace, r.sojourn_trace
    sent = pt.kind == 0
    labels = ["AB"[c] + str(s) for c, s in zip(pt.conn[sent], pt.seq[sent], strict=True)]
    name = dict(zip(pt.uid[sent].tolist(), labels, strict=True))
    served = [name[x] for x in st.uid[st.link == 0][:19]]
    assert served == ["A0", "A1", "B0", "B1", "B2", "B3", "A2", "B4", "B5", "B6", "A3", "B7", "B8", "B9", "A4",
                      "B10", "B11", "B12", "A5"]
    # over 50 ms both stay backlogged: the bytes each sent differ by less than a quantum plus a packet
    early = st.time_s < 0.05
    size = {"A": 1500, "B": 500}
    sent_bytes = {f: sum(size[f] for x in st.uid[early] if name[x][0] == f) for f in "AB"}
    assert abs(sent_bytes["A"] - sent_bytes["B"]) <= 1514 + 1500


def _tcp_against_cbr(queue):
    net = chain(1, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=200, queue=queue))
    sc = bulk_scenario(net, [(0, 1)], TcpParams(variant="sack"), 20.0,
                       cbr=[CbrSource(0, 1, (15e6,), (0.0,), 1500)])
    return simulate(sc, seed=1)


def test_fq_codel_gives_a_responsive_flow_its_share_beside_an_unresponsive_one():
    # a TCP flow and a 15 Mbit/s CBR share 10 Mbit/s: drop-tail leaves TCP next to nothing (the CBR alone keeps
    # the buffer full); FQ-CoDel gives each flow half the link's bytes, 5 Mbit/s on the wire, of which TCP's
    # goodput is 1460/1500 (4.87 Mbit/s) at most; it loses a little to its own backing off
    fair_goodput = 5e6 * 1460 / 1500
    tail = _tcp_against_cbr("droptail")
    fq = _tcp_against_cbr("fq_codel")
    assert tail.goodput_bps[0, 0] < 0.05 * fair_goodput
    assert 0.8 * fair_goodput < fq.goodput_bps[0, 0] <= fair_goodput
    cbr_bps = fq.cbr_received[0] * 1500 * 8 / 20.0
    assert cbr_bps < 6e6  # the CBR is held near its share, far below the 15 Mbit/s it sends


def _ecn_run(queue, tcp_ecn):
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=1000, queue=queue))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack", ecn=tcp_ecn), 10.0, [0.0, 0.1])
    return simulate(sc, seed=1, trace=True), db.bottleneck_link


@pytest.mark.parametrize("queue", [CoDelParams(ecn=True), FqCoDelParams(), RedParams(ecn=True)],
                         ids=["codel", "fq_codel", "red"])
def test_ecn_marks_instead_of_dropping_when_both_ends_negotiate_it(queue):
    r, b = _ecn_run(queue, True)
    pt = r.packet_trace
    flags = pt.flags
    assert r.link_marks[b] > 0 and r.link_drops_queue[b] == 0  # RFC 3168 sec. 5: mark, not drop
    # sec. 6.1.2: at most one reduction a window, at least one for the marks that came back
    assert 0 < r.ecn_reductions[:, 0].sum() <= r.link_marks[b]
    assert (r.delivered_bytes[:, 0] > 0).all() and r.retransmits[:, 0].sum() == 0
    ect = (flags & 64) != 0
    # sec. 6.1.1-6.1.5: ECT on new data only, never on pure ACKs, SYNs or retransmissions
    assert ect.any() and (pt.seqlen[ect] > 0).all() and not (flags[ect] & (1 | 16)).any()
    assert ((flags & 128) != 0).sum() > 0 and not ((flags & 128) != 0)[~ect].any()  # CE only on ECT packets
    assert ((flags & 256) != 0).sum() > 0 and ((flags & 512) != 0).sum() > 0  # ECE echoed, CWR answered
    # the handshake negotiates it: SYN with ECE and CWR, SYN-ACK with ECE (sec. 6.1.1)
    syn = (flags & 1) != 0
    assert ((flags[syn & ((flags & 2) == 0)] & 768) == 768).all()
    assert ((flags[syn & ((flags & 2) != 0)] & 768) == 256).all()


@pytest.mark.parametrize("queue, tcp_ecn", [(CoDelParams(ecn=True), False), (CoDelParams(ecn=False), True),
                                            (FqCoDelParams(ecn=True), False), (RedParams(ecn=True), False)],
                         ids=["codel-tcp-off", "codel-ecn-off", "fq_codel-tcp-off", "red-tcp-off"])
def test_no_marks_unless_both_the_link_and_the_sender_use_ecn(queue, tcp_ecn):
    r, b = _ecn_run(queue, tcp_ecn)
    assert r.link_marks[b] == 0 and r.link_drops_aqm[b] > 0 and r.ecn_reductions.sum() == 0
    assert not (r.packet_trace.flags & 128).any()


def test_drop_tail_links_are_unchanged_by_the_queue_parameter():
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=30, loss_prob=0.01))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), 5.0, [0.0, 0.1])
    db2 = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=30, loss_prob=0.01, queue="droptail"))
    sc2 = bulk_scenario(db2.network, db2.pairs, TcpParams(variant="sack"), 5.0, [0.0, 0.1])
    a, c = simulate(sc, seed=3), simulate(sc2, seed=3)
    assert np.array_equal(a.delivered_bytes, c.delivered_bytes) and a.events == c.events
    assert (a.link_marks == 0).all() and (a.link_drops_aqm == 0).all()


@pytest.mark.parametrize("make, match", [
    (lambda: LinkParams(queue="pie"), r"queue='pie' is not allowed"),
    (lambda: LinkParams(queue=3), r"queue=3 is not allowed: must be one of 'droptail'"),
    (lambda: RedParams(min_th=20.0, max_th=15.0), r"min_th=20.0 and max_th=15.0 are out of order"),
    (lambda: RedParams(max_p=0.0), r"max_p=0.0 is out of range"),
    (lambda: RedParams(w_q=1.5), r"w_q=1.5 is out of range"),
    (lambda: RedParams(unit="cells"), r"unit='cells' is not allowed"),
    (lambda: RedParams(gentle=1), r"gentle=1"),
    (lambda: CoDelParams(target_s=0.0), r"target_s=0.0 is out of range"),
    (lambda: CoDelParams(target_s=0.2, interval_s=0.1), r"target_s=0.2 and interval_s=0.1 are out of order"),
    (lambda: CoDelParams(mtu_bytes=-1), r"mtu_bytes=-1 is out of range"),
    (lambda: FqCoDelParams(quantum_bytes=0), r"quantum_bytes=0 is out of range"),
    (lambda: FqCoDelParams(flows=100_000), r"flows=100000 is out of range"),
    (lambda: FqCoDelParams(ecn="yes"), r"ecn='yes'"),
])
def test_bad_queue_parameters_are_refused_by_name(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_the_queues_state_is_bounded_and_refused_with_its_reason():
    # 2,000 links of 65,536 FQ-CoDel flows each would need 131 million queue rows: refused before any allocation
    from simcore.packet import Link, Network

    lp = LinkParams(queue=FqCoDelParams(flows=65536))
    links = tuple(Link(i, i + 1, lp) for i in range(2000))
    with pytest.raises(ValueError, match="packet queues .* MiB allowed: give FqCoDelParams fewer flows"):
        simulate(Scenario(network=Network(2001, links), duration_s=1.0))


@pytest.mark.parametrize("cc, beta", [("reno", 0.5), ("cubic", 0.7)])
def test_an_ecn_echo_reduces_the_window_as_the_congestion_control_answers_a_loss(cc, beta):
    # RFC 3168 sec. 6.1.2: the sender reduces as for a loss, through its congestion control: Reno (RFC 5681 eq. 4)
    # ssthresh = cwnd = max(FlightSize / 2, 2 SMSS); CUBIC (RFC 9438 sec. 4.6) ssthresh = max(0.7 FlightSize,
    # 2 SMSS), cwnd = max(0.7 FlightSize, 1 SMSS). No loss here, so FlightSize = snd_nxt - snd_una at the echo.
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=1000, queue="fq_codel"))
    tcp = TcpParams(variant="sack", congestion_control=cc, ecn=True)
    r = simulate(bulk_scenario(db.network, db.pairs, tcp, 10.0, [0.0, 0.1]), seed=1, trace=True)
    tt = r.tcp_trace
    ev = tt.event == 4
    assert ev.sum() == r.ecn_reductions.sum() > 5 and r.link_drops_queue[db.bottleneck_link] == 0
    flight = (tt.snd_nxt - tt.snd_una)[ev]
    mss = 1460
    assert np.allclose(tt.ssthresh_bytes[ev], np.maximum(beta * flight, 2 * mss))
    assert np.allclose(tt.cwnd_bytes[ev], np.maximum(beta * flight, (2 if cc == "reno" else 1) * mss))
