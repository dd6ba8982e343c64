"""SCTP associations through ``simulate``, against times and counts derived by hand from RFC 4960 / 2960.

The path: one link each way, 8 Mbit/s (one byte per microsecond) and 50 ms, so a packet of B bytes takes
B microseconds to send. Sizes (RFC 4960 sec. 3, ``docs/sctp_presets.md``): INIT 20 + 12 + 28 = 60 bytes;
INIT-ACK 32 + 20 + 4 + 200 (cookie) = 256; COOKIE-ECHO 32 + 204 = 236; COOKIE-ACK 36; a full DATA packet
32 + 16 + 1452 = 1500; a SACK alone 32 + 16 = 48, + 4 per gap block."""

import numpy as np
import pytest

from simcore.packet import Connection, LinkParams, Message, Network, Scenario, SctpParams, simulate

D = 0.05
US = 1e-6
EST = 60 * US + D + 256 * US + D + 236 * US + D + 36 * US + D  # COOKIE-ACK reaches the client: 0.200588 s


def _path(drops=(), back_drops=(), rate=8e6, queue=1000):
    fwd = LinkParams(rate_bps=rate, delay_s=D, queue_packets=queue, drop_sequence=drops)
    back = LinkParams(rate_bps=rate, delay_s=D, queue_packets=queue, drop_sequence=back_drops)
    return Network(2, Network.duplex(0, 1, fwd, back))


def _run(msgs, sctp=None, drops=(), back_drops=(), duration=5.0, **kw):
    conn = Connection(0, 1, transport="sctp", sctp=sctp or SctpParams())
    return simulate(Scenario(_path(drops, back_drops, **kw), (conn,), tuple(msgs), duration_s=duration), trace=True)


def _sent(r, direction=0, retx=None):
    pt = r.packet_trace
    sel = (pt.kind == 0) & (pt.direction == direction)
    if retx is not None:
        sel &= ((pt.flags & 16) != 0) == retx
    return pt.time_s[sel], pt.seq[sel], pt.seqlen[sel]


def test_handshake_and_first_data_leave_at_hand_derived_times():
    r = _run([Message(0, 10000)])
    assert r.established_s[0] == pytest.approx(EST, abs=1e-9)
    t, seq, ln = _sent(r)
    # INIT at 0, COOKIE-ECHO when the INIT-ACK arrives (0.100316), then DATA once the COOKIE-ACK is in
    assert t[:2] == pytest.approx([0.0, 60 * US + D + 256 * US + D], abs=1e-9)
    # RFC 4960 initial cwnd 4380: chunks leave while flightsize < cwnd: 0, 1452, 2904, 4356 -> 4 chunks
    assert np.sum(np.isclose(t, EST, atol=1e-9)) == 4
    assert ln[2:6].tolist() == [1452] * 4 and seq[2:6].tolist() == [1, 1453, 2905, 4357]
    # 10000 = 6 * 1452 + 1288: the last chunk carries 1288 bytes; all 10000 delivered
    assert ln[2:].tolist() == [1452] * 6 + [1288] and r.delivered_bytes[0, 0] == 10000
    # TSN 1 arrives at EST + 3000 us + D; its SACK (cum TSN 1, every 2nd packet) reaches the sender 48 us
    # + D later: cwnd 4380 + 1452 (slow start, cwnd was full), flightsize 2904, so TSNs 4, 5, 6 leave
    # (5808 < 5832 allows the third); the last one (1288 + 48 bytes) is behind two full ones
    assert t[6:] == pytest.approx([EST + 3048 * US + 2 * D] * 3, abs=1e-9)
    assert r.message_done_s[0] == pytest.approx(EST + (3048 + 3000 + 1336) * US + 3 * D, abs=1e-9)


def test_bytes_on_the_wire_match_the_size_model():
    from simcore.packet import sctp_message_wire_bytes

    r = _run([Message(0, 10000)], SctpParams(delayed_sack=False))
    # forward link: INIT 60 + COOKIE-ECHO 236 + the message's DATA packets (no loss, nothing bundled)
    assert r.link_bytes[0] == 60 + 236 + sctp_message_wire_bytes(10000, 1500)
    # back: INIT-ACK 256 + COOKIE-ACK 36 + one 48-byte SACK per DATA packet (SACK for every packet)
    assert r.link_bytes[1] == 256 + 36 + 7 * 48


