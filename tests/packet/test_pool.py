"""Connection pools: a message sent on a pool goes on the connection its rule picks when it is written."""

import math

import numpy as np
import pytest

from simcore.packet import (
    Connection,
    ConnectionPool,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    chain,
    simulate,
)


def _pooled(msgs, n_conns=3, pools=None, link=None, duration_s=20.0, tcp=None):
    link = link or LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=1000)
    conns = tuple(Connection(0, 1, tcp or TcpParams()) for _ in range(n_conns))
    pools = pools or (ConnectionPool(tuple(range(n_conns))),)
    return Scenario(chain(1, link), conns, tuple(msgs), duration_s=duration_s, pools=pools)


def test_fewest_outstanding_avoids_the_connection_busy_with_a_large_message():
    msgs = [Message(None, 10_000_000, pool=0),  # ~8 s of sending on a 10 Mbit/s link
            Message(None, 3000, start_time_s=0.5, pool=0),
            Message(None, 2000, start_time_s=0.5, pool=0),
            Message(None, 1000, start_time_s=0.5, pool=0),
            Message(None, 1000, start_time_s=3.0, pool=0)]
    r = simulate(_pooled(msgs))
    # all idle at t=0: lowest index. At 0.5 s: conn 0 holds ~10 MB unacknowledged, 1 and 2 nothing -> 1;
    # then 2 (0 < 3000); then 2 again (2000 < 3000). At 3 s, 1 and 2 are acknowledged: the tie goes to 1.
    assert r.message_conn.tolist() == [0, 1, 2, 2, 1]
    assert r.message_done_s[4] < 3.5 and r.message_done_s[0] > 8.0  # really was still outstanding at 3 s
    assert r.delivered_bytes[:, 0].tolist() == [10_000_000, 4000, 3000]


def test_round_robin_takes_the_pool_connections_in_turn_in_write_order():
    starts = [0.7, 0.1, 0.4, 0.2, 0.6, 0.3, 0.5]
    msgs = [Message(None, 500, start_time_s=s, pool=0) for s in starts]
    order = (2, 0, 1)
    r = simulate(_pooled(msgs, pools=(ConnectionPool(order, "round_robin"),)))
    rank = np.argsort(np.argsort(starts))  # position of each message in write order
    assert r.message_conn.tolist() == [order[k % 3] for k in rank]
    # round robin ignores the load: a big message does not divert the next one
    big = [Message(None, 2_000_000, pool=0)] + [Message(None, 500, start_time_s=0.1 * (i + 1), pool=0)
                                                for i in range(3)]
    r = simulate(_pooled(big, pools=(ConnectionPool((0, 1), "round_robin"),)))
    assert r.message_conn.tolist() == [0, 1, 0, 1]


def test_pooled_request_response_conserves_bytes_despite_losses():
    rng = np.random.default_rng(11)
    req = rng.integers(100, 3000, 12).tolist()
    resp = rng.integers(1000, 60_000, 12).tolist()
    msgs = []
    for k in range(12):
        msgs.append(Message(None, req[k], "client", start_time_s=0.05 * k, pool=0))
        msgs.append(Message(None, resp[k], "server", after_message=2 * k, pool=1))
    link = LinkParams(rate_bps=4e6, delay_s=0.02, queue_packets=10, loss_prob=0.02)
    tcp = TcpParams(variant="sack", min_rto_s=0.2)
    pools = (ConnectionPool((0, 1, 2, 3), "round_robin"), ConnectionPool((0, 1, 2, 3), "fewest_outstanding"))
    sc = _pooled(msgs, n_conns=4, pools=pools, link=link, duration_s=60.0, tcp=tcp)
    r = simulate(sc, seed=5)
    assert r.link_drops_loss.sum() + r.link_drops_queue.sum() > 0  # recovery is exercised
    assert np.all(np.isfinite(r.message_done_s))
    assert set(r.message_conn.tolist()) <= {0, 1, 2, 3} and len(set(r.message_conn[1::2].tolist())) > 1
    # every connection delivered exactly the bytes of the messages that went on it, in each direction
    sizes = np.array([s for pair in zip(req, resp, strict=True) for s in pair])
    for c in range(4):
        for d in (0, 1):
            on = r.message_conn[d::2] == c
            assert r.delivered_bytes[c, d] == sizes[d::2][on].sum()
    # each response completes after its request
    assert np.all(r.message_done_s[1::2] > r.message_done_s[0::2])
    again = simulate(sc, seed=5)
    assert np.array_equal(again.message_conn, r.message_conn)
    assert np.array_equal(again.message_done_s, r.message_done_s)
    assert np.array_equal(again.delivered_bytes, r.delivered_bytes)


def _slow_start_rounds(segments, iw, cap):
    """Round trips to send ``segments`` from a window of ``iw`` doubling each round up to ``cap``."""
    rounds, w = 0, iw
    while segments > 0:
        segments -= w
        w = min(2 * w, cap)
        rounds += 1
    return rounds


