"""Numba: BBR version 1 congestion control (Cardwell et al., "BBR: Congestion-Based Congestion Control", ACM Queue
2016; draft-cardwell-iccrg-bbr-congestion-control-00; as ns-3's ``TcpBbr``).

BBR does not read loss as its congestion signal: it models the path by two numbers and sends at their product.

- **BtlBw**, the bottleneck bandwidth: the windowed maximum of the delivery-rate samples (``tcp.cc.rate``) over the
  last ``BW_ROUNDS`` = 10 round trips (Kathleen Nichols' max filter of three samples, as Linux's ``minmax``). A round
  trip ends when a segment sent after the previous round's end is delivered (``C.delivered`` passes
  ``next_round_delivered``). Application-limited samples enter only if they raise the estimate.
- **RTprop**, the round-trip propagation time: the minimum RTT sample seen in the last ``MIN_RTT_S`` = 10 s.
- **Pacing** (the sender paces, ``tcp.sender``: a segment leaves no earlier than the previous one's payload took at the
  rate): ``pacing_rate = pacing_gain x BtlBw x 0.99`` (a 1 % margin, as Linux and ns-3), raised only (never lowered)
  until the pipe is full. Before any RTT sample, ``high_gain x cwnd / 1 ms``; at the first, ``high_gain x cwnd /
  RTprop`` (and BtlBw seeded with ``cwnd / RTprop``, as ns-3).
- **cwnd** = ``cwnd_gain x BDP + 3 x send_quantum`` (``BDP = BtlBw x RTprop``, ``send_quantum`` 1 SMSS; + 2 SMSS in
  the 1.25 phase), approached by ``+ acked`` per ACK (capped at the target once the pipe is full, growing without cap
  before that while below the target or until IW was delivered), never below 4 SMSS (``MIN_PIPE_SEGMENTS``).

States (``bbr_mode``):

- **STARTUP** (``MODE_STARTUP``): pacing and cwnd gain ``HIGH_GAIN`` = 2/ln 2 (2.885: doubles the rate per round).
  The pipe is full once BtlBw grew by less than 25 % (``FULL_BW_GROWTH``) in 3 rounds in a row
  (``FULL_BW_ROUNDS``), non-application-limited round starts only.
- **DRAIN**: pacing gain 1 / HIGH_GAIN, cwnd gain HIGH_GAIN, until the data in flight is at most one BDP (+ quanta).
- **PROBE_BW**: cwnd gain 2, pacing gain cycling through ``GAIN_CYCLE`` = (1.25, 0.75, 1, 1, 1, 1, 1, 1), one phase
  per RTprop (the 1.25 phase also until a loss or ``inflight >= 1.25 BDP``; the 0.75 phase ends early once
  ``inflight <= BDP``). The cycle starts at a random phase other than 0.75 (the draft's and Linux's: one of 7
  phases; ns-3 draws one of 6), from the connection's own stream (``conn.cc_seed``: deterministic).
- **PROBE_RTT**: when RTprop was not renewed for 10 s (and the sender is not restarting from idle): cwnd 4 SMSS, pacing
  gain 1, for ``PROBE_RTT_S`` = 200 ms after the data in flight first fell to 4 SMSS and at least one round trip;
  then RTprop's stamp is renewed, cwnd restored and BBR goes back to PROBE_BW (or STARTUP if the pipe was never full).

Loss recovery (``tcp.sender`` runs any recovery; BBR answers as ns-3's ``TcpBbr``): a loss event does not reduce the
window by a factor (``ssthresh`` leaves the window as it was); the window before it is saved (``prior_cwnd``); on
entering fast recovery cwnd = inflight + max(acked, 1 SMSS) and packet conservation holds for one round (cwnd at
least inflight + acked); when recovery ends cwnd = max(prior_cwnd, cwnd). After a timeout the recovery's cwnd of 1
SMSS grows again by what each ACK delivers. An ECN echo changes nothing (BBR v1 does not use ECN).

Not modelled (say so where it shows): ns-3's ACK-aggregation allowance (``extra_acked``, Linux's later addition to
BBR v1: in ns-3 at most ~4 KB on a dumbbell, as its epoch timer counts whole seconds), the lost bytes of a rate
sample (ns-3's ``ModulateCwndForRecovery`` subtracts them), and the TSO-sized send quantum of Linux.
"""

