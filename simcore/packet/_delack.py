"""Numba: the delayed-acknowledgement timer of a receiver, shared by every transport (TCP's delayed ACK,
RFC 1122 sec. 4.2.3.2 / RFC 5681 sec. 4.2; SCTP's delayed SACK, RFC 4960 sec. 6.2).

It works on the receiver half's ``dack_armed`` (1 while a timer is pending) and ``dack_gen`` (the timer's
generation): an ``EV_DELACK`` event carries ``dack_gen * n_halves + r``, and cancelling a timer (an
acknowledgement left before it fired) only bumps the generation, so the stale event is ignored when it
comes. The firing time is ``delack_s`` after the arming, or with the connection's ``delack_ticks`` (BSD)
the next multiple of ``delack_s``.
"""

from __future__ import annotations

import math

from numba import njit

from ._lane import lane_push
from ._layout import EV_DELACK, LANE_DELACK

__all__ = ["delack_arm", "delack_cancel", "delack_fired"]


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_arm(S, r, t):
    """Arm the delayed-acknowledgement timer of receiver half ``r`` at time ``t`` (s) unless it is armed."""
    half = S.half
    if half[r].dack_armed == 1:
        return
    half[r].dack_armed = 1
    d = S.conn[r >> 1].delack_s
    fire = t + d
    if S.conn[r >> 1].delack_ticks == 1:  # BSD: the next tick of a clock of period d
        fire = (math.floor(t / d) + 1.0) * d
    lane_push(S, LANE_DELACK, fire, EV_DELACK, half[r].dack_gen * S.st[0].n_halves + r)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_cancel(S, r):
    """Cancel receiver half ``r``'s pending delayed-acknowledgement timer, if any (an acknowledgement left)."""
    half = S.half
    if half[r].dack_armed == 1:
        half[r].dack_gen += 1
        half[r].dack_armed = 0


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_fired(S, a):
    """Return the receiver half whose timer the ``EV_DELACK`` argument ``a`` names if that timer is still
    current (it is disarmed), else -1 (cancelled since)."""
    half = S.half
    nh = S.st[0].n_halves
    r = a % nh
    if a // nh == half[r].dack_gen and half[r].dack_armed == 1:
        half[r].dack_armed = 0
        return r
    return -1
