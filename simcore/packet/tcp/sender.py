"""Numba TCP sender: RFC 5681 / 6582 / 6675 loss recovery, RFC 3042 Limited Transmit, RFC 6298 timer
(receiver: ``tcp.receiver``; events: ``tcp.events``; RTT/RTO estimator: ``kernel.rtt``; congestion control, the
window's growth and the ssthresh a loss event sets: ``tcp.cc``, through the hooks of ``tcp.cc.dispatch``).

Every function takes the state ``S`` (a ``kernel.layout.State``) and a half index ``h``. Sequence numbers
start at 0 with the SYN; data starts at 1; the FIN takes one number after the data and rides on the last
data segment when it is queued before that segment leaves (else it goes alone). Segments keep their
boundaries when retransmitted (the sender's scoreboard is a ring of sent segments per half).
Every packet a host sends carries the cumulative ACK (and, with SACK, up to three SACK blocks) of the
half it receives, so ACKs piggyback on data and on the SYN-ACK; pure ACKs are sent only when owed.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._numba.outline import one_signature, outline
from ..kernel import layout as L
from ..kernel.delack import delack_cancel
from ..kernel.giveup import give_up
from ..kernel.link import alloc, give_row, inject, push, route, take_row
from ..kernel.ooo import ooo_report
from ..kernel.rtt import rto_after_syn_timeout, rto_arm, rto_arm_at, rto_backoff, rto_deadline, rtt_sample
from ..kernel.scoreboard import is_lost
from ..kernel.trace import trace_tcp
from .cc.dispatch import (
    CA_IDLE,
    CA_LOSS,
    CA_OPEN,
    CA_RECOVERY,
    cc_ack,
    cc_ack_done,
    cc_app_limited,
    cc_congestion,
    cc_delivered,
    cc_init,
    cc_sent,
    cc_ssthresh,
    cc_state,
)
from .ecn import echo_received, loss_ssthresh, packet_flags

_INF = math.inf
# BSD's tcp_syn_backoff (FreeBSD 4.x tcp_timer.c): the SYN's retransmission timer is the base RTO times this
# entry for the n-th retransmission (then doubling, capped), not doubled from the start
_SYN_BACKOFF = (1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 64.0, 64.0)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def send_packet(S, h, t, flags, seq, seqlen, payload):
    """Build and send one packet of half ``h`` (with the piggybacked ACK of half h^1); return 1 if sent."""
    half = S.half
    pkt = S.pkt
    p = alloc(S)
    if p < 0:
        return 0
    c = h >> 1
    r = h ^ 1
    if half[r].rcv_started == 1:
        flags |= L.F_ACK
        pkt[p].ack = half[r].rcv_nxt
        half[r].ack_owed = 0
        half[r].dack_bytes = 0
        delack_cancel(S, r)
    for b in range(3):
        pkt[p].sack[2 * b] = -1
    if S.conn[c].recovery == L.REC_SACK and half[r].ooo_n > 0:
        ooo_report(S, r, p)
    if S.conn[c].ecn == 1:
        flags = packet_flags(S, h, flags, payload)
    pkt[p].conn = c
    pkt[p].dir = h & 1
    pkt[p].seq = seq
    pkt[p].seqlen = seqlen
    pkt[p].payload = payload
    pkt[p].flags = flags
    pkt[p].ipbytes = payload + S.conn[c].hdr
    inject(S, p, route(S, h), t)
    return 1


@njit(cache=True, inline="always")
def _segment_header(S, h, off, t, retx):
    """Count the send of the segment at ring offset ``off`` of half ``h`` (a retransmission if ``retx``);
    return its packet's flags, seq, seqlen and payload."""
    half = S.half
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    idx = half[h].seg_head + off
    if idx >= cap:
        idx -= cap
    seg = S.seg
    start = S.seg[row, idx].start
    ln = S.seg[row, idx].len
    g = seg[row, idx].flags
    flags = 0
    payload = ln
    if g & L.G_SYN:
        flags |= L.F_SYN
        payload -= 1
    if g & L.G_FIN:
        flags |= L.F_FIN
        payload -= 1
    if retx:
        flags |= L.F_RETX
        seg[row, idx].flags = g | L.G_RETX
        half[h].n_retx += 1
        half[h].rtt_seq = -1  # Karn: no RTT sample while a retransmission is outstanding
    half[h].n_segs += 1
    S.half[h].last_send = t
    cc_sent(S, h, row, idx, t)
    rate_Bps = half[h].pace_rate_Bps
    if rate_Bps > 0.0:  # paced: the next segment leaves once this one's bytes took their time at the rate
        half[h].pace_next_t = t + ln / rate_Bps
    return flags, start, ln, payload


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def send_segment(S, h, off, t, retx):
    """Send the segment at ring offset ``off`` of half ``h`` (a retransmission if ``retx``) through a real
    call of ``send_packet`` (``_numba.outline``): SYNs and retransmissions, off the per-packet path. Callers call it
    through ``outline`` too: inlined, its IR was read, typed and lowered again at each of its eight callers."""
    flags, start, ln, payload = _segment_header(S, h, off, t, retx)
    outline(send_packet, (S, h, t, flags, start, ln, payload))


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _append_segment(S, h, start, ln, g):
    half = S.half
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    n = half[h].seg_n
    idx = half[h].seg_head + n
    if idx >= cap:
        idx -= cap
    S.seg[row, idx].start = start
    S.seg[row, idx].len = ln
    S.seg[row, idx].flags = g
    S.seg[row, idx].epoch = -1
    half[h].seg_n = n + 1
    return n


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def open_half(S, h, t):
    """Start half ``h``: queue and send its SYN (a SYN-ACK at the server)."""
    half = S.half
    conn = S.conn
    c = h >> 1
    half[h].state = L.S_SYN
    half[h].cwnd = conn[c].iw * conn[c].mss
    half[h].ssthresh = conn[c].init_ssthresh
    half[h].rto = conn[c].init_rto
    half[h].seg_row = take_row(S, L.ROWS_SEG)
    off = _append_segment(S, h, 0, 1, L.G_SYN)
    half[h].snd_nxt = 1
    half[h].snd_max = 1
    half[h].seg_nxt = 1
    half[h].rtt_seq = 1
    half[h].rtt_t0 = t
    cc_init(S, h, t)
    outline(send_segment, (S, h, off, t, False))
    keep = conn[c].keepinit
    if h & 1 == 0 and keep < _INF:  # the opener's connection-establishment timer, on its clock's ticks
        tick = conn[c].tick_s
        half[h].giveup_t = t + keep if tick <= 0.0 else math.ceil((t + keep) / tick - 1e-9) * tick
    _syn_arm(S, h, t)


