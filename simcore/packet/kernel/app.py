"""Numba: the application layer above every transport: messages, streams, relays and connection pools.

A message is written on a half (``write``, at its ``EV_WRITE``): appended to the half's stream (``begin``,
``end``) and to its list of incomplete messages (``msg_head``/``msg_tail``); the transport is told that data
is available (``kernel.transport.send_available``). The transport of the receiving half calls ``deliver`` when
new data has arrived: messages wholly received complete (in order, or per stream on a multistream
connection), relaying messages get the bytes now in order, and messages or connections waiting for a
completion are scheduled. ``maybe_close`` asks the transport to close once the closer is done.

Fields of ``S.half`` used here and kept by every transport: ``state`` (``S_CLOSED`` until open),
``stream_end``, ``write_end`` (end of the bytes available to send), ``fin_seq`` (>= 0 once closing),
``snd_una``, ``rcv_nxt``, ``msg_head``, ``msg_tail``.
"""

from __future__ import annotations

from numba import njit

from .._numba.outline import outline
from . import layout as L
from . import transport as T  # a module (late bound): kernel.transport imports the transports, which use this one
from .link import push
from .ooo import ooo_holds
from .slot import slot_of


@njit(cache=True, inline="always")
def maybe_close(S, c, t):
    """Close connection ``c``'s closing side once it has written all it sends and received all it is sent
    (both known at the closer's host): the transport queues its FIN (``kernel.transport.close_half``)."""
    conn = S.conn
    cs = conn[c].closer
    if cs < 0 or conn[c].fin_queued == 1 or conn[c].opened == 0:
        return
    if conn[c].written[cs] < conn[c].total[cs] or conn[c].done[1 - cs] < conn[c].total[1 - cs]:
        return
    h = 2 * c + cs
    half = S.half
    if half[h].state == L.S_CLOSED:
        return
    conn[c].fin_queued = 1
    outline(_relays_or_close, (S, 1, h, t))  # once per connection: compiled once, not in every inlined copy


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _complete(S, r, m, t):
    """Message ``m`` of half ``r`` has wholly reached the application: record it, release its dependents."""
    msg = S.msg
    msg[m].done = t
    S.conn[r >> 1].done[(r & 1)] += 1
    dp = S.dep_ptr
    for j in range(dp[m], dp[m + 1]):
        k = S.dep_msg[j]
        push(S, max(t + msg[k].delay, msg[k].start), L.EV_WRITE, k)
    cp = S.cdep_ptr
    for j in range(cp[m], cp[m + 1]):
        k = S.cdep_conn[j]
        push(S, max(t, S.conn_id[k].open_t), L.EV_OPEN, k)  # k: the scenario's connection number


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _deliver_streams(S, r, t):
    """Multistream delivery: complete every message whose bytes have all arrived and whose predecessor
    on the same stream is complete (any predecessor on an unordered connection, ``multistream`` 2: SCTP's U
    bit, RFC 4960 sec. 6.6). Return True if any completed."""
    half = S.half
    msg = S.msg
    ordered = S.conn[r >> 1].multistream == 1
    completed = False
    prev = -1
    m = half[r].msg_head
    while m >= 0:
        nxt = msg[m].next
        blocked = False
        q = half[r].msg_head if ordered else m
        while q != m:
            if msg[q].stream == msg[m].stream:
                blocked = True
                break
            q = msg[q].next
        if not blocked and ooo_holds(S, r, msg[m].begin, msg[m].end):
            _complete(S, r, m, t)
            completed = True
            if prev < 0:
                half[r].msg_head = nxt
            else:
                msg[prev].next = nxt
            if nxt < 0:
                half[r].msg_tail = prev
        else:
            prev = m
        m = nxt
    return completed


