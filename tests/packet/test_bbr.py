"""BBR v1 (``simcore.packet.tcp.cc.bbr``) and the delivery-rate samples it reads (``tcp.cc.rate``), worked by hand
from Cardwell et al. (ACM Queue 2016), draft-cardwell-iccrg-bbr-congestion-control-00 and
draft-cheng-iccrg-delivery-rate-estimation-00.

The state machine is driven directly: each ``_sample`` call hands BBR one ACK's rate sample (the fields
``rate.on_ack`` fills) and calls the seam's ``cc_ack_done``. With ``prior_delivered`` = everything delivered before
the ACK, every call starts a new round trip (draft sec. 4.1.1.3: a round ends when a segment sent after the previous
round's end is delivered). MSS 1000 bytes, IW 10 segments, RTprop 100 ms unless said.
"""

import math
from types import SimpleNamespace

import numpy as np
import pytest
from numba import njit

from simcore.packet import Connection as Conn
from simcore.packet import (
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    bulk_scenario,
    dumbbell,
    simulate,
)
from simcore.packet.kernel import layout as L
from simcore.packet.simulate import _build
from simcore.packet.tcp.cc import bbr, rate, registry
from simcore.packet.tcp.cc.dispatch import CA_OPEN, CA_RECOVERY, cc_ack_done, cc_congestion, cc_init, cc_state
from simcore.packet.tcp.cc.registry import CC_BBR

MSS = 1000
HIGH = 2.0 / math.log(2.0)


def _state(seed=0):
    net = Network(2, (Link(0, 1, LinkParams()), Link(1, 0, LinkParams())))
    sc = Scenario(net, (Conn(0, 1, TcpParams(congestion_control="bbr", mss_bytes=MSS)),), (Message(0, 100_000),),
                  duration_s=1.0)
    S = _build(sc, np.zeros(2, np.uint64), False, {})[0]
    assert S.seg.shape[1] >= 16 and S.rate.shape == S.seg.shape  # room for the rate tests' 11 segments
    S.conn["cc"][0] = CC_BBR  # the slot's row is filled when a connection takes it
    S.conn["mss"][0] = MSS
    S.conn["iw"][0] = 10
    S.conn["rwnd"][0] = 1 << 30
    S.conn["cc_seed"][0] = seed
    S.half["state"][0] = L.S_EST
    S.half["cwnd"][0] = 10.0 * MSS
    return S


@njit
def _start(S, t):
    cc_init(S, 0, t)


@njit
def _sample(S, t, rate_Bps, rtt_s, acked, inflight):
    """One ACK delivering ``acked`` bytes at ``t`` with a delivery-rate sample of ``rate_Bps`` (0: invalid), an RTT
    sample (< 0: none), ``inflight`` bytes left in flight; it starts a new round."""
    r = S.cc
    prior = r[0].rs_delivered
    r[0].rs_prior_delivered = prior
    r[0].rs_delivered = prior + acked
    r[0].rs_valid = 1 if rate_Bps > 0.0 else 0
    r[0].rs_rate_Bps = rate_Bps
    r[0].rs_rtt_s = rtt_s
    r[0].rs_acked_sacked = acked
    r[0].rs_prior_inflight = inflight + acked
    r[0].rs_inflight = inflight
    r[0].rs_sample_app_limited = 0
    cc_ack_done(S, 0, acked, t)


def _startup_to_drain(S):
    """Rounds at 0.1 s intervals: 200, 400, 800 kB/s (doubling), then 900, 950, 990 kB/s (growth below 25 %)."""
    _start(S, 0.0)
    for i, bw in enumerate((2e5, 4e5, 8e5, 9e5, 9.5e5, 9.9e5)):
        _sample(S, 0.1 * (i + 1), bw, 0.1, 2 * MSS, 1e6)
        yield bw


