"""Numba: SCTP's handlers of the events ``kernel.transport`` dispatches to it, and the association's set-up.
Set-up, shutdown and timer packets leave through real calls (``_numba.outline.outline``): off the per-packet path.

Association (RFC 4960 sec. 5.1): the client sends INIT and starts T1-init; the server answers with an
INIT-ACK carrying a state cookie and keeps no state; the client echoes the cookie (COOKIE-ECHO, T1-cookie)
and may then receive; the server, on the cookie, establishes the association and answers COOKIE-ACK; the
client, on it, establishes too. T1 expiries resend INIT or COOKIE-ECHO with the timer doubled (sec.
6.3.3 rule E2 applied to T1, up to RTO.Max); the expiry after ``Max.Init.Retransmits`` retransmissions gives
the set-up up (sphase SP_ABORTED, ``abort_t``; sec. 5.1 A and C). With ``SctpParams.cookie_echo_data``
the client's first DATA chunk rides behind the COOKIE-ECHO (sec. 5.1 D) and nothing more leaves until the COOKIE-ACK.

Shutdown (sec. 9.2): the closer's application closes (``sctp_close``); once all its data is acknowledged
it sends SHUTDOWN (with its cumulative TSN ack) and starts T2-shutdown; the peer, once all its own data is
acknowledged, answers SHUTDOWN-ACK (T2); the closer answers SHUTDOWN-COMPLETE and is closed, the peer is
closed when that arrives. No TIME-WAIT. T2 expiries resend with the timer doubled. A closed endpoint
answers a SHUTDOWN-ACK with SHUTDOWN-COMPLETE and ignores everything else.
"""

from __future__ import annotations

import math

from numba import njit

from .._numba.outline import outline
from ..kernel import app as A  # late bound, as for TCP
from ..kernel import layout as L
from ..kernel.delack import delack_arm, delack_fired
from ..kernel.link import give_row
from ..kernel.rtt import rto_arm, rto_backoff
from ..kernel.trace import trace_tcp
from .receiver import on_data, start_receiver
from .sender import establish, on_sack, on_t3, sctp_packet, sctp_packet_fast, sctp_send, send_chunk

_INF = math.inf


@njit(cache=True, inline="always")
def _close_if_asked(S, h, t):
    """The application of half ``h`` closed before the association was up (``fin_seq`` >= 0): shut down now."""
    half = S.half
    if half[h].fin_seq >= 0 and half[h].state == L.S_EST and half[h].sphase == L.SP_UP:
        half[h].sphase = L.SP_SHUT_PENDING
        outline(_rare, (S, _SHUTDOWN_PROGRESS, h, 0, t))  # inlined wherever an application may close


@njit(cache=True, inline="always")
def _handshake(S, s, r, ch, t):
    """The association chunks of a packet arriving at the host of sender ``s`` / receiver ``r``."""
    half = S.half
    c = s >> 1
    if ch & L.K_INIT:  # at the server: stateless INIT-ACK with the cookie
        outline(sctp_packet, (S, s, t, L.K_INIT_ACK, 0, 0, 0, False, 0))
    if ch & L.K_INIT_ACK and half[s].state == L.S_SYN and half[s].sphase == L.SP_INIT:  # at the client
        start_receiver(S, r)
        if S.conn[c].cookie_data == 1 and half[s].write_end > 1:  # DATA rides on the COOKIE-ECHO
            establish(S, s, t)
            half[s].sphase = L.SP_COOKIE
            outline(sctp_send, (S, s, t))
        else:
            half[s].sphase = L.SP_COOKIE
            outline(sctp_packet, (S, s, t, L.K_COOKIE_ECHO, 0, 0, 0, False, 0))
        rto_arm(S, s, t)  # T1-cookie
    if ch & L.K_COOKIE_ECHO:  # at the server
        if half[s].state == L.S_CLOSED:
            S.conn[c].opened = 1
            start_receiver(S, r)
            establish(S, s, t)
            half[s].est_t = t
        outline(sctp_packet, (S, s, t, L.K_COOKIE_ACK, 0, 0, 0, False, 0))
        outline(sctp_send, (S, s, t))
        _close_if_asked(S, s, t)
    if ch & L.K_COOKIE_ACK and half[s].sphase == L.SP_COOKIE:  # at the client
        if half[s].state == L.S_SYN:
            establish(S, s, t)
        half[s].sphase = L.SP_UP
        half[s].est_t = t
        trace_tcp(S, s, t, 0)
        outline(sctp_send, (S, s, t))
        _close_if_asked(S, s, t)


@njit(cache=True, inline="always")
def _all_acked(S, h):
    half = S.half
    return half[h].seg_n == 0 and half[h].n_marked == 0 and half[h].write_end <= half[h].snd_max


