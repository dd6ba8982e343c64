"""Numba: the congestion-control seam, the hooks the TCP sender calls (ns-3's ``TcpCongestionOps``).

Each hook dispatches on the connection's ``S.conn[c].cc`` column (``registry.CC_*``) with one branch per algorithm:
Reno's arithmetic inline (its hooks are a few lines, run per ACK), the others through one out-of-line call.
When the sender calls them (``tcp.sender``), and their ns-3 counterparts:

- ``cc_open(S, h, t)``: the half starts (its SYN queued; cwnd = IW, ssthresh set) (``Init``).
- ``cc_ack(S, h, acked, t)``: a new ACK of ``acked`` bytes outside loss recovery (``PktsAcked``,
  ``IncreaseWindow``).
- ``cc_ssthresh(S, h, flight, t)``: a loss event (fast retransmit) or a timeout with ``flight`` bytes outstanding;
  returns the new ssthresh (``GetSsThresh``).
- ``cc_state(S, h, state, t)``: after the loss recovery set cwnd: entering recovery (``CA_RECOVERY``), a timeout
  (``CA_LOSS``), recovery over (``CA_OPEN``) (``CongestionStateSet``, ``CwndEvent(CA_EVENT_COMPLETE_CWR)``).
- ``cc_ack_done(S, h, acked, t)``: at the end of every ACK's processing, before sending (``CongControl``).

Loss recovery (what to retransmit, cwnd inflation, when recovery ends) stays in ``tcp.sender``.
"""

from __future__ import annotations

from numba import njit

from . import reno
from .registry import CC_RENO

CA_OPEN = 0  # no loss episode: new ACKs grow the window (cc_ack)
CA_RECOVERY = 1  # fast retransmit sent, recovering (the recovery set cwnd)
CA_LOSS = 2  # a retransmission timeout (cwnd = 1 SMSS)


@njit(cache=True, inline="always")
def cc_open(S, h, t):
    """Half ``h`` starts: cwnd and ssthresh hold their initial values; the algorithm sets up its state (Reno has
    none)."""
    return


@njit(cache=True, inline="always")
def cc_ack(S, h, acked, t):
    """A new ACK of ``acked`` bytes outside loss recovery: the window grows."""
    if S.conn[h >> 1].cc == CC_RENO:
        reno.ack(S, h, acked, t)


@njit(cache=True, inline="always")
def cc_ssthresh(S, h, flight, t):
    """A loss event or timeout with ``flight`` bytes outstanding: return the new ssthresh."""
    return reno.ssthresh(S, h, flight, t)


@njit(cache=True, inline="always")
def cc_state(S, h, state, t):
    """The loss recovery moved half ``h`` into ``state`` (``CA_*``) and set cwnd as it does."""
    return


@njit(cache=True, inline="always")
def cc_ack_done(S, h, acked, t):
    """Every ACK's processing is done (``acked`` new bytes, 0 for a duplicate): congestion controls that set the
    window from the ACK stream itself (BBR) do so here."""
    return
