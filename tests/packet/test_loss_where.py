"""Where a link's losses strike: after transmission (a noisy wire) or on arrival (Dummynet, netem)."""

import numpy as np
import pytest

from simcore.packet import CbrSource, LinkParams, Scenario, chain, dumbbell, simulate

S = 1000  # bytes per CBR packet
C = 8e6  # link rate: a packet takes TAU = 1 ms
TAU = S * 8 / C
D = 0.01


def _burst(where, drops=(1,), n=5):
    """Five packets arrive 0.1 ms apart (ten times the link rate) at a 3-packet buffer; packet 1 is lost."""
    link = LinkParams(rate_bps=C, delay_s=D, queue_packets=3, drop_sequence=drops, loss_where=where)
    src = CbrSource(0, 1, rates_bps=(10 * C,), packet_bytes=S, start_s=0.0, stop_s=(n - 0.5) * TAU / 10)
    return simulate(Scenario(chain(1, link), cbr=(src,), duration_s=1.0))


def test_a_packet_lost_after_transmission_used_the_buffer_and_the_link():
    # By hand: packets k = 0..4 arrive at k TAU/10. Packets 0, 1, 2 fill the buffer (1 is transmitted,
    # 1..2 ms, then lost), 3 and 4 find it full. Packet 2 leaves at 3 TAU.
    r = _burst("after_transmission")
    assert r.cbr_sent[0] == 5
    assert (r.link_drops_loss[0], r.link_drops_queue[0], r.link_packets[0]) == (1, 2, 3)
    assert r.cbr_delay_s == pytest.approx([TAU + D, 3 * TAU + D - 0.2 * TAU], abs=1e-12)


def test_a_packet_lost_on_arrival_uses_no_buffer_and_no_link_time():
    # By hand: packet 1 vanishes on arrival; 0, 2, 3 fill the buffer and leave at TAU, 2 TAU, 3 TAU;
    # only packet 4 finds it full.
    r = _burst("arrival")
    assert (r.link_drops_loss[0], r.link_drops_queue[0], r.link_packets[0]) == (1, 1, 3)
    assert r.cbr_delay_s == pytest.approx([TAU + D, 2 * TAU + D - 0.2 * TAU, 3 * TAU + D - 0.3 * TAU], abs=1e-12)


@pytest.mark.parametrize("where", ["after_transmission", "arrival"])
def test_random_loss_rate_and_link_accounting(where):
    p, n = 0.3, 2000
    link = LinkParams(rate_bps=C, delay_s=D, queue_packets=100, loss_prob=p, loss_where=where)
    src = CbrSource(0, 1, rates_bps=(C / 2,), packet_bytes=S, stop_s=n * 2 * TAU - TAU)  # no queueing
    r = simulate(Scenario(chain(1, link), cbr=(src,), duration_s=10.0), seed=3)
    lost = r.link_drops_loss[0]
    assert r.cbr_sent[0] == n and r.cbr_received[0] == n - lost and r.link_drops_queue[0] == 0
    assert abs(lost - p * n) < 4 * np.sqrt(n * p * (1 - p))
    # a packet lost after transmission was sent on the link; one lost on arrival was not
    assert r.link_packets[0] == (n if where == "after_transmission" else n - lost)


def test_one_setting_loses_packets_on_both_directions_of_the_dumbbell():
    lossy = LinkParams(loss_prob=0.05, loss_where="arrival", drop_sequence=(4,))
    one_way = dumbbell(1, lossy).network.links[1].params
    both = dumbbell(1, lossy, symmetric_loss=True).network.links[1].params
    assert (one_way.loss_prob, one_way.drop_sequence) == (0.0, ())
    assert (both.loss_prob, both.loss_where, both.drop_sequence) == (0.05, "arrival", ())
    assert chain(1, lossy).links[1].params.loss_prob == 0.05  # duplex links share one LinkParams


def test_loss_where_is_validated():
    with pytest.raises(ValueError, match="loss_where='before'"):
        LinkParams(loss_where="before")
