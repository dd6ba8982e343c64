"""Connection slots (``kernel/slot.py``): the kernel's half and connection rows are taken when a connection is first
needed and given back when it is done, so a run of many connections keeps rows only for those alive at once;
what a connection does never depends on the slot it got."""

import numpy as np
import pytest

from simcore.packet import Connection, Link, LinkParams, Message, Network, Scenario, TcpParams, chain, simulate
from simcore.packet.simulate import _build, _result, run_to_end


def _run(sc, caps):
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    X = run_to_end(_build(sc, seeds, False, caps)[0])
    assert X.st[0]["flags"] == 0
    isn = np.zeros((len(sc.connections), 2), np.uint64)
    return X, _result(sc, X, isn)


_FIELDS = ("message_write_s", "message_done_s", "established_s", "closed_s", "timewait_s", "delivered_bytes",
           "segments_sent", "retransmits", "timeouts", "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rto_s")


def _same(a, b):
    for f in _FIELDS:
        assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), f
    assert a.events == b.events


def _fetches(n, gap_s, link, size=20_000, tcp=None, duration_s=None):
    """n HTTP/1.0-like fetches from node 0 of server node 1, connection k opened at k * gap_s, closed by the
    server behind its reply."""
    tcp = TcpParams() if tcp is None else tcp
    conns = tuple(Connection(0, 1, tcp, open_time_s=k * gap_s, closer="server") for k in range(n))
    msgs = []
    for k in range(n):
        msgs.append(Message(k, 300, "client", start_time_s=k * gap_s))
        msgs.append(Message(k, size, "server", after_message=2 * k))
    return Scenario(chain(1, link), conns, tuple(msgs), duration_s=duration_s or n * gap_s + 5.0)


def test_sequential_connections_share_one_slot_and_each_runs_as_if_alone():
    # 40 fetches 2 s apart on a 20 ms path: each is over long before the next opens, so one slot serves
    # them all (the table never grows past the 2 rows it starts with), stale timers of the connection that
    # held it before included (delayed ACKs on). Each fetch must then run exactly as the same fetch alone.
    link = LinkParams(rate_bps=2e6, delay_s=0.01, queue_packets=50)
    n, gap = 40, 2.0
    sc = _fetches(n, gap, link)
    X, res = _run(sc, {"first_slots": 2})
    assert X.conn.shape[0] == 2
    assert int(X.st[0]["slots_freed"]) == n
    alone = simulate(_fetches(1, gap, link, duration_s=gap + 5.0))
    assert np.isfinite(res.message_done_s).all()
    opened = np.arange(n) * gap
    np.testing.assert_allclose(res.established_s - opened, np.full(n, alone.established_s[0]), rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.closed_s - opened, np.full(n, alone.closed_s[0]), rtol=0, atol=1e-9)
    np.testing.assert_allclose(res.message_latency_s.reshape(n, 2), np.tile(alone.message_latency_s, (n, 1)),
                               rtol=0, atol=1e-9)
    for f in ("delivered_bytes", "segments_sent", "cwnd_bytes", "ssthresh_bytes"):
        assert np.array_equal(getattr(res, f), np.tile(getattr(alone, f), (n, 1))), f


def test_a_scenario_its_first_slot_table_holds_keeps_a_slot_per_connection():
    # 40 sequential fetches fit the first slot table (4096 rows): no slot is given back, and the run is the one
    # that recycles a table of 2 slots.
    link = LinkParams(rate_bps=2e6, delay_s=0.01, queue_packets=50)
    sc = _fetches(40, 2.0, link)
    X, res = _run(sc, {})
    assert int(X.st[0]["recycle"]) == 0 and int(X.st[0]["slots_freed"]) == 0 and X.conn.shape[0] == 40
    Y, rec = _run(sc, {"first_slots": 2})
    assert int(Y.st[0]["recycle"]) == 1 and int(Y.st[0]["slots_freed"]) == 40
    _same(res, rec)


