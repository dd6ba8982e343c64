"""Numba TCP sender: RFC 5681 / 6582 / 6675 loss recovery, RFC 3042 Limited Transmit, RFC 6298 timer
(receiver: ``_tcp_recv``).

Every function takes the state tuple ``X`` (see ``_layout``) and a half index ``h``. Sequence numbers
start at 0 with the SYN; data starts at 1; the FIN takes one number after the data and rides on the last
data segment when it is queued before that segment leaves (else it goes alone). Segments keep their
boundaries when retransmitted (the sender's scoreboard is a ring of sent segments per half).
Every packet a host sends carries the cumulative ACK (and, with SACK, up to three SACK blocks) of the
half it receives, so ACKs piggyback on data and on the SYN-ACK; pure ACKs are sent only when owed.
"""

from __future__ import annotations

import math

from numba import njit

from . import _layout as L
from ._link import alloc, give_row, link_enqueue, push, take_row, trace_pkt
from ._tcp_recv import fill_sack

_INF = math.inf


@njit(cache=True, _nrt=False)
def trace_tcp(X, h, t, ev):
    """Append (t, half, cwnd, ssthresh, srtt, rto, snd_una, snd_nxt, ev) to the TCP trace when tracing.

    ``ev``: 0 new ACK, 1 duplicate ACK, 2 timeout, 3 connection opened."""
    st = X[L.X_ST]
    if st[L.ST_TRACE] == 0:
        return
    trt = X[L.X_TRT]
    n = st[L.ST_N_TCPTR]
    if n >= trt.shape[0]:
        st[L.ST_FLAGS] |= L.OVF_TCPTR
        st[L.ST_N_TCPTR] = n + 1
        return
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    trt[n, 0] = t
    trt[n, 1] = h
    trt[n, 2] = hf[h, L.HF_CWND]
    trt[n, 3] = hf[h, L.HF_SSTHRESH]
    trt[n, 4] = hf[h, L.HF_SRTT]
    trt[n, 5] = hf[h, L.HF_RTO]
    trt[n, 6] = hi[h, L.H_SND_UNA]
    trt[n, 7] = hi[h, L.H_SND_NXT]
    trt[n, 8] = ev
    st[L.ST_N_TCPTR] = n + 1


