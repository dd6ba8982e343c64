"""Numba SCTP sender (RFC 4960, or RFC 2960 by the association's parameters): packets and their sizes,
DATA chunks cut from the messages, cwnd and Max.Burst, SACK processing with fast retransmit, T3-rtx.

One association per connection, one path (no multihoming). Each DATA chunk carries bytes of one message
only (at most ``mss`` = MTU - 48 rounded down to 4), and has the next TSN; chunks keep their bytes and TSN
when retransmitted. The ring of chunks not yet cumulatively acknowledged is the half's row of ``S.seg``
(``sctp.sack``). New DATA chunks are bundled (sec. 6.10): a packet takes the next chunks while they fit in
the MTU beside the SACK the host's receiver owes, each while flightsize < cwnd; a retransmission goes
alone. A SACK rides on any packet when the host's receiver owes one. Sizes: 20 (IPv4) + 12 (common
header) + the chunks, padded to 4 bytes (``sctp.wire``).

The association (INIT, INIT-ACK with a state cookie, COOKIE-ECHO, COOKIE-ACK, T1 timers; SHUTDOWN, SHUTDOWN-ACK,
SHUTDOWN-COMPLETE, T2) is in ``sctp.events``; the receiver in ``sctp.receiver``; the congestion rules in ``sctp.cc``.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._numba import outline as O  # O.one_signature: see _numba.outline
from .._numba.outline import outline
from ..kernel import layout as L
from ..kernel.delack import delack_cancel
from ..kernel.giveup import give_up
from ..kernel.link import alloc, inject, inject_call, route, take_row
from ..kernel.rtt import rto_arm, rto_backoff, rtt_sample
from ..kernel.trace import trace_tcp
from .cc import idle_decay, max_burst_cwnd, on_fast_retransmit, on_sack_cwnd, on_t3_expiry
from .receiver import fill_sack, gap_blocks_sent, tsn_of
from .sack import sack_scan

_INF = math.inf


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _pad4(n):
    return (n + 3) // 4 * 4


@njit(cache=True, inline="always")
def _packet(S, h, t, chunks, seq, ln, tsn, retx, data_bytes):
    """Build one SCTP packet of half ``h`` holding ``chunks`` (K_* bits; DATA chunks of consecutive TSNs from
    ``tsn`` carrying bytes [seq, seq + ln), ``data_bytes`` on the wire with their headers and padding), with
    a SACK bundled when the receiver at this host owes one; return its slot (-1: the pool is full)."""
    half = S.half
    p = alloc(S)
    if p < 0:
        return p
    c = h >> 1
    r = h ^ 1
    conn = S.conn
    pk = S.pkt[p]
    for b in range(2 * L.SACK_BLOCKS):
        pk.sack[b] = -1
    pk.conn = c
    pk.dir = h & 1
    pk.seq = seq
    pk.seqlen = ln
    pk.payload = ln
    pk.tsn = tsn
    pk.ack = 0
    pk.wnd = 0
    flags = L.F_RETX if retx else 0
    size = 32  # IPv4 + common header
    cookie = conn[c].cookie
    if chunks & L.K_INIT:
        size += 28
        flags |= L.F_SYN
    if chunks & L.K_INIT_ACK:
        size += 20 + _pad4(4 + cookie)
        flags |= L.F_SYN | L.F_ACK
    if chunks & L.K_DATA and half[h].state == L.S_EST and half[h].sphase == L.SP_COOKIE:
        chunks |= L.K_COOKIE_ECHO  # DATA bundled behind the COOKIE-ECHO (sec. 5.1 D)
    if chunks & L.K_COOKIE_ECHO:
        size += _pad4(4 + cookie)
        flags |= L.F_COOKIE
    if chunks & L.K_COOKIE_ACK:
        size += 4
        flags |= L.F_COOKIE
    if chunks & L.K_DATA:
        size += data_bytes
    if chunks & L.K_SHUTDOWN:  # carries the cumulative TSN ack of our receiver
        size += 8
        flags |= L.F_FIN
        if half[r].rcv_started == 1:
            pk.ack = tsn_of(S, r, half[r].rcv_nxt) - 1
    if chunks & L.K_SHUTDOWN_ACK:
        size += 4
        flags |= L.F_FIN
    if chunks & L.K_SHUTDOWN_COMPLETE:
        size += 4
        flags |= L.F_FIN | L.F_SYN
    if half[r].rcv_started == 1 and (chunks & L.K_SACK or half[r].ack_owed > 0):
        chunks |= L.K_SACK
        size += 16 + 4 * fill_sack(S, r, p)
        flags |= L.F_ACK
        half[r].ack_owed = 0
        half[r].sack_pkts = 0
        delack_cancel(S, r)
    pk.chunks = chunks
    pk.flags = flags
    pk.ipbytes = size
    return p


@O.one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sctp_packet(S, h, t, chunks, seq, ln, tsn, retx, data_bytes):
    """Send one SCTP packet (``_packet``) off the per-packet path (set-up, shutdown, timers,
    retransmissions), the link entered through a call; return 1 if sent. Callers call it through
    ``outline``: one copy per module."""
    p = _packet(S, h, t, chunks, seq, ln, tsn, retx, data_bytes)
    if p < 0:
        return 0
    inject_call(S, p, route(S, h), t)
    return 1


@O.one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sctp_packet_fast(S, h, t, chunks, seq, ln, tsn, retx, data_bytes):
    """``sctp_packet`` with the link inlined, for the two sends of the per-packet path only: new DATA
    (``sctp_send``, a plain call from the SACK handler ``on_sack``) and the SACK a DATA packet draws at once
    (``sctp_arrive``, in the event loop)."""
    p = _packet(S, h, t, chunks, seq, ln, tsn, retx, data_bytes)
    if p < 0:
        return 0
    inject(S, p, route(S, h), t)
    return 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def establish(S, h, t):
    """Half ``h`` may send DATA: its chunk ring, cwnd (the initial window, bytes), ssthresh (the peer's
    a_rwnd) and the peer's window."""
    half = S.half
    c = h >> 1
    conn = S.conn
    half[h].state = L.S_EST
    half[h].sphase = L.SP_UP
    half[h].cwnd = conn[c].iw
    half[h].ssthresh = conn[c].init_ssthresh
    half[h].pba = 0.0
    half[h].flight = 0.0
    half[h].peer_rwnd = conn[c].rwnd
    half[h].seg_row = take_row(S, L.ROWS_SEG)
    half[h].seg_head = 0
    half[h].seg_n = 0
    half[h].tsn_head = 0
    half[h].snd_una = 1
    half[h].snd_nxt = 1
    half[h].snd_max = 1
    half[h].snd_msg = -1
    half[h].rtt_seq = -1
    half[h].rto_deadline = _INF