@pytest.mark.parametrize("preset, expected_s", [
    # TSN 1 (offered packet 3: INIT, COOKIE-ECHO, TSN 0, TSN 1) is lost. With a SACK per packet and an
    # initial cwnd of 3 MTU (4500: TSNs 0-3 leave at EST), TSN 1 gains a miss indication from the SACKs
    # of TSN 2 and TSN 3, then of TSN 4 and TSN 5, which left when the SACK of TSN 0 came back (cwnd 4500 +
    # 1452 = 5952, flightsize 4356 -> 5808 -> 7260). The SACK of TSN 4 (cum 0, one gap block: 52 bytes)
    # reaches the sender at EST + 1500 us + D + 48 us + D + 1500 us + D + 52 us + D; that of TSN 5 (sent
    # behind TSN 4) 1500 us later.
    ("rfc4960", EST + 1500 * US + 48 * US + 1500 * US + 52 * US + 4 * D),  # 3rd miss indication
    ("rfc2960", EST + 1500 * US + 48 * US + 3000 * US + 52 * US + 4 * D),  # 4th
])
def test_fast_retransmit_leaves_on_the_nth_miss_indication(preset, expected_s):
    sp = SctpParams.preset(preset, initial_cwnd_mtus=3, delayed_sack=False)
    r = _run([Message(0, 20 * 1452)], sp, drops=(3,))
    t, seq, _ = _sent(r, retx=True)
    assert t[0] == pytest.approx(expected_s, abs=1e-9)
    assert seq[0] == 1453  # TSN 1's bytes
    assert (r.fast_retransmits[0, 0], r.timeouts[0, 0], r.retransmits[0, 0]) == (1, 0, 1)
    assert r.delivered_bytes[0, 0] == 20 * 1452


def test_t3_rtx_doubles_the_timer_at_each_expiry():
    # the one DATA chunk (offered packet 2) and its first two retransmissions are lost; no RTT sample yet,
    # so T3-rtx runs RTO.Initial = 3 s, then 6 s, then 12 s (sec. 6.3.3 E2)
    r = _run([Message(0, 1000)], drops=(2, 3, 4), duration=30.0)
    t, _, _ = _sent(r, retx=True)
    assert t == pytest.approx([EST + 3, EST + 3 + 6, EST + 3 + 6 + 12], abs=1e-9)
    assert r.timeouts[0, 0] == 3 and r.delivered_bytes[0, 0] == 1000
    tr = r.tcp_trace
    cw = tr.cwnd_bytes[(tr.event == 2) & (tr.direction == 0)]
    assert cw.tolist() == [1500.0] * 3  # cwnd = 1 MTU after each expiry (sec. 7.2.3)


def _request_reply(sp, pause_s=0.0, n_reply=30 * 1452, duration=8.0):
    # client request 0 (100 B), server reply 1 (30 chunks), client request 2 when reply 1 is complete
    # (+ pause_s), server reply 3 when request 2 is complete
    msgs = [Message(0, 100), Message(0, n_reply, "server", after_message=0),
            Message(0, 100, after_message=1, delay_after_s=pause_s), Message(0, n_reply, "server", after_message=2)]
    return _run(msgs, sp, duration=duration)


def _first_burst(r, i_msg):
    t, _, _ = _sent(r, direction=1, retx=False)
    t0 = r.message_write_s[i_msg]
    return int(np.sum(np.isclose(t, t0, atol=1e-9)))


@pytest.mark.parametrize("max_burst, expected", [
    # flightsize is 0 when each request arrives (the client's SACK rides on it): Max.Burst 4 makes cwnd =
    # 0 + 4 * 1500 = 6000 before new data, so chunks leave while 0, 1452, 2904, 4356, 5808 < 6000: 5 at
    # once, for the first reply (initial cwnd 30 MTU) and again after the pause, whatever cwnd has grown to
    (4, 5),
    # without Max.Burst the initial cwnd of 30 MTU (45000 > 29 * 1452) lets all 30 chunks go at once
    (0, 30),
])
def test_max_burst_caps_the_burst_after_a_pause_of_one_rtt(max_burst, expected):
    sp = SctpParams(max_burst=max_burst, initial_cwnd_mtus=30, rwnd_bytes=1 << 20)
    r = _request_reply(sp)
    assert _first_burst(r, 1) == expected
    assert _first_burst(r, 3) == expected
    tr = r.tcp_trace
    before = tr.cwnd_bytes[(tr.direction == 1) & (tr.time_s < r.message_write_s[3])][-1]
    assert before > 6000 + 5 * 1452  # reply 1 had grown cwnd well past what the burst after the pause used


