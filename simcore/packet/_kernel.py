"""The packet simulator's event loop (numba): packet arrivals, TCP timers, application writes, CBR sources.

``run(X)`` consumes events from the heap in ``X`` until it is empty or the end time ``X[X_SCAL][1]`` is
passed, and returns the number of events processed. All state lives in the arrays of ``X`` (built by
``simulate.py``); the caller reads the results from them afterwards.
"""

from __future__ import annotations

import math

from numba import njit

from simcore.engine import heap_pop

from . import _layout as L
from ._link import alloc, fluid_advance, fluid_chunks, give_row, link_enqueue, push, release, trace_pkt
from ._tcp import on_ack, on_rto, open_half, send_packet, send_segment, trace_tcp, try_send
from ._tcp_recv import on_segment


@njit(cache=True, _nrt=False, forceinline=True)
def _push(X, t, k, a):
    push(X[L.X_HT], X[L.X_HS], X[L.X_HK], X[L.X_HA], X[L.X_HM], X[L.X_ST], t, k, a)


@njit(cache=True, _nrt=False)
def _maybe_close(X, c, t):
    """Queue the closer's FIN once it has written all it sends and received all it is sent (both known
    at the closer's host)."""
    cpi = X[L.X_CPI]
    cs = cpi[c, L.C_CLOSER]
    if cs < 0 or cpi[c, L.C_FIN_QUEUED] == 1 or cpi[c, L.C_OPENED] == 0:
        return
    if cpi[c, L.C_WRITTEN + cs] < cpi[c, L.C_TOTAL + cs] or cpi[c, L.C_DONE + 1 - cs] < cpi[c, L.C_TOTAL + 1 - cs]:
        return
    h = 2 * c + cs
    hi = X[L.X_HI]
    if hi[h, L.H_STATE] == L.S_CLOSED:
        return
    cpi[c, L.C_FIN_QUEUED] = 1
    hi[h, L.H_FIN_SEQ] = hi[h, L.H_STREAM_END]
    try_send(X, h, t)


@njit(cache=True, _nrt=False)
def _complete(X, r, m, t):
    """Message ``m`` of half ``r`` has wholly reached the application: record it, release its dependents."""
    mf = X[L.X_MF]
    mf[m, L.MF_DONE] = t
    X[L.X_CPI][r >> 1, L.C_DONE + (r & 1)] += 1
    dp = X[L.X_DEP_PTR]
    for j in range(dp[m], dp[m + 1]):
        k = X[L.X_DEP_MSG][j]
        _push(X, max(t + mf[k, L.MF_DELAY], mf[k, L.MF_START]), L.EV_WRITE, k)
    cp = X[L.X_CDEP_PTR]
    for j in range(cp[m], cp[m + 1]):
        k = X[L.X_CDEP_CONN][j]
        _push(X, max(t, X[L.X_CPF][k, L.C_OPEN_T]), L.EV_OPEN, k)


@njit(cache=True, _nrt=False)
def _received(X, r, lo, hi_):
    """Return True if the receiver of half ``r`` holds every byte of [lo, hi_)."""
    hi = X[L.X_HI]
    rn = hi[r, L.H_RCV_NXT]
    if hi_ <= rn:
        return True
    a = max(lo, rn)
    orow = hi[r, L.H_OOO_ROW]
    for i in range(hi[r, L.H_OOO_N]):
        if X[L.X_OLO][orow, i] <= a and X[L.X_OHI][orow, i] >= hi_:
            return True
    return False


@njit(cache=True, _nrt=False)
def _deliver_streams(X, r, t):
    """Multistream delivery: complete every message whose bytes have all arrived and whose predecessor
    on the same stream is complete. Return True if any completed."""
    hi = X[L.X_HI]
    mi = X[L.X_MI]
    completed = False
    prev = -1
    m = hi[r, L.H_MSG_HEAD]
    while m >= 0:
        nxt = mi[m, L.M_NEXT]
        blocked = False
        q = hi[r, L.H_MSG_HEAD]
        while q != m:
            if mi[q, L.M_STREAM] == mi[m, L.M_STREAM]:
                blocked = True
                break
            q = mi[q, L.M_NEXT]
        if not blocked and _received(X, r, mi[m, L.M_BEGIN], mi[m, L.M_END]):
            _complete(X, r, m, t)
            completed = True
            if prev < 0:
                hi[r, L.H_MSG_HEAD] = nxt
            else:
                mi[prev, L.M_NEXT] = nxt
            if nxt < 0:
                hi[r, L.H_MSG_TAIL] = prev
        else:
            prev = m
        m = nxt
    return completed