def test_startup_gains_are_2_over_ln2_and_pacing_starts_from_iw_over_the_first_rtt():
    S = _state()
    _start(S, 0.0)
    assert S.cc["bbr_mode"][0] == bbr.MODE_STARTUP
    assert S.cc["bbr_pacing_gain"][0] == S.cc["bbr_cwnd_gain"][0] == pytest.approx(2.8854, abs=1e-4)
    # before any RTT: IW over 1 ms (ns-3's and Linux's default), times the gain
    assert S.half["pace_rate_Bps"][0] == pytest.approx(HIGH * 10_000 / 0.001)
    _sample(S, 0.1, 0.0, 0.1, 0, 0)  # the handshake's ACK: an RTT of 100 ms, no rate sample yet
    assert S.cc["bbr_min_rtt_s"][0] == 0.1
    assert S.half["pace_rate_Bps"][0] == pytest.approx(HIGH * 10_000 / 0.1)  # 288.5 kB/s


def test_startup_ends_after_three_rounds_without_25_percent_growth_then_drain():
    S = _state()
    modes = []
    for _ in _startup_to_drain(S):
        modes.append(int(S.cc["bbr_mode"][0]))
    # full_bw: 200k, 400k, 800k (each >= 1.25 x the last); 900k < 1M, 950k < 1M, 990k < 1M: 3 rounds in a row
    assert modes == [bbr.MODE_STARTUP] * 5 + [bbr.MODE_DRAIN]
    assert S.cc["bbr_full_bw"][0] == 8e5 and S.cc["bbr_filled_pipe"][0] == 1
    assert S.cc["bbr_pacing_gain"][0] == pytest.approx(1 / HIGH) and S.cc["bbr_cwnd_gain"][0] == pytest.approx(HIGH)


def test_a_round_with_25_percent_growth_restarts_the_count():
    S = _state()
    _start(S, 0.0)
    for i, bw in enumerate((2e5, 4e5, 4.4e5, 4.8e5, 5.0e5, 5.2e5)):  # 500k >= 1.25 x 400k: count back to 0
        _sample(S, 0.1 * (i + 1), bw, 0.1, 2 * MSS, 1e6)
    assert S.cc["bbr_mode"][0] == bbr.MODE_STARTUP and S.cc["bbr_full_bw_count"][0] == 1
    assert S.cc["bbr_full_bw"][0] == 5e5


def test_drain_ends_at_one_bdp_in_flight_and_probe_bw_paces_at_gain_times_btlbw():
    S = _state(seed=3)
    for _ in _startup_to_drain(S):
        pass
    bdp = 9.9e5 * 0.1  # BtlBw x RTprop = 99,000 bytes; BBRInflight(1) = BDP + 3 MSS = 102,000
    _sample(S, 0.8, 9.9e5, 0.1, 2 * MSS, 103_000)
    assert S.cc["bbr_mode"][0] == bbr.MODE_DRAIN
    assert S.half["pace_rate_Bps"][0] == pytest.approx(9.9e5 / HIGH * 0.99)  # a 1 % margin
    _sample(S, 0.9, 9.9e5, 0.1, 2 * MSS, 102_000)
    assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_BW
    assert S.cc["bbr_cwnd_gain"][0] == 2.0
    i = S.cc["bbr_cycle_index"][0]
    gain = (1.25, 0.75, 1, 1, 1, 1, 1, 1)[i]
    assert i != 1 and S.cc["bbr_pacing_gain"][0] == gain
    assert S.half["pace_rate_Bps"][0] == pytest.approx(gain * 9.9e5 * 0.99)
    # cwnd climbs by what each ACK delivers up to cwnd_gain x BDP + 3 quanta (+ 2 MSS in the 1.25 phase)
    for k in range(200):
        _sample(S, 0.9 + 0.001 * (k + 1), 9.9e5, 0.1, 2 * MSS, 102_000)
    S.cc["bbr_cycle_index"][0] = 3  # a gain-1 phase: no extra 2 MSS
    S.cc["bbr_pacing_gain"][0] = 1.0
    _sample(S, 1.2, 9.9e5, 0.1, 2 * MSS, 102_000)
    assert S.half["cwnd"][0] == pytest.approx(2 * bdp + 3 * MSS)  # 201,000 bytes
    S.cc["bbr_cycle_index"][0] = 0
    S.cc["bbr_pacing_gain"][0] = 1.25
    S.cc["bbr_cycle_stamp"][0] = 1.2
    _sample(S, 1.21, 9.9e5, 0.1, 2 * MSS, 102_000)
    assert S.half["cwnd"][0] == pytest.approx(2 * bdp + 5 * MSS)