@O.one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def send_chunk(S, h, off, t, retx):
    """Send the chunk at ring offset ``off`` of half ``h``."""
    half = S.half
    cap = S.seg.shape[1]
    row = half[h].seg_row
    j = half[h].seg_head + off
    if j >= cap:
        j -= cap
    e = S.seg[row, j]
    if retx:
        e.flags |= L.G_RETX
        half[h].n_retx += 1
        half[h].rtt_seq = -1  # Karn
    half[h].n_segs += 1
    half[h].last_send = t
    outline(sctp_packet, (S, h, t, L.K_DATA, e.start, np.int64(e.len), half[h].tsn_head + off, retx,
                          _pad4(16 + e.len)))  # np.int64: one compile of sctp_packet for every call


@O.one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _retransmit_marked(S, h, t, force):
    """Retransmit chunks marked for retransmission, lowest TSN first, while flightsize < cwnd (one chunk
    whatever cwnd if ``force``: a fast retransmission, sec. 7.2.4 step 3, or T3-rtx, sec. 6.3.3 E3)."""
    half = S.half
    row = half[h].seg_row
    cap = S.seg.shape[1]
    sent = 0
    for i in range(half[h].seg_n):
        if half[h].n_marked == 0:
            break
        if not (force and sent == 0) and half[h].flight >= half[h].cwnd:
            break
        j = half[h].seg_head + i
        if j >= cap:
            j -= cap
        e = S.seg[row, j]
        if e.mark == 1:
            e.mark = 0
            if e.frtx == 1:
                e.frtx = 2
            half[h].n_marked -= 1
            half[h].flight += e.len
            send_chunk(S, h, i, t, True)
            sent += 1
            if force:
                break
    return sent


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _message_end(S, h):
    """Return the end (stream byte) of the message holding ``snd_max`` of half ``h``."""
    half = S.half
    msg = S.msg
    smax = half[h].snd_max
    m = half[h].snd_msg
    if m < 0 or (msg[m].end <= smax and msg[m].next < 0):
        m = half[h].msg_head
    while m >= 0 and msg[m].end <= smax:
        m = msg[m].next
    half[h].snd_msg = m
    if m < 0:
        return half[h].write_end
    return msg[m].end


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def sctp_send(S, h, t):
    """Send what half ``h`` may: chunks marked for retransmission, then new DATA chunks while flightsize <
    cwnd (sec. 6.1), after the idle decay (sec. 7.2.1) and Max.Burst (sec. 6.1 D); return packets sent."""
    half = S.half
    c = h >> 1
    conn = S.conn
    if half[h].state != L.S_EST:
        return 0
    sent = 0
    if half[h].n_marked > 0:
        sent += _retransmit_marked(S, h, t, False)
    if half[h].write_end <= half[h].snd_max:
        return sent
    mtu = conn[c].mtu
    if (conn[c].idle_restart == 1 and half[h].flight == 0.0 and half[h].n_segs > 0
            and t - half[h].last_send >= half[h].rto):
        half[h].cwnd = idle_decay(half[h].cwnd, mtu, conn[c].idle_min, t - half[h].last_send, half[h].rto)
    if conn[c].burst_pkts == 0:
        half[h].cwnd = max_burst_cwnd(half[h].cwnd, half[h].flight, mtu, conn[c].max_burst)
    cap = S.seg.shape[1]
    row = half[h].seg_row
    new = 0
    limit = cap
    if half[h].sphase == L.SP_COOKIE:  # one DATA chunk with the COOKIE-ECHO, then wait for COOKIE-ACK
        limit = 1
    r = h ^ 1
    stop = False
    while not stop and half[h].flight < half[h].cwnd and half[h].seg_n < limit:
        # one packet: new DATA chunks bundled while they fit beside a SACK owed (sec. 6.10), each while
        # flightsize < cwnd (sec. 6.1 B) and the peer's window allows it (sec. 6.1 A)
        room = mtu - 32
        if half[r].rcv_started == 1 and half[r].ack_owed > 0:
            room -= 16 + 4 * (gap_blocks_sent(S, r) + (half[r].dup_tsn >= 0))
        seq0 = half[h].snd_max
        n0 = half[h].seg_n
        dbytes = 0
        while half[h].flight < half[h].cwnd and half[h].seg_n < limit:
            smax = half[h].snd_max
            avail = half[h].write_end - smax
            if avail <= 0:
                stop = True
                break
            ln = min(conn[c].mss, avail, _message_end(S, h) - smax)
            w = _pad4(16 + ln)
            if dbytes > 0 and dbytes + w > room:
                break  # the next chunk goes in the next packet
            if ln > half[h].peer_rwnd and half[h].flight > 0.0:
                stop = True
                break  # sec. 6.1 A: the peer's window (one chunk may probe a closed window)
            n = half[h].seg_n
            j = half[h].seg_head + n
            if j >= cap:
                j -= cap
            e = S.seg[row, j]
            e.start = smax
            e.len = ln
            e.flags = 0
            e.epoch = -1
            e.miss = 0
            e.frtx = 0
            e.mark = 0
            half[h].seg_n = n + 1
            half[h].snd_max = smax + ln
            half[h].snd_nxt = smax + ln
            half[h].flight += ln
            half[h].peer_rwnd = max(half[h].peer_rwnd - ln, 0.0)
            if half[h].rtt_seq < 0:
                half[h].rtt_seq = smax + ln
                half[h].rtt_t0 = t
            dbytes += w
        if dbytes == 0:
            break
        half[h].n_segs += half[h].seg_n - n0
        half[h].last_send = t
        sctp_packet_fast(S, h, t, L.K_DATA, seq0, half[h].snd_max - seq0, half[h].tsn_head + n0, False, dbytes)
        new += 1
        if conn[c].burst_pkts == 1 and conn[c].max_burst > 0 and new >= conn[c].max_burst:
            break
    sent += new
    if sent > 0 and half[h].rto_deadline == _INF:
        rto_arm(S, h, t)  # sec. 6.3.2 R1
    return sent


