"""Memory bounded by what is alive: per-half scoreboard and out-of-order rows are recycled, and a run
that outgrows its row tables (paused, grown, resumed) gives bit-identical results."""

import numpy as np

from simcore.packet import LinkParams, Scenario, chain, request_response_scenario, simulate
from simcore.packet.kernel import layout as L
from simcore.packet.simulate import _build, _result, run_to_end


def _run(sc, caps):
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    X = run_to_end(_build(sc, seeds, False, caps)[0])
    assert X.st[0]["flags"] == 0
    isn = np.zeros((len(sc.connections), 2), np.uint64)  # capture ISNs: not what these tests compare
    return X, _result(sc, X, isn)


def _same(a, b):
    for f in ("message_done_s", "established_s", "closed_s", "delivered_bytes", "segments_sent"):
        assert np.array_equal(getattr(a, f), getattr(b, f), equal_nan=True), f
    assert a.events == b.events


def test_sequential_connections_reuse_a_few_rows():
    # 300 HTTP/1.0 fetches, each connection opened when the previous object has arrived: at most two
    # connections are ever open at once, so the 600 halves share the first rows of the tables.
    link = LinkParams(rate_bps=10e6, delay_s=0.01, queue_packets=100)
    sc = request_response_scenario(chain(1, link), 0, 1, 200, [3000] * 300, persistent=False, duration_s=100.0)
    X, recycled = _run(sc, {"first_rows": 256})
    assert X.seg.shape[0] == 256 < 600 and X.ooo.shape[0] == 256
    assert np.isfinite(recycled.message_done_s).all()
    _, full = _run(sc, {"rows_full": True})
    _same(recycled, full)
    _same(recycled, simulate(sc))  # simulate() takes the same path


def test_many_concurrent_connections_grow_the_tables_and_resume():
    # 200 connections open at once (400 halves > 256 rows): the run pauses, the tables grow, it resumes.
    link = LinkParams(rate_bps=10e6, delay_s=0.01, queue_packets=1000)
    base = request_response_scenario(chain(1, link), 0, 1, 200, [3000], persistent=False, duration_s=10.0)
    conns = base.connections * 200
    msgs = tuple(type(m)(k, m.size_bytes, m.sender, after_message=-1 if m.sender == "client" else 2 * k)
                 for k in range(200) for m in base.messages)
    sc = Scenario(base.network, conns, msgs, duration_s=10.0)
    X, grown = _run(sc, {"first_rows": 256})
    assert X.seg.shape[0] == 400
    _, full = _run(sc, {"rows_full": True})
    _same(grown, full)
    assert np.isfinite(grown.message_done_s).all()


def test_a_trace_that_overflows_is_counted_on_and_each_trace_resized_exactly():
    # Trace tables of 10 rows: the run sets each overflow flag, keeps counting, and simulate's rerun sizes
    # each trace from its own count, so the traced result equals the counts the overflowing run reported.
    link = LinkParams(rate_bps=10e6, delay_s=0.01, queue_packets=100)
    sc = request_response_scenario(chain(1, link), 0, 1, 200, [30_000] * 5, persistent=True, duration_s=10.0)
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)
    small = {"trace_pkt": 10, "trace_tcp": 10, "trace_queue": 10}
    X = run_to_end(_build(sc, seeds, True, small)[0])
    st = X.st[0]
    assert st["flags"] & L.OVF_PKTTR and st["flags"] & L.OVF_TCPTR and st["flags"] & L.OVF_QTR
    n = (int(st["n_pkttr"]), int(st["n_tcptr"]), int(st["n_qtr"]))
    assert min(n) > 10
    exact = {"trace_pkt": n[0], "trace_tcp": n[1], "trace_queue": n[2]}
    Y = run_to_end(_build(sc, seeds, True, exact)[0])
    assert Y.st[0]["flags"] == 0
    assert (Y.tr_pkt.shape[0], Y.tr_tcp.shape[0], Y.tr_queue.shape[0]) == n  # three sizes, not the largest
    assert int(Y.st[0]["events"]) == int(st["events"])  # tracing never changes the run