def test_idle_decay_halves_cwnd_per_rto_idle():
    # RTO after the samples of the first exchange: RTO.Min = 1 s (srtt + 4 rttvar is far below). A pause
    # of 2.5 s (2 whole RTOs) before request 2: cwnd 30 MTU = 45000 -> 22500 -> 11250 (above 4 MTU);
    # chunks leave while flightsize < 11250: 8 chunks (7 * 1452 = 10164 < 11250 <= 11616)
    sp = SctpParams(max_burst=0, initial_cwnd_mtus=30, rwnd_bytes=1 << 20)
    r = _request_reply(sp, pause_s=2.5, duration=10.0)
    tr = r.tcp_trace
    before = tr.cwnd_bytes[(tr.direction == 1) & (tr.time_s < r.message_write_s[3])][-1]
    assert before == 45000.0  # no growth: cwnd was never fully used during reply 1
    assert _first_burst(r, 3) == 8


def test_loss_on_stream_1_delays_stream_1_only():
    # server replies written at once after the request: file A (stream 1, 10 chunks), file B (stream 2,
    # 10 chunks), then a second message on stream 1 (2 chunks). Offered server -> client: 0 INIT-ACK,
    # 1 COOKIE-ACK, 2 A's first chunk, 3 A's second chunk (lost in the lossy run).
    def run(back_drops):  # every chunk in the first flight (no Max.Burst), so cwnd plays no part
        sp = SctpParams(initial_cwnd_mtus=30, rwnd_bytes=1 << 20, max_burst=0)
        msgs = [Message(0, 100),
                Message(0, 10 * 1452, "server", after_message=0, stream=1),
                Message(0, 10 * 1452, "server", after_message=0, stream=2),
                Message(0, 2 * 1452, "server", after_message=0, stream=1)]
        return _run(msgs, sp, back_drops=back_drops)

    clean, lossy = run(()), run((3,))
    assert lossy.retransmits[0, 1] == 1
    # B completes exactly as without the loss: no head-of-line blocking across streams
    assert lossy.message_done_s[2] == pytest.approx(clean.message_done_s[2], abs=1e-12)
    # A waits for its retransmission: chunks k leave at t1 + k T (T = 1500 us); chunks 2, 3, 4 each bring
    # a miss indication, so the SACK after chunk 4 (one gap block, 52 bytes) reaches the server at
    # t1 + 5 T + 52 us + 2 D and the retransmission arrives at t1 + 6 T + 52 us + 3 D, where A alone
    # would have completed with chunk 9 at t1 + 10 T + D
    assert lossy.message_done_s[1] - clean.message_done_s[1] == pytest.approx(2 * D + 52 * US - 4 * 1500 * US,
                                                                               abs=1e-9)
    # and the second stream-1 message waits for A
    # (its chunks arrived long before; it completes the instant A does), while B was done before either
    assert lossy.message_done_s[3] == lossy.message_done_s[1] > lossy.message_done_s[2]
    assert clean.message_done_s[3] < lossy.message_done_s[3]


def test_window_limited_bulk_throughput_is_window_over_rtt():
    # a_rwnd 20 full chunks (29040 bytes) on a 100 Mbit/s path with 50 ms each way: the sender keeps at
    # most 29040 bytes outstanding; RTT = 2 D + 1500 B and 48 B on the wire (0.100124 s), plus the wait
    # of a delayed SACK for an odd chunk at most once per window
    sp = SctpParams(rwnd_bytes=20 * 1452)
    r = _run([Message(0, None)], sp, duration=60.0, rate=100e6)
    rtt = 2 * D + (1500 + 48) * 8 / 100e6
    assert r.goodput_bps[0, 0] == pytest.approx(20 * 1452 * 8 / rtt, rel=0.03)


