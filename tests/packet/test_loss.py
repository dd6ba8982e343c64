"""Loss recovery: the Mathis law under random loss, and Reno < NewReno < SACK with several losses per window."""

import numpy as np
import pytest

from simcore.packet import (
    VARIANTS,
    Connection,
    LinkParams,
    Message,
    Scenario,
    TcpParams,
    bulk_scenario,
    chain,
    mathis_throughput_bps,
    simulate,
)


@pytest.mark.parametrize("p", [0.005, 0.02])
def test_throughput_under_random_loss_follows_mathis(p):
    mss, d, rate = 1460, 0.05, 100e6
    link = LinkParams(rate_bps=rate, delay_s=d, queue_packets=10000, loss_prob=p)
    tcp = TcpParams(variant="newreno", mss_bytes=mss, rwnd_bytes=1 << 24, min_rto_s=0.2)
    sc = bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=200.0)
    goodput = np.mean([simulate(sc, seed=s).goodput_bps[0, 0] for s in range(2)])
    rtt = 2 * d + (mss + 40) * 8 / rate + 40 * 8 / rate
    assert abs(goodput / mathis_throughput_bps(mss, rtt, p) - 1) < 0.25


def _transfer_time(variant, drops):
    link = LinkParams(rate_bps=10e6, delay_s=0.05, queue_packets=1000, drop_sequence=drops)
    tcp = TcpParams(variant=variant, mss_bytes=1000, rwnd_bytes=25000, initial_window_segments=2)
    sc = Scenario(chain(1, link), (Connection(0, 1, tcp),), (Message(0, 300_000),), duration_s=30.0)
    r = simulate(sc)
    assert r.delivered_bytes[0, 0] == 300_000
    return r.message_latency_s[0], r


@pytest.mark.parametrize("n_losses", [3, 4])
def test_several_losses_in_one_window_newreno_beats_reno_and_sack_beats_newreno(n_losses):
    drops = tuple(range(80, 80 + 2 * n_losses, 2))  # every other packet of one 25-segment window
    t = {v: _transfer_time(v, drops) for v in VARIANTS}
    assert t["reno"][0] > t["newreno"][0] > t["sack"][0]
    assert t["newreno"][1].timeouts[0, 0] == 0 and t["sack"][1].timeouts[0, 0] == 0
    # NewReno repairs one loss per round trip; SACK repairs them all in the first.
    rtt = 0.1 + 1040 * 8 / 10e6 + 40 * 8 / 10e6
    one_loss = _transfer_time("newreno", drops[:1])[0]
    assert t["newreno"][0] - one_loss == pytest.approx((n_losses - 1) * rtt, rel=0.1)
    assert t["sack"][0] - one_loss < 0.5 * rtt


def test_random_loss_ranks_the_variants_on_average():
    link = LinkParams(rate_bps=10e6, delay_s=0.05, queue_packets=10000, loss_prob=0.02)
    mean = {}
    for v in VARIANTS:
        tcp = TcpParams(variant=v, rwnd_bytes=1 << 20, min_rto_s=0.2)
        sc = bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=100.0)
        mean[v] = np.mean([simulate(sc, seed=s).goodput_bps[0, 0] for s in range(3)])
    assert mean["reno"] < mean["newreno"] < mean["sack"]
