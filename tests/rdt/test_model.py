"""simcore.rdt against hand-derived event sequences (K&R figs. 3.16, 3.22, 3.27) and the closed forms.

Times in the hand traces are in packet times: L = 1000 bytes at R = 8 Mbit/s, so L/R = 1 ms; RTT = 3.5 ms (each
way 1.75 ms), ACKs take no time, timeout 6.5 ms. Each expected row was worked out on paper from the protocol's
rules (K&R figs. 3.20/3.21 for GBN, 3.23-3.26 for SR), not read from the code's output.
"""

import math

import numpy as np
import pytest

from simcore.rdt import RdtParams, simulate_rdt
from simcore.rdt.model import ACTIONS
from simcore.rdt.theory import (
    go_back_n_classic_efficiency,
    go_back_n_efficiency,
    go_back_n_loss_costs_s,
    selective_repeat_efficiency,
    sr_window_never_binds,
    stop_and_wait_lossy_efficiency,
    stop_and_wait_utilisation,
)

MS = 1e-3
TRACE = dict(window=4, packet_bytes=1000, rate_bps=8e6, rtt_s=3.5 * MS, timeout_s=6.5 * MS, n_packets=6,
             duration_s=1.0, drop_data=(2,))


def _data(res):
    return [(round(t / MS, 6), int(s), bool(r), ACTIONS[int(a)])
            for t, s, r, a in zip(res.data_start_s, res.data_seq, res.data_retx, res.data_action, strict=True)]


def _acks(res):
    arr = [None if math.isnan(a) else round(a / MS, 6) for a in res.ack_arrive_s]
    return [(round(t / MS, 6), int(n), a) for t, n, a in zip(res.ack_start_s, res.ack_no, arr, strict=True)]


def test_go_back_n_in_operation_as_kurose_ross_figure_3_22():
    # pkt2 is lost; pkt3 (and pkt4, pkt5, sent as ACK0 and ACK1 slide the window) are discarded, each answered
    # by a duplicate ACK1; the timer, restarted by ACK1 at 5.5, fires at 12.0 and pkt2-pkt5 go again.
    res = simulate_rdt(RdtParams(protocol="gbn", **TRACE), seed=0)
    assert _data(res) == [
        (0.0, 0, False, "delivered"), (1.0, 1, False, "delivered"), (2.0, 2, False, "lost"),
        (3.0, 3, False, "discarded"), (4.5, 4, False, "discarded"), (5.5, 5, False, "discarded"),
        (12.0, 2, True, "delivered"), (13.0, 3, True, "delivered"), (14.0, 4, True, "delivered"),
        (15.0, 5, True, "delivered")]
    assert _acks(res) == [(2.75, 0, 4.5), (3.75, 1, 5.5), (5.75, 1, 7.5), (7.25, 1, 9.0), (8.25, 1, 10.0),
                          (14.75, 2, 16.5), (15.75, 3, 17.5), (16.75, 4, 18.5), (17.75, 5, 19.5)]
    assert np.allclose(res.timeout_at_s / MS, [12.0]) and list(res.timeout_seq) == [2]
    assert res.completed and res.end_s == pytest.approx(19.5 * MS)
    assert np.allclose(res.delivered_at_s / MS, [2.75, 3.75, 14.75, 15.75, 16.75, 17.75])


def test_go_back_n_timer_restarted_by_every_ack_as_figure_3_20_is_printed():
    # the duplicate ACK1s (arriving 7.5, 9.0, 10.0) restart the timer too: it fires at 10.0 + 6.5
    res = simulate_rdt(RdtParams(protocol="gbn", timer_restart="every_ack", **TRACE), seed=0)
    assert np.allclose(res.timeout_at_s / MS, [16.5])
    assert [(t, s) for t, s, _, _ in _data(res)][6:] == [(16.5, 2), (17.5, 3), (18.5, 4), (19.5, 5)]


