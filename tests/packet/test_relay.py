"""Relaying messages (split-TCP proxy): cut-through causality, and the textbook gain over a satellite hop."""

import numpy as np
import pytest

from simcore.packet import Connection, LinkParams, Message, Network, Scenario, TcpParams, simulate

SIZE = 200_000


def _net():
    lan = LinkParams(rate_bps=100e6, delay_s=0.005, queue_packets=1000)
    sat = LinkParams(rate_bps=2e6, delay_s=0.275, queue_packets=1000)
    # node 0 web server, node 1 proxy / gateway, node 2 client behind the satellite hop
    return Network(3, Network.duplex(0, 1, lan) + Network.duplex(1, 2, sat))


def _split(cut_through, sat_tcp):
    conns = (Connection(2, 1, sat_tcp), Connection(1, 0, TcpParams(rwnd_bytes=1 << 20)))
    relay = {"relay_of": 2} if cut_through else {"after_message": 2}
    msgs = (Message(0, 300, "client"),                          # request: client -> proxy
            Message(1, 300, "client", relay_of=0),              # proxy -> server
            Message(1, SIZE, "server", after_message=1),        # response: server -> proxy
            Message(0, SIZE, "server", **relay))                # proxy -> client
    return simulate(Scenario(_net(), conns, msgs, duration_s=30.0), trace=True)


def test_cut_through_relay_forwards_only_bytes_that_have_arrived():
    r = _split(True, TcpParams(initial_window_segments=10, rwnd_bytes=1 << 20))
    assert r.delivered_bytes.tolist() == [[300, SIZE], [300, SIZE]]
    pt = r.packet_trace
    got = (pt.kind == 1) & (pt.conn == 1) & (pt.direction == 1) & (pt.seqlen > 0)  # at the proxy
    sent = (pt.kind == 0) & (pt.conn == 0) & (pt.direction == 1) & (pt.seqlen > 0)  # by the proxy
    t_got, have = pt.time_s[got], np.maximum.accumulate(pt.seq[got] + pt.seqlen[got]) - 1
    for t, end in zip(pt.time_s[sent], pt.seq[sent] + pt.seqlen[sent] - 1, strict=True):
        i = np.searchsorted(t_got, t, side="right") - 1
        assert i >= 0 and end <= have[i]  # lossless run: arrivals are in order
    # cut-through beats store-and-forward by about the time the proxy waited for the whole response
    sf = _split(False, TcpParams(initial_window_segments=10, rwnd_bytes=1 << 20))
    assert r.message_done_s[3] < sf.message_done_s[3] - 0.5 * (r.message_done_s[2] - r.message_write_s[2])


def test_split_tcp_with_a_large_initial_window_beats_end_to_end_tcp_over_satellite():
    e2e_tcp = TcpParams(initial_window_segments=2, rwnd_bytes=1 << 20)
    end_to_end = simulate(Scenario(_net(), (Connection(2, 0, e2e_tcp),),
                                   (Message(0, 300, "client"), Message(0, SIZE, "server", after_message=0)),
                                   duration_s=30.0))
    split = _split(True, TcpParams(initial_window_segments=200, rwnd_bytes=1 << 20))  # the whole object
    rtt_sat = 2 * 0.275
    t_e2e, t_split = end_to_end.message_done_s[1], split.message_done_s[3]
    assert t_split < t_e2e - 2 * rtt_sat  # several slow-start rounds over the satellite are saved
    # handshake + request (1.5 RTT), serialization of the object on the 2 Mbit/s hop, last propagation
    assert t_split == pytest.approx(2 * rtt_sat + SIZE * 8 * (1500 / 1460) / 2e6, rel=0.05)


def test_relay_must_leave_from_where_the_relayed_message_arrives():
    conns = (Connection(2, 1), Connection(1, 0))
    with pytest.raises(ValueError, match="must leave from that node"):
        Scenario(_net(), conns, (Message(0, 300, "client"), Message(1, 300, "server", relay_of=0)))
    with pytest.raises(ValueError, match="must equal"):
        Scenario(_net(), conns, (Message(0, 300, "client"), Message(1, 301, "client", relay_of=0)))