@njit(cache=True, _nrt=False, forceinline=True)
def rto_arm(X, h, t):
    """(Re)start the retransmission timer of half ``h`` to fire at t + RTO."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    dl = t + hf[h, L.HF_RTO]
    tick = X[L.X_CPF][h >> 1, L.C_TICK_S]
    if tick > 0.0:  # a timer of n ticks expires at the n-th tick of the clock after t (BSD slowtimo)
        dl = (math.floor(t / tick) + math.ceil(hf[h, L.HF_RTO] / tick - 1e-9)) * tick
    hf[h, L.HF_RTO_DEADLINE] = dl
    if hi[h, L.H_RTO_EV] == 0 or hf[h, L.HF_RTO_EV_T] > dl:
        hi[h, L.H_RTO_GEN] += 1
        nh = hi.shape[0]
        push(X[L.X_HT], X[L.X_HS], X[L.X_HK], X[L.X_HA], X[L.X_HM], X[L.X_ST], dl, L.EV_RTO,
             hi[h, L.H_RTO_GEN] * nh + h)
        hi[h, L.H_RTO_EV] = 1
        hf[h, L.HF_RTO_EV_T] = dl


@njit(cache=True, _nrt=False, forceinline=True)
def send_packet(X, h, t, flags, seq, seqlen, payload):
    """Build and send one packet of half ``h`` (with the piggybacked ACK of half h^1); return 1 if sent."""
    hi = X[L.X_HI]
    pi = X[L.X_PI]
    st = X[L.X_ST]
    p = alloc(pi, X[L.X_FREE], st)
    if p < 0:
        return 0
    c = h >> 1
    r = h ^ 1
    if hi[r, L.H_RCV_STARTED] == 1:
        flags |= L.F_ACK
        pi[p, L.P_ACK] = hi[r, L.H_RCV_NXT]
        hi[r, L.H_ACK_OWED] = 0
        hi[r, L.H_DACK_BYTES] = 0
        if hi[r, L.H_DACK_ARMED] == 1:
            hi[r, L.H_DACK_GEN] += 1
            hi[r, L.H_DACK_ARMED] = 0
    for b in range(3):
        pi[p, L.P_SACK + 2 * b] = -1
    if X[L.X_CPI][c, L.C_VARIANT] == L.V_SACK and hi[r, L.H_OOO_N] > 0:
        fill_sack(X, r, p)
    pi[p, L.P_CONN] = c
    pi[p, L.P_DIR] = h & 1
    pi[p, L.P_SEQ] = seq
    pi[p, L.P_SEQLEN] = seqlen
    pi[p, L.P_PAYLOAD] = payload
    pi[p, L.P_FLAGS] = flags
    pi[p, L.P_PATH] = h
    pi[p, L.P_HOP] = 0
    pi[p, L.P_IPBYTES] = payload + X[L.X_CPI][c, L.C_HDR]
    pi[p, L.P_UID] = st[L.ST_UID]
    st[L.ST_UID] += 1
    st[L.ST_CREATED] += 1
    X[L.X_PF][p, L.PF_T_SENT] = t
    lnk = X[L.X_PATH_LINKS][X[L.X_PATH_PTR][h]]
    if st[L.ST_TRACE] == 1:
        trace_pkt(X[L.X_TRP], st, t, L.TR_SEND, pi, p, lnk)
    link_enqueue(X[L.X_LI], X[L.X_LF], X[L.X_RDEP], X[L.X_RBYTES], X[L.X_RNG], X[L.X_FLU_T], X[L.X_FLU_R],
                 pi, X[L.X_FREE], st, X[L.X_TRP], X[L.X_TRQ], X[L.X_HT], X[L.X_HS], X[L.X_HK], X[L.X_HA],
                 X[L.X_HM], X[L.X_DROPS], lnk, p, t)
    return 1


@njit(cache=True, _nrt=False, forceinline=True)
def send_segment(X, h, off, t, retx):
    """Send the segment at ring offset ``off`` of half ``h`` (a retransmission if ``retx``)."""
    hi = X[L.X_HI]
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    idx = hi[h, L.H_SEG_HEAD] + off
    if idx >= cap:
        idx -= cap
    seg_f = X[L.X_SEG_F]
    start = X[L.X_SEG_S][row, idx]
    ln = X[L.X_SEG_L][row, idx]
    g = seg_f[row, idx]
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
        seg_f[row, idx] = g | L.G_RETX
        hi[h, L.H_N_RETX] += 1
        hi[h, L.H_RTT_SEQ] = -1  # Karn: no RTT sample while a retransmission is outstanding
    hi[h, L.H_N_SEGS] += 1
    X[L.X_HF][h, L.HF_LAST_SEND] = t
    send_packet(X, h, t, flags, start, ln, payload)


@njit(cache=True, _nrt=False, forceinline=True)
def _append_segment(X, h, start, ln, g):
    hi = X[L.X_HI]
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    n = hi[h, L.H_SEG_N]
    idx = hi[h, L.H_SEG_HEAD] + n
    if idx >= cap:
        idx -= cap
    X[L.X_SEG_S][row, idx] = start
    X[L.X_SEG_L][row, idx] = ln
    X[L.X_SEG_F][row, idx] = g
    X[L.X_SEG_E][row, idx] = -1
    hi[h, L.H_SEG_N] = n + 1
    return n


@njit(cache=True, _nrt=False)
def open_half(X, h, t):
    """Start half ``h``: queue and send its SYN (a SYN-ACK at the server)."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    cpi = X[L.X_CPI]
    cpf = X[L.X_CPF]
    c = h >> 1
    hi[h, L.H_STATE] = L.S_SYN
    hf[h, L.HF_CWND] = cpi[c, L.C_IW] * cpi[c, L.C_MSS]
    hf[h, L.HF_SSTHRESH] = cpf[c, L.C_INIT_SSTHRESH]
    hf[h, L.HF_RTO] = cpf[c, L.C_INIT_RTO]
    hi[h, L.H_SEG_ROW] = take_row(X[L.X_SEG_FREE], X[L.X_ST], L.ST_SEG_FREE)
    off = _append_segment(X, h, 0, 1, L.G_SYN)
    hi[h, L.H_SND_NXT] = 1
    hi[h, L.H_SND_MAX] = 1
    hi[h, L.H_SEG_NXT] = 1
    hi[h, L.H_RTT_SEQ] = 1
    hf[h, L.HF_RTT_T0] = t
    send_segment(X, h, off, t, False)
    rto_arm(X, h, t)


