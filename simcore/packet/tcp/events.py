"""Numba: TCP's handlers of the events ``kernel.transport`` dispatches to it (packet arrival, open,
retransmission timeout, delayed ACK, pacing) and of the application's requests (data available, close).

The sender is ``tcp.sender``, the receiver ``tcp.receiver``; the application layer above is ``kernel.app``.
"""

from __future__ import annotations

from numba import njit

from .._numba.outline import outline
from ..kernel import app as A  # a module (late bound): kernel.app calls the transports through kernel.transport
from ..kernel import layout as L
from ..kernel.delack import delack_arm, delack_fired
from ..kernel.link import give_row
from ..kernel.trace import trace_tcp
from .receiver import on_segment
from .sender import on_ack, on_rto, open_half, send_packet, send_segment, try_send


@njit(cache=True, inline="always")
def _send_pure_ack(S, s, t):
    send_packet(S, s, t, 0, S.half[s].snd_nxt, 0, 0)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _fin_received(S, r, t):
    """Everything up to the FIN of half ``r`` has arrived in order: free its out-of-order row, and answer
    with our own FIN (passive close) or enter TIME-WAIT (active closer; 2 MSL not simulated)."""
    half = S.half
    c = r >> 1
    half[r].fin_rcvd = 1
    give_row(S, L.ROWS_OOO, half[r].ooo_row)
    half[r].ooo_row = -1
    half[r].fin_rcvd_t = t
    s = r ^ 1
    if half[s].fin_seq < 0:
        half[s].fin_seq = half[s].stream_end
        S.conn[c].fin_queued = 1
    else:
        S.conn[c].timewait_t = t


@njit(cache=True, inline="always")
def tcp_arrive(S, p, t):
    """A TCP packet of half ``r`` reaches the receiving host, whose own sending half is ``s = r ^ 1``."""
    half = S.half
    pkt = S.pkt
    r = 2 * pkt[p].conn + pkt[p].dir
    s = r ^ 1
    flags = pkt[p].flags
    started = half[r].rcv_started
    on_segment(S, r, p, t)
    if pkt[p].seqlen > 0:
        A.deliver(S, r, t)
        fin = half[r].rcv_fin
        if fin >= 0 and half[r].rcv_nxt > fin and half[r].fin_rcvd == 0:
            outline(_fin_received, (S, r, t))
    if flags & L.F_SYN and not flags & L.F_ACK:
        if half[s].state == L.S_CLOSED:
            S.conn[r >> 1].opened = 1
            outline(open_half, (S, s, t))  # SYN-ACK: once per connection
        elif half[s].state == L.S_SYN and started == 1:
            if half[s].seg_n > 0:
                outline(send_segment, (S, s, 0, t, True))
    if flags & L.F_ACK:
        if flags & L.F_SYN and half[s].state == L.S_SYN and S.conn[r >> 1].bare_ack == 1:
            _send_pure_ack(S, s, t)  # connect() returns: the handshake's ACK leaves bare, the request after it
        on_ack(S, s, p, t)
        if half[s].state == L.S_EST:
            A.maybe_close(S, r >> 1, t)
    else:
        outline(try_send, (S, s, t))  # a SYN without ACK: not per packet
    owed = half[r].ack_owed
    if owed == 1:
        if try_send(S, s, t) == 0 and half[r].ack_owed == 1:
            _send_pure_ack(S, s, t)
    elif owed == 2:
        delack_arm(S, r, t)


@njit(cache=True, inline="always")
def tcp_open(S, c, t):
    """``EV_OPEN``: the client of connection ``c`` sends its SYN."""
    h = 2 * c
    if S.half[h].state == L.S_CLOSED:
        S.conn[c].opened = 1
        outline(open_half, (S, h, t))
        if S.st[0].trace == 1:
            trace_tcp(S, h, t, 3)


@njit(cache=True, inline="always")
def tcp_delack(S, a, t):
    """``EV_DELACK`` of argument ``a = dack_gen * n_halves + r``: send the ACK the receiver of half ``r``
    still owes, unless an ACK has left since the timer was set."""
    r = delack_fired(S, a)
    if r >= 0 and S.half[r].ack_owed > 0:
        _send_pure_ack(S, r ^ 1, t)


@njit(cache=True, inline="always")
def tcp_close(S, h, t):
    """The application closes half ``h``: queue its FIN after the data written so far."""
    S.half[h].fin_seq = S.half[h].stream_end
    outline(try_send, (S, h, t))


@njit(cache=True, inline="always")
def tcp_pace(S, h, t):
    """``EV_PACE`` of half ``h``: its pacing delay is over; send what the windows and the pacing rate allow."""
    S.half[h].pace_ev = 0
    if S.half[h].state == L.S_EST:
        outline(try_send, (S, h, t))


# The retransmission timer of half ``h`` has expired: ``tcp.sender.on_rto`` itself (not a wrapper calling it: numba
# would copy on_rto's IR once more to inline the wrapper).
tcp_rto = on_rto
