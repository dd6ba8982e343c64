"""Numba: the RFC 6298 round-trip time estimator and retransmission timer, shared by every transport.

It works on the fields ``srtt`` (< 0 before the first sample), ``rttvar`` and ``rto`` of a half-connection
(``S.half[h]``) and on its connection's ``min_rto``, ``max_rto`` and ``tick_s`` (timer granularity G, 0 for
exact timers). With G > 0 the clock ticks as BSD's: a sample is G times the ticks between send and
acknowledgement, the RTO is rounded up to whole ticks, and a timer of n ticks expires at the n-th tick
after it is set. The retransmission timer itself (``rto_arm``, ``rto_fired``) is here too.
"""

from __future__ import annotations

import math

from numba import njit

from .lane import lane_push, push
from .layout import EV_RTO, LANE_RTO0, N_RTO_LANES


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rtt_sample(S, h, t0, t):
    """Feed the RTT of a segment sent at ``t0`` and acknowledged at ``t`` to half ``h``'s estimator
    (RFC 6298 sec. 2, alpha = 1/8, beta = 1/4, K = 4) and set its RTO within [min_rto, max_rto]."""
    hr = S.half[h]
    cr = S.conn[h >> 1]
    tick = cr.tick_s
    r = t - t0
    if tick > 0.0:
        r = tick * (math.floor(t / tick) - math.floor(t0 / tick))
    if hr.srtt < 0.0:
        hr.srtt = r
        hr.rttvar = r / 2.0
    else:
        hr.rttvar = 0.75 * hr.rttvar + 0.25 * abs(hr.srtt - r)
        hr.srtt = 0.875 * hr.srtt + 0.125 * r
    rto = hr.srtt + 4.0 * hr.rttvar
    if tick > 0.0:
        rto = math.ceil(rto / tick - 1e-9) * tick
    hr.rto = min(max(rto, cr.min_rto), cr.max_rto)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_deadline(S, h, t):
    """Return when half ``h``'s retransmission timer, started at ``t``, expires: t + RTO (or the tick
    that ends RTO's whole ticks)."""
    rto = S.half[h].rto
    tick = S.conn[h >> 1].tick_s
    if tick > 0.0:
        return (math.floor(t / tick) + math.ceil(rto / tick - 1e-9)) * tick
    return t + rto


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_backoff(S, h):
    """Double half ``h``'s RTO after a timeout (RFC 6298 sec. 5.5), up to max_rto."""
    S.half[h].rto = min(2.0 * S.half[h].rto, S.conn[h >> 1].max_rto)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_after_syn_timeout(S, h):
    """RFC 6298 sec. 5.7: once the SYN had to be retransmitted, the RTO is 3 s when data starts (if the
    initial RTO was below 3 s)."""
    if S.conn[h >> 1].init_rto < 3.0:
        S.half[h].rto = min(3.0, S.conn[h >> 1].max_rto)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rto_push(S, h, dl, a, t):
    """Push half ``h``'s ``EV_RTO`` event (argument ``a``) for ``dl``, set at ``t``: on BSD's tick clock a
    deadline n ticks ahead goes to the lane of n ticks, whose deadlines never go back (``kernel.lane``)."""
    tick = S.conn[h >> 1].tick_s
    if tick > 0.0:
        n = int(round(dl / tick) - math.floor(t / tick))
        if 1 <= n <= N_RTO_LANES:
            lane_push(S, LANE_RTO0 + n - 1, dl, EV_RTO, a)
            return
    push(S, dl, EV_RTO, a)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_arm(S, h, t):
    """(Re)start the retransmission timer of half ``h`` to fire at ``rto_deadline``.

    The timer is lazy: at most one ``EV_RTO`` event per half is in the heap (``rto_ev``, at ``rto_ev_t``);
    a later deadline leaves it there (``rto_fired`` re-pushes it when it comes too early), an earlier one
    pushes a new event of the next generation ``rto_gen`` (the old one is then ignored). The event's
    argument is ``rto_gen * n_halves + h``."""
    half = S.half
    dl = rto_deadline(S, h, t)
    half[h].rto_deadline = dl
    if half[h].rto_ev == 0 or half[h].rto_ev_t > dl:
        half[h].rto_gen += 1
        nh = S.st[0].n_halves
        _rto_push(S, h, dl, half[h].rto_gen * nh + h, t)
        half[h].rto_ev = 1
        half[h].rto_ev_t = dl


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_arm_at(S, h, dl, t):
    """(Re)start half ``h``'s retransmission timer, at ``t``, to fire at the time ``dl`` (not from the RTO: a
    give-up deadline, ``kernel.giveup``); lazy as ``rto_arm``, its event always in the heap (any time is fine)."""
    half = S.half
    half[h].rto_deadline = dl
    if half[h].rto_ev == 0 or half[h].rto_ev_t > dl:
        half[h].rto_gen += 1
        push(S, dl, EV_RTO, half[h].rto_gen * S.st[0].n_halves + h)
        half[h].rto_ev = 1
        half[h].rto_ev_t = dl


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def rto_fired(S, a, t):
    """Handle an ``EV_RTO`` event of argument ``a`` at ``t``: return the half whose retransmission timer
    has expired, or -1 (a stale event, a stopped timer, or one restarted later: then pushed again)."""
    half = S.half
    nh = S.st[0].n_halves
    h = a % nh
    if a // nh != half[h].rto_gen:
        return -1
    half[h].rto_ev = 0
    dl = half[h].rto_deadline
    if dl == math.inf:
        return -1
    if t < dl:
        half[h].rto_ev = 1
        half[h].rto_ev_t = dl
        _rto_push(S, h, dl, a, t)
        return -1
    return h
