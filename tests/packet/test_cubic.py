"""CUBIC (RFC 9438) against its own formulas, worked by hand.

The window function's hooks are driven directly (``tcp.cc.dispatch``) by an idealised ACK clock: each round trip
of ``rtt_s`` acknowledges the whole window of the round's start, one segment per ACK, evenly spaced. With
C = 0.4 segments/s^3 and beta = 0.7 (RFC 9438 sec. 5.1, 4.6):

- a loss at W_max = 100 segments leaves cwnd_epoch = 70, so K = cbrt((100 - 70) / 0.4) = cbrt(75) = 4.2172 s
  (eq. 2), and W_cubic(t) = 0.4 (t - 4.2172)^3 + 100 (eq. 1): 86.68 at t = 1 s, 100.00 at 4.2 s, 108.62 at 7 s;
- each ACK closes 1/cwnd of the gap to the target W_cubic(t + RTT) (sec. 4.4), so a round of cwnd ACKs closes
  about 1 - 1/e of it: the window lags its target by about one round trip and sits near W_cubic(t) itself;
- sec. 4.3's Reno-friendly estimate grows by alpha = 3 (0.3) / 1.7 = 0.5294 segments per round trip until it
  reaches cwnd_prior, then by 1;
- fast convergence (sec. 4.7): a loss at cwnd < W_max sets W_max = cwnd (1 + 0.7) / 2 = 0.85 cwnd.
"""

import math

import numpy as np
import pytest
from numba import njit

from simcore.packet import Connection as Conn
from simcore.packet import Link, LinkParams, Message, Network, Scenario, TcpParams
from simcore.packet.simulate import _build
from simcore.packet.tcp.cc.dispatch import CA_IDLE, CA_LOSS, CA_RECOVERY, cc_ack, cc_congestion, cc_init, cc_state

MSS = 1000


@njit
def _start(S, h, w_seg):
    cc_init(S, h, 0.0)
    S.half[h].cwnd = w_seg * 1000.0
    S.half[h].ssthresh = 1e30


@njit
def _loss(S, h, w_seg, kind, t):
    """A congestion event at cwnd = w_seg segments; the window the recovery leaves: 0.7 w (1 SMSS, timeout)."""
    S.half[h].cwnd = w_seg * 1000.0
    cc_congestion(S, h, kind, t)
    ss = 0.7 * w_seg * 1000.0
    S.half[h].ssthresh = ss
    S.half[h].cwnd = ss if kind == CA_RECOVERY else 1000.0
    cc_state(S, h, kind, t)


@njit
def _idle(S, h, t):
    cc_state(S, h, CA_IDLE, t)


@njit
def _rounds(S, h, t0, rtt_s, n, out):
    """``n`` round trips from ``t0``: each acknowledges the window of its start, a segment an ACK, evenly spaced;
    out[i] = cwnd in segments at the start of round i."""
    S.half[h].srtt = rtt_s
    for i in range(n):
        out[i] = S.half[h].cwnd / 1000.0
        k = int(S.half[h].cwnd / 1000.0)
        for j in range(k):
            cc_ack(S, h, 1000, t0 + i * rtt_s + (j + 1) * rtt_s / k)


def _state():
    net = Network(2, (Link(0, 1, LinkParams()), Link(1, 0, LinkParams())))
    sc = Scenario(net, (Conn(0, 1, TcpParams(congestion_control="cubic", mss_bytes=MSS)),), (Message(0, 1000),),
                  duration_s=1.0)
    S = _build(sc, np.zeros(2, np.uint64), False, {})[0]
    S.conn["cc"][0] = 1  # cubic (the slot's row is filled when a connection takes it)
    S.conn["mss"][0] = MSS
    S.conn["rwnd"][0] = 1 << 30
    return S


def _after_loss(w_max, rtt_s, n):
    S = _state()
    _start(S, 0, w_max)
    _loss(S, 0, w_max, CA_RECOVERY, 0.0)
    out = np.zeros(n)
    _rounds(S, 0, 0.0, rtt_s, n, out)
    return S, out


def test_k_is_the_time_to_climb_back_to_w_max():
    S, _ = _after_loss(100.0, 0.1, 1)
    assert S.cc["cubic_k_s"][0] == pytest.approx(4.2172, abs=1e-4)  # cbrt(75)
    assert S.cc["cubic_w_max_seg"][0] == 100.0 and S.cc["cubic_prior_seg"][0] == 100.0
    assert S.cc["cubic_epoch_s"][0] == pytest.approx(0.1 / 70)  # the first ACK in congestion avoidance


def test_the_window_follows_w_cubic_concave_below_w_max_and_convex_beyond():
    # 0.2 s round trips keep W_est (70 + 0.5294 per round: 81.1 at K, 88.5 at 7 s) below W_cubic: no Reno-friendly
    # region. Round i starts at t = 0.2 i; its window is near W_cubic(0.2 i)
    rtt = 0.2
    _, w = _after_loss(100.0, rtt, 37)
    for i, expect in ((5, 86.68), (21, 100.0), (35, 108.62)):
        assert w[i] == pytest.approx(expect, rel=0.005), i
    growth = np.diff(w)[2:34]  # rounds 2-35 (the first ones carry the jump from 70)
    t = rtt * np.arange(2, 34)
    below, beyond = growth[t < 3.9], growth[t > 4.5]
    assert np.all(np.diff(below) < 1e-9)  # concave: each round adds less than the one before
    assert np.all(np.diff(beyond) > -1e-9)  # convex: more
    assert below[0] > 1.0 and min(growth) < 0.05  # fast far from W_max, a plateau near it