@njit(cache=True, inline="always")
def shutdown_progress(S, h, t):
    """Send SHUTDOWN (closer) or SHUTDOWN-ACK (peer) once all of half ``h``'s data is acknowledged."""
    half = S.half
    ph = half[h].sphase
    if (ph != L.SP_SHUT_PENDING and ph != L.SP_SHUT_RCVD) or not _all_acked(S, h):
        return
    if ph == L.SP_SHUT_PENDING:
        outline(sctp_packet, (S, h, t, L.K_SHUTDOWN, 0, 0, 0, False, 0))
        half[h].sphase = L.SP_SHUT_SENT
    else:
        outline(sctp_packet, (S, h, t, L.K_SHUTDOWN_ACK, 0, 0, 0, False, 0))
        half[h].sphase = L.SP_SHUT_ACK_SENT
    rto_arm(S, h, t)  # T2-shutdown


@njit(cache=True, inline="always")
def _closed(S, s, t):
    """The endpoint of sending half ``s`` (and receiving half ``s ^ 1``) is closed: rows given back."""
    half = S.half
    r = s ^ 1
    half[s].sphase = L.SP_CLOSED
    half[s].fin_acked_t = t
    half[s].rto_deadline = _INF
    if half[s].seg_row >= 0:
        give_row(S, L.ROWS_SEG, half[s].seg_row)
        half[s].seg_row = -1
    if half[r].ooo_row >= 0:
        give_row(S, L.ROWS_OOO, half[r].ooo_row)
        half[r].ooo_row = -1
        half[r].ooo_n = 0


@njit(cache=True, inline="always")
def _shutdown_chunks(S, s, ch, t):
    """The SHUTDOWN family arriving at the endpoint of sending half ``s``."""
    half = S.half
    ph = half[s].sphase
    if ch & L.K_SHUTDOWN:  # at the peer
        if ph == L.SP_UP or ph == L.SP_SHUT_PENDING:
            half[s].sphase = L.SP_SHUT_RCVD
            shutdown_progress(S, s, t)
        elif ph == L.SP_SHUT_ACK_SENT:
            outline(sctp_packet, (S, s, t, L.K_SHUTDOWN_ACK, 0, 0, 0, False, 0))
    if ch & L.K_SHUTDOWN_ACK and (ph == L.SP_SHUT_SENT or ph == L.SP_CLOSED):  # at the closer
        outline(sctp_packet, (S, s, t, L.K_SHUTDOWN_COMPLETE, 0, 0, 0, False, 0))
        if ph == L.SP_SHUT_SENT:
            _closed(S, s, t)
    if ch & L.K_SHUTDOWN_COMPLETE and ph == L.SP_SHUT_ACK_SENT:  # at the peer
        _closed(S, s, t)


@njit(cache=True, inline="always")
def _sack_alone(S, s, r, t):
    """After the chunks of a packet reached the host of sender ``s`` / receiver ``r``: return True if ``r``
    owes a SACK at once and this host has no DATA to bundle it with (the caller sends it alone); arm the
    delayed-SACK timer if the SACK may wait."""
    half = S.half
    owed = half[r].ack_owed
    if owed == 1:
        sent = 0
        if half[s].state == L.S_EST and (half[s].n_marked > 0 or half[s].write_end > half[s].snd_max):
            sent = outline(sctp_send, (S, s, t))  # the SACK rides on DATA (sctp_send sends nothing otherwise)
        return sent == 0 and half[r].ack_owed == 1
    if owed == 2:
        delack_arm(S, r, t)
    return False