@njit(cache=True, _nrt=False, forceinline=True)
def _window_ok(X, h, c, end, extra):
    """Return True if sending up to sequence ``end`` fits in cwnd + ``extra`` bytes and the receive window."""
    hi = X[L.X_HI]
    used = end - hi[h, L.H_SND_UNA]
    return used <= X[L.X_HF][h, L.HF_CWND] + extra + 1e-9 and used <= X[L.X_CPI][c, L.C_RWND]


@njit(cache=True, _nrt=False, forceinline=True)
def _limited_transmit_bytes(X, h, c):
    """Return the bytes RFC 3042 lets half ``h`` send beyond cwnd now: one SMSS per duplicate ACK, up to
    DupThresh - 1 of them, outside loss recovery (0 when Limited Transmit is off)."""
    hi = X[L.X_HI]
    cpi = X[L.X_CPI]
    if cpi[c, L.C_LIMITED_TX] == 0 or hi[h, L.H_IN_REC] == 1 or hi[h, L.H_DUPACKS] == 0:
        return 0
    return min(hi[h, L.H_DUPACKS], cpi[c, L.C_DUPTHRESH] - 1) * cpi[c, L.C_MSS]


@njit(cache=True, _nrt=False, forceinline=True)
def _new_segment_len(X, h, c):
    """Return (data bytes, carries FIN) of the next new segment of half ``h``: up to SMSS of the data
    available, with the FIN if it is queued right after them (a bare FIN: (0, True)); (0, False) if none."""
    hi = X[L.X_HI]
    smax = hi[h, L.H_SND_MAX]
    fin_seq = hi[h, L.H_FIN_SEQ]
    avail = hi[h, L.H_WRITE_END] - smax
    if avail > 0:
        mss = X[L.X_CPI][c, L.C_MSS]
        ln = mss if avail > mss else avail
        return ln, fin_seq >= 0 and smax + ln == fin_seq
    if fin_seq >= 0 and smax == fin_seq:
        return 0, True
    return 0, False


@njit(cache=True, _nrt=False, forceinline=True)
def _send_new(X, h, t, ln, fin):
    """Send a new segment of ``ln`` data bytes (plus the FIN if ``fin``) at snd_max."""
    hi = X[L.X_HI]
    start = hi[h, L.H_SND_MAX]
    if fin:
        ln += 1
    off = _append_segment(X, h, start, ln, L.G_FIN if fin else 0)
    send_segment(X, h, off, t, False)
    hi[h, L.H_SND_NXT] = start + ln
    hi[h, L.H_SND_MAX] = start + ln
    hi[h, L.H_SEG_NXT] = off + 1
    if hi[h, L.H_RTT_SEQ] < 0:
        hi[h, L.H_RTT_SEQ] = start + ln
        X[L.X_HF][h, L.HF_RTT_T0] = t
    if X[L.X_HF][h, L.HF_RTO_DEADLINE] == _INF:
        rto_arm(X, h, t)