def test_selective_repeat_in_operation_as_kurose_ross_figure_3_27():
    # pkt3-5 are buffered and ACKed one by one; ACK3-5 mark them but the base stays at 2; pkt2's own timer
    # (set at 2.0) fires at 8.5; its arrival at 11.25 delivers 2-5 together and ACK2 ends the transfer.
    res = simulate_rdt(RdtParams(protocol="sr", **TRACE), seed=0)
    assert _data(res) == [
        (0.0, 0, False, "delivered"), (1.0, 1, False, "delivered"), (2.0, 2, False, "lost"),
        (3.0, 3, False, "buffered"), (4.5, 4, False, "buffered"), (5.5, 5, False, "buffered"),
        (8.5, 2, True, "delivered")]
    assert _acks(res) == [(2.75, 0, 4.5), (3.75, 1, 5.5), (5.75, 3, 7.5), (7.25, 4, 9.0), (8.25, 5, 10.0),
                          (11.25, 2, 13.0)]
    assert np.allclose(res.timeout_at_s / MS, [8.5]) and list(res.timeout_seq) == [2]
    assert np.allclose(res.delivered_at_s / MS, [2.75, 3.75, 11.25, 11.25, 11.25, 11.25])
    assert res.end_s == pytest.approx(13.0 * MS)


def test_selective_repeat_receiver_acks_again_below_its_window():
    # the ACK of pkt0 is lost: pkt0's timer (timeout 6.25) fires at 6.25 although pkt0 was delivered at 2.75; the
    # receiver, whose window has moved on to 4-7, ACKs it again (K&R fig. 3.26) and counts it a duplicate
    trace = {**TRACE, "drop_data": (), "drop_ack": (0,), "timeout_s": 6.25 * MS}
    res = simulate_rdt(RdtParams(protocol="sr", **trace), seed=0)
    assert (6.25, 0, True, "duplicate") in _data(res)
    assert res.duplicates == 1 and np.allclose(res.timeout_at_s / MS, [6.25])
    assert (9.0, 0, 10.75) in _acks(res)


def test_rdt30_lost_ack_and_premature_timeout_as_figure_3_16():
    base = dict(protocol="saw", window=1, packet_bytes=1000, rate_bps=8e6, rtt_s=3.5 * MS, n_packets=3,
                duration_s=1.0)
    # (c) lost ACK: ACK1 lost, timeout at 4.5 + 6.5 = 11.0, pkt1 again: a duplicate, ACKed again
    res = simulate_rdt(RdtParams(timeout_s=6.5 * MS, drop_ack=(1,), **base), seed=0)
    assert _data(res) == [(0.0, 0, False, "delivered"), (4.5, 1, False, "delivered"), (11.0, 1, True, "duplicate"),
                          (15.5, 2, False, "delivered")]
    assert _acks(res) == [(2.75, 0, 4.5), (7.25, 1, None), (13.75, 1, 15.5), (18.25, 2, 20.0)]
    # (d) premature timeout (4 ms < L/R + RTT = 4.5 ms): pkt0 goes again at 4.0; its ACK comes at 4.5 while the
    # link still sends the copy, so pkt1 starts at 5.0; the duplicate ACK0 (8.5) is ignored, and pkt1's timer
    # (set at 5.0) fires at 9.0 before its ACK (9.5): the premature timeout repeats on every packet
    res = simulate_rdt(RdtParams(timeout_s=4.0 * MS, **base), seed=0)
    rows = _data(res)
    assert rows[:4] == [(0.0, 0, False, "delivered"), (4.0, 0, True, "duplicate"), (5.0, 1, False, "delivered"),
                        (9.0, 1, True, "duplicate")]
    assert res.duplicates >= 2 and res.completed


def test_stop_and_wait_is_go_back_n_and_selective_repeat_with_a_window_of_one():
    common = dict(window=1, packet_bytes=1200, rate_bps=2e6, rtt_s=0.03, timeout_s=0.05, loss_data=0.2,
                  loss_ack=0.1, duration_s=5.0)
    runs = [simulate_rdt(RdtParams(protocol=p, **common), seed=7) for p in ("saw", "gbn", "sr")]
    for other in runs[1:]:
        for field in ("data_start_s", "data_seq", "data_action", "ack_start_s", "ack_no", "timeout_at_s"):
            assert np.array_equal(getattr(runs[0], field), getattr(other, field)), field


def test_same_seed_same_run_and_seeds_differ():
    p = RdtParams(protocol="sr", window=8, loss_data=0.1, loss_ack=0.05, duration_s=3.0)
    a, b, c = simulate_rdt(p, 3), simulate_rdt(p, 3), simulate_rdt(p, 4)
    assert np.array_equal(a.data_start_s, b.data_start_s) and np.array_equal(a.data_action, b.data_action)
    assert not np.array_equal(a.data_action, c.data_action)
    assert simulate_rdt(p, np.int64(3)).transmissions == a.transmissions