@njit(cache=True, _nrt=False, forceinline=True)
def _deliver(X, r, t):
    """Complete the messages of half ``r`` now delivered (in order, or per stream on a multistream
    connection); release what waits on them; handle a FIN received in order."""
    hi = X[L.X_HI]
    mi = X[L.X_MI]
    cpi = X[L.X_CPI]
    rn = hi[r, L.H_RCV_NXT]
    c = r >> 1
    if X[L.X_SCAL][2] > 0.0:  # the scenario has relaying messages
        _feed_relays(X, r, t)
    if cpi[c, L.C_MULTISTREAM] == 1:
        completed = _deliver_streams(X, r, t)
    else:
        m = hi[r, L.H_MSG_HEAD]
        completed = False
        while m >= 0 and mi[m, L.M_END] <= rn:
            _complete(X, r, m, t)
            completed = True
            m = mi[m, L.M_NEXT]
        hi[r, L.H_MSG_HEAD] = m
        if m < 0:
            hi[r, L.H_MSG_TAIL] = -1
    if completed:
        _maybe_close(X, c, t)
    fin = hi[r, L.H_RCV_FIN]
    if fin >= 0 and rn > fin and hi[r, L.H_FIN_RCVD] == 0:
        hi[r, L.H_FIN_RCVD] = 1  # everything received in order: the out-of-order row is free again
        give_row(X[L.X_OOO_FREE], X[L.X_ST], L.ST_OOO_FREE, hi[r, L.H_OOO_ROW])
        hi[r, L.H_OOO_ROW] = -1
        X[L.X_HF][r, L.HF_FIN_RCVD_T] = t
        s = r ^ 1
        if hi[s, L.H_FIN_SEQ] < 0:  # passive close: answer with our own FIN
            hi[s, L.H_FIN_SEQ] = hi[s, L.H_STREAM_END]
            cpi[c, L.C_FIN_QUEUED] = 1
        else:  # active closer: TIME-WAIT starts (2 MSL not simulated)
            X[L.X_CPF][c, L.C_TIMEWAIT_T] = t


@njit(cache=True, _nrt=False, forceinline=True)
def _send_pure_ack(X, s, t):
    hi = X[L.X_HI]
    send_packet(X, s, t, 0, hi[s, L.H_SND_NXT], 0, 0)


@njit(cache=True, _nrt=False, forceinline=True)
def _at_host(X, p, t):
    """A TCP packet of half ``r`` reaches the receiving host, whose own sending half is ``s = r ^ 1``."""
    hi = X[L.X_HI]
    pi = X[L.X_PI]
    r = 2 * pi[p, L.P_CONN] + pi[p, L.P_DIR]
    s = r ^ 1
    flags = pi[p, L.P_FLAGS]
    started = hi[r, L.H_RCV_STARTED]
    on_segment(X, r, p, t)
    if pi[p, L.P_SEQLEN] > 0:
        _deliver(X, r, t)
    if flags & L.F_SYN and not flags & L.F_ACK:
        if hi[s, L.H_STATE] == L.S_CLOSED:
            X[L.X_CPI][r >> 1, L.C_OPENED] = 1
            open_half(X, s, t)  # SYN-ACK
        elif hi[s, L.H_STATE] == L.S_SYN and started == 1:
            if hi[s, L.H_SEG_N] > 0:
                send_segment(X, s, 0, t, True)
    if flags & L.F_ACK:
        on_ack(X, s, p, t)
        if hi[s, L.H_STATE] == L.S_EST:
            _maybe_close(X, r >> 1, t)
    else:
        try_send(X, s, t)
    owed = hi[r, L.H_ACK_OWED]
    if owed == 1:
        if try_send(X, s, t) == 0 and hi[r, L.H_ACK_OWED] == 1:
            _send_pure_ack(X, s, t)
    elif owed == 2 and hi[r, L.H_DACK_ARMED] == 0:
        hi[r, L.H_DACK_ARMED] = 1
        nh = hi.shape[0]
        d = X[L.X_CPF][r >> 1, L.C_DELACK_S]
        fire = t + d
        if X[L.X_CPI][r >> 1, L.C_DELACK_TICKS] == 1:  # BSD: the next tick of a clock of period d
            fire = (math.floor(t / d) + 1.0) * d
        _push(X, fire, L.EV_DELACK, hi[r, L.H_DACK_GEN] * nh + r)