from __future__ import annotations

import math

from numba import njit

from ...kernel import layout as L
from . import rate
from .states import CA_IDLE, CA_LOSS, CA_OPEN, CA_RECOVERY

NAME = "bbr"
FIELDS = ("bbr_mode bbr_pacing_gain:f bbr_cwnd_gain:f bbr_round_count bbr_next_round_delivered bbr_round_start "
          "bbr_bw_r0 bbr_bw_r1 bbr_bw_r2 bbr_bw0:f bbr_bw1:f bbr_bw2:f "
          "bbr_full_bw:f bbr_full_bw_count bbr_filled_pipe bbr_min_rtt_s:f bbr_min_rtt_stamp:f bbr_min_rtt_expired "
          "bbr_probe_rtt_done_t:f bbr_probe_rtt_round_done bbr_idle_restart bbr_prior_cwnd:f "
          "bbr_packet_conservation bbr_cycle_index bbr_cycle_stamp:f bbr_rng bbr_has_seen_rtt bbr_target_cwnd:f "
          "bbr_n_probe_rtt")

MODE_STARTUP = 0
MODE_DRAIN = 1
MODE_PROBE_BW = 2
MODE_PROBE_RTT = 3

HIGH_GAIN = 2.0 / math.log(2.0)  # 2.885 (ns-3: 2.89)
GAIN_CYCLE = (1.25, 0.75, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0)
CYCLE_LEN = 8
CYCLE_RAND = 7  # the first phase is one of the last 7 (never 0.75)
BW_ROUNDS = 10  # the max filter's window, round trips
MIN_RTT_S = 10.0  # RTprop's window, s
PROBE_RTT_S = 0.2  # time in PROBE_RTT at the low window, s
MIN_PIPE_SEGMENTS = 4  # cwnd floor and PROBE_RTT's window, SMSS
FULL_BW_GROWTH = 1.25  # STARTUP ends when BtlBw grew by less than this ...
FULL_BW_ROUNDS = 3  # ... in this many rounds in a row
PACING_MARGIN = 0.01  # pace 1 % below the estimate (Linux, ns-3)
QUANTA_SEGMENTS = 3  # cwnd's allowance: 3 send quanta of 1 SMSS


@njit(cache=True, inline="always")
def _next_random(r, h, n):
    """Return a draw in 0 .. n - 1 from the half's own stream (a 64-bit LCG, Knuth's MMIX constants; the top bits)."""
    x = r[h].bbr_rng * 6364136223846793005 + 1442695040888963407
    r[h].bbr_rng = x
    return ((x >> 33) & 0x7FFFFFFF) % n


@njit(cache=True, inline="always")
def btl_bw(r, h):
    """The max filter's best: BtlBw, bytes/s."""
    return r[h].bbr_bw0


@njit(cache=True, inline="always")
def _bw_reset(r, h, rnd, bw):
    r[h].bbr_bw_r0 = rnd
    r[h].bbr_bw_r1 = rnd
    r[h].bbr_bw_r2 = rnd
    r[h].bbr_bw0 = bw
    r[h].bbr_bw1 = bw
    r[h].bbr_bw2 = bw