def test_conservation_and_determinism_under_random_loss():
    conn = Connection(0, 1, transport="sctp", sctp=SctpParams(rwnd_bytes=1 << 18))
    link = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=30, loss_prob=0.02)
    net = Network(2, Network.duplex(0, 1, link))
    sizes = [50_000, 120_000, 3_000]
    msgs = tuple(Message(0, s, "client", stream=i) for i, s in enumerate(sizes))
    sc = Scenario(net, (conn,), msgs, duration_s=30.0)
    a, b = simulate(sc, seed=7), simulate(sc, seed=7)
    assert a.delivered_bytes[0, 0] == sum(sizes) == b.delivered_bytes[0, 0]
    assert np.all(np.isfinite(a.message_done_s))
    assert a.events == b.events and np.array_equal(a.message_done_s, b.message_done_s)
    assert a.packets_created == (a.packets_delivered + a.packets_dropped_queue + a.packets_dropped_loss
                                 + a.packets_in_flight)
    assert a.retransmits[0, 0] > 0  # the loss was felt


def test_shutdown_after_all_data_is_acknowledged_and_no_time_wait():
    # request (100 B: a 148-byte packet) at EST; the reply (1000 B) leaves when it arrives, with the
    # delayed SACK of the request bundled (1048 + 16 = 1064 bytes). The server closes at once but sends
    # SHUTDOWN (40 bytes) only when the reply is acknowledged: by the client's delayed SACK (48 bytes,
    # 200 ms after the reply arrives). SHUTDOWN-ACK (36) back, then SHUTDOWN-COMPLETE (36).
    conn = Connection(0, 1, transport="sctp", closer="server")
    sc = Scenario(_path(), (conn,), (Message(0, 100), Message(0, 1000, "server", after_message=0)),
                  duration_s=3.0)
    r = simulate(sc, trace=True)
    reply_in = EST + 148 * US + D + 1064 * US + D
    assert r.message_done_s[1] == pytest.approx(reply_in, abs=1e-9)
    closed = reply_in + 0.2 + 48 * US + D + 40 * US + D + 36 * US + D + 36 * US + D
    assert r.closed_s[0] == pytest.approx(closed, abs=1e-9)
    assert np.isnan(r.timewait_s[0])
    assert r.link_bytes[0] == 60 + 236 + 148 + 48 + 36  # INIT, COOKIE-ECHO, DATA, SACK, SHUTDOWN-ACK
    assert r.link_bytes[1] == 256 + 36 + 1064 + 40 + 36  # INIT-ACK, COOKIE-ACK, DATA+SACK, SHUTDOWN, -COMPLETE


def test_data_on_the_cookie_echo_saves_a_round_trip():
    # The COOKIE-ECHO leaves when the INIT-ACK arrives (60 + 256 bytes and two delays after 0) with the
    # first DATA chunk behind it: 32 + 204 + 16 + 100 = 352 bytes; the request is in one round trip earlier
    # than after the COOKIE-ACK; the client counts the association established when the COOKIE-ACK arrives
    echo_t = 60 * US + D + 256 * US + D
    r = _run([Message(0, 100)], SctpParams(cookie_echo_data=True))
    assert r.message_done_s[0] == pytest.approx(echo_t + 352 * US + D, abs=1e-9)
    assert r.established_s[0] == pytest.approx(echo_t + 352 * US + D + 36 * US + D, abs=1e-9)
    assert r.link_bytes[0] == 60 + 352  # INIT, COOKIE-ECHO + DATA
    assert r.link_bytes[1] == 256 + 36 + 48  # INIT-ACK, COOKIE-ACK, the (delayed) SACK of the DATA
    # a larger message: one chunk with the cookie, nothing more until the COOKIE-ACK, then cwnd 4380 with
    # 1452 in flight lets 3 more chunks go (1452, 2904, 4356 < 4380)
    r = _run([Message(0, 10000)], SctpParams(cookie_echo_data=True))
    t, seq, ln = _sent(r)
    assert t[1] == pytest.approx(echo_t, abs=1e-9) and (seq[1], ln[1]) == (1, 1452)
    ack_t = echo_t + 1704 * US + D + 36 * US + D  # COOKIE-ECHO + a full chunk: 32 + 204 + 16 + 1452 bytes
    assert r.established_s[0] == pytest.approx(ack_t, abs=1e-9)
    assert np.sum(np.isclose(t, ack_t, atol=1e-9)) == 3 and np.sum(t < ack_t - 1e-9) == 2  # INIT, COOKIE-ECHO


