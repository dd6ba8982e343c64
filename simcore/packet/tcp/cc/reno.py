"""Numba: Reno congestion control (RFC 5681 sec. 3.1), the classic AIMD window of TCP.

Slow start while cwnd < ssthresh: cwnd += min(N, SMSS) per ACK that acknowledges N new bytes (RFC 5681 eq. 2,
Appropriate Byte Counting with L = 1 SMSS). Congestion avoidance: cwnd += SMSS * SMSS / cwnd per ACK (eq. 3),
about one SMSS per round trip. cwnd does not grow while the receive window is the limit (its use is what
growth is for). A loss event, or a timeout, sets ssthresh = max(FlightSize / 2, 2 SMSS) (eq. 4); the loss
recovery in ``tcp.sender`` then sets cwnd (ssthresh + DupThresh SMSS, ssthresh, or 1 SMSS after a timeout).
An ECN echo (RFC 3168 sec. 6.1.2) reduces as a loss does, without retransmission: ssthresh and cwnd both
become max(FlightSize / 2, 2 SMSS).

Reno keeps no state beyond ``cwnd`` and ``ssthresh`` (``FIELDS`` is empty) and its hooks are inlined where the
sender calls them, so a Reno connection runs exactly the arithmetic it ran before congestion control had a seam.
The hooks every algorithm module defines, and when the sender calls them: ``tcp.cc.dispatch``.
"""

from __future__ import annotations

from numba import njit

NAME = "reno"
FIELDS = ""  # no per-half state of its own (tcp.cc.registry.STATE)


@njit(cache=True, inline="always")
def init(S, h, t):
    """Half ``h`` starts: Reno has no state to set up."""
    return


@njit(cache=True, inline="always")
def ack(S, h, acked, t):
    """A new ACK of ``acked`` bytes outside loss recovery: grow cwnd of half ``h`` (eq. 2 or 3)."""
    half = S.half
    conn = S.conn
    c = h >> 1
    mss = conn[c].mss
    cw = half[h].cwnd
    if cw < conn[c].rwnd:  # no growth while the receive window is the limit
        if cw < half[h].ssthresh:
            cw += min(acked, mss)
        else:
            cw += mss * mss / cw
        half[h].cwnd = cw


@njit(cache=True, inline="always")
def ssthresh(S, h, flight, t):
    """Return the ssthresh after a loss event or timeout with ``flight`` bytes outstanding (eq. 4)."""
    return max(flight / 2.0, 2.0 * S.conn[h >> 1].mss)


@njit(cache=True, inline="always")
def congestion(S, h, kind, t):
    """A new congestion event (``kind``: ``states.CA_*``) before the window is reduced: Reno keeps no history."""
    return


@njit(cache=True, inline="always")
def state(S, h, st, t):
    """The loss recovery moved half ``h`` to ``st`` (``states.CA_*``): nothing for Reno."""
    return


@njit(cache=True, inline="always")
def ack_done(S, h, acked, t):
    """An ACK's processing is over: Reno set its window already."""
    return


@njit(cache=True, inline="always")
def ecn(S, h, t):
    """An ECN echo (RFC 3168 sec. 6.1.2): ssthresh = cwnd = max(FlightSize / 2, 2 SMSS)."""
    half = S.half
    ss = max((half[h].snd_max - half[h].snd_una) / 2.0, 2.0 * S.conn[h >> 1].mss)
    half[h].ssthresh = ss
    half[h].cwnd = ss


@njit(cache=True, inline="always")
def sent(S, h, row, idx, t):
    """A segment left (``S.seg[row, idx]``): Reno keeps no per-segment state."""
    return


@njit(cache=True, inline="always")
def delivered(S, h, ack, sack_top, t):
    """An ACK arrived: Reno takes no delivery-rate sample."""
    return


@njit(cache=True, inline="always")
def app_limited(S, h, t):
    """The sender ran out of data: nothing for Reno."""
    return