@njit(cache=True, inline="always")
def on_sack(S, s, p, t):
    """Sender of half ``s`` gets the SACK of packet ``p``: acknowledge, count miss indications, adapt cwnd
    (sec. 7.2), fast-retransmit (sec. 7.2.4), restart or stop T3-rtx (sec. 6.3.2), send."""
    half = S.half
    conn = S.conn
    c = s >> 1
    if half[s].state != L.S_EST or half[s].seg_row < 0:
        return
    pk = S.pkt[p]
    row = half[s].seg_row
    before = half[s].flight
    base0 = half[s].tsn_head
    in_rec = half[s].in_rec == 1
    (head, n, base, cum_b, gap_b, freed, _hn, marked,
     marked_b, unmarked) = sack_scan(S.seg[row], half[s].seg_head, half[s].seg_n, base0, pk.ack, pk.sack,
                           conn[c].htna == 1, in_rec, conn[c].miss_thr)
    half[s].seg_head = head
    half[s].seg_n = n
    half[s].tsn_head = base
    half[s].flight = max(before - freed - marked_b, 0.0)
    half[s].n_marked += marked - unmarked  # chunks acknowledged while marked need no retransmission
    if n > 0:
        half[s].snd_una = S.seg[row, head].start
    else:
        half[s].snd_una = half[s].snd_max
    cum_adv = base > base0
    if cum_adv:
        half[s].rxt_shift = 0  # sec. 8.1: an outstanding TSN acknowledged clears the error counter
    if half[s].rtt_seq >= 0 and half[s].snd_una >= half[s].rtt_seq:
        rtt_sample(S, s, half[s].rtt_t0, t)
        half[s].rtt_seq = -1
    if in_rec and pk.ack >= half[s].recover:
        half[s].in_rec = 0
        in_rec = False
    mtu = conn[c].mtu
    cw, pba = on_sack_cwnd(half[s].cwnd, half[s].ssthresh, half[s].pba, mtu, cum_b + gap_b, cum_adv, before,
                           half[s].flight, in_rec)
    half[s].cwnd = cw
    half[s].pba = pba
    half[s].peer_rwnd = max(pk.wnd - half[s].flight, 0.0)
    ev = 0 if cum_adv else 1
    if marked > 0:
        if not (conn[c].fast_rec == 1 and in_rec):
            cw, ss = on_fast_retransmit(half[s].cwnd, mtu, conn[c].ss_min)
            half[s].cwnd = cw
            half[s].ssthresh = ss
            half[s].pba = 0.0
            half[s].n_fretx += 1
            if conn[c].fast_rec == 1:
                half[s].in_rec = 1
                half[s].recover = base + n - 1
        _retransmit_marked(S, s, t, True)
    if half[s].flight == 0.0 and half[s].n_marked == 0:
        half[s].rto_deadline = _INF  # sec. 6.3.2 R2: all outstanding data acknowledged
    elif cum_adv:
        rto_arm(S, s, t)  # R3: the earliest outstanding TSN was acknowledged
    sctp_send(S, s, t)
    trace_tcp(S, s, t, ev)