@njit(cache=True, _nrt=False)
def try_send(X, h, t):
    """Send what the windows of half ``h`` allow (go-back-N after a timeout); return packets sent."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    cpi = X[L.X_CPI]
    if hi[h, L.H_STATE] != L.S_EST:
        return 0
    c = h >> 1
    sack = cpi[c, L.C_VARIANT] == L.V_SACK
    if sack and hi[h, L.H_IN_REC] == 1:
        return _sack_send(X, h, t)
    if (cpi[c, L.C_IDLE_RESTART] == 1 and hi[h, L.H_SND_MAX] == hi[h, L.H_SND_UNA]
            and t - hf[h, L.HF_LAST_SEND] > hf[h, L.HF_RTO]):
        rw = cpi[c, L.C_IW] * cpi[c, L.C_MSS]
        if hf[h, L.HF_CWND] > rw:
            hf[h, L.HF_CWND] = rw
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    seg_l = X[L.X_SEG_L]
    sent = 0
    while True:
        off = hi[h, L.H_SEG_NXT]
        if off < hi[h, L.H_SEG_N]:
            idx = hi[h, L.H_SEG_HEAD] + off
            if idx >= cap:
                idx -= cap
            ln = seg_l[row, idx]
            if sack and X[L.X_SEG_F][row, idx] & L.G_SACKED:
                hi[h, L.H_SND_NXT] += ln
                hi[h, L.H_SEG_NXT] = off + 1
                continue
            end = hi[h, L.H_SND_NXT] + ln
            if not _window_ok(X, h, c, end, 0):
                break
            send_segment(X, h, off, t, True)
            hi[h, L.H_SND_NXT] = end
            hi[h, L.H_SEG_NXT] = off + 1
            if hf[h, L.HF_RTO_DEADLINE] == _INF:
                rto_arm(X, h, t)
        else:
            ln, fin = _new_segment_len(X, h, c)
            if (ln == 0 and not fin) or hi[h, L.H_SEG_N] == cap:
                break
            end = hi[h, L.H_SND_MAX] + ln
            if not _window_ok(X, h, c, end, 0):
                if not _window_ok(X, h, c, end, _limited_transmit_bytes(X, h, c)):
                    break
                hi[h, L.H_LT_BYTES] += ln
            _send_new(X, h, t, ln, fin)
        sent += 1
    return sent


@njit(cache=True, _nrt=False, forceinline=True)
def _is_lost(cnt_above, bytes_above, thresh, mss):
    """RFC 6675 IsLost: DupThresh SACKed segments above, or more than (DupThresh - 1) SMSS SACKed above."""
    return cnt_above >= thresh or bytes_above > (thresh - 1) * mss


@njit(cache=True, _nrt=False)
def first_hole_lost(X, h):
    """Return RFC 6675's IsLost(HighACK + 1) for half ``h`` (the segment at snd_una)."""
    hi = X[L.X_HI]
    cpi = X[L.X_CPI]
    c = h >> 1
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    head = hi[h, L.H_SEG_HEAD]
    cnt = 0
    nbytes = 0
    for k in range(1, hi[h, L.H_SEG_N]):
        idx = head + k
        if idx >= cap:
            idx -= cap
        if X[L.X_SEG_F][row, idx] & L.G_SACKED:
            cnt += 1
            nbytes += X[L.X_SEG_L][row, idx]
    return _is_lost(cnt, nbytes, cpi[c, L.C_DUPTHRESH], cpi[c, L.C_MSS])