@njit(cache=True, _nrt=False, forceinline=True)
def _cbr_emit(X, k, t):
    cbi = X[L.X_CBI]
    cbf = X[L.X_CBF]
    cbt = X[L.X_CB_T]
    cbr = X[L.X_CB_R]
    p1 = cbi[k, L.CB_P1]
    ptr = cbi[k, L.CB_PTR]
    while ptr + 1 < p1 and cbt[ptr + 1] <= t:
        ptr += 1
    cbi[k, L.CB_PTR] = ptr
    rate = cbr[ptr]
    if rate > 0.0:
        pi = X[L.X_PI]
        st = X[L.X_ST]
        p = alloc(pi, X[L.X_FREE], st)
        if p >= 0:
            pi[p, L.P_CONN] = k
            pi[p, L.P_FLAGS] = L.F_CBR
            pi[p, L.P_SEQ] = cbi[k, L.CB_SENT]
            pi[p, L.P_PATH] = cbi[k, L.CB_PATH]
            pi[p, L.P_IPBYTES] = cbi[k, L.CB_SIZE]
            pi[p, L.P_UID] = st[L.ST_UID]
            st[L.ST_UID] += 1
            st[L.ST_CREATED] += 1
            cbi[k, L.CB_SENT] += 1
            X[L.X_PF][p, L.PF_T_SENT] = t
            lnk = X[L.X_PATH_LINKS][X[L.X_PATH_PTR][cbi[k, L.CB_PATH]]]
            if st[L.ST_TRACE] == 1:
                trace_pkt(X[L.X_TRP], st, t, L.TR_SEND, pi, p, lnk)
            link_enqueue(X[L.X_LI], X[L.X_LF], X[L.X_RDEP], X[L.X_RBYTES], X[L.X_RNG], X[L.X_FLU_T],
                         X[L.X_FLU_R], pi, X[L.X_FREE], st, X[L.X_TRP], X[L.X_TRQ], X[L.X_HT], X[L.X_HS],
                         X[L.X_HK], X[L.X_HA], X[L.X_HM], X[L.X_DROPS], lnk, p, t)
        tn = t + cbi[k, L.CB_SIZE] * 8.0 / rate
    elif ptr + 1 < p1:
        tn = cbt[ptr + 1]
    else:
        return
    if tn < cbf[k, L.CB_STOP]:
        _push(X, tn, L.EV_CBR, k)


@njit(cache=True, _nrt=False, forceinline=True)
def _cbr_arrive(X, p, t):
    st = X[L.X_ST]
    k = X[L.X_PI][p, L.P_CONN]
    X[L.X_CBI][k, L.CB_RCVD] += 1
    rec = X[L.X_CB_REC]
    n = st[L.ST_N_CBRREC]
    if n >= rec.shape[0]:
        st[L.ST_FLAGS] |= L.OVF_CBR
        st[L.ST_N_CBRREC] = n + 1
        return
    ts = X[L.X_PF][p, L.PF_T_SENT]
    rec[n, 0] = k
    rec[n, 1] = ts
    rec[n, 2] = t - ts
    st[L.ST_N_CBRREC] = n + 1


@njit(cache=True, _nrt=False)
def _update_available(X, h):
    """Set half ``h``'s available-data end: up to the first written message not wholly available."""
    hi = X[L.X_HI]
    mi = X[L.X_MI]
    end = hi[h, L.H_STREAM_END]
    m = hi[h, L.H_MSG_HEAD]
    while m >= 0:
        if mi[m, L.M_BEGIN] + mi[m, L.M_AVAIL] < mi[m, L.M_END]:
            end = mi[m, L.M_BEGIN] + mi[m, L.M_AVAIL]
            break
        m = mi[m, L.M_NEXT]
    hi[h, L.H_WRITE_END] = end


@njit(cache=True, _nrt=False)
def _relay_progress(X, k):
    """Return how many bytes of message ``k`` have reached its receiving application in order."""
    mi = X[L.X_MI]
    if mi[k, L.M_END] == 0:  # not written yet
        return 0
    r = 2 * mi[k, L.M_CONN] + mi[k, L.M_DIR]
    rn = X[L.X_HI][r, L.H_RCV_NXT]
    return max(0, min(rn, mi[k, L.M_END]) - mi[k, L.M_BEGIN])