def test_a_lost_cookie_echo_with_data_goes_again_on_t1():
    # the COOKIE-ECHO + DATA packet (offered packet 1) is lost: T1-cookie (RTO.Initial 3 s) sends both again
    echo_t = 60 * US + D + 256 * US + D
    r = _run([Message(0, 100)], SctpParams(cookie_echo_data=True), drops=(1,))
    t, _, _ = _sent(r, retx=True)
    assert t.tolist() == pytest.approx([echo_t + 3.0], abs=1e-9)
    assert r.message_done_s[0] == pytest.approx(echo_t + 3.0 + 352 * US + D, abs=1e-9)
    assert r.timeouts[0, 0] == 1


@pytest.mark.parametrize("preset, cuts", [("rfc4960", 1), ("rfc2960", 2)])
def test_fast_recovery_cuts_cwnd_once_per_episode_in_rfc4960_only(preset, cuts):
    # TSNs 1 and 6 lost (offered packets 3 and 8). TSN 6 left before the fast retransmission of TSN 1, so
    # it is below RFC 4960's Fast Recovery exit point when its own fast retransmission comes: no second
    # cut (sec. 7.2.4); RFC 2960 has no Fast Recovery and cuts cwnd again
    sp = SctpParams.preset(preset, initial_cwnd_mtus=3, delayed_sack=False)
    r = _run([Message(0, 30 * 1452)], sp, drops=(3, 8))
    t, seq, _ = _sent(r, retx=True)
    assert seq.tolist() == [1 + 1452, 1 + 6 * 1452]  # each lost TSN sent again once
    assert (r.fast_retransmits[0, 0], r.timeouts[0, 0]) == (cuts, 0)
    assert r.delivered_bytes[0, 0] == 30 * 1452


@pytest.mark.parametrize("preset, n_msgs, first_chunks, later_chunks", [
    # RFC 4960: initial cwnd 4380. A 101-byte message is one DATA chunk of 16 + 101 = 117 bytes, padded to
    # 120 (sec. 3.3.1); a packet holds 1500 - 20 - 12 = 1468 bytes of chunks: 12 of them (1440; 13 would
    # be 1560). 20 messages written at 0 wait for the association and leave at EST in 2 packets, 12 + 8
    # chunks (flightsize 2020 < 4380).
    ("rfc4960", 20, [12, 8], []),
    # RFC 2960: initial cwnd 2 MTU = 3000. A chunk may be added while flightsize < 3000: the 30th (2929 <
    # 3000) is, the 31st (3030) is not: 12 + 12 + 6 chunks at EST. The server SACKs the 2nd packet at once
    # (every 2nd packet): cum TSN 23 (24 chunks, 2424 bytes) reaches the client at EST + 1472 + 1472 + 48
    # us + 2 D; cwnd was fully used (3030 >= 3000): +min(2424, 1500) = 4500, flightsize 606, so the last
    # 10 chunks leave at once in one packet.
    ("rfc2960", 40, [12, 12, 6], [10]),
])
def test_small_messages_are_bundled_into_packets(preset, n_msgs, first_chunks, later_chunks):
    r = _run([Message(0, 101)] * n_msgs, SctpParams.preset(preset))
    t, seq, ln = _sent(r)
    t, ln = t[2:], ln[2:]  # after INIT and COOKIE-ECHO
    assert ln.tolist() == [101 * k for k in first_chunks + later_chunks]
    assert t[:len(first_chunks)] == pytest.approx([EST] * len(first_chunks), abs=1e-9)
    if later_chunks:
        assert t[len(first_chunks)] == pytest.approx(EST + (1472 + 1472 + 48) * US + 2 * D, abs=1e-9)
    # bytes on the wire: INIT 60 + COOKIE-ECHO 236 + per packet 20 + 12 + 120 per chunk
    assert r.link_bytes[0] == 60 + 236 + sum(32 + 120 * k for k in first_chunks + later_chunks)
    assert r.delivered_bytes[0, 0] == 101 * n_msgs
    # the first packet's 12 messages complete together, when it has fully arrived
    assert r.message_done_s[:12] == pytest.approx([EST + 1472 * US + D] * 12, abs=1e-9)