@njit(cache=True, inline="always")
def _bw_update(r, h, rnd, bw):
    """Windowed max over ``BW_ROUNDS`` rounds of three (round, value) samples, best first (Nichols' algorithm,
    Linux ``lib/minmax.c``): a new best or an expired window restarts it; the 2nd and 3rd are kept for when the best
    ages out."""
    if bw >= r[h].bbr_bw0 or rnd - r[h].bbr_bw_r2 > BW_ROUNDS:
        _bw_reset(r, h, rnd, bw)
        return
    if bw >= r[h].bbr_bw1:
        r[h].bbr_bw_r1 = rnd
        r[h].bbr_bw1 = bw
        r[h].bbr_bw_r2 = rnd
        r[h].bbr_bw2 = bw
    elif bw >= r[h].bbr_bw2:
        r[h].bbr_bw_r2 = rnd
        r[h].bbr_bw2 = bw
    dt = rnd - r[h].bbr_bw_r0
    if dt > BW_ROUNDS:  # the best is too old: the 2nd becomes the best, the 3rd the 2nd
        r[h].bbr_bw_r0 = r[h].bbr_bw_r1
        r[h].bbr_bw0 = r[h].bbr_bw1
        r[h].bbr_bw_r1 = r[h].bbr_bw_r2
        r[h].bbr_bw1 = r[h].bbr_bw2
        r[h].bbr_bw_r2 = rnd
        r[h].bbr_bw2 = bw
        if rnd - r[h].bbr_bw_r0 > BW_ROUNDS:
            r[h].bbr_bw_r0 = r[h].bbr_bw_r1
            r[h].bbr_bw0 = r[h].bbr_bw1
            r[h].bbr_bw_r1 = r[h].bbr_bw_r2
            r[h].bbr_bw1 = r[h].bbr_bw2
    elif r[h].bbr_bw1 == r[h].bbr_bw0 and dt > BW_ROUNDS / 4:  # a quarter of the window without a 2nd choice
        r[h].bbr_bw_r1 = rnd
        r[h].bbr_bw1 = bw
        r[h].bbr_bw_r2 = rnd
        r[h].bbr_bw2 = bw
    elif r[h].bbr_bw2 == r[h].bbr_bw1 and dt > BW_ROUNDS / 2:  # half of it without a 3rd
        r[h].bbr_bw_r2 = rnd
        r[h].bbr_bw2 = bw


@njit(cache=True, inline="always")
def inflight_target(S, h, gain):
    """BBRInflight: ``gain x BtlBw x RTprop`` + 3 quanta (+ 2 SMSS in the 1.25 phase), bytes; IW before RTprop."""
    r = S.cc
    mss = S.conn[h >> 1].mss
    if r[h].bbr_min_rtt_s == math.inf:
        return float(S.conn[h >> 1].iw * mss)
    bdp = btl_bw(r, h) * r[h].bbr_min_rtt_s
    extra = QUANTA_SEGMENTS * mss
    if r[h].bbr_mode == MODE_PROBE_BW and r[h].bbr_cycle_index == 0:
        extra += 2 * mss
    return gain * bdp + extra


@njit(cache=True, inline="always")
def _init_pacing_rate(S, h):
    """The rate before BtlBw has samples: HIGH_GAIN x cwnd / RTprop (1 ms before any RTT), BtlBw seeded so."""
    r = S.cc
    rtt = 0.001
    if r[h].bbr_min_rtt_s < math.inf:
        rtt = max(r[h].bbr_min_rtt_s, 0.001)
        r[h].bbr_has_seen_rtt = 1
    bw = S.half[h].cwnd / rtt
    S.half[h].pace_rate_Bps = r[h].bbr_pacing_gain * bw
    _bw_reset(r, h, 0, bw)


@njit(cache=True, inline="always")
def _set_pacing_rate(S, h, gain):
    r = S.cc
    rate_Bps = gain * btl_bw(r, h) * (1.0 - PACING_MARGIN)
    if r[h].bbr_has_seen_rtt == 0 and r[h].bbr_min_rtt_s < math.inf:
        _init_pacing_rate(S, h)
    if r[h].bbr_filled_pipe == 1 or rate_Bps > S.half[h].pace_rate_Bps:
        S.half[h].pace_rate_Bps = rate_Bps


@njit(cache=True, inline="always")
def _enter_startup(r, h):
    r[h].bbr_mode = MODE_STARTUP
    r[h].bbr_pacing_gain = HIGH_GAIN
    r[h].bbr_cwnd_gain = HIGH_GAIN


@njit(cache=True, inline="always")
def _advance_cycle(r, h, t):
    r[h].bbr_cycle_stamp = t
    i = (r[h].bbr_cycle_index + 1) % CYCLE_LEN
    r[h].bbr_cycle_index = i
    r[h].bbr_pacing_gain = GAIN_CYCLE[i]