def test_kurose_ross_utilisation_example():
    # K&R 3.4.2: L = 8000 bits, R = 1 Gbit/s, RTT = 30 ms: U = 0.008 / 30.008 = 0.00027
    assert stop_and_wait_utilisation(8000, 1e9, 0.030) == pytest.approx(0.008 / 30.008)
    assert round(stop_and_wait_utilisation(8000, 1e9, 0.030), 5) == 0.00027
    # the simulation of that link, 2 s: one packet per 30.008 ms
    res = simulate_rdt(RdtParams(protocol="saw", window=1, packet_bytes=1000, rate_bps=1e9, rtt_s=0.030,
                                 timeout_s=0.05, duration_s=2.0), seed=0)
    assert res.transmissions == math.floor(2.0 / 0.030008) + 1
    assert res.utilisation == pytest.approx(0.00027, abs=0.000005)


@pytest.mark.parametrize("window", [1, 3, 5, 6, 12])
def test_lossless_pipelining_matches_n_times_stop_and_wait(window):
    # L/R = 8 ms, RTT = 40 ms: U = min(1, N * 8/48); a long run's delivered fraction after the first RTT
    p = RdtParams(protocol="gbn", window=window, rtt_s=0.040, timeout_s=0.1, duration_s=48.0)
    assert simulate_rdt(p, 0).efficiency_after(0.048) == pytest.approx(min(1.0, window * 8 / 48), rel=2e-3)


def _interval(values):
    v = np.asarray(values)
    return v.mean(), 2.262 * v.std(ddof=1) / math.sqrt(v.size)  # 95% Student t, 10 seeds


def _seeds(params, warmup_s):
    return _interval([simulate_rdt(params, seed).efficiency_after(warmup_s) for seed in range(10)])


# L/R = 1 ms, RTT = 10.5 ms, timeout 15.25 ms: no tie between a timeout and the end of a transmission
LOSSY = dict(packet_bytes=1000, rate_bps=8e6, rtt_s=10.5 * MS, timeout_s=15.25 * MS, duration_s=20.0)


@pytest.mark.parametrize("p_data, p_ack", [(0.1, 0.0), (0.2, 0.1)])
def test_stop_and_wait_with_loss_matches_its_renewal_formula(p_data, p_ack):
    p = RdtParams(protocol="saw", window=1, loss_data=p_data, loss_ack=p_ack, **LOSSY)
    mean, half = _seeds(p, 0.1)
    q = (1 - p_data) * (1 - p_ack)
    expected = 1.0 / (1.0 + 10.5 + (1 - q) / q * 15.25)  # by hand: packet times per delivered packet
    assert expected == pytest.approx(stop_and_wait_lossy_efficiency(MS, 10.5 * MS, 15.25 * MS, p_data, p_ack))
    assert abs(mean - expected) <= half + 1e-4, (mean, half, expected)


@pytest.mark.parametrize("p_data, p_ack", [(0.05, 0.0), (0.2, 0.1)])
def test_selective_repeat_with_a_large_window_delivers_q_of_the_link(p_data, p_ack):
    # 256 packet times: a packet would have to fail 15 times in a row (0.28**15 = 5e-9) to stop the sender; with
    # 64, four failures in a row (0.28**4 = 0.6 %) stop it for about 12 packet times, visibly below q
    p = RdtParams(protocol="sr", window=256, loss_data=p_data, loss_ack=p_ack, **LOSSY)
    assert sr_window_never_binds(256, MS, 10.5 * MS, 15.25 * MS)
    mean, half = _seeds(p, 0.1)
    expected = (1 - p_data) * (1 - p_ack)
    assert expected == selective_repeat_efficiency(p_data, p_ack)
    assert abs(mean - expected) <= half + 1e-4, (mean, half, expected)