@pytest.mark.parametrize("max_init, inits_s, abort_s", [
    # every INIT lost. T1-init starts at RTO.Initial (3 s) and doubles up to RTO.Max (60 s) at each expiry
    # (sec. 6.3.3 E2): timers 3, 6, 12, 24, 48, 60, 60, 60, so the 8 retransmissions (Max.Init.Retransmits)
    # leave at 3, 9, 21, 45, 93, 153, 213, 273 s; the next expiry (273 + 60) gives up (sec. 5.1 A)
    (8, [0, 3, 9, 21, 45, 93, 153, 213, 273], 333.0),
    (2, [0, 3, 9], 21.0),
])
def test_set_up_is_given_up_after_max_init_retransmits(max_init, inits_s, abort_s):
    r = _run([Message(0, 1000)], SctpParams(max_init_retransmits=max_init), drops=tuple(range(20)),
             duration=400.0)
    t, _, _ = _sent(r)
    assert t == pytest.approx(inits_s, abs=1e-9)
    assert r.aborted_s[0] == pytest.approx(abort_s, abs=1e-9)
    assert np.isnan(r.established_s[0]) and np.isnan(r.message_done_s[0])
    assert _sent(_run([Message(0, 1000)], SctpParams(max_init_retransmits=max_init)))[0].size > 2
    assert np.isnan(_run([Message(0, 1000)]).aborted_s[0])


def test_unordered_message_is_not_held_behind_a_loss_on_its_stream():
    # as test_loss_on_stream_1_delays_stream_1_only, with the U bit (sec. 6.6): the second stream-1 message
    # (chunks 20 and 21 of the flight) is delivered when its bytes arrive, as on a lossless path, long
    # before message A (chunk 1 lost, retransmitted after the 3rd miss indication) completes
    def run(back_drops, unordered):
        sp = SctpParams(initial_cwnd_mtus=30, rwnd_bytes=1 << 20, max_burst=0, unordered=unordered)
        msgs = [Message(0, 100),
                Message(0, 10 * 1452, "server", after_message=0, stream=1),
                Message(0, 10 * 1452, "server", after_message=0, stream=2),
                Message(0, 2 * 1452, "server", after_message=0, stream=1)]
        return _run(msgs, sp, back_drops=back_drops)

    clean, lossy = run((), True), run((3,), True)
    assert lossy.retransmits[0, 1] == 1
    assert lossy.message_done_s[3] == pytest.approx(clean.message_done_s[3], abs=1e-12)
    assert lossy.message_done_s[3] < lossy.message_done_s[1]
    # all 22 chunks leave back to back: the first packet also carries the SACK the server owes for the
    # request (16 bytes: 1516), the others are 1500 bytes; chunk 21 has arrived D after the 22nd ends
    t, _, _ = _sent(clean, 1)
    assert clean.message_done_s[3] == pytest.approx(t[2] + (1516 + 21 * 1500) * US + D, abs=1e-9)
    # ordered, it waits for A (test_loss_on_stream_1_delays_stream_1_only)
    ordered = run((3,), False)
    assert ordered.message_done_s[3] == ordered.message_done_s[1] > lossy.message_done_s[3]


def test_a_duplicate_tsn_is_reported_in_the_next_sack():
    # one 1000-byte message: TSN 0 arrives at EST + 1048 us + D; its delayed SACK (offered packet 2 back,
    # after INIT-ACK and COOKIE-ACK) is lost, so T3-rtx (RTO.Initial 3 s, no RTT sample yet) resends TSN 0
    # at EST + 3 s. The duplicate draws an immediate SACK (sec. 6.2) reporting TSN 0 as a duplicate: 16 +
    # 4 bytes of SACK, a 52-byte packet
    r = _run([Message(0, 1000)], back_drops=(2,), duration=5.0)
    pt = r.packet_trace
    sacks = (pt.kind == 0) & (pt.direction == 1) & ((pt.flags & 2) != 0) & ((pt.flags & 1) == 0)
    sacks &= (pt.flags & 32) == 0  # not the COOKIE-ACK
    t, dup = pt.time_s[sacks], pt.dup_tsn[sacks]
    assert t == pytest.approx([EST + 1048 * US + D + 0.2, EST + 3.0 + 1048 * US + D], abs=1e-9)
    assert dup.tolist() == [-1, 0] and pt.ack[sacks].tolist() == [0, 0]
    # back link: INIT-ACK 256 + COOKIE-ACK 36 + the lost SACK 48 (it was sent) + the SACK with the duplicate 52
    assert r.link_bytes[1] == 256 + 36 + 48 + 52