@njit(cache=True, inline="always")
def _enter_probe_bw(r, h, t):
    r[h].bbr_mode = MODE_PROBE_BW
    r[h].bbr_pacing_gain = 1.0
    r[h].bbr_cwnd_gain = 2.0
    r[h].bbr_cycle_index = CYCLE_LEN - 1 - _next_random(r, h, CYCLE_RAND)
    _advance_cycle(r, h, t)


@njit(cache=True, inline="always")
def _save_cwnd(S, h):
    r = S.cc
    cw = S.half[h].cwnd
    if S.half[h].in_rec == 0 and r[h].bbr_mode != MODE_PROBE_RTT:
        r[h].bbr_prior_cwnd = cw
    else:
        r[h].bbr_prior_cwnd = max(r[h].bbr_prior_cwnd, cw)


@njit(cache=True, inline="always")
def _exit_probe_rtt(S, h, t):
    r = S.cc
    r[h].bbr_min_rtt_stamp = t
    S.half[h].cwnd = max(r[h].bbr_prior_cwnd, S.half[h].cwnd)
    if r[h].bbr_filled_pipe == 1:
        _enter_probe_bw(r, h, t)
    else:
        _enter_startup(r, h)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def init(S, h, t):
    """Half ``h`` starts (its SYN queued, cwnd = IW): STARTUP, no RTprop yet, pacing from a 1 ms RTT."""
    rate.init(S, h, t)
    r = S.cc
    c = h >> 1
    # the connection's stream (conn.cc_seed: per row of parameters) made the half's own by its number
    r[h].bbr_rng = S.conn[c].cc_seed + (2 * S.conn[c].cid + (h & 1) + 1) * 0x5851F42D4C957F2D
    r[h].bbr_min_rtt_s = math.inf
    r[h].bbr_min_rtt_stamp = t
    r[h].bbr_min_rtt_expired = 0
    r[h].bbr_prior_cwnd = S.half[h].cwnd
    r[h].bbr_target_cwnd = S.half[h].cwnd
    r[h].bbr_round_count = 0
    r[h].bbr_next_round_delivered = 0
    r[h].bbr_round_start = 0
    r[h].bbr_filled_pipe = 0
    r[h].bbr_full_bw = 0.0
    r[h].bbr_full_bw_count = 0
    r[h].bbr_probe_rtt_done_t = -1.0
    r[h].bbr_probe_rtt_round_done = 0
    r[h].bbr_idle_restart = 0
    r[h].bbr_packet_conservation = 0
    r[h].bbr_cycle_index = 0
    r[h].bbr_cycle_stamp = t
    r[h].bbr_has_seen_rtt = 0
    r[h].bbr_n_probe_rtt = 0
    S.half[h].pace_next_t = t
    _enter_startup(r, h)
    _init_pacing_rate(S, h)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ack(S, h, acked, t):
    """A new ACK outside recovery: BBR sets its window in ``ack_done`` from the rate sample, not here."""
    return


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ssthresh(S, h, flight, t):
    """A loss event does not cut BBR's window by a factor: the recovery starts from the window there is."""
    return S.half[h].cwnd


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def congestion(S, h, kind, t):
    """A new loss event (fast retransmit or timeout), before the window changes: remember the window."""
    _save_cwnd(S, h)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def state(S, h, st, t):
    """Recovery entered: cwnd = inflight + max(acked, 1 SMSS), packet conservation for a round. Recovery over: cwnd
    = max(prior_cwnd, cwnd). A timeout: a new round starts. Sending again after idle: mark the restart (PROBE_BW
    paces at BtlBw; a PROBE_RTT whose time is up ends)."""
    r = S.cc
    half = S.half
    if st == CA_RECOVERY:
        half[h].cwnd = float(S.cc[h].rs_inflight + max(S.cc[h].rs_acked_sacked, S.conn[h >> 1].mss))
        r[h].bbr_packet_conservation = 1
    elif st == CA_OPEN:
        r[h].bbr_packet_conservation = 0
        half[h].cwnd = max(r[h].bbr_prior_cwnd, half[h].cwnd)
    elif st == CA_LOSS:
        r[h].bbr_round_start = 1
    elif st == CA_IDLE and r[h].rs_app_limited != 0:
        r[h].bbr_idle_restart = 1
        if r[h].bbr_mode == MODE_PROBE_BW:
            _set_pacing_rate(S, h, 1.0)
        elif (r[h].bbr_mode == MODE_PROBE_RTT and r[h].bbr_probe_rtt_round_done == 1
              and t > r[h].bbr_probe_rtt_done_t):
            _exit_probe_rtt(S, h, t)


