"""The message API: HTTP-like request/response sequences against the textbook round-trip counts."""

import numpy as np
import pytest

from simcore.packet import (
    Connection,
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    chain,
    request_response_scenario,
    simulate,
)

D = 0.1  # one-way delay: RTT ~ 0.2 s
RTT = 2 * D


def _fetch(persistent, pipelined, n=5, size=1000):
    link = LinkParams(rate_bps=1e9, delay_s=D, queue_packets=1000)
    sc = request_response_scenario(chain(1, link), 0, 1, 200, [size] * n, TcpParams(initial_window_segments=4),
                                   persistent=persistent, pipelined=pipelined, duration_s=30.0)
    return simulate(sc)


def test_non_persistent_fetches_cost_two_round_trips_per_object():
    r = _fetch(persistent=False, pipelined=False)
    assert np.all(np.isfinite(r.message_done_s))
    assert r.message_done_s[-1] == pytest.approx(5 * 2 * RTT, rel=0.01)  # handshake + request/response
    assert np.all(np.isfinite(r.timewait_s))  # every connection is closed (by the server)


def test_persistent_connection_saves_the_handshakes_and_pipelining_the_waits():
    serial = _fetch(persistent=True, pipelined=False)
    piped = _fetch(persistent=True, pipelined=True)
    assert serial.message_done_s[-1] == pytest.approx(RTT + 5 * RTT, rel=0.01)
    assert piped.message_done_s[-1] == pytest.approx(2 * RTT, rel=0.01)  # 5 kB fit in the initial window
    # per-message latency: each response follows its request by about half a round trip
    assert np.allclose(serial.message_latency_s[1::2], D, rtol=0.01)


def _two_files(multistream, drops):
    link = LinkParams(rate_bps=10e6, delay_s=0.05, queue_packets=1000, drop_sequence=drops)
    back = LinkParams(rate_bps=10e6, delay_s=0.05, queue_packets=1000)
    net = Network(2, (Link(0, 1, back), Link(1, 0, link)))
    conn = Connection(0, 1, TcpParams(variant="sack", initial_window_segments=40, rwnd_bytes=1 << 20),
                      transport="tcp_streams" if multistream else "tcp", header_bytes=48)
    msgs = (Message(0, 100, "client"),
            Message(0, 20 * 1460, "server", after_message=0, stream=1),
            Message(0, 20 * 1460, "server", after_message=0, stream=2))
    return simulate(Scenario(net, (conn,), msgs, duration_s=10.0))


def test_multistream_delivery_avoids_head_of_line_blocking_across_streams():
    # The server's packets: 0 the SYN-ACK, 1 the ACK of the request (the replies are written an instant
    # later), 2.. the 40 segments of the initial window. Packet 3 (segment 2 of the first file) is lost.
    lost = (3,)
    ordered, multi = _two_files(False, lost), _two_files(True, lost)
    clean = _two_files(True, ())
    # By hand, with segment i leaving the server at t1 + i T (T = 1508 B at 10 Mbit/s), one-way delay D,
    # a = 48 B (an ACK) at 10 Mbit/s: the third duplicate ACK (from segment 5) reaches the server at
    # t1 + 5T + 2D + a; the retransmission (the link is idle by then: 40 T < 2D) reaches the client at
    # t1 + 6T + 3D + a, completing the first file, which without the loss completes at t1 + 20T + D.
    T, D, a = 1508 * 8 / 10e6, 0.05, 48 * 8 / 10e6
    late = ordered.message_done_s[1] - clean.message_done_s[1]
    assert late == pytest.approx(2 * D + a - 14 * T, abs=1e-9)
    # in one byte stream the second file waits for the first file's retransmission...
    assert ordered.message_done_s[2] >= ordered.message_done_s[1]
    # ...with streams it completes as if nothing had been lost, before the first file
    assert multi.message_done_s[2] == pytest.approx(clean.message_done_s[2], abs=1e-3)
    assert multi.message_done_s[2] < multi.message_done_s[1] == ordered.message_done_s[1]
    # the connection's header size is on the wire: 48 + 1460 bytes per full segment
    assert clean.link_bytes[1] == pytest.approx((2 * 20 * 1460 + 48 * clean.link_packets[1]), rel=0, abs=0)
