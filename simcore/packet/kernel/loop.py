"""The packet simulator's event loop (numba): packet hops and arrivals, transport timers, application
writes and opens, CBR sources.

``run(S)`` consumes the events of the state ``S`` (a ``kernel.layout.State``): those known before the run from a
sorted array, the others from the heap, in (time, number) order, until none is left or the end time
``S.st[0].t_end`` is passed, and returns the number of events processed. All state lives in the arrays of
``S`` (built by ``simulate.py``); the caller reads the results from them afterwards. Events of
a transport go through ``kernel.transport``, which dispatches on the connection's protocol.
"""

from __future__ import annotations

from numba import njit

from simcore.engine import heap_pop

from .._numba.outline import outline
from .._numba.prefetch import prefetch, prefetch2, prefetch5
from .._numba.stateref import by_ref
from . import layout as L
from .app import write
from .batch import next_run
from .lane import lane_first, lane_pop, lane_skip_none
from .link import alloc, fluid_advance, fluid_chunks, inject, link_enqueue, push, release, trace_pkt
from .qdisc.queue import tx_done
from .slot import maybe_free, slot_of
from .transport import on_arrival, on_delack, on_open, on_pace, on_timer


@njit(cache=True, inline="always")
def _cbr_emit(S, k, t):
    """``EV_CBR``: source ``k`` sends one packet at its current rate and schedules the next."""
    cbr = S.cbr
    sched = S.cbr_sched
    p1 = cbr[k].p1
    ptr = cbr[k].ptr
    while ptr + 1 < p1 and sched[ptr + 1].t <= t:
        ptr += 1
    cbr[k].ptr = ptr
    rate = sched[ptr].rate
    if rate > 0.0:
        p = alloc(S)
        if p >= 0:
            pkt = S.pkt
            pkt[p].conn = k
            pkt[p].flags = L.F_CBR
            pkt[p].seq = cbr[k].sent
            pkt[p].ipbytes = cbr[k].size
            cbr[k].sent += 1
            inject(S, p, cbr[k].path, t)
        tn = t + cbr[k].size * 8.0 / rate
    elif ptr + 1 < p1:
        tn = sched[ptr + 1].t
    else:
        return
    if tn < cbr[k].stop:
        push(S, tn, L.EV_CBR, k)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _cbr_arrive(S, p, t):
    """A CBR packet reaches its destination: count it and record its one-way delay."""
    st = S.st[0]
    k = S.pkt[p].conn
    S.cbr[k].rcvd += 1
    rec = S.cbr_rec
    n = st.n_cbrrec
    if n >= rec.shape[0]:
        st.flags |= L.OVF_CBR
        st.n_cbrrec = n + 1
        return
    ts = S.pkt[p].t_sent
    rec[n, 0] = k
    rec[n, 1] = ts
    rec[n, 2] = t - ts
    st.n_cbrrec = n + 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _hint_next(S):
    """Prefetch rows the next events will read (``_numba.prefetch``: at chapter 2's scale they were last read a round
    trip ago, thousands of connections earlier): the packet row of the heap's first event if it is an arrival;
    for each link lane, the packet rows of its second and third arrivals and, its first arrival's packet row
    being in the caches since the last event, the rows that arrival reads next: its next link's row, or at the
    last hop its connection's and halves' rows (their hot lines)."""
    pkt = S.pkt
    if S.heap_m[0] > 0 and S.heap_k[0] == L.EV_ARRIVE:
        prefetch2(pkt, S.heap_a[0])
    lq = S.laneq
    lane = S.lane
    cap = lane.shape[1]
    for q in range(L.LANE_LINK0, L.LANE_LINK0 + L.N_LINK_LANES):
        n = lq[q].n
        if n == 0:
            continue
        h = lq[q].head
        for j in range(1, 3):
            if j < n:
                i = h + j
                prefetch2(pkt, lane[q, i if i < cap else i - cap].a)
        p = lane[q, h].a
        path = pkt[p].path
        nxt = S.path_ptr[path] + pkt[p].hop + 1
        if nxt < S.path_ptr[path + 1]:
            prefetch(S.link, S.path_links[nxt])
        elif not pkt[p].flags & L.F_CBR:
            c = pkt[p].conn
            prefetch2(S.conn, c)
            prefetch5(S.half, 2 * c)
            prefetch5(S.half, 2 * c + 1)