def test_a_sack_reports_every_gap_beyond_three_and_the_sender_uses_them():
    # One message of 12 full chunks, TSNs 0-11, all sent at EST (initial cwnd 12 MTU, no Max.Burst). Offered
    # packets INIT, COOKIE-ECHO, then TSN k is packet k + 2: dropping packets 3, 5, ..., 13 loses TSNs 1, 3,
    # ..., 11 after their transmission (drop_sequence loses packets on the link), so TSN 2j arrives at
    # EST + 1500 (2j + 1) us + D. Each arrival opens a gap: an immediate SACK, cum TSN ack 0, gap blocks 2-2,
    # 4-4, ..., 2j-2j (j blocks: 32 + 16 + 4 j bytes), back at the sender (1 byte/us, the link idle) at
    # EST + 1500 (2j + 1) us + (48 + 4 j) us + 2 D. The SACK of TSN 10 holds five gap blocks, 68 bytes
    # (RFC 4960 sec. 3.3.4).
    # RFC 4960 fast retransmit (3 miss indications, HTNA, sec. 7.2.4): TSN 5 is reported missing by the
    # SACKs of TSN 6, 8 and 10 (each newly acknowledges a TSN above 5: 8 in the 4th block, 10 only in the
    # 5th), so it leaves on the SACK of TSN 10, without regard to cwnd (TSN 1 on the SACK of TSN 6, TSN 3 on
    # that of TSN 8). The resent TSN 1 arrives 1500 us + D later: SACK cum 2, blocks 4, 6, 8, 10 (64 bytes),
    # back 64 us + D later. It advances the cum ack in Fast Recovery, so every TSN reported missing gains a
    # miss indication: TSN 7's third (after the SACKs of TSN 8 and 10), and it leaves. Likewise the resent
    # TSN 3 draws SACK cum 4, blocks 6, 8, 10 (60 bytes): TSN 9's third (SACK of TSN 10, cum 2, cum 4).
    # Gap-acknowledged TSNs are never resent: the retransmissions are the lost TSNs 1, 3, 5, 7, 9 (fast, one
    # Fast Recovery episode) and 11 (reported missing by no SACK: T3-rtx), once each.
    sp = SctpParams(initial_cwnd_mtus=12, max_burst=0, delayed_sack=False)
    r = _run([Message(0, 12 * 1452)], sp, drops=(3, 5, 7, 9, 11, 13), duration=10.0)
    pt = r.packet_trace
    sacks = (pt.kind == 0) & (pt.direction == 1) & ((pt.flags & 2) != 0) & ((pt.flags & 33) == 0)
    first = np.flatnonzero(sacks)[:6]
    assert pt.ack[first].tolist() == [0] * 6
    assert pt.sack.shape[1] >= 5
    for j, i in enumerate(first):
        blocks = [(int(lo), int(hi)) for lo, hi in pt.sack[i] if lo >= 0]
        assert blocks == [(2 * g, 2 * g + 1) for g in range(1, j + 1)]
    t, seq, _ = _sent(r, retx=True)
    tsn = (seq - 1) // 1452
    assert tsn.tolist()[:3] == [1, 3, 5]
    assert t[:3] == pytest.approx([EST + 1500 * (2 * j + 1) * US + (48 + 4 * j) * US + 2 * D for j in (3, 4, 5)],
                                  abs=1e-9)
    assert t[3:5] == pytest.approx([t[0] + (1500 + 64) * US + 2 * D, t[1] + (1500 + 60) * US + 2 * D], abs=1e-9)
    assert tsn.tolist() == [1, 3, 5, 7, 9, 11]
    assert (r.fast_retransmits[0, 0], r.timeouts[0, 0], r.retransmits[0, 0]) == (1, 1, 6)
    assert r.delivered_bytes[0, 0] == 12 * 1452