@njit(cache=True, inline="always")
def on_t3(S, h, t):
    """T3-rtx of half ``h`` expired (sec. 6.3.3): ssthresh and cwnd cut (sec. 7.2.3), the timer backed off,
    every chunk not gap-acknowledged marked for retransmission, and the earliest retransmitted."""
    half = S.half
    c = h >> 1
    if half[h].seg_n == 0:
        half[h].rto_deadline = _INF  # nothing outstanding: stop the timer, else send_data never re-arms it
        return
    shift = half[h].rxt_shift + 1  # the association's error counter (sec. 8.1), reset by a SACK of new data
    half[h].rxt_shift = shift
    if 0 <= S.conn[c].max_rxt < shift:  # Association.Max.Retrans exceeded: the peer is unreachable
        give_up(S, h, t)
        return
    half[h].n_timeout += 1
    cw, ss = on_t3_expiry(half[h].cwnd, S.conn[c].mtu, S.conn[c].ss_min)
    half[h].cwnd = cw
    half[h].ssthresh = ss
    half[h].pba = 0.0
    half[h].in_rec = 0
    rto_backoff(S, h)
    row = half[h].seg_row
    cap = S.seg.shape[1]
    for i in range(half[h].seg_n):
        j = half[h].seg_head + i
        if j >= cap:
            j -= cap
        e = S.seg[row, j]
        if e.flags & L.G_SACKED == 0 and e.mark == 0:
            e.mark = 1
            half[h].n_marked += 1
            half[h].flight = max(half[h].flight - e.len, 0.0)
    half[h].rtt_seq = -1
    trace_tcp(S, h, t, 2)
    _retransmit_marked(S, h, t, True)
    rto_arm(S, h, t)