@njit(cache=True, inline="always")
def _syn_arm(S, h, t):
    """Start the retransmission timer of a SYN (or SYN-ACK), no later than the connection-establishment
    timer's expiry (``giveup_t``, inf without one)."""
    limit = S.half[h].giveup_t
    if rto_deadline(S, h, t) > limit:
        rto_arm_at(S, h, limit, t)
    else:
        rto_arm(S, h, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def syn_timeout(S, h, t):
    """The retransmission timer of half ``h`` expired while its SYN (opener) or SYN-ACK (passive side) is
    unacknowledged: give the connection up at the opener's connection-establishment timer (``giveup_t``) or
    after ``max_rxt`` retransmissions; a passive side stops retransmitting its SYN-ACK after ``synack_max``
    (BSD's SYN cache drops the entry: a SYN arriving later is still answered, but a connection its opener
    already took as made fails); else back off (doubling, or BSD's SYN table) and send the SYN again."""
    half = S.half
    c = h >> 1
    conn = S.conn
    passive = h & 1 == 1
    if not passive and (t >= half[h].giveup_t or 0 <= conn[c].max_rxt <= half[h].syn_retx):
        give_up(S, h, t)
        return
    if passive and 0 <= conn[c].synack_max <= half[h].syn_retx:
        # BSD's SYN cache forgets the half-open connection. If the opener still waits for a SYN-ACK, its next SYN
        # starts over (answered: ``tcp.events``); if it took the connection as made (its ACK was lost), its next
        # segment would draw a RST, or it waits forever with nothing to send: either way the connection fails.
        if half[h ^ 1].state == L.S_EST:
            give_up(S, h, t)
        return  # the timer stays stopped
    rto_backoff(S, h)
    half[h].n_timeout += 1
    half[h].syn_retx += 1
    if conn[c].syn_bsd == 1 and not passive:
        k = min(half[h].syn_retx, len(_SYN_BACKOFF) - 1)
        half[h].rto = min(max(conn[c].init_rto * _SYN_BACKOFF[k], conn[c].min_rto), conn[c].max_rto)
    outline(send_segment, (S, h, 0, t, True))
    _syn_arm(S, h, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _pace_arm(S, h):
    """Half ``h`` waits for its next departure time and has no ``EV_PACE`` event pending: one then."""
    S.half[h].pace_ev = 1
    push(S, S.half[h].pace_next_t, L.EV_PACE, h)


@njit(cache=True, inline="always")
def _pace_wait(S, h, t):
    """Return True if half ``h`` is paced (``pace_rate_Bps`` > 0) and its next departure time has not come; an
    ``EV_PACE`` event at that time is then pending (``tcp.events.tcp_pace`` sends again). The event is pushed by
    an out-of-line call: the heap's code stays out of ``try_send``, which every sender's path compiles; most ACKs of
    a paced sender find the event pending already, and make no call."""
    half = S.half
    if half[h].pace_rate_Bps > 0.0 and t < half[h].pace_next_t:
        if half[h].pace_ev == 0:
            outline(_pace_arm, (S, h))
        return True
    return False


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _window_ok(S, h, c, end, extra):
    """Return True if sending up to sequence ``end`` fits in cwnd + ``extra`` bytes and the receive window."""
    half = S.half
    used = end - half[h].snd_una
    return used <= S.half[h].cwnd + extra + 1e-9 and used <= S.conn[c].rwnd


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _limited_transmit_bytes(S, h, c):
    """Return the bytes RFC 3042 lets half ``h`` send beyond cwnd now: one SMSS per duplicate ACK, up to
    DupThresh - 1 of them, outside loss recovery (0 when Limited Transmit is off)."""
    half = S.half
    conn = S.conn
    if conn[c].limited_tx == 0 or half[h].in_rec == 1 or half[h].dupacks == 0:
        return 0
    return min(half[h].dupacks, conn[c].dupthresh - 1) * conn[c].mss


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _new_segment_len(S, h, c):
    """Return (data bytes, carries FIN) of the next new segment of half ``h``: up to SMSS of the data
    available, with the FIN if it is queued right after them (a bare FIN: (0, True)); (0, False) if none."""
    half = S.half
    smax = half[h].snd_max
    fin_seq = half[h].fin_seq
    avail = half[h].write_end - smax
    if avail > 0:
        mss = S.conn[c].mss
        ln = mss if avail > mss else avail
        return ln, fin_seq >= 0 and smax + ln == fin_seq
    if fin_seq >= 0 and smax == fin_seq:
        return 0, True
    return 0, False


@njit(cache=True, inline="always")
def _send_new(S, h, t, ln, fin):
    """Send a new segment of ``ln`` data bytes (plus the FIN if ``fin``) at snd_max."""
    half = S.half
    start = half[h].snd_max
    if fin:
        ln += 1
    off = _append_segment(S, h, start, ln, L.G_FIN if fin else 0)
    flags, seq, seqlen, payload = _segment_header(S, h, off, t, False)
    send_packet(S, h, t, flags, seq, np.int64(seqlen), payload)  # the per-packet path: LLVM may inline it
    # (np.int64: one compile of send_packet; its outlined call passes an int64 length)
    half[h].snd_nxt = start + ln
    half[h].snd_max = start + ln
    half[h].seg_nxt = off + 1
    if half[h].rtt_seq < 0:
        half[h].rtt_seq = start + ln
        S.half[h].rtt_t0 = t
    if S.half[h].rto_deadline == _INF:
        rto_arm(S, h, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def try_send(S, h, t):
    """Send what the windows of half ``h`` allow (go-back-N after a timeout); return packets sent."""
    half = S.half
    conn = S.conn
    if half[h].state != L.S_EST:
        return 0
    c = h >> 1
    sack = conn[c].recovery == L.REC_SACK
    if sack and half[h].in_rec == 1:
        return _sack_send(S, h, t)
    if half[h].snd_max == half[h].snd_una and t - half[h].last_send > half[h].rto:  # idle for an RTO
        if conn[c].idle_restart == 1:
            rw = conn[c].iw * conn[c].mss
            if half[h].cwnd > rw:
                half[h].cwnd = rw
        cc_state(S, h, CA_IDLE, t)
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    seg = S.seg
    sent = 0
    while True:
        off = half[h].seg_nxt
        if off < half[h].seg_n:
            idx = half[h].seg_head + off
            if idx >= cap:
                idx -= cap
            ln = seg[row, idx].len
            if sack and S.seg[row, idx].flags & L.G_SACKED:
                half[h].snd_nxt += ln
                half[h].seg_nxt = off + 1
                continue
            end = half[h].snd_nxt + ln
            if not _window_ok(S, h, c, end, 0) or _pace_wait(S, h, t):
                break
            outline(send_segment, (S, h, off, t, True))
            half[h].snd_nxt = end
            half[h].seg_nxt = off + 1
            if half[h].rto_deadline == _INF:
                rto_arm(S, h, t)
        else:
            ln, fin = _new_segment_len(S, h, c)
            if (ln == 0 and not fin) or half[h].seg_n == cap:
                if ln == 0 and not fin:
                    cc_app_limited(S, h, t)
                break
            end = half[h].snd_max + ln
            if not _window_ok(S, h, c, end, 0):
                if not _window_ok(S, h, c, end, _limited_transmit_bytes(S, h, c)):
                    break
                if _pace_wait(S, h, t):
                    break
                half[h].lt_bytes += ln
            elif _pace_wait(S, h, t):
                break
            _send_new(S, h, t, ln, fin)
        sent += 1
    return sent


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def first_hole_lost(S, h):
    """Return RFC 6675's IsLost(HighACK + 1) for half ``h`` (the segment at snd_una): counting the SACKed segments
    above it stops as soon as they are enough (the count only grows)."""
    half = S.half
    conn = S.conn
    c = h >> 1
    thresh = conn[c].dupthresh
    mss = conn[c].mss
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    head = half[h].seg_head
    cnt = 0
    nbytes = 0
    for k in range(1, half[h].seg_n):
        idx = head + k
        if idx >= cap:
            idx -= cap
        if S.seg[row, idx].flags & L.G_SACKED:
            cnt += 1
            nbytes += S.seg[row, idx].len
            if is_lost(cnt, nbytes, thresh, mss):
                return True
    return False


@njit(cache=True, inline="always")
def _next_to_resend(S, h, k, cnt_above, bytes_above, lost_ones):
    """Return (j, cnt_above, bytes_above) for the lowest segment j > k of half ``h`` that is unSACKed, not yet
    retransmitted in this recovery and lost (``lost_ones``) or else not lost with a SACKed segment above it (NextSeg's
    rules 1 and 3), given the SACKed segments and bytes above segment k; j = -1 if there is none."""
    half = S.half
    conn = S.conn
    c = h >> 1
    mss = conn[c].mss
    thresh = conn[c].dupthresh
    cap = S.seg.shape[1]
    row = half[h].seg_row
    seg = S.seg
    epoch = half[h].rec_epoch
    head = half[h].seg_head
    for j in range(k + 1, half[h].seg_n):
        if cnt_above == 0:
            break  # nothing SACKed above: no candidate of either rule from here on
        idx = head + j
        if idx >= cap:
            idx -= cap
        if seg[row, idx].flags & L.G_SACKED:
            cnt_above -= 1
            bytes_above -= seg[row, idx].len
            continue
        if seg[row, idx].epoch == epoch:
            continue
        if is_lost(cnt_above, bytes_above, thresh, mss) == lost_ones:
            return j, cnt_above, bytes_above
    return -1, 0, 0


@njit(cache=True, inline="always")
def _sack_send(S, h, t):
    """RFC 6675 step (C): while cwnd - pipe >= 1 SMSS, send the segment NextSeg() names.

    A segment's ``seg_e`` equals the recovery epoch once it was retransmitted in this recovery (the
    segments at or below HighRxt); SetPipe counts an unSACKed segment once unless IsLost, and once more
    if so retransmitted. NextSeg: (1) the first lost segment not yet retransmitted; (2) new data; (3) the
    first unSACKed, not yet retransmitted segment below the highest SACKed one; (4) once per recovery,
    a rescue retransmission of the highest unSACKed segment (not counted in pipe as retransmitted). We
    skip rule 4 when that segment was already retransmitted in this recovery: the RFC's letter would
    resend it while its retransmission is in flight; its purpose, a lost tail, is kept.

    The scoreboard is read in full once per call: what a send changes is known (a retransmission adds its
    segment to pipe once more and is no longer a candidate, so the next one is found above it; new data adds
    its bytes to pipe and becomes the highest unSACKed segment; the SACK marks, hence IsLost, do not change),
    where reading it again for each segment sent cost O(window) per segment in recovery."""
    half = S.half
    conn = S.conn
    c = h >> 1
    mss = conn[c].mss
    thresh = conn[c].dupthresh
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    seg = S.seg
    epoch = half[h].rec_epoch
    sent = 0
    n = half[h].seg_n
    head = half[h].seg_head
    pipe = 0
    cnt_above = 0
    bytes_above = 0
    nxt1 = -1  # rule 1
    nxt3 = -1  # rule 3
    c1 = b1 = c3 = b3 = 0  # the SACKed segments and bytes above each
    top = -1  # highest unSACKed segment (rule 4)
    for k in range(n - 1, -1, -1):
        idx = head + k
        if idx >= cap:
            idx -= cap
        ln = seg[row, idx].len
        if seg[row, idx].flags & L.G_SACKED:
            cnt_above += 1
            bytes_above += ln
            continue
        if top < 0:
            top = k
        lost = is_lost(cnt_above, bytes_above, thresh, mss)
        if not lost:
            pipe += ln
        if seg[row, idx].epoch == epoch:
            pipe += ln
        elif lost:
            nxt1 = k
            c1 = cnt_above
            b1 = bytes_above
        elif cnt_above > 0:
            nxt3 = k
            c3 = cnt_above
            b3 = bytes_above
    while True:
        if half[h].cwnd - pipe < mss - 1e-9 or _pace_wait(S, h, t):
            break
        ln, fin = _new_segment_len(S, h, c)
        new_ok = ((ln > 0 or fin) and half[h].seg_n < cap
                  and half[h].snd_max + ln - half[h].snd_una <= conn[c].rwnd)
        if nxt1 >= 0 or (nxt3 >= 0 and not new_ok):
            k = nxt1 if nxt1 >= 0 else nxt3
            idx = head + k
            if idx >= cap:
                idx -= cap
            seg[row, idx].epoch = epoch
            outline(send_segment, (S, h, k, t, True))
            pipe += seg[row, idx].len
            if nxt1 >= 0:
                nxt1, c1, b1 = _next_to_resend(S, h, k, c1, b1, True)
            else:
                nxt3, c3, b3 = _next_to_resend(S, h, k, c3, b3, False)
        elif new_ok:
            top = half[h].seg_n
            _send_new(S, h, t, ln, fin)
            pipe += ln + (1 if fin else 0)
        elif top >= 0 and half[h].rescue_epoch != epoch:
            idx = head + top
            if idx >= cap:
                idx -= cap
            if seg[row, idx].epoch == epoch:
                break
            half[h].rescue_epoch = epoch
            outline(send_segment, (S, h, top, t, True))
        else:
            break
        if half[h].rto_deadline == _INF:
            rto_arm(S, h, t)
        sent += 1
    return sent


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _apply_sack(S, h, p):
    """Mark SACKed every segment of half ``h`` wholly inside a SACK block of packet ``p``; return the highest end of
    those blocks (-1: the packet has none). The scoreboard is in sequence order: each block's segments are found by
    bisection and read up to the block's end, not the whole window per block."""
    pkt = S.pkt
    half = S.half
    cap = S.seg.shape[1]
    row = S.half[h].seg_row
    seg = S.seg
    n = half[h].seg_n
    head = half[h].seg_head
    top = -1
    for b in range(3):
        lo = pkt[p].sack[2 * b]
        if lo < 0:
            continue
        hb = pkt[p].sack[2 * b + 1]
        top = max(top, hb)
        a = 0  # the first segment starting at or after lo: segments [0, a) start below it
        z = n
        while a < z:
            m = (a + z) >> 1
            idx = head + m
            if idx >= cap:
                idx -= cap
            if seg[row, idx].start < lo:
                a = m + 1
            else:
                z = m
        for k in range(a, n):
            idx = head + k
            if idx >= cap:
                idx -= cap
            s = seg[row, idx].start
            if s >= hb:
                break
            if s + seg[row, idx].len <= hb:
                seg[row, idx].flags |= L.G_SACKED
    return top


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def on_ack(S, h, p, t):
    """Process the ACK field of packet ``p`` for the sender of half ``h`` (congestion control, timer)."""
    half = S.half
    conn = S.conn
    pkt = S.pkt
    c = h >> 1
    ack = pkt[p].ack
    una = half[h].snd_una
    smax = half[h].snd_max
    if ack > smax or half[h].state == L.S_CLOSED:
        return
    recovery = conn[c].recovery
    mss = conn[c].mss
    acked = 0
    sack_top = -1
    if recovery == L.REC_SACK:
        sack_top = _apply_sack(S, h, p)
    cc_delivered(S, h, ack, sack_top, t)
    if ack > una:
        if half[h].rtt_seq >= 0 and ack >= half[h].rtt_seq:
            rtt_sample(S, h, half[h].rtt_t0, t)
            half[h].rtt_seq = -1
        cap = S.seg.shape[1]
        row = S.half[h].seg_row
        head = half[h].seg_head
        n = half[h].seg_n
        removed = 0
        if ack == smax:  # every segment sent is acknowledged (the ring holds sent ones only): not read
            removed = n
            head += n
            if head >= cap:
                head -= cap
            n = 0
        while n > 0 and S.seg[row, head].start + S.seg[row, head].len <= ack:
            head += 1
            if head == cap:
                head = 0
            n -= 1
            removed += 1
        half[h].seg_head = head
        half[h].seg_n = n
        half[h].seg_nxt = max(0, half[h].seg_nxt - removed)
        acked = ack - una
        half[h].snd_una = ack
        half[h].lt_bytes = 0
        half[h].rxt_shift = 0
        if half[h].snd_nxt < ack:
            half[h].snd_nxt = ack
            half[h].seg_nxt = 0
        restart_timer = True
        if half[h].state == L.S_SYN:
            half[h].state = L.S_EST
            half[h].est_t = t
            if half[h].syn_retx > 0:
                half[h].cwnd = mss  # RFC 5681 sec. 3.1: IW = 1 SMSS after a lost SYN
                rto_after_syn_timeout(S, h)  # RFC 6298 sec. 5.7
        elif half[h].in_rec == 1:
            if ack >= half[h].recover or recovery == L.REC_RENO:
                half[h].in_rec = 0
                half[h].dupacks = 0
                half[h].cwnd = half[h].ssthresh
                cc_state(S, h, CA_OPEN, t)
            elif recovery == L.REC_NEWRENO:
                outline(send_segment, (S, h, 0, t, True))
                cw = half[h].cwnd - acked
                if acked >= mss:
                    cw += mss
                half[h].cwnd = max(cw, float(mss))
                half[h].partials += 1
                restart_timer = half[h].partials == 1
        else:
            half[h].dupacks = 0
            cc_ack(S, h, acked, t)
        if half[h].fin_seq >= 0 and ack > half[h].fin_seq:
            half[h].fin_acked_t = t  # all sent and acknowledged: the scoreboard row is free again
            give_row(S, L.ROWS_SEG, half[h].seg_row)
            half[h].seg_row = -1
        if ack == smax:
            half[h].rto_deadline = _INF
        elif restart_timer:
            rto_arm(S, h, t)
        if S.st[0].trace == 1:
            trace_tcp(S, h, t, 0)
    elif (ack == una and pkt[p].seqlen == 0 and smax > una and half[h].state == L.S_EST):
        half[h].dupacks += 1
        thresh = conn[c].dupthresh
        if half[h].in_rec == 1:
            if recovery != L.REC_SACK:
                half[h].cwnd += mss
        elif ((half[h].dupacks == thresh or (recovery == L.REC_SACK and first_hole_lost(S, h)))
              and (recovery == L.REC_RENO or ack > half[h].recover)):
            # fast retransmit (RFC 5681 sec. 3.2; RFC 6675 sec. 5 steps 4.1-4.3): the FlightSize that
            # sets ssthresh leaves out the segments Limited Transmit sent
            flight = smax - una - half[h].lt_bytes
            ss = loss_ssthresh(S, h, cc_ssthresh(S, h, flight, t))
            cc_congestion(S, h, CA_RECOVERY, t)
            half[h].ssthresh = ss
            half[h].recover = smax
            half[h].in_rec = 1
            half[h].partials = 0
            half[h].n_fretx += 1
            half[h].rec_epoch += 1
            if recovery == L.REC_SACK:
                half[h].cwnd = ss
                idx = half[h].seg_head  # step 4.3: HighRxt := the end of the first segment
                S.seg[half[h].seg_row, idx].epoch = half[h].rec_epoch
            else:
                half[h].cwnd = ss + thresh * mss
            cc_state(S, h, CA_RECOVERY, t)
            outline(send_segment, (S, h, 0, t, True))
        if S.st[0].trace == 1:
            trace_tcp(S, h, t, 1)
    if conn[c].ecn == 1 and pkt[p].flags & L.F_ECE and not pkt[p].flags & L.F_SYN:
        outline(echo_received, (S, h, ack, t))
    cc_ack_done(S, h, acked, t)
    try_send(S, h, t)


@njit(cache=True, inline="always")
def on_rto(S, h, t):
    """Retransmission timeout of half ``h``: back off, collapse cwnd to one segment, go back N."""
    half = S.half
    c = h >> 1
    mss = S.conn[c].mss
    una = half[h].snd_una
    smax = half[h].snd_max
    half[h].rto_deadline = _INF
    if smax == una:
        return
    if half[h].state == L.S_SYN:
        outline(syn_timeout, (S, h, t))
        return
    shift = half[h].rxt_shift + 1  # BSD's t_rxtshift: timeouts since new data was last acknowledged
    half[h].rxt_shift = shift
    if 0 <= S.conn[c].max_rxt < shift:
        outline(give_up, (S, h, t))
        return
    rto_backoff(S, h)
    half[h].n_timeout += 1
    ss = cc_ssthresh(S, h, smax - una, t)  # RFC 5681 eq. 4 for Reno, FlightSize = all data outstanding
    if una < half[h].recover and S.conn[c].rto_ss == 0:
        # a loss episode not over yet (a fast retransmit or timeout set recover): this window was reduced
        # already; ssthresh is not raised again from a FlightSize that fast recovery's new data inflated
        ss = min(ss, half[h].ssthresh)
    else:
        cc_congestion(S, h, CA_LOSS, t)
    half[h].ssthresh = ss
    half[h].cwnd = mss
    half[h].recover = smax
    half[h].in_rec = 0
    half[h].dupacks = 0
    half[h].lt_bytes = 0
    half[h].rtt_seq = -1
    half[h].snd_nxt = una
    half[h].seg_nxt = 0
    half[h].rec_epoch += 1
    cc_state(S, h, CA_LOSS, t)
    if S.st[0].trace == 1:
        trace_tcp(S, h, t, 2)
    outline(try_send, (S, h, t))