def test_the_gain_cycle_moves_on_after_one_rtprop_or_by_its_inflight_rules():
    S = _state()
    for _ in _startup_to_drain(S):
        pass
    _sample(S, 0.9, 9.9e5, 0.1, 2 * MSS, 100_000)
    c = S.cc
    c["bbr_cycle_index"][0] = 7  # the last gain-1 phase, begun at 1.0 s
    c["bbr_pacing_gain"][0] = 1.0
    c["bbr_cycle_stamp"][0] = 1.0
    _sample(S, 1.09, 9.9e5, 0.1, 2 * MSS, 100_000)
    assert c["bbr_cycle_index"][0] == 7  # not yet one RTprop (0.1 s)
    _sample(S, 1.11, 9.9e5, 0.1, 2 * MSS, 100_000)
    assert c["bbr_cycle_index"][0] == 0 and c["bbr_pacing_gain"][0] == 1.25
    # 1.25: one RTprop AND inflight >= BBRInflight(1.25) = 1.25 x 99,000 + 3,000 + 2,000 = 128,750 (prior inflight)
    _sample(S, 1.30, 9.9e5, 0.1, 2 * MSS, 120_000)
    assert c["bbr_cycle_index"][0] == 0
    _sample(S, 1.31, 9.9e5, 0.1, 2 * MSS, 126_750)  # prior inflight 128,750
    assert c["bbr_cycle_index"][0] == 1 and c["bbr_pacing_gain"][0] == 0.75
    # 0.75: before one RTprop once inflight <= BBRInflight(1) = 102,000
    _sample(S, 1.32, 9.9e5, 0.1, 2 * MSS, 105_000)
    assert c["bbr_cycle_index"][0] == 1
    _sample(S, 1.33, 9.9e5, 0.1, 2 * MSS, 100_000)  # prior inflight 102,000
    assert c["bbr_cycle_index"][0] == 2 and c["bbr_pacing_gain"][0] == 1.0


def test_probe_rtt_after_10_s_without_a_lower_rtt_at_4_segments_for_200_ms_then_back():
    S = _state()
    for _ in _startup_to_drain(S):
        pass
    _sample(S, 0.9, 9.9e5, 0.1, 2 * MSS, 100_000)  # PROBE_BW; RTprop 0.1 s, renewed by every sample of 0.1 s
    assert S.cc["bbr_min_rtt_stamp"][0] == pytest.approx(0.9)
    t = 1.0
    while t < 10.85:  # RTT samples of 120 ms only: RTprop's 0.1 s is not renewed after 0.9 s
        _sample(S, t, 9.9e5, 0.12, 2 * MSS, 100_000)
        assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_BW, t
        t = round(t + 0.1, 6)
    cwnd = S.half["cwnd"][0]
    _sample(S, 10.91, 9.9e5, 0.12, 2 * MSS, 100_000)  # 10.01 s after the stamp: expired
    assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_RTT and S.cc["bbr_n_probe_rtt"][0] == 1
    assert S.cc["bbr_min_rtt_s"][0] == 0.12  # the expired filter takes the sample there is
    assert S.half["cwnd"][0] == 4 * MSS and S.cc["bbr_prior_cwnd"][0] == cwnd
    assert S.cc["bbr_pacing_gain"][0] == 1.0
    _sample(S, 11.0, 9.9e5, 0.12, 2 * MSS, 4 * MSS)  # inflight down to 4 MSS: 200 ms from now
    assert S.cc["bbr_probe_rtt_done_t"][0] == pytest.approx(11.2)
    _sample(S, 11.15, 9.9e5, 0.12, 2 * MSS, 4 * MSS)
    assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_RTT
    _sample(S, 11.21, 9.9e5, 0.12, 2 * MSS, 4 * MSS)
    assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_BW  # the pipe was full: back to PROBE_BW, window restored
    # ... and this ACK's 2 MSS added, below the new target 2 x (990 kB/s x 0.12 s) + 3 MSS = 240,600 bytes
    assert S.half["cwnd"][0] == cwnd + 2 * MSS and S.cc["bbr_min_rtt_stamp"][0] == 11.21