@njit(cache=True, _nrt=False)
def _sack_send(X, h, t):
    """RFC 6675 step (C): while cwnd - pipe >= 1 SMSS, send the segment NextSeg() names.

    A segment's ``seg_e`` equals the recovery epoch once it was retransmitted in this recovery (the
    segments at or below HighRxt); SetPipe counts an unSACKed segment once unless IsLost, and once more
    if so retransmitted. NextSeg: (1) the first lost segment not yet retransmitted; (2) new data; (3) the
    first unSACKed, not yet retransmitted segment below the highest SACKed one; (4) once per recovery,
    a rescue retransmission of the highest unSACKed segment (not counted in pipe as retransmitted). We
    skip rule 4 when that segment was already retransmitted in this recovery: the RFC's letter would
    resend it while its retransmission is in flight; its purpose, a lost tail, is kept."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    cpi = X[L.X_CPI]
    c = h >> 1
    mss = cpi[c, L.C_MSS]
    thresh = cpi[c, L.C_DUPTHRESH]
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    seg_l = X[L.X_SEG_L]
    seg_f = X[L.X_SEG_F]
    seg_e = X[L.X_SEG_E]
    epoch = hi[h, L.H_REC_EPOCH]
    sent = 0
    while True:
        n = hi[h, L.H_SEG_N]
        head = hi[h, L.H_SEG_HEAD]
        pipe = 0
        cnt_above = 0
        bytes_above = 0
        nxt1 = -1  # rule 1
        nxt3 = -1  # rule 3
        top = -1  # highest unSACKed segment (rule 4)
        for k in range(n - 1, -1, -1):
            idx = head + k
            if idx >= cap:
                idx -= cap
            ln = seg_l[row, idx]
            if seg_f[row, idx] & L.G_SACKED:
                cnt_above += 1
                bytes_above += ln
                continue
            if top < 0:
                top = k
            lost = _is_lost(cnt_above, bytes_above, thresh, mss)
            if not lost:
                pipe += ln
            if seg_e[row, idx] == epoch:
                pipe += ln
            elif lost:
                nxt1 = k
            elif cnt_above > 0:
                nxt3 = k
        if hf[h, L.HF_CWND] - pipe < mss - 1e-9:
            break
        ln, fin = _new_segment_len(X, h, c)
        new_ok = ((ln > 0 or fin) and n < cap
                  and hi[h, L.H_SND_MAX] + ln - hi[h, L.H_SND_UNA] <= cpi[c, L.C_RWND])
        if nxt1 >= 0 or (nxt3 >= 0 and not new_ok):
            k = nxt1 if nxt1 >= 0 else nxt3
            idx = head + k
            if idx >= cap:
                idx -= cap
            seg_e[row, idx] = epoch
            send_segment(X, h, k, t, True)
        elif new_ok:
            _send_new(X, h, t, ln, fin)
        elif top >= 0 and hi[h, L.H_RESCUE_EPOCH] != epoch:
            idx = head + top
            if idx >= cap:
                idx -= cap
            if seg_e[row, idx] == epoch:
                break
            hi[h, L.H_RESCUE_EPOCH] = epoch
            send_segment(X, h, top, t, True)
        else:
            break
        if hf[h, L.HF_RTO_DEADLINE] == _INF:
            rto_arm(X, h, t)
        sent += 1
    return sent


@njit(cache=True, _nrt=False, forceinline=True)
def _rtt_sample(X, h, c, t0, t):
    """Feed the RTT of a segment sent at ``t0`` and acknowledged at ``t`` to the RFC 6298 estimator. With
    a timer granularity G the sample is G times the clock ticks between them, and the RTO is rounded
    up to whole ticks (as BSD's tick counters)."""
    hf = X[L.X_HF]
    cpf = X[L.X_CPF]
    tick = cpf[c, L.C_TICK_S]
    r = t - t0
    if tick > 0.0:
        r = tick * (math.floor(t / tick) - math.floor(t0 / tick))
    if hf[h, L.HF_SRTT] < 0.0:
        hf[h, L.HF_SRTT] = r
        hf[h, L.HF_RTTVAR] = r / 2.0
    else:
        hf[h, L.HF_RTTVAR] = 0.75 * hf[h, L.HF_RTTVAR] + 0.25 * abs(hf[h, L.HF_SRTT] - r)
        hf[h, L.HF_SRTT] = 0.875 * hf[h, L.HF_SRTT] + 0.125 * r
    rto = hf[h, L.HF_SRTT] + 4.0 * hf[h, L.HF_RTTVAR]
    if tick > 0.0:
        rto = math.ceil(rto / tick - 1e-9) * tick
    hf[h, L.HF_RTO] = min(max(rto, cpf[c, L.C_MIN_RTO]), cpf[c, L.C_MAX_RTO])


@njit(cache=True, _nrt=False)
def _apply_sack(X, h, p):
    pi = X[L.X_PI]
    hi = X[L.X_HI]
    cap = X[L.X_SEG_S].shape[1]
    row = X[L.X_HI][h, L.H_SEG_ROW]
    seg_s = X[L.X_SEG_S]
    seg_l = X[L.X_SEG_L]
    seg_f = X[L.X_SEG_F]
    n = hi[h, L.H_SEG_N]
    head = hi[h, L.H_SEG_HEAD]
    for b in range(3):
        lo = pi[p, L.P_SACK + 2 * b]
        if lo < 0:
            continue
        hb = pi[p, L.P_SACK + 2 * b + 1]
        for k in range(n):
            idx = head + k
            if idx >= cap:
                idx -= cap
            s = seg_s[row, idx]
            if s >= lo and s + seg_l[row, idx] <= hb:
                seg_f[row, idx] |= L.G_SACKED


@njit(cache=True, _nrt=False, forceinline=True)
def on_ack(X, h, p, t):
    """Process the ACK field of packet ``p`` for the sender of half ``h`` (congestion control, timer)."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    cpi = X[L.X_CPI]
    pi = X[L.X_PI]
    c = h >> 1
    ack = pi[p, L.P_ACK]
    una = hi[h, L.H_SND_UNA]
    smax = hi[h, L.H_SND_MAX]
    if ack > smax or hi[h, L.H_STATE] == L.S_CLOSED:
        return
    variant = cpi[c, L.C_VARIANT]
    mss = cpi[c, L.C_MSS]
    if variant == L.V_SACK:
        _apply_sack(X, h, p)
    if ack > una:
        if hi[h, L.H_RTT_SEQ] >= 0 and ack >= hi[h, L.H_RTT_SEQ]:
            _rtt_sample(X, h, c, hf[h, L.HF_RTT_T0], t)
            hi[h, L.H_RTT_SEQ] = -1
        cap = X[L.X_SEG_S].shape[1]
        row = X[L.X_HI][h, L.H_SEG_ROW]
        head = hi[h, L.H_SEG_HEAD]
        n = hi[h, L.H_SEG_N]
        removed = 0
        while n > 0 and X[L.X_SEG_S][row, head] + X[L.X_SEG_L][row, head] <= ack:
            head += 1
            if head == cap:
                head = 0
            n -= 1
            removed += 1
        hi[h, L.H_SEG_HEAD] = head
        hi[h, L.H_SEG_N] = n
        hi[h, L.H_SEG_NXT] = max(0, hi[h, L.H_SEG_NXT] - removed)
        acked = ack - una
        hi[h, L.H_SND_UNA] = ack
        hi[h, L.H_LT_BYTES] = 0
        if hi[h, L.H_SND_NXT] < ack:
            hi[h, L.H_SND_NXT] = ack
            hi[h, L.H_SEG_NXT] = 0
        restart_timer = True
        if hi[h, L.H_STATE] == L.S_SYN:
            hi[h, L.H_STATE] = L.S_EST
            hf[h, L.HF_EST_T] = t
            if hi[h, L.H_SYN_RETX] > 0:
                hf[h, L.HF_CWND] = mss  # RFC 5681 sec. 3.1: IW = 1 SMSS after a lost SYN
                if X[L.X_CPF][c, L.C_INIT_RTO] < 3.0:  # RFC 6298 sec. 5.7
                    hf[h, L.HF_RTO] = min(3.0, X[L.X_CPF][c, L.C_MAX_RTO])
        elif hi[h, L.H_IN_REC] == 1:
            if ack >= hi[h, L.H_RECOVER] or variant == L.V_RENO:
                hi[h, L.H_IN_REC] = 0
                hi[h, L.H_DUPACKS] = 0
                hf[h, L.HF_CWND] = hf[h, L.HF_SSTHRESH]
            elif variant == L.V_NEWRENO:
                send_segment(X, h, 0, t, True)
                cw = hf[h, L.HF_CWND] - acked
                if acked >= mss:
                    cw += mss
                hf[h, L.HF_CWND] = max(cw, float(mss))
                hi[h, L.H_PARTIALS] += 1
                restart_timer = hi[h, L.H_PARTIALS] == 1
        else:
            hi[h, L.H_DUPACKS] = 0
            cw = hf[h, L.HF_CWND]
            if cw < cpi[c, L.C_RWND]:  # no growth while the receive window is the limit
                if cw < hf[h, L.HF_SSTHRESH]:
                    cw += min(acked, mss)
                else:
                    cw += mss * mss / cw
                hf[h, L.HF_CWND] = cw
        if hi[h, L.H_FIN_SEQ] >= 0 and ack > hi[h, L.H_FIN_SEQ]:
            hf[h, L.HF_FIN_ACKED_T] = t  # all sent and acknowledged: the scoreboard row is free again
            give_row(X[L.X_SEG_FREE], X[L.X_ST], L.ST_SEG_FREE, hi[h, L.H_SEG_ROW])
            hi[h, L.H_SEG_ROW] = -1
        if ack == smax:
            hf[h, L.HF_RTO_DEADLINE] = _INF
        elif restart_timer:
            rto_arm(X, h, t)
        if X[L.X_ST][L.ST_TRACE] == 1:
            trace_tcp(X, h, t, 0)
    elif (ack == una and pi[p, L.P_SEQLEN] == 0 and smax > una and hi[h, L.H_STATE] == L.S_EST):
        hi[h, L.H_DUPACKS] += 1
        thresh = cpi[c, L.C_DUPTHRESH]
        if hi[h, L.H_IN_REC] == 1:
            if variant != L.V_SACK:
                hf[h, L.HF_CWND] += mss
        elif ((hi[h, L.H_DUPACKS] == thresh or (variant == L.V_SACK and first_hole_lost(X, h)))
              and (variant == L.V_RENO or ack > hi[h, L.H_RECOVER])):
            # fast retransmit (RFC 5681 sec. 3.2; RFC 6675 sec. 5 steps 4.1-4.3): the FlightSize that
            # sets ssthresh leaves out the segments Limited Transmit sent
            flight = smax - una - hi[h, L.H_LT_BYTES]
            ss = max(flight / 2.0, 2.0 * mss)
            hf[h, L.HF_SSTHRESH] = ss
            hi[h, L.H_RECOVER] = smax
            hi[h, L.H_IN_REC] = 1
            hi[h, L.H_PARTIALS] = 0
            hi[h, L.H_N_FRETX] += 1
            hi[h, L.H_REC_EPOCH] += 1
            if variant == L.V_SACK:
                hf[h, L.HF_CWND] = ss
                idx = hi[h, L.H_SEG_HEAD]  # step 4.3: HighRxt := the end of the first segment
                X[L.X_SEG_E][hi[h, L.H_SEG_ROW], idx] = hi[h, L.H_REC_EPOCH]
            else:
                hf[h, L.HF_CWND] = ss + thresh * mss
            send_segment(X, h, 0, t, True)
        if X[L.X_ST][L.ST_TRACE] == 1:
            trace_tcp(X, h, t, 1)
    try_send(X, h, t)


@njit(cache=True, _nrt=False)
def on_rto(X, h, t):
    """Retransmission timeout of half ``h``: back off, collapse cwnd to one segment, go back N."""
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    c = h >> 1
    mss = X[L.X_CPI][c, L.C_MSS]
    una = hi[h, L.H_SND_UNA]
    smax = hi[h, L.H_SND_MAX]
    hf[h, L.HF_RTO_DEADLINE] = _INF
    if smax == una:
        return
    hf[h, L.HF_RTO] = min(2.0 * hf[h, L.HF_RTO], X[L.X_CPF][c, L.C_MAX_RTO])
    hi[h, L.H_N_TIMEOUT] += 1
    if hi[h, L.H_STATE] == L.S_SYN:
        hi[h, L.H_SYN_RETX] += 1
        send_segment(X, h, 0, t, True)
        rto_arm(X, h, t)
        return
    hf[h, L.HF_SSTHRESH] = max((smax - una) / 2.0, 2.0 * mss)
    hf[h, L.HF_CWND] = mss
    hi[h, L.H_RECOVER] = smax
    hi[h, L.H_IN_REC] = 0
    hi[h, L.H_DUPACKS] = 0
    hi[h, L.H_LT_BYTES] = 0
    hi[h, L.H_RTT_SEQ] = -1
    hi[h, L.H_SND_NXT] = una
    hi[h, L.H_SEG_NXT] = 0
    hi[h, L.H_REC_EPOCH] += 1
    if X[L.X_ST][L.ST_TRACE] == 1:
        trace_tcp(X, h, t, 2)
    try_send(X, h, t)
