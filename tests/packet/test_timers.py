"""Timers and ACK policy: SYN loss, exponential backoff, Karn's rule, RTO floor, delayed ACKs, restart
after idle."""

import numpy as np
import pytest

from simcore.packet import Connection, Link, LinkParams, Message, Network, Scenario, TcpParams, simulate

D = 0.05
RATE = 8e6  # 1 byte per microsecond


def _one_link(drops=(), **tcp_kw):
    """Return (None, forward link with the given deterministic drops, TcpParams)."""
    return None, LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000, drop_sequence=drops), TcpParams(**tcp_kw)


def _scenario(link, tcp, msgs, duration=60.0):
    back = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=1000)
    net = Network(2, (Link(0, 1, link), Link(1, 0, back)))
    return Scenario(net, (Connection(0, 1, tcp),), msgs, duration_s=duration)


def test_lost_syn_is_resent_after_the_initial_rto_and_the_window_starts_at_one_segment():
    _, link, tcp = _one_link(drops=(0,), initial_window_segments=4, initial_rto_s=1.0)
    r = simulate(_scenario(link, tcp, (Message(0, 100_000),), duration=5.0), trace=True)
    a = 40 / 1e6
    assert r.established_s[0] == pytest.approx(1.0 + 2 * (a + D), abs=1e-9)
    first_data = (r.packet_trace.kind == 0) & (r.packet_trace.seqlen > 1) & (r.packet_trace.direction == 0)
    assert np.sum(r.packet_trace.time_s[first_data] == r.established_s[0]) == 1  # IW collapsed to 1 MSS


def test_rto_backs_off_exponentially_and_karn_keeps_retransmissions_out_of_rtt_samples():
    # An outage: packets 5..15 offered to the forward link are lost, the whole flight and then the
    # retransmissions of its first segment, which times out again and again.
    _, link, tcp = _one_link(drops=tuple(range(5, 16)), min_rto_s=0.2, initial_window_segments=1)
    r = simulate(_scenario(link, tcp, (Message(0, 30_000),), duration=40.0), trace=True)
    tr = r.tcp_trace
    to_t = tr.time_s[tr.event == 2]
    assert to_t.size == r.timeouts[0, 0] >= 5
    gaps = np.diff(to_t)
    assert np.allclose(gaps[1:] / gaps[:-1], 2.0)  # 2x, 4x, 8x the first RTO
    # Karn: the ACK that finally covers the retransmitted segment gives no RTT sample (srtt unchanged)
    after = np.flatnonzero((tr.event == 0) & (tr.time_s > to_t[-1]))[0]
    assert tr.srtt_s[after] == tr.srtt_s[after - 1]
    assert tr.rto_s[after] == tr.rto_s[after - 1]  # the backed-off RTO is kept until a valid sample
    assert r.delivered_bytes[0, 0] == 30_000


@pytest.mark.parametrize("min_rto", [0.2, 1.0])
def test_rto_never_falls_below_its_floor(min_rto):
    _, link, tcp = _one_link(min_rto_s=min_rto)
    r = simulate(_scenario(link, tcp, (Message(0, 200_000),), duration=5.0), trace=True)
    rtt = 2 * D + 1500 / 1e6 + 40 / 1e6
    assert r.srtt_s[0, 0] == pytest.approx(rtt, rel=0.05)
    assert np.nanmin(r.tcp_trace.rto_s[r.tcp_trace.srtt_s > 0]) == pytest.approx(max(min_rto, rtt))


def test_delayed_ack_acknowledges_every_second_segment_or_after_the_timeout():
    _, link, tcp = _one_link(delayed_ack=True, delayed_ack_timeout_s=0.2, initial_window_segments=1)
    r = simulate(_scenario(link, tcp, (Message(0, 1460), Message(0, 400 * 1460, after_message=0))), trace=True)
    pt = r.packet_trace
    # the first message is a single segment: its ACK leaves the receiver 0.2 s after it arrives
    seg1 = np.flatnonzero((pt.kind == 1) & (pt.direction == 0) & (pt.seqlen == 1460))[0]
    ack1 = np.flatnonzero((pt.kind == 0) & (pt.direction == 1) & (pt.ack == 1461))[0]
    assert pt.time_s[ack1] - pt.time_s[seg1] == pytest.approx(0.2)
    data = np.sum((pt.kind == 0) & (pt.direction == 0) & (pt.seqlen > 1))
    acks = np.sum((pt.kind == 0) & (pt.direction == 1) & (pt.seqlen == 0))
    assert abs(acks / data - 0.5) < 0.05


@pytest.mark.parametrize("restart", [True, False])
def test_cwnd_restarts_after_an_idle_period_longer_than_rto(restart):
    _, link, tcp = _one_link(restart_after_idle=restart, initial_window_segments=2, rwnd_bytes=1 << 20)
    msgs = (Message(0, 300_000), Message(0, 300_000, after_message=0, delay_after_s=3.0))
    r = simulate(_scenario(link, tcp, msgs, duration=20.0), trace=True)
    tr = r.tcp_trace
    second = tr.time_s > r.message_write_s[1]
    first_cwnd = tr.cwnd_bytes[np.flatnonzero(second)[0]]
    if restart:
        assert first_cwnd <= 3 * 1460  # IW (2 MSS) plus one ACK's growth
        assert r.message_latency_s[1] == pytest.approx(r.message_latency_s[0] - 2 * (D + 40 / 1e6), rel=0.05)
    else:
        assert first_cwnd > 50 * 1460
        assert r.message_latency_s[1] < 0.5 * r.message_latency_s[0]