def test_a_sack_reports_only_the_gap_blocks_that_fit_in_the_mtu():
    # MTU 68: a DATA chunk holds 68 - 48 = 20 bytes, one per packet; a SACK alone holds (68 - 48) / 4 = 5
    # gap blocks. 13 chunks, TSNs 0-12, sent at once; TSNs 1, 3, ..., 11 lost (offered packets 3, ..., 13):
    # after TSN 12 the receiver holds 6 gaps, and its SACK reports the lowest 5 (2-2 ... 10-10), not 12-12.
    sp = SctpParams(mtu_bytes=68, cookie_bytes=12, initial_cwnd_mtus=13, max_burst=0, delayed_sack=False)
    r = _run([Message(0, 13 * 20)], sp, drops=(3, 5, 7, 9, 11, 13), duration=10.0)
    pt = r.packet_trace
    sacks = np.flatnonzero((pt.kind == 0) & (pt.direction == 1) & ((pt.flags & 2) != 0) & ((pt.flags & 33) == 0))
    assert pt.ack[sacks[:7]].tolist() == [0] * 7
    assert [[int(lo) for lo, _ in pt.sack[i] if lo >= 0] for i in sacks[5:7]] == [[2, 4, 6, 8, 10]] * 2
    assert pt.sack.shape[1] == 5
    assert r.delivered_bytes[0, 0] == 13 * 20


def test_each_message_gets_the_next_ssn_of_its_association_direction_and_stream():
    # RFC 4960 sec. 6.5: the SSN counts, per association, direction and stream, the messages written before.
    # Written in time order (not list order): client 0.30 s stream 0, 0.31 s stream 1, 0.32 s stream 0,
    # 0.33 s stream 2, 0.34 s stream 1, 0.35 s stream 0 -> SSNs 0, 0, 1, 0, 1, 2; the server's two on stream 0
    # -> 0, 1; a second association starts again at 0; a TCP connection's message has none (-1).
    times = (0.35, 0.30, 0.33, 0.31, 0.34, 0.32)
    streams = (0, 0, 2, 1, 1, 0)
    msgs = [Message(0, 500, stream=s, start_time_s=t) for t, s in zip(times, streams, strict=True)]
    msgs += [Message(0, 500, "server", start_time_s=0.4), Message(0, 500, "server", start_time_s=0.41),
             Message(1, 500, stream=3, start_time_s=0.3), Message(2, 500, start_time_s=0.3)]
    conns = (Connection(0, 1, transport="sctp"), Connection(0, 1, transport="sctp"), Connection(0, 1))
    r = simulate(Scenario(_path(), conns, tuple(msgs), duration_s=3.0))
    assert r.message_ssn.tolist() == [2, 0, 0, 0, 1, 1] + [0, 1] + [0, -1]
    assert np.isfinite(r.message_done_s).all()


def test_chunk_bounds_cut_each_message_into_chunks_of_at_most_the_max_payload():
    from simcore.packet import sctp_chunk_bounds

    # max payload 1500 - 48 = 1452 bytes; chunks never span messages: 101 | 1452 + 1452 + 96 | 50. Data
    # bytes are numbered from 1, in the sequence space the simulator shares with TCP (the set-up takes 0).
    r = _run([Message(0, 101), Message(0, 3000), Message(0, 50)])
    starts, ends = sctp_chunk_bounds(r, 0, 0)
    assert (starts - 1).tolist() == [0, 101, 1553, 3005, 3101]
    assert (ends - 1).tolist() == [101, 1553, 3005, 3101, 3151]
    assert sctp_chunk_bounds(r, 0, 1)[0].size == 0  # the server sent no DATA
    with pytest.raises(ValueError, match="conn=1"):
        sctp_chunk_bounds(r, 1, 0)
    with pytest.raises(ValueError, match="direction=2"):
        sctp_chunk_bounds(r, 0, 2)
    conn = Connection(0, 1, transport="sctp")
    untraced = simulate(Scenario(_path(), (conn,), (Message(0, 10),), duration_s=1.0))
    with pytest.raises(ValueError, match="trace=True"):
        sctp_chunk_bounds(untraced, 0, 0)
    tcp = simulate(Scenario(_path(), (Connection(0, 1),), (Message(0, 10),), duration_s=1.0), trace=True)
    with pytest.raises(ValueError, match="no SCTP association"):
        sctp_chunk_bounds(tcp, 0, 0)
