"""Numba: CUBIC congestion control (RFC 9438), Linux's default since 2.6.19.

Windows are counted in segments here as in the RFC (``W = cwnd / SMSS``); times in seconds.

- **Window function** (sec. 4.2): in congestion avoidance ``W_cubic(t) = C (t - K)^3 + W_max`` with ``C = 0.4``,
  ``t`` the time since the current congestion-avoidance stage began (``cubic_epoch_s``) and
  ``K = cbrt((W_max - cwnd_epoch) / C)`` (eq. 2), ``cwnd_epoch`` the window when it began. Concave below
  ``W_max`` (``t < K``), convex beyond it. Where ``W_max`` is undefined (no congestion event yet: the first stage
  after slow start; the first stage after a timeout, sec. 4.8), ``K = 0`` and ``W_max = cwnd_epoch`` (sec. 4.10).
- **Growth** (sec. 4.4-4.5): ``target = W_cubic(t + RTT)`` (RTT the smoothed RTT, ``srtt``) clamped to
  ``[cwnd, 1.5 cwnd]``; ``cwnd += (target - cwnd) / cwnd`` per segment acknowledged (the RFC says per ACK; per
  segment, as Linux and ns-3 count, keeps delayed ACKs from halving the growth).
- **Reno-friendly region** (sec. 4.3): ``W_est`` starts at ``cwnd_epoch`` and grows by ``alpha * segments_acked /
  cwnd`` with ``alpha = 3 (1 - beta) / (1 + beta)`` (0.529), and 1 once ``W_est >= cwnd_prior`` (the window at the
  last congestion event). While ``W_cubic(t) < W_est`` the window follows ``W_est`` (never decreased by it).
- **Multiplicative decrease** (sec. 4.6): at a loss ``ssthresh = max(FlightSize * beta, 2 SMSS)``, ``beta = 0.7``;
  the loss recovery sets cwnd from it (``tcp.sender``). On an ECN echo ``cwnd = max(FlightSize * beta, 1 SMSS)``.
- **Fast convergence** (sec. 4.7): at a congestion event ``W_max = cwnd (1 + beta) / 2`` if ``cwnd < W_max`` (a
  flow losing ground leaves room), else ``W_max = cwnd``.
- **Timeout** (sec. 4.8): ssthresh as at a loss, cwnd = 1 SMSS (the loss recovery's), slow start; ``W_max``
  becomes undefined for the next stage (K = 0).
- Slow start is Reno's (standard, no HyStart++); no growth while the receive window is the limit (sec. 5.8's
  application-limited rule, for the one limit simcore's bulk senders meet).

- **Idle periods** (sec. 4.2): a sender idle for an RTO starts a new stage when it sends again, W_max kept, so the
  idle time does not count in t.

Not modelled: HyStart++ (RFC 9406), spurious-congestion undo (sec. 4.9).
"""

from __future__ import annotations

import math

from numba import njit

from ..._numba.outline import one_signature
from .states import CA_CWR, CA_IDLE, CA_LOSS

NAME = "cubic"
# per-half state (tcp.cc.registry.STATE): W_max and cwnd_prior in segments (< 0: undefined), the start of the
# congestion-avoidance stage (< 0: not begun), its K, and the Reno-friendly estimate W_est
FIELDS = "cubic_w_max_seg:f cubic_prior_seg:f cubic_epoch_s:f cubic_k_s:f cubic_w_est_seg:f"

C = 0.4  # segments / s^3 (sec. 5.1)
BETA = 0.7  # multiplicative decrease (sec. 4.6)
ALPHA = 3.0 * (1.0 - BETA) / (1.0 + BETA)  # Reno-friendly additive increase (sec. 4.3)
MAX_GROWTH = 1.5  # the target is at most 1.5 cwnd (sec. 4.4)


