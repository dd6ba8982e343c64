"""Bad parameters raise clear ValueErrors; the same seed gives bit-identical results."""

import dataclasses

import numpy as np
import pytest

from simcore.packet import (
    CbrSource,
    Connection,
    FluidBackground,
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    bulk_scenario,
    dumbbell,
    padhye_throughput_bps,
    simulate,
)


@pytest.mark.parametrize(
    "make, match",
    [
        (lambda: LinkParams(rate_bps=-1.0), "rate_bps=-1.0 is out of range"),
        (lambda: LinkParams(rate_bps=0.0), "rate_bps"),
        (lambda: LinkParams(delay_s=-0.1), "delay_s"),
        (lambda: LinkParams(queue_packets=0), "queue_packets=0"),
        (lambda: LinkParams(loss_prob=1.0), "loss_prob"),
        (lambda: LinkParams(drop_sequence=(3, 2)), "drop_sequence"),
        (lambda: TcpParams(mss_bytes=0), "mss_bytes=0"),
        (lambda: TcpParams(mss_bytes=1460, rwnd_bytes=1000), "rwnd_bytes=1000 .* at least one segment"),
        (lambda: TcpParams(variant="vegas"), "variant='vegas' is not allowed"),
        (lambda: TcpParams(min_rto_s=0.0), "min_rto_s"),
        (lambda: TcpParams(initial_window_segments=0), "initial_window_segments"),
        (lambda: TcpParams(delayed_ack=1), "delayed_ack"),
        (lambda: TcpParams(dupack_threshold=0), "dupack_threshold=0"),
        (lambda: TcpParams(limited_transmit="yes"), "limited_transmit"),
        (lambda: TcpParams(timestamps=1), "timestamps"),
        (lambda: TcpParams(timestamps=True, mss_bytes=12), "mss_bytes=12"),
        (lambda: padhye_throughput_bps(1460, 0.1, 0.01, 0.0), "rto_s"),
        (lambda: FluidBackground((0.0, 1.0), (1e6,)), "equal length"),
        (lambda: FluidBackground((0.5,), (1e6,)), "start at 0"),
        (lambda: FluidBackground((0.0,), (-1.0,)), "rates_bps"),
        (lambda: FluidBackground((0.0,), (1.0,), granularity="bits"), "granularity"),
        (lambda: Link(1, 1), "must differ"),
        (lambda: Connection(0, 1, closer="both"), "closer"),
        (lambda: Message(0, 0), "size_bytes=0"),
        (lambda: Message(0, 10, sender="proxy"), "sender"),
        (lambda: CbrSource(0, 1, rates_bps=(1e6,), packet_bytes=0), "packet_bytes"),
    ],
)
def test_bad_parameters_raise_clear_errors(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_bad_scenarios_raise_clear_errors():
    net = Network(2, Network.duplex(0, 1, LinkParams()))
    with pytest.raises(ValueError, match="no path"):
        Network(3, Network.duplex(0, 1, LinkParams())).route(0, 2)
    with pytest.raises(ValueError, match="conn=1 is out of range"):
        Scenario(net, (Connection(0, 1),), (Message(1, 10),))
    with pytest.raises(ValueError, match="after_message=0 is not allowed"):
        Scenario(net, (Connection(0, 1),), (Message(0, 10, after_message=0),))
    with pytest.raises(ValueError, match="cycle"):
        Scenario(net, (Connection(0, 1),), (Message(0, 10, after_message=1), Message(0, 10, after_message=0)))
    with pytest.raises(ValueError, match="would never open"):
        Scenario(net, (Connection(0, 1, open_after_message=0),), (Message(0, 10),))
    with pytest.raises(ValueError, match="duration_s"):
        Scenario(net, duration_s=0.0)
    with pytest.raises(ValueError, match="seed"):
        simulate(Scenario(net), seed=-1)
    with pytest.raises(ValueError, match="trace"):
        simulate(Scenario(net), trace="yes")


def test_same_seed_gives_bit_identical_results_and_another_seed_differs():
    db = dumbbell(3, LinkParams(rate_bps=5e6, delay_s=0.01, queue_packets=20, loss_prob=0.01))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), duration_s=5.0)
    a, b, c = simulate(sc, seed=11, trace=True), simulate(sc, seed=11, trace=True), simulate(sc, seed=12)
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if f.name == "scenario":  # the parameters, not a result: the very object run
            assert x is y is sc
        elif dataclasses.is_dataclass(x):
            for g in dataclasses.fields(x):
                assert np.array_equal(getattr(x, g.name), getattr(y, g.name), equal_nan=True)
        elif isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f.name
        else:
            assert x == y, f.name
    assert not np.array_equal(a.goodput_bps, c.goodput_bps)