def test_acks_that_deliver_nothing_in_startup_move_nothing_until_rtprop_expires_outside_an_idle_restart():
    """A half with no data of its own takes every segment its peer sends as an ACK that delivers nothing: no round,
    no sample (draft sec. 4.1), so STARTUP, the window and the pacing rate stay; once RTprop's 10 s are up PROBE_RTT
    starts (sec. 4.3.5: BBRCheckProbeRTT), unless the sender restarts from idle (``idle_restart``), and then the
    window is 4 SMSS."""
    S = _state()
    _start(S, 0.0)
    _sample(S, 0.1, 0.0, 0.1, MSS, 0)  # the handshake's RTT: RTprop 0.1 s, stamped at 0.1 s
    before = (S.half["cwnd"][0], S.half["pace_rate_Bps"][0])
    for t in (0.5, 5.0, 9.9):
        _sample(S, t, 0.0, -1.0, 0, 0)
        assert S.cc["bbr_mode"][0] == bbr.MODE_STARTUP and (S.half["cwnd"][0], S.half["pace_rate_Bps"][0]) == before
    S.cc["bbr_idle_restart"][0] = 1
    _sample(S, 10.2, 0.0, -1.0, 0, 0)  # expired, but restarting from idle: no PROBE_RTT
    assert S.cc["bbr_mode"][0] == bbr.MODE_STARTUP and S.cc["bbr_min_rtt_expired"][0] == 1
    assert (S.half["cwnd"][0], S.half["pace_rate_Bps"][0]) == before
    S.cc["bbr_idle_restart"][0] = 0
    _sample(S, 10.3, 0.0, -1.0, 0, 0)
    assert S.cc["bbr_mode"][0] == bbr.MODE_PROBE_RTT and S.half["cwnd"][0] == 4 * MSS


def test_the_first_phase_is_random_from_the_connection_seed_never_the_drain_phase():
    firsts = []
    for seed in range(60):
        S = _state(seed=seed)
        for _ in _startup_to_drain(S):
            pass
        _sample(S, 0.9, 9.9e5, 0.1, 2 * MSS, 100_000)
        firsts.append(int(S.cc["bbr_cycle_index"][0]))
    assert set(firsts) == {0, 2, 3, 4, 5, 6, 7}  # 7 of the 8 phases, never the 0.75 one
    again = _state(seed=5)
    for _ in _startup_to_drain(again):
        pass
    _sample(again, 0.9, 9.9e5, 0.1, 2 * MSS, 100_000)
    assert again.cc["bbr_cycle_index"][0] == firsts[5]


@njit
def _recovery(S, t, inflight, acked):
    S.cc[0].rs_inflight = inflight
    S.cc[0].rs_acked_sacked = acked
    cc_congestion(S, 0, CA_RECOVERY, t)
    S.half[0].in_rec = 1
    cc_state(S, 0, CA_RECOVERY, t)


@njit
def _recovered(S, t):
    S.half[0].in_rec = 0
    cc_state(S, 0, CA_OPEN, t)


