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
    padhye_throughput_bps,
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


def test_padhye_closed_form_limits():
    # no timeouts (T0 -> 0) and b = 1: PFTK's first term is Mathis's law, 1 / (RTT sqrt(2p/3))
    assert padhye_throughput_bps(1460, 0.1, 0.01, 1e-12) == pytest.approx(mathis_throughput_bps(1460, 0.1, 0.01))
    # by hand, p = 0.01, RTT = 0.1 s, T0 = 1 s, b = 1, 1000-byte segments:
    # 0.1 sqrt(0.02/3) = 0.0081650; 1 * 3 sqrt(0.03/8) * 0.01 * 1.0032 = 0.0018430; 1/0.010008 = 99.92 /s
    assert padhye_throughput_bps(1000, 0.1, 0.01, 1.0) == pytest.approx(99.92 * 8000, rel=1e-4)
    # delayed ACKs (b = 2) slow the window's growth; Wmax caps the rate at Wmax / RTT
    assert padhye_throughput_bps(1000, 0.1, 0.01, 1.0, 2) < padhye_throughput_bps(1000, 0.1, 0.01, 1.0)
    assert padhye_throughput_bps(1000, 0.1, 1e-6, 1.0, max_window_bytes=10_000) == pytest.approx(800_000)


@pytest.mark.parametrize("p", [0.01, 0.03, 0.1])
def test_reno_send_rate_under_random_loss_follows_padhye(p):
    # PFTK models Reno with timeouts; T0 = 1 s (min_rto_s = 1 s exceeds srtt + 4 rttvar at a 100 ms RTT).
    # Tolerance 35%: the model takes the rest of a round as lost after a loss, while these losses are
    # independent (Bernoulli), so Reno meets more multiple-loss windows than the model; Karn's rule keeps
    # a backed-off RTO until the next valid sample, which PFTK's T0 (reset after every timeout) ignores.
    # Measured here: ratios 1.08, 0.99, 0.70 at 1, 3, 10% (lowest at high loss, where timeouts and
    # backoff dominate); 35% keeps the test sensitive to a factor-of-two error in either direction.
    mss, d = 1460, 0.05
    link = LinkParams(rate_bps=100e6, delay_s=d, queue_packets=10000, loss_prob=p)
    tcp = TcpParams(variant="reno", mss_bytes=mss, rwnd_bytes=1 << 24, min_rto_s=1.0)
    sc = bulk_scenario(chain(1, link), [(0, 1)], tcp, duration_s=300.0)
    sent_bps = np.mean([simulate(sc, seed=s).segments_sent[0, 0] * mss * 8 / 300.0 for s in range(3)])
    rtt = 2 * d + (mss + 40) * 8 / 100e6 + 40 * 8 / 100e6
    assert abs(sent_bps / padhye_throughput_bps(mss, rtt, p, 1.0) - 1) < 0.35


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