@njit(cache=True, inline="always")
def deliver(S, r, t):
    """Complete the messages of half ``r`` now delivered (in order up to ``rcv_nxt``, or per stream on a
    multistream connection, from the out-of-order blocks too); feed relays; release what waits on them.
    A transport calls it when its receiver of half ``r`` has new data."""
    half = S.half
    msg = S.msg
    conn = S.conn
    rn = half[r].rcv_nxt
    c = r >> 1
    if S.st[0].has_relays > 0:  # the scenario has relaying messages
        outline(_relays_or_close, (S, 0, r, t))
    if conn[c].multistream >= 1:
        completed = _deliver_streams(S, r, t)
    else:
        m = half[r].msg_head
        completed = False
        while m >= 0 and msg[m].end <= rn:
            _complete(S, r, m, t)
            completed = True
            m = msg[m].next
        half[r].msg_head = m
        if m < 0:
            half[r].msg_tail = -1
    if completed:
        maybe_close(S, c, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _update_available(S, h):
    """Set half ``h``'s available-data end: up to the first written message not wholly available.

    The scan starts at ``avail_m``, not at the oldest message: the messages before it are wholly
    available already (availability only grows, and only complete, hence available, messages leave the
    list), so a proxy's long queue of replies on one connection is not rescanned at every write."""
    half = S.half
    msg = S.msg
    end = half[h].stream_end
    m = half[h].avail_m
    while m >= 0:
        if msg[m].begin + msg[m].avail < msg[m].end:
            end = msg[m].begin + msg[m].avail
            break
        m = msg[m].next
    half[h].avail_m = m
    half[h].write_end = end


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _relay_progress(S, k):
    """Return how many bytes of message ``k`` have reached its receiving application in order."""
    msg = S.msg
    if msg[k].end == 0:  # not written yet
        return 0
    cid = msg[k].conn
    s = S.conn_id[cid].slot
    if s >= 0:
        rn = S.half[2 * s + msg[k].dir].rcv_nxt
    elif s == -2:  # closed and given back: its final count
        rn = S.half_out[2 * cid + msg[k].dir].rcv_nxt
    else:
        rn = 0
    return max(0, min(rn, msg[k].end) - msg[k].begin)


@njit(cache=True, inline="always")
def _feed_relays(S, r, t):
    """At the receiving host of half ``r``: pass the bytes now delivered in order on to relaying messages."""
    half = S.half
    msg = S.msg
    rn = half[r].rcv_nxt
    m = half[r].msg_head
    while m >= 0 and msg[m].begin < rn:
        j = msg[m].relay_to
        if j >= 0 and msg[j].end > 0:
            prog = min(rn, msg[m].end) - msg[m].begin
            sj = S.conn_id[msg[j].conn].slot  # written, wholly available only once it is closed: it has a slot
            if prog > msg[j].avail and sj >= 0:
                msg[j].avail = prog
                hj = 2 * sj + msg[j].dir
                _update_available(S, hj)
                T.send_available(S, hj, t)
        m = msg[m].next


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _relays_or_close(S, close, h, t):
    """The application's two rare paths that send: ``close`` 1, close half ``h`` (``kernel.transport.close_half``,
    once per connection); 0, feed the relays from receiver half ``h`` (``_feed_relays``). One function, not
    two: each out-of-line function's library links and compiles again the transports' send paths it calls
    (``try_send``, ``sctp_send`` with the link behind them), so two libraries compiled them twice."""
    if close == 1:
        T.close_half(S, h, t)
    else:
        _feed_relays(S, h, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _pick_conn(S, k, d):
    """Return the connection of pool ``k`` that its rule picks for a message in direction ``d`` now."""
    po = S.pool
    pc = S.pool_conn
    p0 = po[k].p0
    p1 = po[k].p1
    if po[k].rule == 1:  # round robin
        j = po[k].next
        po[k].next = j + 1 if j + 1 < p1 - p0 else 0
        return pc[p0 + j]
    half = S.half
    best = pc[p0]
    best_out = -1
    ci = S.conn_id
    for j in range(p0, p1):  # fewest bytes written but not yet acknowledged (data only: from seq 1)
        s = ci[pc[j]].slot  # pooled connections keep their slot; none yet: nothing written, none outstanding
        out = 0
        if s >= 0:
            h = 2 * s + d
            out = max(0, half[h].stream_end - max(half[h].snd_una, 1))
        if best_out < 0 or out < best_out:
            best = pc[j]
            best_out = out
    return best


@njit(cache=True, inline="always")
def write(S, m, t):
    """The application writes message ``m`` (``EV_WRITE``): on its connection, or the one its pool picks."""
    half = S.half
    msg = S.msg
    if msg[m].pool >= 0:
        msg[m].conn = _pick_conn(S, msg[m].pool, msg[m].dir)
    cid = msg[m].conn
    c = slot_of(S, cid)
    if c < 0:  # closed, its slot given back (its FIN was queued: nothing more is written on it)
        return
    h = 2 * c + msg[m].dir
    if half[h].fin_seq >= 0:
        return
    S.msg[m].write = t
    size = msg[m].size
    begin = half[h].stream_end
    end = L.BIG_SEQ if size < 0 else begin + size
    msg[m].begin = begin
    msg[m].end = end
    if S.conn[h >> 1].proto == L.PROTO_SCTP:  # its SSN: messages written before it on its stream (sec. 6.5)
        hid = 2 * cid + msg[m].dir  # ssn_next: one row per half of the scenario
        msg[m].ssn = S.ssn_next[hid, msg[m].stream]
        S.ssn_next[hid, msg[m].stream] += 1
    half[h].stream_end = end
    k = msg[m].relay_of
    msg[m].avail = end - begin if k < 0 else _relay_progress(S, k)
    msg[m].next = -1
    tail = half[h].msg_tail
    if tail >= 0:
        msg[tail].next = m
    else:
        half[h].msg_head = m
    half[h].msg_tail = m
    if half[h].avail_m < 0:  # every earlier message is wholly available: the scan starts at this one
        half[h].avail_m = m
    _update_available(S, h)
    S.conn[h >> 1].written[(h & 1)] += 1
    maybe_close(S, h >> 1, t)  # an application that writes and closes at once: the FIN rides on the data
    T.send_available(S, h, t)