@njit(cache=True, inline="always")
def _cbrt(x):
    return math.copysign(abs(x) ** (1.0 / 3.0), x)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def init(S, h, t):
    """Half ``h`` starts: no congestion event yet, no congestion-avoidance stage begun."""
    r = S.cc
    r[h].cubic_w_max_seg = -1.0
    r[h].cubic_prior_seg = -1.0
    r[h].cubic_epoch_s = -1.0
    r[h].cubic_k_s = 0.0
    r[h].cubic_w_est_seg = 0.0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ack(S, h, acked, t):
    """A new ACK of ``acked`` bytes outside loss recovery: slow start, or CUBIC's growth (sec. 4.2-4.5)."""
    half = S.half
    conn = S.conn
    r = S.cc
    c = h >> 1
    mss = conn[c].mss
    cw = half[h].cwnd
    if cw >= conn[c].rwnd:  # no growth while the receive window is the limit
        return
    if cw < half[h].ssthresh:
        half[h].cwnd = cw + min(acked, mss)
        return
    w = cw / mss
    if r[h].cubic_epoch_s < 0.0:  # a congestion-avoidance stage begins
        r[h].cubic_epoch_s = t
        if r[h].cubic_w_max_seg < 0.0:
            r[h].cubic_w_max_seg = w
        r[h].cubic_k_s = _cbrt((r[h].cubic_w_max_seg - w) / C)
        r[h].cubic_w_est_seg = w
    segs = acked / mss
    tt = t - r[h].cubic_epoch_s
    k = r[h].cubic_k_s
    w_max = r[h].cubic_w_max_seg
    rtt = max(half[h].srtt, 0.0)
    alpha = 1.0 if r[h].cubic_w_est_seg >= r[h].cubic_prior_seg else ALPHA
    w_est = r[h].cubic_w_est_seg + alpha * segs / w
    r[h].cubic_w_est_seg = w_est
    if C * (tt - k) ** 3 + w_max < w_est:  # Reno-friendly region (sec. 4.3)
        w = max(w, w_est)
    else:
        target = min(max(C * (tt + rtt - k) ** 3 + w_max, w), MAX_GROWTH * w)
        w += (target - w) / w * segs
    half[h].cwnd = w * mss


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ssthresh(S, h, flight, t):
    """Return the ssthresh after a loss event or timeout with ``flight`` bytes outstanding (sec. 4.6)."""
    return max(flight * BETA, 2.0 * S.conn[h >> 1].mss)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def congestion(S, h, kind, t):
    """A new congestion event, before the window is reduced: W_max with fast convergence (sec. 4.7), cwnd_prior,
    and the congestion-avoidance stage ends."""
    r = S.cc
    w = S.half[h].cwnd / S.conn[h >> 1].mss
    if w < r[h].cubic_w_max_seg:
        r[h].cubic_w_max_seg = w * (1.0 + BETA) / 2.0
    else:
        r[h].cubic_w_max_seg = w
    r[h].cubic_prior_seg = w
    r[h].cubic_epoch_s = -1.0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def state(S, h, st, t):
    """After a timeout (``st`` = ``CA_LOSS``) the next stage starts with W_max undefined (sec. 4.8). After an idle
    period (``CA_IDLE``) a new stage starts from the window there is, W_max kept: t leaves the idle time out (sec.
    4.2: "t in Eq. 1 MUST NOT include these periods"), as Linux's shift of its epoch does."""
    if st == CA_LOSS:
        S.cc[h].cubic_w_max_seg = -1.0
        S.cc[h].cubic_epoch_s = -1.0
    elif st == CA_IDLE:
        S.cc[h].cubic_epoch_s = -1.0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ack_done(S, h, acked, t):
    """An ACK's processing is over: CUBIC set its window in ``ack``."""
    return


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ecn(S, h, t):
    """An ECN echo (sec. 4.6, reduction on ECE): cwnd = max(FlightSize beta, 1 SMSS), ssthresh at least 2 SMSS."""
    half = S.half
    mss = S.conn[h >> 1].mss
    ss = (half[h].snd_max - half[h].snd_una) * BETA
    congestion(S, h, CA_CWR, t)
    half[h].cwnd = max(ss, 1.0 * mss)
    half[h].ssthresh = max(ss, 2.0 * mss)


@njit(cache=True, inline="always")
def sent(S, h, row, idx, t):
    """A segment left (``S.seg[row, idx]``): CUBIC keeps no per-segment state."""
    return


@njit(cache=True, inline="always")
def delivered(S, h, ack, sack_top, t):
    """An ACK arrived: CUBIC takes no delivery-rate sample."""
    return


@njit(cache=True, inline="always")
def app_limited(S, h, t):
    """The sender ran out of data: nothing for CUBIC."""
    return