def test_the_reno_friendly_region_takes_over_where_cubic_grows_slower_than_reno():
    # W_max = 100 with 20 ms round trips: W_est = 70 + 0.5294 n after n rounds until it reaches cwnd_prior = 100
    # (n = 30 / 0.5294 = 56.7), then + 1 a round. W_cubic lags far behind (80.44 at 0.56 s, 95.64 at 2 s), so the
    # window is W_est: 84.82 at n = 28, 100 + (100 - 56.7) = 143.3 at n = 100
    _, w = _after_loss(100.0, 0.02, 101)
    assert w[28] == pytest.approx(70 + 28 * 0.5294, rel=0.01)
    assert w[100] == pytest.approx(100 + (100 - 30 / 0.5294), rel=0.01)
    assert 0.4 * (2.0 - 75 ** (1 / 3)) ** 3 + 100 < 96  # W_cubic(2 s)


def test_the_target_is_at_most_one_and_a_half_windows():
    # W_max = 1000 left cwnd at 10 (say, a timeout's slow start ended early): K = cbrt(990 / 0.4) = 13.53 s. At the
    # stage's first ACKs W_cubic(t) is still about cwnd_epoch, below W_est (the Reno-friendly region); from t = 0.1 s
    # on W_cubic(t) > 31 > W_est and W_cubic(t + RTT) > 52 > 1.5 cwnd, so each acknowledged segment adds
    # exactly (1.5 w - w) / w = 0.5 segment: the second round of k ACKs adds k / 2
    S = _state()
    _start(S, 0, 1000.0)
    _loss(S, 0, 1000.0, CA_RECOVERY, 0.0)
    S.half["cwnd"][0] = S.half["ssthresh"][0] = 10 * MSS
    out = np.zeros(3)
    _rounds(S, 0, 0.0, 0.1, 3, out)
    assert out[2] == pytest.approx(out[1] + 0.5 * int(out[1]))
    assert out[2] < 1.5 * out[1] + 1e-9


def test_fast_convergence_releases_bandwidth_when_the_window_shrinks():
    S = _state()
    _start(S, 0, 100.0)
    _loss(S, 0, 100.0, CA_RECOVERY, 1.0)
    assert S.cc["cubic_w_max_seg"][0] == 100.0
    _loss(S, 0, 80.0, CA_RECOVERY, 2.0)  # below W_max: 80 (1 + 0.7) / 2
    assert S.cc["cubic_w_max_seg"][0] == pytest.approx(68.0) and S.cc["cubic_prior_seg"][0] == 80.0
    _loss(S, 0, 90.0, CA_RECOVERY, 3.0)  # above it: W_max = cwnd
    assert S.cc["cubic_w_max_seg"][0] == 90.0


def test_after_a_timeout_the_next_stage_starts_from_its_own_window():
    # sec. 4.8: K = 0 and W_max = cwnd_epoch in the first congestion avoidance after a timeout, so
    # W_cubic(t) = 0.4 t^3 + cwnd_epoch: slow growth at first (the Reno-friendly region leads)
    S = _state()
    _start(S, 0, 100.0)
    _loss(S, 0, 100.0, CA_LOSS, 1.0)
    assert S.half["cwnd"][0] == MSS and S.half["ssthresh"][0] == pytest.approx(70_000.0)
    S.half["cwnd"][0] = 70_000.0  # slow start reached ssthresh
    out = np.zeros(1)
    _rounds(S, 0, 2.0, 0.1, 1, out)
    assert S.cc["cubic_k_s"][0] == 0.0 and S.cc["cubic_w_max_seg"][0] == 70.0
    assert math.isclose(S.cc["cubic_epoch_s"][0], 2.0 + 0.1 / 70)


def test_idle_time_does_not_count_in_t():
    # sec. 4.2: t MUST NOT include idle periods. After a loss at W_max = 100 and 2 s of 0.2 s rounds the window is
    # about W_cubic(2) = 95.6; the sender then idles 10 s. Counting them, W_cubic(12.2) = 289 would be capped at
    # 1.5 cwnd, about +30 segments in a round; leaving them out, a new stage from 95.6 with K = cbrt(4.4 / 0.4) =
    # 2.2 s aims at 0.4 (0.2 - 2.2)^3 + 100 = 96.7 after a round: about one segment more
    S, w = _after_loss(100.0, 0.2, 11)
    assert w[10] == pytest.approx(95.64, rel=0.005)
    _idle(S, 0, 12.0)
    out = np.zeros(2)
    _rounds(S, 0, 12.0, 0.2, 2, out)
    assert 0.0 < out[1] - out[0] < 2.0
    assert S.cc["cubic_w_max_seg"][0] == 100.0
