"""Numba: Explicit Congestion Notification in TCP (RFC 3168), for connections with ``TcpParams(ecn=True)``.

- **Negotiation** (sec. 6.1.1): the SYN carries ECE and CWR, the SYN-ACK ECE. Both ends of a connection share its
  parameters, so both are ECN-capable and the negotiation always succeeds; the flags are there for captures.
- **Sender, IP header** (sec. 6.1.1-6.1.5): new data segments leave ECT(0); retransmissions, pure ACKs, the
  handshake and a bare FIN do not (they may not be marked, so an AQM drops them).
- **Receiver** (sec. 6.1.3): a data segment that arrives CE-marked makes it set ECE on every ACK it sends, until
  a segment with CWR arrives (a segment with both CWR and CE sets it again).
- **Sender, reaction** (sec. 6.1.2): an ACK with ECE (not the SYN-ACK's) makes it reduce as for a loss, without
  retransmitting (its congestion control's answer, ``tcp.cc.dispatch.cc_on_ecn``; Reno: ``ssthresh = max(FlightSize
  / 2, 2 SMSS)``, ``cwnd = ssthresh``), at most once per window of data (no new reduction before an ACK covers what
  was sent before this one: ``ecn_recover``), and not during fast recovery (the loss already reduced this window).
  The next new data segment carries CWR. A loss detected within a window that ECN already reduced does not halve
  ssthresh again ("SHOULD NOT decrease ssthresh if it has been decreased within the last round trip time").


The reduction is the congestion control's own loss response (``TcpParams.congestion_control``): Reno's RFC 5681 eq.
4, CUBIC's beta = 0.7 (RFC 9438 sec. 4.6). Not modelled: ECN nonces, ECN on SYN-ACKs (RFC 8311), accurate ECN, and
the sender's fall-back when cwnd is below one segment (its timer, sec. 6.1.2): cwnd never goes below 1 SMSS here.
"""

from __future__ import annotations

from numba import njit

from ..kernel import layout as L
from ..kernel.trace import trace_tcp
from .cc.dispatch import cc_on_ecn

EV_ECN = 4  # the sender trace's event for a reduction on ECE (``kernel.trace``; 0-3: ACK, dupack, timeout, SYN)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def packet_flags(S, h, flags, payload):
    """Return the flags of a packet that the sender of half ``h`` (of an ECN-capable connection) sends with
    ``flags`` (its ACK flag already set) and ``payload`` data bytes, with RFC 3168's bits added."""
    half = S.half
    if flags & L.F_SYN:
        return flags | (L.F_ECE if flags & L.F_ACK else L.F_ECE | L.F_CWR)
    if flags & L.F_ACK and half[h ^ 1].ece_on == 1:  # the receiver of h ^ 1, at this host, echoes CE
        flags |= L.F_ECE
    if payload > 0 and not flags & L.F_RETX:
        flags |= L.F_ECT
        if half[h].cwr_owed == 1:
            half[h].cwr_owed = 0
            flags |= L.F_CWR
    return flags


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def segment_arrived(S, r, flags):
    """The receiver of half ``r`` (ECN-capable) got a data segment with ``flags``: CWR ends its echo, CE starts it."""
    if flags & L.F_CWR:
        S.half[r].ece_on = 0
    if flags & L.F_CE:
        S.half[r].ece_on = 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def echo_received(S, h, ack, t):
    """The sender of half ``h`` got an ACK (cumulative ``ack``) with ECE: reduce once per window (see the module)."""
    half = S.half
    if half[h].state != L.S_EST or half[h].in_rec == 1 or ack <= half[h].ecn_recover:
        return
    cc_on_ecn(S, h, t)
    half[h].ecn_recover = half[h].snd_max
    half[h].cwr_owed = 1
    half[h].n_ecn += 1
    if S.st[0].trace == 1:
        trace_tcp(S, h, t, EV_ECN)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def loss_ssthresh(S, h, ss):
    """Return the ssthresh a fast retransmit of half ``h`` sets, ``ss`` by the loss rule: ECN's, if it reduced
    this window already (RFC 3168 sec. 6.1.2)."""
    if S.conn[h >> 1].ecn == 1 and S.half[h].snd_una < S.half[h].ecn_recover:
        return S.half[h].ssthresh
    return ss