@njit(cache=True, inline="always")
def _update_model_and_state(S, h, t):
    r = S.cc
    mss = S.conn[h >> 1].mss
    # BtlBw and the round count (draft sec. 4.1.1)
    r[h].bbr_round_start = 0
    if r[h].rs_valid == 1:
        if r[h].rs_prior_delivered >= r[h].bbr_next_round_delivered:
            r[h].bbr_next_round_delivered = r[h].rs_delivered
            r[h].bbr_round_count += 1
            r[h].bbr_round_start = 1
            r[h].bbr_packet_conservation = 0
        if r[h].rs_rate_Bps >= btl_bw(r, h) or r[h].rs_sample_app_limited == 0:
            _bw_update(r, h, r[h].bbr_round_count, r[h].rs_rate_Bps)
    # the gain cycle (sec. 4.3.4.3)
    if r[h].bbr_mode == MODE_PROBE_BW:
        full = t - r[h].bbr_cycle_stamp > r[h].bbr_min_rtt_s
        g = r[h].bbr_pacing_gain
        if g == 1.0:
            nxt = full
        elif g > 1.0:
            nxt = full and r[h].rs_prior_inflight >= inflight_target(S, h, g)
        else:
            nxt = full or r[h].rs_prior_inflight <= inflight_target(S, h, 1.0)
        if nxt:
            _advance_cycle(r, h, t)
    # STARTUP's end (sec. 4.3.2.2)
    if r[h].bbr_filled_pipe == 0 and r[h].bbr_round_start == 1 and r[h].rs_sample_app_limited == 0:
        if btl_bw(r, h) >= r[h].bbr_full_bw * FULL_BW_GROWTH:
            r[h].bbr_full_bw = btl_bw(r, h)
            r[h].bbr_full_bw_count = 0
        else:
            r[h].bbr_full_bw_count += 1
            if r[h].bbr_full_bw_count >= FULL_BW_ROUNDS:
                r[h].bbr_filled_pipe = 1
    # DRAIN (sec. 4.3.3)
    if r[h].bbr_mode == MODE_STARTUP and r[h].bbr_filled_pipe == 1:
        r[h].bbr_mode = MODE_DRAIN
        r[h].bbr_pacing_gain = 1.0 / HIGH_GAIN
        r[h].bbr_cwnd_gain = HIGH_GAIN
    if r[h].bbr_mode == MODE_DRAIN and r[h].rs_inflight <= inflight_target(S, h, 1.0):
        _enter_probe_bw(r, h, t)
    # RTprop (sec. 4.1.2)
    r[h].bbr_min_rtt_expired = 1 if t > r[h].bbr_min_rtt_stamp + MIN_RTT_S else 0
    rtt = r[h].rs_rtt_s
    if rtt >= 0.0 and (rtt <= r[h].bbr_min_rtt_s or r[h].bbr_min_rtt_expired == 1):
        r[h].bbr_min_rtt_s = rtt
        r[h].bbr_min_rtt_stamp = t
    # PROBE_RTT (sec. 4.3.5)
    if r[h].bbr_mode != MODE_PROBE_RTT and r[h].bbr_min_rtt_expired == 1 and r[h].bbr_idle_restart == 0:
        r[h].bbr_mode = MODE_PROBE_RTT
        r[h].bbr_pacing_gain = 1.0
        r[h].bbr_cwnd_gain = 1.0
        r[h].bbr_n_probe_rtt += 1
        _save_cwnd(S, h)
        r[h].bbr_probe_rtt_done_t = -1.0
    if r[h].bbr_mode == MODE_PROBE_RTT:
        inflight = r[h].rs_inflight
        rate.app_limited(S, h, inflight)
        if r[h].bbr_probe_rtt_done_t < 0.0 and inflight <= MIN_PIPE_SEGMENTS * mss:
            r[h].bbr_probe_rtt_done_t = t + PROBE_RTT_S
            r[h].bbr_probe_rtt_round_done = 0
            r[h].bbr_next_round_delivered = r[h].rs_delivered
        elif r[h].bbr_probe_rtt_done_t >= 0.0:
            if r[h].bbr_round_start == 1:
                r[h].bbr_probe_rtt_round_done = 1
            if r[h].bbr_probe_rtt_round_done == 1 and t > r[h].bbr_probe_rtt_done_t:
                _exit_probe_rtt(S, h, t)
    if r[h].rs_acked_sacked > 0:
        r[h].bbr_idle_restart = 0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ack_done(S, h, acked, t):
    """Every ACK (ns-3's ``CongControl``): update the model (BtlBw, RTprop, rounds) and the state machine from the
    rate sample, then the pacing rate and cwnd."""
    half = S.half
    if half[h].state != L.S_EST:
        return
    r = S.cc
    if (r[h].rs_acked_sacked == 0 and r[h].rs_rtt_s < 0.0 and r[h].bbr_mode == MODE_STARTUP
            and r[h].bbr_filled_pipe == 0):
        # an ACK that delivered nothing, in STARTUP (every segment a half with no data of its own receives): no round
        # starts, no bandwidth or RTT sample, no change of state but PROBE_RTT's once RTprop expires, which a restart
        # from idle holds off; the window stays (the steps below, in short)
        expired = t > r[h].bbr_min_rtt_stamp + MIN_RTT_S
        if not expired or r[h].bbr_idle_restart == 1:
            r[h].bbr_round_start = 0
            r[h].bbr_min_rtt_expired = 1 if expired else 0
            _set_pacing_rate(S, h, r[h].bbr_pacing_gain)
            return
    conn = S.conn
    mss = conn[h >> 1].mss
    if r[h].bbr_has_seen_rtt == 0 and r[h].rs_rtt_s >= 0.0:
        # the first RTT (the handshake's, in practice): pacing and BtlBw start from cwnd / RTT before this ACK's
        # sample is read (ns-3 and Linux start BBR once the connection is made, with this RTT known)
        r[h].bbr_min_rtt_s = r[h].rs_rtt_s
        r[h].bbr_min_rtt_stamp = t
        _init_pacing_rate(S, h)
    _update_model_and_state(S, h, t)
    _set_pacing_rate(S, h, r[h].bbr_pacing_gain)
    acked_sacked = r[h].rs_acked_sacked
    if acked_sacked > 0:
        skip = False
        cw = half[h].cwnd
        if half[h].in_rec == 1 and r[h].bbr_packet_conservation == 1:
            half[h].cwnd = max(cw, float(r[h].rs_inflight + acked_sacked))
            skip = True
        if not skip:
            target = inflight_target(S, h, r[h].bbr_cwnd_gain)
            r[h].bbr_target_cwnd = target
            if r[h].bbr_filled_pipe == 1:
                cw = min(cw + acked_sacked, target)
            elif cw < target or r[h].rs_delivered < conn[h >> 1].iw * mss:
                cw = cw + acked_sacked
            half[h].cwnd = max(cw, float(MIN_PIPE_SEGMENTS * mss))
    if r[h].bbr_mode == MODE_PROBE_RTT:
        half[h].cwnd = min(half[h].cwnd, float(MIN_PIPE_SEGMENTS * mss))


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ecn(S, h, t):
    """An ECN echo: BBR v1 does not respond to ECN."""
    return


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sent(S, h, row, idx, t):
    """A segment left: record the delivery-rate state in it (``rate.on_sent``)."""
    rate.on_sent(S, h, row, idx, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delivered(S, h, ack, sack_top, t):
    """An ACK arrived (SACK blocks applied): the delivery-rate sample (``rate.on_ack``)."""
    rate.on_ack(S, h, ack, sack_top, t)


@njit(cache=True, inline="always")
def app_limited(S, h, t):
    """The sender has no more data to send: mark the samples application-limited unless cwnd is the limit."""
    half = S.half
    inflight = half[h].snd_max - half[h].snd_una
    if inflight < half[h].cwnd:
        rate.app_limited(S, h, inflight)