@njit(cache=True, _nrt=False, error_model="numpy", no_cfunc_wrapper=True)
def run(state):
    """Run the event loop over the state ``S``; return the number of events processed.

    It stops early, between two events, with ``PAUSE_ROWS`` set when a per-half row table (scoreboards,
    out-of-order blocks) has no free row left: the caller grows the tables and calls ``run`` again,
    which carries on where it stopped (``simulate.run_to_end``)."""
    S = by_ref(state)  # every kernel below gets a pointer to the state, not its ~285 fields (_numba.stateref)
    while True:  # one run, or the runs of a batch one after another (kernel.batch.next_run)
        ht = S.heap_t
        hs = S.heap_s
        hk = S.heap_k
        ha = S.heap_a
        hm = S.heap_m
        st = S.st[0]
        pkt = S.pkt
        path_ptr = S.path_ptr
        path_links = S.path_links
        t_end = st.t_end
        nh = st.n_halves
        slot_rows = S.conn.shape[0]
        n_conn = nh >> 1
        events = 0
        seg_rows = S.seg.shape[0]
        ooo_rows = S.ooo.shape[0]
        kt = S.known_t
        kk = S.known_k
        ka = S.known_a
        n_known = st.n_known
        hint = st.hint == 1
        while True:
            if st.flags & (L.OVF_POOL | L.OVF_HEAP | L.OVF_RING | L.OVF_ROWS):
                break
            # an event takes at most one row of each table: pause for more before none is left
            if ((st.seg_free == 0 and seg_rows < nh) or (st.ooo_free == 0 and ooo_rows < nh)
                    or (st.slot_free == 0 and slot_rows < n_conn)):
                st.flags |= L.PAUSE_ROWS
                break
            # the earliest of the next known event, the heap's first and the timer lanes' first (kernel.lane); a tie
            # goes to the known event, whose number is below every other (the heap's numbering starts at n_known)
            i = st.known_next
            q, td = lane_first(S)  # q = -1: the heap's first is next (td = its time, inf when none is left)
            if i < n_known and kt[i] <= td:
                t = kt[i]
                if t > t_end:
                    break
                k = kk[i]
                a = ka[i]
                st.known_next = i + 1
            else:
                if td > t_end:  # inf: no event left
                    break
                if q >= 0:
                    t = td
                    k, a = lane_pop(S, q)
                    if q == L.LANE_DELACK:  # cancelled timers behind it: counted, skipped without a pass of the loop
                        events += lane_skip_none(S, q, t_end)
                else:
                    t, k, a = heap_pop(ht, hs, hk, ha, hm)
            events += 1
            if hint and k == L.EV_ARRIVE:  # a call LLVM may not inline: where hints are off (small scenarios) the loop
                # stays as small as before them (the reference dumbbell lost ~8 % with _hint_next inlined, hints off).
                # After a timer or an application event the link lanes' first arrivals are those hinted an event ago
                # (only a pop moves them): a fifth of the calls, which found nothing new to fetch
                outline(_hint_next, (S,))
            if k == L.EV_ARRIVE:
                path = pkt[a].path
                hop = pkt[a].hop + 1
                c = -1 if pkt[a].flags & L.F_CBR else pkt[a].conn
                if path_ptr[path] + hop < path_ptr[path + 1]:
                    pkt[a].hop = hop
                    if st.trace == 1:
                        outline(trace_pkt, (S, t, L.TR_FORWARD, a, path_links[path_ptr[path] + hop]))
                    if link_enqueue(S, path_links[path_ptr[path] + hop], a, t) == 0 and c >= 0:
                        maybe_free(S, c)  # dropped: perhaps the connection's last packet
                else:
                    st.delivered += 1
                    if st.trace == 1:
                        outline(trace_pkt, (S, t, L.TR_RECV, a, path_links[path_ptr[path + 1] - 1]))
                    if c < 0:
                        _cbr_arrive(S, a, t)
                        release(S, a)
                    else:
                        on_arrival(S, a, t)
                        release(S, a)
                        maybe_free(S, c)
            elif k == L.EV_RTO:
                on_timer(S, a, t)
                maybe_free(S, (a % nh) >> 1)
            elif k == L.EV_DELACK:
                on_delack(S, a, t)
                maybe_free(S, (a % nh) >> 1)
            elif k == L.EV_WRITE:
                write(S, a, t)
            elif k == L.EV_OPEN:  # a: the scenario's connection number; it takes a slot unless it has one
                c = slot_of(S, a)
                if c >= 0:
                    on_open(S, c, t)
            elif k == L.EV_CBR:
                _cbr_emit(S, a, t)
            elif k == L.EV_DEQUEUE:  # a: a link whose queue discipline decides at dequeue has sent its packet
                outline(tx_done, (S, a, t))
            elif k == L.EV_PACE:  # a: a paced half whose next departure time has come
                on_pace(S, a, t)
                maybe_free(S, a >> 1)
            # else EV_NONE: a cancelled delayed-ACK timer (kernel.delack), skipped without reading its connection's rows
        if st.flags & L.PAUSE_ROWS:
            st.events += events
            return events
        link = S.link
        for lnk in range(link.shape[0]):  # bring the fluid accounting up to the end time
            if link[lnk].has_fluid == 2:
                fluid_chunks(S, lnk, t_end)
            elif link[lnk].has_fluid == 1:
                fluid_advance(S, lnk, t_end)
        st.events += events
        if not next_run(S):
            return events