@njit(cache=True, _nrt=False)
def _feed_relays(X, r, t):
    """At the receiving host of half ``r``: pass the bytes now delivered in order on to relaying messages."""
    hi = X[L.X_HI]
    mi = X[L.X_MI]
    rn = hi[r, L.H_RCV_NXT]
    m = hi[r, L.H_MSG_HEAD]
    while m >= 0 and mi[m, L.M_BEGIN] < rn:
        j = mi[m, L.M_RELAY_TO]
        if j >= 0 and mi[j, L.M_END] > 0:
            prog = min(rn, mi[m, L.M_END]) - mi[m, L.M_BEGIN]
            if prog > mi[j, L.M_AVAIL]:
                mi[j, L.M_AVAIL] = prog
                hj = 2 * mi[j, L.M_CONN] + mi[j, L.M_DIR]
                _update_available(X, hj)
                try_send(X, hj, t)
        m = mi[m, L.M_NEXT]


@njit(cache=True, _nrt=False)
def _pick_conn(X, k, d):
    """Return the connection of pool ``k`` that its rule picks for a message in direction ``d`` now."""
    po = X[L.X_POOL]
    pc = X[L.X_POOL_CONN]
    p0 = po[k, L.PO_P0]
    p1 = po[k, L.PO_P1]
    if po[k, L.PO_RULE] == 1:  # round robin
        j = po[k, L.PO_NEXT]
        po[k, L.PO_NEXT] = j + 1 if j + 1 < p1 - p0 else 0
        return pc[p0 + j]
    hi = X[L.X_HI]
    best = pc[p0]
    best_out = -1
    for j in range(p0, p1):  # fewest bytes written but not yet acknowledged (data only: from seq 1)
        h = 2 * pc[j] + d
        out = max(0, hi[h, L.H_STREAM_END] - max(hi[h, L.H_SND_UNA], 1))
        if best_out < 0 or out < best_out:
            best = pc[j]
            best_out = out
    return best


@njit(cache=True, _nrt=False)
def _write(X, m, t):
    hi = X[L.X_HI]
    mi = X[L.X_MI]
    if mi[m, L.M_POOL] >= 0:
        mi[m, L.M_CONN] = _pick_conn(X, mi[m, L.M_POOL], mi[m, L.M_DIR])
    h = 2 * mi[m, L.M_CONN] + mi[m, L.M_DIR]
    if hi[h, L.H_FIN_SEQ] >= 0:
        return
    X[L.X_MF][m, L.MF_WRITE] = t
    size = mi[m, L.M_SIZE]
    begin = hi[h, L.H_STREAM_END]
    end = L.BIG_SEQ if size < 0 else begin + size
    mi[m, L.M_BEGIN] = begin
    mi[m, L.M_END] = end
    hi[h, L.H_STREAM_END] = end
    k = mi[m, L.M_RELAY_OF]
    mi[m, L.M_AVAIL] = end - begin if k < 0 else _relay_progress(X, k)
    mi[m, L.M_NEXT] = -1
    tail = hi[h, L.H_MSG_TAIL]
    if tail >= 0:
        mi[tail, L.M_NEXT] = m
    else:
        hi[h, L.H_MSG_HEAD] = m
    hi[h, L.H_MSG_TAIL] = m
    _update_available(X, h)
    X[L.X_CPI][h >> 1, L.C_WRITTEN + (h & 1)] += 1
    _maybe_close(X, h >> 1, t)  # an application that writes and closes at once: the FIN rides on the data
    try_send(X, h, t)