def test_fast_recovery_conserves_packets_then_restores_the_window():
    # ns-3 TcpBbr / Linux: on entry cwnd = inflight + max(acked, 1 MSS); at the end max(prior cwnd, cwnd)
    S = _state()
    _start(S, 0.0)
    S.half["cwnd"][0] = 50_000.0
    _recovery(S, 1.0, 30_000, 0)
    assert S.half["cwnd"][0] == 31_000 and S.cc["bbr_prior_cwnd"][0] == 50_000
    _recovered(S, 1.5)
    assert S.half["cwnd"][0] == 50_000


# ---- delivery-rate samples -------------------------------------------------------------------------------------

@njit
def _rs_send(S, i, t):
    """Send segment i (bytes 1 + 1000 i ..) as the sender does: the scoreboard entry, then the hook."""
    half = S.half
    half[0].snd_max = 1 + MSS * i
    n = half[0].seg_head + half[0].seg_n
    S.seg[0, n].start = 1 + MSS * i
    S.seg[0, n].len = MSS
    S.seg[0, n].flags = 0
    half[0].seg_n += 1
    rate.on_sent(S, 0, 0, n, t)
    half[0].snd_max = 1 + MSS * (i + 1)


@njit
def _rs_init(S):
    rate.init(S, 0, 0.0)


@njit
def _rs_app_limited(S, inflight):
    rate.app_limited(S, 0, inflight)


@njit
def _rs_ack(S, ack, t):
    rate.on_ack(S, 0, ack, -1, t)
    half = S.half
    while half[0].seg_n > 0 and S.seg[0, half[0].seg_head].start + S.seg[0, half[0].seg_head].len <= ack:
        half[0].seg_head += 1
        half[0].seg_n -= 1
    half[0].snd_una = ack


def _rs_state():
    S = _state()
    S.half["seg_row"][0] = 0
    S.half["seg_head"][0] = 0
    S.half["seg_n"][0] = 0
    S.half["snd_una"][0] = 1
    S.half["snd_max"][0] = 1
    _rs_init(S)
    return S


def test_delivery_rate_of_a_flight_and_of_the_window_after_it():
    """Ten segments sent 1 ms apart from an idle start at t = 0, each acknowledged 100 ms after it left: the ACK of
    segment k samples from segment k (P.delivered = 0, P.delivered_time = P.first_sent_time = 0): delivered
    1000 (k + 1) over max(send_elapsed = 1 ms k, ack_elapsed = 0.1 + 1 ms k). Segment 10, sent at the first ACK
    (0.1 s), carries C.delivered = 1000, delivered_time 0.1 s and first_sent_time 0 (the sending time of the
    segment that gave the last sample); its ACK at 0.2 s: 10,000 bytes in max(0.1, 0.1) s = 100 kB/s, the window
    over the round trip."""
    S = _rs_state()
    for i in range(10):
        _rs_send(S, i, 0.001 * i)
    for k in range(10):
        t = 0.1 + 0.001 * k
        _rs_ack(S, 1 + MSS * (k + 1), t)
        assert S.cc["rs_valid"][0] == 1
        assert S.cc["rs_sample_delivered"][0] == MSS * (k + 1)
        assert S.cc["rs_interval_s"][0] == pytest.approx(0.1 + 0.001 * k)
        assert S.cc["rs_rate_Bps"][0] == pytest.approx(MSS * (k + 1) / (0.1 + 0.001 * k))
        assert S.cc["rs_rtt_s"][0] == pytest.approx(0.1)
        out = MSS * (10 - k) + (MSS if k > 0 else 0)  # segments k .. 9, and segment 10 once sent
        assert S.cc["rs_prior_inflight"][0] == out and S.cc["rs_inflight"][0] == out - MSS
        if k == 0:
            _rs_send(S, 10, t)
    _rs_ack(S, 1 + MSS * 11, 0.2)
    assert S.cc["rs_sample_delivered"][0] == 10 * MSS
    assert S.cc["rs_interval_s"][0] == pytest.approx(0.1)
    assert S.cc["rs_rate_Bps"][0] == pytest.approx(1e5)


