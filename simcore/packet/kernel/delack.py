"""Numba: the delayed-acknowledgement timer of a receiver, shared by every transport (TCP's delayed ACK,
RFC 1122 sec. 4.2.3.2 / RFC 5681 sec. 4.2; SCTP's delayed SACK, RFC 4960 sec. 6.2).

It works on the receiver half's ``dack_armed`` (0 none; while a timer is pending, 1 + the position of its event
in the delayed-ACK lane, or -1 if that event went to the heap) and ``dack_gen`` (the timer's generation): an
``EV_DELACK`` event carries ``dack_gen * n_halves + r``. Cancelling a timer (an acknowledgement left before it
fired: most of them) bumps the generation, so the stale event would be ignored when it comes, and turns its lane
entry into an ``EV_NONE``, which the event loop counts and skips without reading the receiver's rows (at chapter
2's highest load they were last read a round trip earlier: two cache misses per stale timer). An armed timer's event
is still pending (its firing disarms it), so the position is still its own; an event in the heap stays as it was.
The firing time is ``delack_s`` after the arming, or with the connection's ``delack_ticks`` (BSD) the next
multiple of ``delack_s``.
"""

from __future__ import annotations

import math

from numba import njit

from .lane import lane_push
from .layout import EV_DELACK, EV_NONE, LANE_DELACK

__all__ = ["delack_arm", "delack_cancel", "delack_fired"]


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_arm(S, r, t):
    """Arm the delayed-acknowledgement timer of receiver half ``r`` at time ``t`` (s) unless it is armed."""
    half = S.half
    if half[r].dack_armed != 0:
        return
    d = S.conn[r >> 1].delack_s
    fire = t + d
    if S.conn[r >> 1].delack_ticks == 1:  # BSD: the next tick of a clock of period d
        fire = (math.floor(t / d) + 1.0) * d
    half[r].dack_armed = 1 + lane_push(S, LANE_DELACK, fire, EV_DELACK, half[r].dack_gen * S.st[0].n_halves + r)
    if half[r].dack_armed == 0:  # -1 + 1: in the heap
        half[r].dack_armed = -1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_cancel(S, r):
    """Cancel receiver half ``r``'s pending delayed-acknowledgement timer, if any (an acknowledgement left)."""
    half = S.half
    i = half[r].dack_armed - 1
    if i != -1:
        half[r].dack_gen += 1
        half[r].dack_armed = 0
        if i >= 0:  # its event waits in the lane: make it a no-op the loop skips
            S.lane[LANE_DELACK, i].k = EV_NONE


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def delack_fired(S, a):
    """Return the receiver half whose timer the ``EV_DELACK`` argument ``a`` names if that timer is still
    current (it is disarmed), else -1 (cancelled since)."""
    half = S.half
    nh = S.st[0].n_halves
    r = a % nh
    if a // nh == half[r].dack_gen and half[r].dack_armed != 0:
        half[r].dack_armed = 0
        return r
    return -1