def test_a_slot_is_not_given_back_while_a_packet_of_its_connection_is_in_flight():
    # Fetches alternate between a slow path (0.25 s each way) and a fast one (2 ms). On the slow path the
    # RTO is capped at 0.2 s, below the round trip, so every segment goes again before its ACK is back, and
    # when both FINs are acknowledged copies of the last segments are still on the wire. The fast fetch
    # opening next is established within milliseconds: had it taken the slot, the copies would land in it
    # (one of the connection's numbers in another's sequence space). The slot must stay taken until they have
    # arrived; the run equals the one with a slot per connection, never given back ("slots_full").
    slow = LinkParams(rate_bps=2e6, delay_s=0.25, queue_packets=100)
    fast = LinkParams(rate_bps=10e6, delay_s=0.002, queue_packets=100)
    net = Network(3, (Link(0, 2, slow), Link(2, 0, slow), Link(1, 2, fast), Link(2, 1, fast)))
    hasty = TcpParams(min_rto_s=0.05, initial_rto_s=0.2, max_rto_s=0.2)
    n = 60
    conns = tuple(Connection(0, 2, hasty, open_time_s=0.05 * k, closer="server") if k % 2 == 0 else
                  Connection(1, 2, TcpParams(), open_time_s=0.05 * k, closer="server") for k in range(n))
    msgs = []
    for k in range(n):
        msgs.append(Message(k, 200 if k % 2 == 0 else 1000, "client", start_time_s=0.05 * k))
        msgs.append(Message(k, 2000, "server", after_message=2 * k))
    sc = Scenario(net, conns, tuple(msgs), duration_s=10.0)
    X, res = _run(sc, {"first_slots": 2})
    _, full = _run(sc, {"slots_full": True})
    assert np.isfinite(res.closed_s).all()
    assert res.retransmits[0::2].sum() > n  # the slow fetches' spurious copies
    assert int(X.st[0]["slots_freed"]) == n and X.conn.shape[0] < n
    _same(res, full)


@pytest.mark.parametrize("seed", [0, 1])
def test_lossy_overlapping_connections_give_the_same_run_whatever_the_slots(seed):
    # 120 fetches opening every 50 ms on a lossy path (retransmissions, timeouts, duplicates in flight after
    # a close): recycling slots from a table of 4 rows changes nothing against one row per connection.
    link = LinkParams(rate_bps=5e6, delay_s=0.05, queue_packets=20, loss_prob=0.03)
    sc = _fetches(120, 0.05, link, size=15_000)
    seeds = np.random.default_rng(seed).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    runs = []
    for caps in ({"first_slots": 4}, {"slots_full": True}):
        X = run_to_end(_build(sc, seeds, False, caps)[0])
        assert X.st[0]["flags"] == 0
        runs.append((X, _result(sc, X, np.zeros((120, 2), np.uint64))))
    (small, a), (ref, b) = runs
    assert int(small.st[0]["slots_freed"]) > 60 and small.conn.shape[0] < 120
    assert int(ref.st[0]["slots_freed"]) == 0 and ref.conn.shape[0] == 120
    assert a.timeouts.sum() > 0 and a.retransmits.sum() > 0
    _same(a, b)


def test_a_connection_never_opened_reports_as_it_started():
    # The second connection opens after the end: it never takes a slot, and its results are those of a
    # connection that has not started (no data, no handshake, its initial RTO).
    link = LinkParams(rate_bps=2e6, delay_s=0.01, queue_packets=50)
    tcp = TcpParams(initial_rto_s=2.5)
    conns = (Connection(0, 1, tcp, closer="server"), Connection(0, 1, tcp, open_time_s=50.0, closer="server"))
    msgs = (Message(0, 300, "client"), Message(0, 5000, "server", after_message=0),
            Message(1, 300, "client", start_time_s=50.0))
    r = simulate(Scenario(chain(1, link), conns, msgs, duration_s=5.0))
    assert np.isfinite(r.closed_s[0]) and np.isnan(r.established_s[1]) and np.isnan(r.closed_s[1])
    assert np.isnan(r.timewait_s[1]) and np.isnan(r.srtt_s[1]).all()
    assert r.delivered_bytes[1].tolist() == [0, 0] and r.segments_sent[1].tolist() == [0, 0]
    assert r.rto_s[1].tolist() == [2.5, 2.5]
    assert np.isnan(r.message_write_s[2])


def test_prefetching_changes_nothing():
    # The event loop's cache hints (on by default only for scenarios of 20k connections and more) change no
    # value: a lossy run of overlapping fetches, with the hints forced on and off, is the same run.
    link = LinkParams(rate_bps=5e6, delay_s=0.05, queue_packets=20, loss_prob=0.03)
    sc = _fetches(60, 0.05, link, size=15_000)
    _, on = _run(sc, {"hint": True})
    _, off = _run(sc, {"hint": False})
    assert on.retransmits.sum() > 0
    _same(on, off)