def test_an_ack_that_delivers_nothing_gives_no_sample_and_app_limited_marks_stick_until_delivered():
    S = _rs_state()
    _rs_send(S, 0, 0.0)
    _rs_ack(S, 1 + MSS, 0.1)
    _rs_app_limited(S, 0)  # nothing to send: the bubble ends once C.delivered passes 1000 + 0 in flight
    assert S.cc["rs_app_limited"][0] == MSS
    _rs_send(S, 1, 0.1)
    _rs_send(S, 2, 0.1)
    _rs_ack(S, 1 + MSS, 0.15)  # a duplicate ACK (no SACK): nothing delivered
    assert S.cc["rs_valid"][0] == 0 and S.cc["rs_acked_sacked"][0] == 0
    _rs_ack(S, 1 + 3 * MSS, 0.2)  # both delivered: the sample is marked application-limited, the bubble is gone
    assert S.cc["rs_valid"][0] == 1 and S.cc["rs_sample_app_limited"][0] == 1 and S.cc["rs_app_limited"][0] == 0
    assert S.cc["rs_rate_Bps"][0] == pytest.approx(2 * MSS / 0.1)  # sent from idle at 0.1 s, delivered at 0.2 s


class _ReadLog:
    """A scoreboard (``S.seg``, read only) that records which of its entries are read."""

    def __init__(self, a):
        self.a, self.read, self.shape = a, set(), a.shape

    def __getitem__(self, key):
        self.read.add(key)
        return SimpleNamespace(**{f: self.a[key][f] for f in self.a.dtype.names})  # (a record's .flags is numpy's)


def test_an_ack_reads_the_scoreboard_only_up_to_what_it_can_deliver():
    """``rate.on_ack``'s own code (run as Python, its scoreboard logging each entry read) with SACK on and 100
    segments in flight: an ACK of one segment with no SACK block above it reads that segment and at most one more,
    not the whole window (a scan of every segment on every ACK made a SACK sender's cost per ACK grow with its
    window); an ACK whose SACK block ends at segment 13 reads up to there (one more), and delivers the 3 segments
    SACKed; the next ACK counts those 3 out of the flight without delivering them again."""
    half = np.zeros(2, L.HALF).view(np.recarray)
    ns = SimpleNamespace(half=half, cc=np.zeros(2, registry.STATE).view(np.recarray),
                         seg=_ReadLog(np.zeros((1, 128), L.SEG)),
                         rate=np.zeros((1, 128), L.RATE).view(np.recarray))
    rate.init.py_func(ns, 0, 0.0)
    for i in range(100):  # segment i: bytes 1 + 1000 i .., sent at 1 ms i
        ns.seg.a[0, i]["start"], ns.seg.a[0, i]["len"] = 1 + MSS * i, MSS
        ns.rate[0, i].sent_t = ns.rate[0, i].first_sent_t = ns.rate[0, i].delivered_t = 0.001 * i
    half[0].seg_row, half[0].seg_head, half[0].seg_n = 0, 0, 100
    half[0].snd_una, half[0].snd_max = 1, 1 + 100 * MSS
    rate.on_ack.py_func(ns, 0, 1 + MSS, -1, 0.1)
    assert ns.cc[0].rs_acked_sacked == MSS and ns.cc[0].rs_prior_inflight == 100 * MSS
    assert len(ns.seg.read) <= 2
    half[0].seg_head, half[0].seg_n, half[0].snd_una = 1, 99, 1 + MSS  # the sender drops segment 0
    for i in (10, 11, 12):
        ns.seg.a[0, i]["flags"] = L.G_SACKED  # as tcp.sender applies the block [10001, 13001)
    ns.seg.read.clear()
    rate.on_ack.py_func(ns, 0, 1 + MSS, 1 + 13 * MSS, 0.11)
    assert ns.cc[0].rs_acked_sacked == 3 * MSS and ns.cc[0].rs_prior_inflight == 99 * MSS
    assert ns.seg.read <= {(0, i) for i in range(1, 14)}
    ns.seg.read.clear()
    rate.on_ack.py_func(ns, 0, 1 + MSS, -1, 0.12)
    assert ns.cc[0].rs_acked_sacked == 0 and ns.cc[0].rs_prior_inflight == 96 * MSS
    assert ns.seg.read <= {(0, i) for i in range(1, 14)}


