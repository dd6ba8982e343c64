"""Numba: the seam between the shared machinery and the transports. Each function dispatches on the connection's
protocol column ``S.conn[c].proto`` (``PROTO_TCP``; a second transport adds its constant in ``kernel.layout`` and
one branch per function here, beside TCP's, without touching TCP's modules).

Events (from the event loop, ``kernel.loop.run``): ``on_arrival`` (a transport packet reaches its host), ``on_open``
(``EV_OPEN``), ``on_timer`` (``EV_RTO``; the shared lazy timer of ``kernel.rtt`` says which half expired),
``on_delack`` (``EV_DELACK``), ``on_pace`` (``EV_PACE``: TCP only, SCTP does not pace). Requests (from the
application layer, ``kernel.app``): ``send_available`` (new data, or a relay fed some), ``close_half`` (the closer
is done). A connection its transport gave up (``S.conn[c].dead``, ``kernel.giveup``) gets none of them.
"""

from __future__ import annotations

from numba import njit

from .._numba.outline import outline
from ..sctp.events import sctp_arrive, sctp_close, sctp_delack, sctp_open, sctp_rto
from ..sctp.sender import sctp_send
from ..tcp.events import tcp_arrive, tcp_close, tcp_delack, tcp_open, tcp_pace, tcp_rto
from ..tcp.sender import try_send
from . import layout as L
from .rtt import rto_fired


@njit(cache=True, inline="always")
def on_arrival(S, p, t):
    """Packet ``p`` of a connection has reached the far end of its route."""
    c = S.pkt[p].conn
    if S.conn[c].dead == 1:
        return
    proto = S.conn[c].proto
    if proto == L.PROTO_TCP:
        tcp_arrive(S, p, t)
    elif proto == L.PROTO_SCTP:
        sctp_arrive(S, p, t)


@njit(cache=True, inline="always")
def on_open(S, c, t):
    """``EV_OPEN``: connection ``c`` opens (its client starts the handshake)."""
    if S.conn[c].proto == L.PROTO_TCP:
        tcp_open(S, c, t)
    elif S.conn[c].proto == L.PROTO_SCTP:
        sctp_open(S, c, t)


@njit(cache=True, inline="always")
def on_timer(S, a, t):
    """``EV_RTO`` of argument ``a``: if a half's retransmission timer has expired, its transport handles it."""
    h = rto_fired(S, a, t)
    if h >= 0 and S.conn[h >> 1].dead == 0:
        if S.conn[h >> 1].proto == L.PROTO_TCP:
            tcp_rto(S, h, t)
        elif S.conn[h >> 1].proto == L.PROTO_SCTP:
            sctp_rto(S, h, t)


@njit(cache=True, inline="always")
def on_delack(S, a, t):
    """``EV_DELACK`` of argument ``a = gen * n_halves + r``: the delayed-ACK timer of receiver ``r``."""
    r = a % S.st[0].n_halves
    if S.conn[r >> 1].dead == 1:
        return
    if S.conn[r >> 1].proto == L.PROTO_TCP:
        tcp_delack(S, a, t)
    elif S.conn[r >> 1].proto == L.PROTO_SCTP:
        sctp_delack(S, a, t)


@njit(cache=True, inline="always")
def on_pace(S, h, t):
    """``EV_PACE`` of half ``h``: a paced sender may send again (a stale event, of a slot taken again, finds the
    windows and the pacing time as they are: it sends only what they allow)."""
    if S.conn[h >> 1].dead == 0 and S.conn[h >> 1].proto == L.PROTO_TCP:
        tcp_pace(S, h, t)


@njit(cache=True, inline="always")
def send_available(S, h, t):
    """The application has made data available on half ``h``: send what the transport allows."""
    if S.conn[h >> 1].dead == 1:
        return
    if S.conn[h >> 1].proto == L.PROTO_TCP:
        outline(try_send, (S, h, t))  # per message written, not per packet
    elif S.conn[h >> 1].proto == L.PROTO_SCTP:
        outline(sctp_send, (S, h, t))  # per message written, not per packet


@njit(cache=True, inline="always")
def close_half(S, h, t):
    """The application closes half ``h`` after the data it has written. Once per connection: ``kernel.app`` calls
    it through ``outline`` (``kernel.app._relays_or_close``), so that its transports' close paths are compiled once,
    not in each of the five places ``maybe_close`` is inlined."""
    if S.conn[h >> 1].dead == 1:
        return
    if S.conn[h >> 1].proto == L.PROTO_TCP:
        tcp_close(S, h, t)
    elif S.conn[h >> 1].proto == L.PROTO_SCTP:
        sctp_close(S, h, t)