@njit(cache=True, _nrt=False)
def run(X):
    """Run the event loop over the state tuple ``X``; return the number of events processed.

    It stops early, between two events, with ``PAUSE_ROWS`` set when a per-half row table (scoreboards,
    out-of-order blocks) has no free row left: the caller grows the tables and calls ``run`` again,
    which carries on where it stopped (``simulate.run_to_end``)."""
    ht = X[L.X_HT]
    hs = X[L.X_HS]
    hk = X[L.X_HK]
    ha = X[L.X_HA]
    hm = X[L.X_HM]
    st = X[L.X_ST]
    hi = X[L.X_HI]
    hf = X[L.X_HF]
    pi = X[L.X_PI]
    path_ptr = X[L.X_PATH_PTR]
    path_links = X[L.X_PATH_LINKS]
    t_end = X[L.X_SCAL][1]
    nh = hi.shape[0]
    events = 0
    seg_rows = X[L.X_SEG_S].shape[0]
    ooo_rows = X[L.X_OLO].shape[0]
    while hm[0] > 0:
        if st[L.ST_FLAGS] & (L.OVF_POOL | L.OVF_HEAP | L.OVF_RING | L.OVF_ROWS):
            break
        # an event takes at most one row of each table: pause for more before none is left
        if (st[L.ST_SEG_FREE] == 0 and seg_rows < nh) or (st[L.ST_OOO_FREE] == 0 and ooo_rows < nh):
            st[L.ST_FLAGS] |= L.PAUSE_ROWS
            break
        if ht[0] > t_end:
            break
        t, k, a = heap_pop(ht, hs, hk, ha, hm)
        events += 1
        if k == L.EV_ARRIVE:
            path = pi[a, L.P_PATH]
            hop = pi[a, L.P_HOP] + 1
            if path_ptr[path] + hop < path_ptr[path + 1]:
                pi[a, L.P_HOP] = hop
                if st[L.ST_TRACE] == 1:
                    trace_pkt(X[L.X_TRP], st, t, L.TR_FORWARD, pi, a, path_links[path_ptr[path] + hop])
                link_enqueue(X[L.X_LI], X[L.X_LF], X[L.X_RDEP], X[L.X_RBYTES], X[L.X_RNG], X[L.X_FLU_T],
                             X[L.X_FLU_R], pi, X[L.X_FREE], st, X[L.X_TRP], X[L.X_TRQ], ht, hs, hk, ha, hm,
                             X[L.X_DROPS], path_links[path_ptr[path] + hop], a, t)
            else:
                st[L.ST_DELIVERED] += 1
                if st[L.ST_TRACE] == 1:
                    trace_pkt(X[L.X_TRP], st, t, L.TR_RECV, pi, a, path_links[path_ptr[path + 1] - 1])
                if pi[a, L.P_FLAGS] & L.F_CBR:
                    _cbr_arrive(X, a, t)
                else:
                    _at_host(X, a, t)
                release(X[L.X_FREE], st, a)
        elif k == L.EV_RTO:
            h = a % nh
            if a // nh == hi[h, L.H_RTO_GEN]:
                hi[h, L.H_RTO_EV] = 0
                dl = hf[h, L.HF_RTO_DEADLINE]
                if dl == math.inf:
                    pass
                elif t < dl:
                    hi[h, L.H_RTO_EV] = 1
                    hf[h, L.HF_RTO_EV_T] = dl
                    _push(X, dl, L.EV_RTO, a)
                else:
                    on_rto(X, h, t)
        elif k == L.EV_DELACK:
            r = a % nh
            if a // nh == hi[r, L.H_DACK_GEN] and hi[r, L.H_DACK_ARMED] == 1:
                hi[r, L.H_DACK_ARMED] = 0
                if hi[r, L.H_ACK_OWED] > 0:
                    _send_pure_ack(X, r ^ 1, t)
        elif k == L.EV_WRITE:
            _write(X, a, t)
        elif k == L.EV_OPEN:
            h = 2 * a
            if hi[h, L.H_STATE] == L.S_CLOSED:
                X[L.X_CPI][a, L.C_OPENED] = 1
                open_half(X, h, t)
                if st[L.ST_TRACE] == 1:
                    trace_tcp(X, h, t, 3)
        elif k == L.EV_CBR:
            _cbr_emit(X, a, t)
    li = X[L.X_LI]
    if st[L.ST_FLAGS] & L.PAUSE_ROWS:
        st[L.ST_EVENTS] += events
        return events
    for lnk in range(li.shape[0]):  # bring the fluid accounting up to the end time
        if li[lnk, L.L_HAS_FLUID] == 2:
            fluid_chunks(li, X[L.X_LF], X[L.X_RDEP], X[L.X_RBYTES], X[L.X_FLU_T], X[L.X_FLU_R], lnk, t_end)
        elif li[lnk, L.L_HAS_FLUID] == 1:
            fluid_advance(li, X[L.X_LF], X[L.X_FLU_T], X[L.X_FLU_R], lnk, t_end)
    st[L.ST_EVENTS] += events
    return events
