"""Numba: the congestion-control seam, the hooks the TCP sender calls (ns-3's ``TcpCongestionOps``).

Each hook dispatches on the connection's ``S.conn[c].cc`` column (``registry.CC_*``) with one branch per algorithm:
Reno's arithmetic inline (its hooks are a few lines, run per ACK), every other algorithm's through one out-of-line
call (``outline``: one compiled copy, whatever the number of call sites), but for the hooks that run on every ACK or
every segment sent (``cc_delivered``, ``cc_ack``, ``cc_ack_done``, ``cc_sent``, ``cc_app_limited``) of an algorithm
that works there, or does nothing there (BBR): each is called from one place in the sender, so an ordinary call,
which LLVM inlines, compiles one copy as well and saves a call per ACK (BBR's app-limited mark, three lines, is
inlined by numba). A new algorithm goes through ``outline`` until a profile says otherwise. An algorithm module
defines every hook below under the short name (``ack``, ``ssthresh``, ...); ``tests/packet/test_cc_seam.py`` checks
that each module has them all and that each hook here calls each registered module. When the sender calls them
(``tcp.sender``), and their ns-3 counterparts (Reno and CUBIC answer the last three with nothing):

- ``cc_init(S, h, t)``: the half starts (its SYN queued; cwnd = IW, ssthresh set) (``Init``).
- ``cc_ack(S, h, acked, t)``: a new ACK of ``acked`` bytes outside loss recovery: the window grows (``PktsAcked``,
  ``IncreaseWindow``).
- ``cc_ssthresh(S, h, flight, t)``: the ssthresh after a loss event or timeout with ``flight`` bytes outstanding
  (``GetSsThresh``). No side effects: a timeout inside a loss episode asks for it to compare only.
- ``cc_congestion(S, h, kind, t)``: a new congestion event (``CA_RECOVERY`` a fast retransmit, ``CA_LOSS`` a
  timeout that starts a loss episode, ``CA_CWR`` an ECN echo), before the window is reduced: the algorithm
  records what it keeps of the window it had (CUBIC's W_max).
- ``cc_state(S, h, state, t)``: the loss recovery set cwnd and moved to ``state``: ``CA_RECOVERY``, ``CA_LOSS``
  (every timeout), ``CA_OPEN`` (recovery over) (``CongestionStateSet``); or ``CA_IDLE``: the sender, idle (nothing
  outstanding) for an RTO, is about to send again (after ``restart_after_idle`` cut cwnd) (``CwndEvent(TX_START)``).
- ``cc_ack_done(S, h, acked, t)``: every ACK's processing is done, before sending (``CongControl``): where an
  algorithm that sets the window from the ACK stream itself does so.
- ``cc_on_ecn(S, h, t)``: an ACK echoed a CE mark (RFC 3168 sec. 6.1.2; ``tcp.ecn`` calls it at most once per
  window, never in fast recovery): the algorithm reduces ssthresh and cwnd as it answers a loss, without
  retransmitting (``CA_CWR``).
- ``cc_sent(S, h, row, idx, t)``: the segment at ``S.seg[row, idx]`` was just sent (new or again): where an
  algorithm that samples the delivery rate records what it needs in it (``rate.on_sent``; ns-3's ``SkbSent``).
- ``cc_delivered(S, h, ack, sack_top, t)``: an ACK up to ``ack`` arrived (its SACK blocks applied; ``sack_top`` the
  highest end of those blocks, -1 none or no SACK), before the scoreboard drops what it acknowledges: the
  delivery-rate sample (``rate.on_ack``; ns-3's ``GenerateSample``).
- ``cc_app_limited(S, h, t)``: the sender has no data left to send (ns-3's ``CalculateAppLimited``).

Pacing is the sender's (``tcp.sender``): an algorithm that paces sets ``S.half[h].pace_rate_Bps`` (0: not paced).

Loss recovery (what to retransmit, cwnd inflation and deflation, when recovery ends) stays in ``tcp.sender``.
"""

from __future__ import annotations

from numba import njit

from ..._numba.outline import outline
from . import bbr, cubic, reno
from .registry import CC_BBR, CC_CUBIC, CC_RENO
from .states import CA_CWR, CA_IDLE, CA_LOSS, CA_OPEN, CA_RECOVERY

__all__ = ["CA_CWR", "CA_IDLE", "CA_LOSS", "CA_OPEN", "CA_RECOVERY", "cc_init", "cc_ack", "cc_ssthresh",
           "cc_congestion", "cc_state", "cc_ack_done", "cc_on_ecn", "cc_sent", "cc_delivered", "cc_app_limited"]


@njit(cache=True, inline="always")
def cc_init(S, h, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.init(S, h, t)
    elif a == CC_CUBIC:
        outline(cubic.init, (S, h, t))
    elif a == CC_BBR:
        outline(bbr.init, (S, h, t))


@njit(cache=True, inline="always")
def cc_ack(S, h, acked, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.ack(S, h, acked, t)
    elif a == CC_CUBIC:
        outline(cubic.ack, (S, h, acked, t))
    elif a == CC_BBR:
        bbr.ack(S, h, acked, t)


@njit(cache=True, inline="always")
def cc_ssthresh(S, h, flight, t):
    a = S.conn[h >> 1].cc
    if a == CC_CUBIC:
        return outline(cubic.ssthresh, (S, h, flight, t))
    if a == CC_BBR:
        return outline(bbr.ssthresh, (S, h, flight, t))
    return reno.ssthresh(S, h, flight, t)


@njit(cache=True, inline="always")
def cc_congestion(S, h, kind, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.congestion(S, h, kind, t)
    elif a == CC_CUBIC:
        outline(cubic.congestion, (S, h, kind, t))
    elif a == CC_BBR:
        outline(bbr.congestion, (S, h, kind, t))


@njit(cache=True, inline="always")
def cc_state(S, h, state, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.state(S, h, state, t)
    elif a == CC_CUBIC:
        outline(cubic.state, (S, h, state, t))
    elif a == CC_BBR:
        outline(bbr.state, (S, h, state, t))


@njit(cache=True, inline="always")
def cc_ack_done(S, h, acked, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.ack_done(S, h, acked, t)
    elif a == CC_CUBIC:
        outline(cubic.ack_done, (S, h, acked, t))
    elif a == CC_BBR:
        bbr.ack_done(S, h, acked, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def cc_on_ecn(S, h, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.ecn(S, h, t)
    elif a == CC_CUBIC:
        outline(cubic.ecn, (S, h, t))
    elif a == CC_BBR:
        outline(bbr.ecn, (S, h, t))


@njit(cache=True, inline="always")
def cc_sent(S, h, row, idx, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.sent(S, h, row, idx, t)
    elif a == CC_CUBIC:
        cubic.sent(S, h, row, idx, t)
    elif a == CC_BBR:
        bbr.sent(S, h, row, idx, t)


@njit(cache=True, inline="always")
def cc_delivered(S, h, ack, sack_top, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.delivered(S, h, ack, sack_top, t)
    elif a == CC_CUBIC:
        cubic.delivered(S, h, ack, sack_top, t)
    elif a == CC_BBR:
        bbr.delivered(S, h, ack, sack_top, t)


@njit(cache=True, inline="always")
def cc_app_limited(S, h, t):
    a = S.conn[h >> 1].cc
    if a == CC_RENO:
        reno.app_limited(S, h, t)
    elif a == CC_CUBIC:
        cubic.app_limited(S, h, t)
    elif a == CC_BBR:
        bbr.app_limited(S, h, t)
