"""ssthresh after a retransmission timeout inside a loss episode (``TcpParams.timeout_ssthresh``), by hand.

The setting of ``test_recovery.py`` (8 Mbit/s each way, D = 50 ms, 1000-byte segments, 40-byte headers, every
segment ACKed at once, a = 40 us, T = 1040 us, t_e = 2 (a + D)), NewReno, an initial window of 8 segments and a
receive window of 10 segments (10,000 bytes). Forward packets: 0 the SYN, 1-8 segments 1-8 (the first carries
the handshake's ACK). Lost: packets 1 and 3 (segments 1 and 3), and later the retransmissions of segment 3.
By hand, with RFC 5681 and RFC 6582:
- duplicate ACKs come with segments 2, 4, 5: at the third (ack_t(5)) fast retransmit: FlightSize = 8000,
  ssthresh = 4000, cwnd = 4000 + 3 * 1000 = 7000, segment 1 again (packet 9), recover = 8001;
- duplicate ACKs 4, 5, 6 inflate cwnd to 8000, 9000, 10000: segments 9 and 10 leave (packets 10, 11;
  segment 11 would need 11,000 > 10,000);
- the retransmitted segment 1 brings the partial ACK 2001 at t_p = ack_t(5) + T + 2 D + a: segment 3 again
  (packet 12, lost), cwnd = 10000 - 2000 + 1000 = 9000, segment 11 (packet 13), the timer restarted
  (the first partial ACK); the duplicate ACKs of segments 9 and 10 inflate cwnd to 10,000 and 11,000: segment
  12 (packet 14), then the receive window (snd_una 2001 + 10,000) stops it. snd_max = 12001;
- the timer expires at t_p + 1 s (RTO 1 s, the floor) with snd_una = 2001, still below recover: RFC 5681 eq. 4
  gives max(FlightSize / 2, 2 SMSS) = (12001 - 2001) / 2 = 5000, the inflation included; the reduction of this
  window was made at the fast retransmit (4000). Segment 3 again (packet 15, lost too): the timer, backed off
  to 2 s, expires again at t_p + 3 s, the same segment, the same FlightSize.
"""

import numpy as np
import pytest

from simcore.packet import Connection, Link, LinkParams, Message, Network, Scenario, TcpParams, simulate

D = 0.05
A = 40e-6
T = 1040e-6
T_E = 2 * (A + D)


def ack_t(i):
    return T_E + i * T + 2 * D + A


T_P = ack_t(5) + T + 2 * D + A  # the partial ACK


def _run(mode, drops=(1, 3, 12, 15), variant="newreno"):
    fwd = LinkParams(rate_bps=8e6, delay_s=D, queue_packets=1000, drop_sequence=drops)
    back = LinkParams(rate_bps=8e6, delay_s=D, queue_packets=1000)
    tcp = TcpParams(variant=variant, mss_bytes=1000, initial_window_segments=8, rwnd_bytes=10_000, min_rto_s=1.0,
                    timeout_ssthresh=mode)
    net = Network(2, (Link(0, 1, fwd), Link(1, 0, back)))
    sc = Scenario(net, (Connection(0, 1, tcp),), (Message(0, 30_000),), duration_s=30.0)
    r = simulate(sc, trace=True)
    assert r.delivered_bytes[0, 0] == 30_000
    tr = r.tcp_trace
    mine = tr.direction == 0
    return r, {k: getattr(tr, k)[mine] for k in ("time_s", "event", "ssthresh_bytes", "cwnd_bytes", "snd_una")}


@pytest.mark.parametrize("mode, after_timeout", [("once_per_window", 4000.0), ("flight_size", 5000.0)])
def test_a_timeout_inside_fast_recovery_keeps_the_windows_reduction_or_reads_the_inflated_flight(mode, after_timeout):
    r, tr = _run(mode)
    fr = np.flatnonzero((tr["event"] == 1) & (tr["ssthresh_bytes"] < 1e29))[0]
    assert tr["time_s"][fr] == pytest.approx(ack_t(5), abs=1e-9)  # the third duplicate ACK
    assert tr["ssthresh_bytes"][fr] == 4000.0 and tr["cwnd_bytes"][fr] == 7000.0
    to = np.flatnonzero(tr["event"] == 2)
    assert tr["time_s"][to].tolist() == pytest.approx([T_P + 1.0, T_P + 3.0], abs=1e-9)
    assert tr["snd_una"][to].tolist() == [2001, 2001]
    # the first timeout: 4000 kept (once per window) or eq. 4 on the inflated FlightSize; the second, the same
    # segment again: held either way (RFC 5681 sec. 3.1)
    assert tr["ssthresh_bytes"][to].tolist() == [after_timeout, after_timeout]
    assert tr["cwnd_bytes"][to].tolist() == [1000.0, 1000.0]
    assert r.timeouts[0, 0] == 2


@pytest.mark.parametrize("mode", ["once_per_window", "flight_size"])
def test_nothing_changes_without_a_timeout_inside_an_episode(mode):
    """One loss, repaired by fast retransmit: the two modes give the same run, packet for packet."""
    a, _ = _run(mode, drops=(3,))
    b, _ = _run("flight_size", drops=(3,))
    assert np.array_equal(a.packet_trace.time_s, b.packet_trace.time_s)
    assert np.array_equal(a.tcp_trace.ssthresh_bytes, b.tcp_trace.ssthresh_bytes)


def test_validation_names_the_parameter():
    with pytest.raises(ValueError, match="timeout_ssthresh"):
        TcpParams(timeout_ssthresh="linux")


def _bulk(mode, variant="newreno"):
    from simcore.packet import bulk_scenario, dumbbell

    db = dumbbell(1, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    tcp = TcpParams(variant=variant, rwnd_bytes=4 << 20, min_rto_s=1.0, timeout_ssthresh=mode)
    return simulate(bulk_scenario(db.network, db.pairs, tcp, 60.0), seed=1)


def test_a_bulk_newreno_flow_with_a_large_window_fills_the_link():
    """Issue 26's reproduction: one NewReno flow, 4 MB receive window, 10 Mbit/s, 20 ms, 50 packets, 60 s.
    Read literally, each timeout in recovery set ssthresh from a FlightSize of 180-250 segments on a path that
    holds ~85 (bandwidth-delay product + buffer): slow start overshot again, and the flow got 40-52 % of the
    link. Once per window it fills the link like SACK does."""
    once = _bulk("once_per_window")
    literal = _bulk("flight_size")
    assert once.goodput_bps[0, 0] > 0.9 * 10e6
    assert literal.goodput_bps[0, 0] < 0.6 * 10e6 and literal.timeouts[0, 0] > 20  # the defect, kept as an option
