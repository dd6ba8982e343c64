"""BulkScenario: the columns run exactly what the equivalent Scenario runs; bad columns are refused; the
kernel's buffer statistics equal those of the queue trace."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from simcore.packet import BulkScenario, Link, LinkParams, Network, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.satellite import SatelliteParams, build_satellite


def _arrays(res) -> dict:
    skip = {"scenario", "tcp_trace", "packet_trace", "queue_trace", "hop_trace", "sojourn_trace"}
    return {f.name: getattr(res, f.name) for f in dataclasses.fields(res) if f.name not in skip}


@pytest.mark.parametrize("arch, relay", [("base", "store_and_forward"), ("us_proxy", "store_and_forward"),
                                         ("us_proxy", "cut_through")])
def test_bulk_runs_bit_identically_to_its_scenario(arch, relay):
    p = SatelliteParams(architecture=arch, n_proxy_connections=4, relay=relay, n_traces=3, duration_s=40.0)
    bulk, _ = build_satellite(p, 3)
    a, b = simulate(bulk, seed=2), simulate(bulk.to_scenario(), seed=2)
    assert a.events == b.events > 1000
    for name, v in _arrays(a).items():
        assert np.array_equal(np.asarray(v), np.asarray(_arrays(b)[name]), equal_nan=True), name


def _tiny(**change) -> BulkScenario:
    net = Network(2, (Link(0, 1, LinkParams()), Link(1, 0, LinkParams())))
    cols = dict(conn_client=[0], conn_server=[1], conn_tcp=[0], conn_open_time_s=[0.0], conn_open_after=[-1],
                conn_closer=[1], msg_conn=[0, 0], msg_pool=[-1, -1], msg_sender=[0, 1], msg_size_bytes=[100, 5000],
                msg_start_s=[0.0, 0.0], msg_after=[-1, 0], msg_delay_s=[0.0, 0.0], msg_relay_of=[-1, -1])
    cols.update(change)
    return BulkScenario(net, (TcpParams(),), **cols, duration_s=5.0)


def test_a_tiny_bulk_request_completes():
    res = simulate(_tiny())
    assert np.isfinite(res.message_done_s).all() and res.delivered_bytes[0, 1] == 5000


@pytest.mark.parametrize("change, name", [
    (dict(conn_server=[0]), "conn_server"), (dict(conn_client=[2]), "conn_client"), (dict(conn_tcp=[1]), "conn_tcp"),
    (dict(conn_open_time_s=[-1.0]), "conn_open_time_s"), (dict(conn_closer=[2]), "conn_closer"),
    (dict(msg_conn=[0, 1]), "msg_conn"), (dict(msg_sender=[0, 2]), "msg_sender"),
    (dict(msg_size_bytes=[100, 0]), "msg_size_bytes"), (dict(msg_start_s=[np.nan, 0.0]), "msg_start_s"),
    (dict(msg_after=[-1, 1]), "msg_after"), (dict(msg_after=[1, -1]), "msg_after"),
    (dict(msg_delay_s=[0.0, -1.0]), "msg_delay_s"), (dict(conn_open_after=[0]), "conn_open_after"),
    (dict(msg_relay_of=[-1, 0]), "msg_relay_of"), (dict(msg_pool=[0, -1]), "msg_pool"),
    (dict(msg_size_bytes=[100]), "msg_size_bytes"),
])
def test_bad_columns_are_refused_by_name(change, name):
    with pytest.raises(ValueError, match=name):
        _tiny(**change)


def test_kernel_buffer_statistics_equal_the_queue_trace():
    db = dumbbell(3, LinkParams(rate_bps=2e6, delay_s=0.02, queue_packets=30))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="reno"), 8.0)
    res = simulate(sc, seed=1, trace=True)
    q = res.queue_trace
    for k in range(len(db.network.links)):
        b = q.bytes[q.link == k]
        assert res.link_queue_samples[k] == b.size
        if b.size:  # by hand from the trace: its mean and largest sample of this link
            assert res.link_queue_mean_bytes[k] == pytest.approx(b.sum() / b.size, rel=1e-12)
            assert res.link_queue_peak_bytes[k] == b.max()
    assert res.link_queue_peak_bytes.max() > 10_000  # the bottleneck did queue
    plain = simulate(sc, seed=1)
    assert np.array_equal(plain.link_queue_mean_bytes, res.link_queue_mean_bytes)
