"""Deterministic timing on loss-free links: hand-computed event times, window/RTT, slow start, timeouts."""

import numpy as np

from simcore.packet import Connection, LinkParams, Message, Scenario, TcpParams, bulk_scenario, chain, simulate
from simcore.packet.metrics import window_limited_throughput_bps

# 2**20 bit/s and dyadic delays keep every time exactly representable, so equality is exact.
RATE_BPS = 2.0**20
DELAY_S = 2.0**-4
MSS = 1024
LINK_HDR = 14
TCPIP = 40


def _tx(payload_bytes):
    return (payload_bytes + TCPIP + LINK_HDR) * 8 / RATE_BPS


def test_handshake_request_response_and_close_times_are_exact():
    link = LinkParams(rate_bps=RATE_BPS, delay_s=DELAY_S, queue_packets=100, header_bytes=LINK_HDR)
    tcp = TcpParams(mss_bytes=MSS, rwnd_bytes=16 * MSS, initial_window_segments=1)
    q, k = 300, 3
    sc = Scenario(chain(1, link), (Connection(0, 1, tcp, closer="client"),),
                  (Message(0, q, "client"), Message(0, k * MSS, "server", after_message=0)), duration_s=5.0)
    r = simulate(sc)
    a, d = _tx(0), DELAY_S
    syn_at_server = a + d
    synack_at_client = syn_at_server + a + d          # the client is established
    request_at_server = synack_at_client + _tx(q) + d  # the request carries the third handshake ACK
    # the server ACKs the request (a pure ACK), then its application writes the response: IW = 1 segment
    seg1_at_client = request_at_server + a + _tx(MSS) + d
    ack1_at_server = seg1_at_client + a + d            # cwnd 1 -> 2: segments 2 and 3 back to back
    seg3_at_client = ack1_at_server + 2 * _tx(MSS) + d
    fin_at_server = seg3_at_client + a + d             # the client closes at once (FIN carries the ACK)
    finack_at_client = fin_at_server + a + d           # server's FIN+ACK: client enters TIME-WAIT
    last_ack_at_server = finack_at_client + a + d
    assert r.established_s[0] == synack_at_client
    assert r.message_write_s.tolist() == [0.0, request_at_server]
    assert r.message_done_s.tolist() == [request_at_server, seg3_at_client]
    assert r.timewait_s[0] == finack_at_client
    assert r.closed_s[0] == last_ack_at_server
    assert r.delivered_bytes.tolist() == [[q, k * MSS]]
    assert r.retransmits.sum() == 0 and r.timeouts.sum() == 0


def test_window_limited_throughput_is_window_over_rtt():
    rwnd = 32767
    mss = 1460
    link = LinkParams(rate_bps=10e6, delay_s=0.32, queue_packets=1000)
    tcp = TcpParams(mss_bytes=mss, rwnd_bytes=rwnd, initial_window_segments=2)

    def delivered(T):
        return simulate(bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=T)).delivered_bytes[0, 0]

    t1, t2 = 10.0, 40.0
    rate = (delivered(t2) - delivered(t1)) * 8 / (t2 - t1)
    window = (rwnd // mss) * mss  # whole segments in flight
    rtt = 2 * 0.32 + (mss + 40) * 8 / 10e6 + 40 * 8 / 10e6
    assert abs(rate / window_limited_throughput_bps(window, rtt) - 1) < 0.02
    assert abs(rate / (rwnd * 8 / 0.64) - 1) < 0.05  # the textbook 32767 B / 640 ms ~ 410 kbit/s


def _slow_start_run(ssthresh=None, duration=3.0, queue=10000):
    link = LinkParams(rate_bps=1e9, delay_s=0.1, queue_packets=queue)
    tcp = TcpParams(mss_bytes=1000, rwnd_bytes=1 << 24, initial_window_segments=1,
                    initial_ssthresh_bytes=ssthresh)
    return simulate(bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=duration), trace=True)


def _cwnd_at_round_ends(r, rounds):
    tr = r.tcp_trace
    sel = (tr.conn == 0) & (tr.direction == 0) & (tr.event == 0) & (tr.snd_una > 1)
    t, cw = tr.time_s[sel], tr.cwnd_bytes[sel]
    rtt = 0.2 + 2 * 40 * 8 / 1e9
    out = []
    for k in range(rounds):  # round k's ACKs all arrive within a few microseconds of t[0] + k * rtt
        in_round = (t >= t[0] + k * rtt - 0.05) & (t < t[0] + k * rtt + 0.05)
        out.append(cw[in_round][-1])
    return np.array(out)


def test_slow_start_doubles_cwnd_each_rtt_then_grows_linearly_above_ssthresh():
    cw = _cwnd_at_round_ends(_slow_start_run(), 8)
    assert cw.tolist() == [1000 * 2 ** (k + 1) for k in range(8)]
    cw = _cwnd_at_round_ends(_slow_start_run(ssthresh=16000), 9)
    assert cw[:4].tolist() == [2000, 4000, 8000, 16000]
    growth = np.diff(cw[4:])  # congestion avoidance: about one MSS per RTT
    assert np.all(np.abs(growth - 1000) < 100)


def test_after_a_timeout_cwnd_restarts_from_one_segment():
    # A 4-packet buffer on a slow link: the slow-start burst overflows it and losses end in timeouts.
    link = LinkParams(rate_bps=1e6, delay_s=0.05, queue_packets=4)
    tcp = TcpParams(variant="reno", mss_bytes=1000, rwnd_bytes=1 << 20, initial_window_segments=8,
                    min_rto_s=0.2)
    r = simulate(bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=5.0), trace=True)
    tr = r.tcp_trace
    to = np.flatnonzero(tr.event == 2)
    assert r.timeouts[0, 0] == to.size > 0
    for i in to:
        assert tr.cwnd_bytes[i] == 1000
        nxt = i + 1 + np.flatnonzero(tr.event[i + 1:] == 0)[0]  # the first new ACK after the timeout
        assert tr.cwnd_bytes[nxt] <= 2000