@pytest.mark.parametrize("p_data", [0.02, 0.1, 0.3])
def test_go_back_n_with_loss_matches_its_renewal_formula(p_data):
    # D1: ACK of the previous packet at RTT = 10.5 after the lost one starts, timer 15.25 later: 25.75, rounded up
    # to the end of the packet then on the link: 26 packet times; D2 = 15.25 -> 16 (window 40 keeps it busy)
    assert go_back_n_loss_costs_s(40, MS, 10.5 * MS, 15.25 * MS) == pytest.approx((26 * MS, 16 * MS))
    p = RdtParams(protocol="gbn", window=40, loss_data=p_data, **LOSSY)
    mean, half = _seeds(p, 0.1)
    expected = 1.0 / (1.0 + p_data * 26 + p_data**2 * 16 / (1 - p_data))
    assert expected == pytest.approx(go_back_n_efficiency(40, MS, 10.5 * MS, 15.25 * MS, p_data))
    assert abs(mean - expected) <= half + 1e-4, (mean, half, expected)


def test_go_back_n_formula_reduces_to_the_classic_form():
    # going back exactly K packet times after every loss: (1-p)/(1+(K-1)p)
    p, k = 0.1, 26
    assert 1.0 / (1.0 + p * k + p * p * k / (1 - p)) == pytest.approx(go_back_n_classic_efficiency(p, k))
    assert go_back_n_classic_efficiency(0.0, 26) == 1.0


def test_selective_repeat_beats_go_back_n_under_loss_and_both_beat_stop_and_wait():
    common = dict(loss_data=0.1, **LOSSY)
    gbn = simulate_rdt(RdtParams(protocol="gbn", window=40, **common), 1).efficiency
    sr = simulate_rdt(RdtParams(protocol="sr", window=40, **common), 1).efficiency
    saw = simulate_rdt(RdtParams(protocol="saw", window=1, **common), 1).efficiency
    assert sr > gbn > saw


@pytest.mark.parametrize("bad, match", [
    (dict(protocol="tcp"), "protocol='tcp'"),
    (dict(window=0), r"window=0 is out of range.*\[1, 4096\]"),
    (dict(protocol="saw", window=4), "window=4 is not allowed with protocol='saw'"),
    (dict(loss_data=0.95), r"loss_data=0.95 is out of range.*\[0, 0.9\]"),
    (dict(timeout_s=0.0), r"timeout_s=0.0 is out of range"),
    (dict(rate_bps=float("nan")), "rate_bps=nan"),
    (dict(drop_data=(-1,)), r"drop_data\[0\]=-1"),
    (dict(ack_bytes=2000), r"ack_bytes=2000 is out of range.*\[0, 1000\]"),
    (dict(timer_restart="sometimes"), "timer_restart='sometimes'"),
    (dict(duration_s=1e5), "more than the 2,000,000 that run in about a second"),
])
def test_bad_parameters_are_refused_with_the_range(bad, match):
    with pytest.raises(ValueError, match=match):
        RdtParams(**bad)


def test_numpy_scalars_are_accepted():
    p = RdtParams(window=np.int64(8), rtt_s=np.float64(0.02), loss_data=np.float32(0.1), drop_data=(np.int64(3),))
    assert p.window == 8 and simulate_rdt(p, np.int64(1)).transmissions > 0


def test_memory_stays_bounded_at_the_largest_run():
    # the largest run allowed: 2e6 packet times; its records are one row per transmission (~70 bytes each)
    p = RdtParams(protocol="sr", window=4096, rate_bps=1e12, packet_bytes=1000, rtt_s=1e-6, timeout_s=1e-5,
                  duration_s=1.5e-2, loss_data=0.1)
    assert p.max_transmissions <= 2_000_000
    res = simulate_rdt(p, 0)
    assert res.transmissions <= p.max_transmissions


def test_max_sends_cuts_a_flooding_run_short():
    # a 1 ms timeout on a 400 ms path: every packet goes again each ms; the run stops at its 500th transmission
    p = RdtParams(protocol="sr", window=8, rate_bps=1e9, rtt_s=0.4, timeout_s=1e-3, duration_s=5.0, max_sends=500)
    res = simulate_rdt(p, 0)
    assert res.cut and not res.completed and res.transmissions == 500
    assert res.end_s == pytest.approx(res.data_start_s[-1] + 1e-3, abs=1e-3)  # the next send would have started
    assert res.duplicates == 0 and res.delivered == 0  # nothing can arrive before 0.2 s
    with pytest.raises(ValueError, match="max_sends=-1"):
        RdtParams(max_sends=-1)