# ---- whole runs ----------------------------------------------------------------------------------------------------

def _single(seed=1, duration=25.0, trace=True):
    bn = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=100)
    db = dumbbell(1, bn)
    return simulate(bulk_scenario(db.network, db.pairs, TcpParams.preset("bbr"), duration), seed=seed, trace=trace)


@pytest.fixture(scope="module")
def single():
    return _single()


def test_a_single_bbr_flow_fills_the_link_with_a_small_standing_queue(single):
    r = single
    # payload rate of 10 Mbit/s with 1448-byte segments in 1500-byte packets: 9.653 Mbit/s. BBR loses two PROBE_RTTs
    # (~0.25 s each at 4 segments) and its first second of STARTUP and DRAIN: above 90 %
    payload_bps = 10e6 * 1448 / 1500
    assert r.goodput_bps[0, 0] > 0.9 * payload_bps
    # no loss: STARTUP's 2.89 BDP in flight fits the 100-packet buffer (1 BDP = 10 Mbit/s x 40 ms = 33 packets)
    assert r.timeouts[0, 0] == 0 and r.fast_retransmits[0, 0] == 0
    # PROBE_BW paces at BtlBw but for the 1.25 phase, whose extra quarter BDP the 0.75 phase drains: the mean queue is
    # below a quarter of a BDP (12,500 bytes), far below what cwnd = 2 BDP would allow (one BDP)
    bdp_bytes = 10e6 * 0.04 / 8
    bn = 0  # the dumbbell's bottleneck link
    assert r.link_queue_mean_bytes[bn] < 0.25 * bdp_bytes


def test_probe_rtt_comes_10_s_after_the_handshake_rtt_and_again_10_s_after_it_ends(single):
    # the handshake's RTT (40 ms plus the SYN's tiny serialization) is the smallest a full-sized segment never beats
    tr = single.tcp_trace
    d = (tr.direction == 0) & (tr.time_s > 1.0)
    low = tr.time_s[d][tr.cwnd_bytes[d] <= 4 * 1448 + 1e-6]
    assert low.size > 0
    assert 10.0 < low[0] < 10.1
    second = low[low > low[0] + 1.0]
    assert second.size > 0 and 10.2 < second[0] - low[0] < 10.8  # 10 s after the first one ended (200 ms + a round)


def test_bbr_runs_are_deterministic_and_the_seed_reaches_the_gain_cycle():
    a = _single(seed=7, duration=6.0)
    b = _single(seed=7, duration=6.0)
    assert np.array_equal(a.tcp_trace.cwnd_bytes, b.tcp_trace.cwnd_bytes)
    assert np.array_equal(a.delivered_bytes, b.delivered_bytes)
    others = [_single(seed=s, duration=6.0).tcp_trace.cwnd_bytes for s in (8, 9, 10)]
    assert any(o.shape != a.tcp_trace.cwnd_bytes.shape or not np.array_equal(o, a.tcp_trace.cwnd_bytes)
               for o in others)


def test_bbr_params_and_preset():
    assert TcpParams(congestion_control="bbr").congestion_control == "bbr"
    with pytest.raises(ValueError, match="congestion_control"):
        TcpParams(congestion_control="bbr2")
    p = TcpParams.preset("bbr")
    assert (p.congestion_control, p.recovery, p.initial_window_segments) == ("bbr", "sack", 10)