def test_a_proxy_multiplexing_small_replies_over_four_connections_beats_one():
    rtt = 0.2
    n_msg, size = 60, 8000
    tcp = TcpParams()
    link = LinkParams(rate_bps=20e6, delay_s=rtt / 2, queue_packets=1000)

    def run(n):
        msgs = [Message(None, size, "client", start_time_s=1.0 + 0.005 * i, pool=0) for i in range(n_msg)]
        return simulate(_pooled(msgs, n_conns=n, link=link, duration_s=30.0, tcp=tcp))

    one, four = run(1), run(4)
    assert np.all(np.isfinite(one.message_done_s)) and np.all(np.isfinite(four.message_done_s))
    assert set(one.message_conn.tolist()) == {0}
    assert np.bincount(four.message_conn).tolist() == [15] * 4  # equal sizes: fewest outstanding balances
    assert four.message_latency_s.mean() < one.message_latency_s.mean()
    # window-limited: one connection needs more slow-start rounds for the whole batch than four in parallel
    segs = math.ceil(size / tcp.mss_bytes) * n_msg
    cap = tcp.rwnd_bytes // tcp.mss_bytes
    r1 = _slow_start_rounds(segs, tcp.initial_window_segments, cap)
    r4 = _slow_start_rounds(math.ceil(segs / 4), tcp.initial_window_segments, cap)
    assert r1 - r4 >= 4
    saved = one.message_done_s.max() - four.message_done_s.max()
    assert saved >= 0.5 * (r1 - r4) * rtt


def test_invalid_pools_and_pooled_messages_are_rejected():
    net = chain(2, LinkParams())
    conns = (Connection(0, 2), Connection(0, 2), Connection(2, 0), Connection(0, 1), Connection(0, 2, closer="client"))
    ok = (Message(None, 100, pool=0),)
    assert Scenario(net, conns, ok, pools=(ConnectionPool((0, 1)),)).pools[0].rule == "fewest_outstanding"
    with pytest.raises(ValueError, match=r"rule='fastest' is not allowed: must be one of \['fewest_outstanding'"):
        ConnectionPool((0, 1), "fastest")
    with pytest.raises(ValueError, match="conns=.* at least one connection"):
        ConnectionPool(())
    with pytest.raises(ValueError, match="each once"):
        ConnectionPool((0, 0))
    with pytest.raises(ValueError, match=r"conns\[1\]=-1 is out of range"):
        ConnectionPool((0, -1))
    with pytest.raises(ValueError, match="connection 7 must be in"):
        Scenario(net, conns, ok, pools=(ConnectionPool((0, 7)),))
    for bad in (2, 3):  # reversed endpoints, another server
        with pytest.raises(ValueError, match="same client and server"):
            Scenario(net, conns, ok, pools=(ConnectionPool((0, bad)),))
    with pytest.raises(ValueError, match="closer='client'"):
        Scenario(net, conns, ok, pools=(ConnectionPool((0, 4)),))
    with pytest.raises(ValueError, match=r"pools\[0\]=.* must be a ConnectionPool"):
        Scenario(net, conns, ok, pools=((0, 1),))
    with pytest.raises(ValueError, match="pool=1 is out of range"):
        Scenario(net, conns, (Message(None, 100, pool=1),), pools=(ConnectionPool((0, 1)),))
    with pytest.raises(ValueError, match="exactly one"):
        Message(0, 100, pool=0)
    with pytest.raises(ValueError, match="conn=None"):
        Message(None, 100)
    with pytest.raises(ValueError, match=r"pool=-2 is out of range"):
        Message(None, 100, pool=-2)
    opener = (Connection(0, 2), Connection(0, 2, open_after_message=0))
    with pytest.raises(ValueError, match="would never open"):
        Scenario(net, opener, ok, pools=(ConnectionPool((0, 1)),))


def test_a_proxy_relays_server_responses_onto_a_pool_cut_through():
    lan = LinkParams(rate_bps=100e6, delay_s=0.005, queue_packets=1000)
    wan = LinkParams(rate_bps=10e6, delay_s=0.05, queue_packets=1000)
    net = Network(3, Network.duplex(0, 1, lan) + Network.duplex(1, 2, wan))  # server 0, proxy 1, client 2
    conns = (Connection(1, 0), Connection(2, 1), Connection(2, 1), Connection(2, 1))
    sizes = [40_000, 5_000, 30_000, 5_000, 20_000, 5_000]
    msgs = []
    for k, s in enumerate(sizes):  # messages 2k: server -> proxy; 2k+1: proxy -> client, relayed on the pool
        msgs.append(Message(0, s, "server", start_time_s=0.3 + 0.001 * k))
        msgs.append(Message(None, s, "server", relay_of=2 * k, pool=0))
    r = simulate(Scenario(net, conns, tuple(msgs), duration_s=20.0, pools=(ConnectionPool((1, 2, 3)),)))
    assert np.all(np.isfinite(r.message_done_s))
    assert np.all(r.message_conn[0::2] == 0) and set(r.message_conn[1::2].tolist()) == {1, 2, 3}
    for c in (1, 2, 3):
        assert r.delivered_bytes[c, 1] == sum(s for s, cc in zip(sizes, r.message_conn[1::2], strict=True) if cc == c)
    # a relay is written at once (cut-through) and cannot complete before the message it relays
    assert np.all(r.message_write_s[1::2] == 0.0)
    assert np.all(r.message_done_s[1::2] > r.message_done_s[0::2])
    # the pool must not contain the connection the relayed message arrives on
    with pytest.raises(ValueError, match="must leave from that node"):
        Scenario(net, (Connection(1, 0), Connection(1, 0)), (Message(0, 10, "client"),
                 Message(None, 10, "server", relay_of=0, pool=0)), pools=(ConnectionPool((0, 1)),))