_SHUTDOWN_PROGRESS = 0
_SHUTDOWN_CHUNKS = 1
_T3 = 2


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _rare(S, what, h, ch, t):
    """SCTP's rare paths that send, as one out-of-line function: ``shutdown_progress`` (``what`` 0),
    ``_shutdown_chunks`` (1, chunks ``ch``), T3-rtx's expiry ``sctp.sender.on_t3`` (2), of sending half ``h``. Each
    out-of-line function's library links and compiles again what it calls (``sctp_packet`` and the link
    behind it): one library instead of three."""
    if what == _SHUTDOWN_PROGRESS:
        shutdown_progress(S, h, t)
    elif what == _SHUTDOWN_CHUNKS:
        _shutdown_chunks(S, h, ch, t)
    else:
        on_t3(S, h, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _arrive(S, p, t):
    """An SCTP packet of half ``r`` reaches the host whose sending half is ``s = r ^ 1``."""
    half = S.half
    pk = S.pkt[p]
    r = 2 * pk.conn + pk.dir
    s = r ^ 1
    ch = pk.chunks
    if half[s].state == L.S_EST and half[s].sphase == L.SP_CLOSED:
        outline(_rare, (S, _SHUTDOWN_CHUNKS, s, ch & L.K_SHUTDOWN_ACK, t))
        return
    if ch & (L.K_INIT | L.K_INIT_ACK | L.K_COOKIE_ECHO | L.K_COOKIE_ACK):
        _handshake(S, s, r, ch, t)
    if ch & L.K_DATA:
        on_data(S, r, p, t)
        A.deliver(S, r, t)
    if ch & L.K_SACK:
        on_sack(S, s, p, t)
        if half[s].sphase == L.SP_SHUT_PENDING or half[s].sphase == L.SP_SHUT_RCVD:  # the rest: shutdown_progress
            outline(_rare, (S, _SHUTDOWN_PROGRESS, s, 0, t))
    if ch & (L.K_SHUTDOWN | L.K_SHUTDOWN_ACK | L.K_SHUTDOWN_COMPLETE):
        outline(_rare, (S, _SHUTDOWN_CHUNKS, s, ch, t))
        if half[s].sphase == L.SP_CLOSED:
            return
    if _sack_alone(S, s, r, t):
        sctp_packet(S, s, t, L.K_SACK, 0, 0, 0, False, 0)


@njit(cache=True, inline="always")
def sctp_arrive(S, p, t):
    """An SCTP packet reaches its host (from the event loop, ``kernel.transport.on_arrival``). A packet of DATA
    chunks only, to an endpoint not closed (most of a transfer's packets), is handled here, inline in the
    event loop, as ``_arrive`` would: reassembly, delivery, and the SACK it draws (the link inlined); every
    other packet (SACKs, set-up, shutdown) through one call of ``_arrive`` (inlining all of ``_arrive``
    made TCP's runs ~6% slower, measured while ``S`` went by value)."""
    half = S.half
    pk = S.pkt[p]
    r = 2 * pk.conn + pk.dir
    s = r ^ 1
    if pk.chunks != L.K_DATA or (half[s].state == L.S_EST and half[s].sphase == L.SP_CLOSED):
        outline(_arrive, (S, p, t))
        return
    on_data(S, r, p, t)
    A.deliver(S, r, t)
    if _sack_alone(S, s, r, t):
        sctp_packet_fast(S, s, t, L.K_SACK, 0, 0, 0, False, 0)


@njit(cache=True, inline="always")
def sctp_open(S, c, t):
    """``EV_OPEN``: the client of association ``c`` sends INIT and starts T1-init."""
    h = 2 * c
    half = S.half
    if half[h].state == L.S_CLOSED:
        S.conn[c].opened = 1
        half[h].state = L.S_SYN
        half[h].sphase = L.SP_INIT
        outline(sctp_packet, (S, h, t, L.K_INIT, 0, 0, 0, False, 0))
        rto_arm(S, h, t)
        trace_tcp(S, h, t, 3)


@njit(cache=True, inline="always")
def sctp_delack(S, a, t):
    """``EV_DELACK``: the SACK timer of receiver ``r`` (sec. 6.2) fires: send the SACK it still owes."""
    r = delack_fired(S, a)
    if r >= 0 and S.half[r].ack_owed > 0:
        outline(sctp_packet, (S, r ^ 1, t, L.K_SACK, 0, 0, 0, False, 0))


@njit(cache=True, inline="always")
def sctp_rto(S, h, t):
    """The retransmission timer of half ``h`` expired: T1-init / T1-cookie during set-up, else T3-rtx."""
    half = S.half
    if half[h].state == L.S_SYN:
        half[h].n_timeout += 1
        if half[h].syn_retx >= S.conn[h >> 1].max_init:  # sec. 5.1 A: give up and report to the user
            half[h].sphase = L.SP_ABORTED
            half[h].abort_t = t
            half[h].rto_deadline = _INF
            trace_tcp(S, h, t, 2)
            return
        half[h].syn_retx += 1
        rto_backoff(S, h)
        ch = L.K_INIT if half[h].sphase == L.SP_INIT else L.K_COOKIE_ECHO
        outline(sctp_packet, (S, h, t, ch, 0, 0, 0, False, 0))
        rto_arm(S, h, t)
        trace_tcp(S, h, t, 2)
    elif half[h].state == L.S_EST:
        ph = half[h].sphase
        if ph == L.SP_COOKIE:  # T1-cookie: COOKIE-ECHO again, with its DATA chunk
            half[h].n_timeout += 1
            if half[h].syn_retx >= S.conn[h >> 1].max_init:  # sec. 5.1 C: give up as for the INIT
                half[h].sphase = L.SP_ABORTED
                half[h].state = L.S_SYN  # nothing more is sent
                half[h].abort_t = t
                half[h].rto_deadline = _INF
                return
            half[h].syn_retx += 1
            rto_backoff(S, h)
            send_chunk(S, h, 0, t, True)
            rto_arm(S, h, t)
        elif ph == L.SP_SHUT_SENT or ph == L.SP_SHUT_ACK_SENT:  # T2-shutdown
            half[h].n_timeout += 1
            rto_backoff(S, h)
            ch = L.K_SHUTDOWN if ph == L.SP_SHUT_SENT else L.K_SHUTDOWN_ACK
            outline(sctp_packet, (S, h, t, ch, 0, 0, 0, False, 0))
            rto_arm(S, h, t)
        elif ph != L.SP_CLOSED:
            outline(_rare, (S, _T3, h, 0, t))


@njit(cache=True, inline="always")
def sctp_close(S, h, t):
    """The application closes half ``h``: SHUTDOWN once all its data is acknowledged (sec. 9.2)."""
    S.half[h].fin_seq = S.half[h].stream_end  # remembered if the association is not up yet
    _close_if_asked(S, h, t)
