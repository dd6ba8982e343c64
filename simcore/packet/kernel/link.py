"""Numba helpers of the packet kernel: the packet pool, per-link loss streams, traces and
the drop-tail link with optional fluid background.

A link is a FIFO server of rate C (bytes/s) followed by a propagation delay. Because service is FIFO,
a packet's departure time is known when it is queued, so each packet costs one event per hop (its
arrival at the far end). Without fluid, departure = max(now, free_at) + size / C.

A fluid background B(t) (piecewise constant) is modelled in one of two ways:

- "packets" (default): the fluid enters the buffer in chunks of ``packet_bytes`` every
  ``packet_bytes / B`` seconds, each admitted or dropped by the same drop-tail rule as packets and
  served in FIFO order; chunks are processed lazily when a packet next arrives (no events).
- "continuous": the link tracks its unfinished work W (bytes, packets + fluid); between packet
  arrivals dW/dt = B - C while W > 0, W is capped at the buffer size (fluid beyond it is dropped), the
  fluid counts as W / packet_bytes packets against the packet limit, and a packet queued at t departs
  at t + (W + size) / C. When fluid fills the buffer, packets and fluid are dropped alike with
  p = 1 - C / (B + A), A being the packets' arrival rate (exponential average over 0.1 s): a packet is
  admitted with probability 1 - p (drawn from the link's loss stream) even above the limit, and the
  fluid then fills only what the admitted packets leave, i.e. about B (1 - p).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._numba.outline import one_signature, outline
from .lane import lane_push, push
from .layout import (
    EV_ARRIVE,
    F_CBR,
    F_CE,
    F_RETX,
    OVF_PKTTR,
    OVF_POOL,
    OVF_QTR,
    OVF_RING,
    OVF_ROWS,
    OVF_SOJTR,
    ROWS_SEG,
    SACK_BLOCKS,
    TR_DROP_LOSS,
    TR_DROP_QUEUE,
    TR_SEND,
    TRP_DUP,
    TRP_NDUP,
    TRP_SACK,
)
from .qdisc import dispatch as Q  # a module (late bound): the disciplines use this module's pool, traces and loss

_RATE_TAU_S = 0.1  # time constant of the packet arrival-rate estimate on continuous-fluid links
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def uniform(rng, i):
    """Return the next U(0,1) draw of stream ``i`` (splitmix64 on the uint64 state ``rng[i]``)."""
    s = rng[i] + _GOLDEN
    rng[i] = s
    z = (s ^ (s >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def alloc(S):
    """Return a free packet slot (its int fields cleared), or -1 with the pool-full flag set: the slot released
    last if any (``S.pkt_free[:st.free_n]``), else the lowest never used (``st.pkt_hw``). The free list holds
    only released slots, so the pool's rows and list are written up to the most packets alive at once, not
    filled at the build (46 MB at chapter 2's highest load, whose pool is sized by a bound of 5.7 M packets);
    the slots come in the same order as from a list holding every slot, lowest on top."""
    st = S.st[0]
    n = st.free_n
    if n > 0:
        n -= 1
        st.free_n = n
        p = S.pkt_free[n]
    else:
        p = st.pkt_hw
        if p == S.pkt.shape[0]:
            st.flags |= OVF_POOL
            return -1
        st.pkt_hw = p + 1
    r = S.pkt[p]
    r.conn = 0
    r.dir = 0
    r.seq = 0
    r.seqlen = 0
    r.payload = 0
    r.flags = 0
    r.ack = 0
    r.path = 0
    r.hop = 0
    r.ipbytes = 0
    r.uid = 0
    r.ndup = 0  # SCTP's duplicate-TSN report, traced for every packet
    for b in range(2 * SACK_BLOCKS):
        r.sack[b] = 0
    return p


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def take_row(S, table):
    """Return a free row of a per-half table (``ROWS_SEG``: ``S.seg``, free list ``S.seg_free[:st.seg_free]``;
    ``ROWS_OOO``: ``S.ooo``); if none is free, flag the run for a redo with one row per half and return
    row 0 (the aborted run is discarded). ``st.seg_hw`` / ``st.ooo_hw`` stay above every row ever taken (the
    lowest free row is taken first): a batch resets only the rows below them (``kernel.batch``)."""
    st = S.st[0]
    n = st.seg_free if table == ROWS_SEG else st.ooo_free
    if n == 0:
        st.flags |= OVF_ROWS
        return 0
    if table == ROWS_SEG:
        st.seg_free = n - 1
        row = S.seg_free[n - 1]
        if row >= st.seg_hw:
            st.seg_hw = row + 1
        return row
    st.ooo_free = n - 1
    row = S.ooo_free[n - 1]
    if row >= st.ooo_hw:
        st.ooo_hw = row + 1
    return row


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def give_row(S, table, row):
    """Return ``row`` to its table's free list (``table``: ``ROWS_SEG`` or ``ROWS_OOO``)."""
    st = S.st[0]
    if table == ROWS_SEG:
        S.seg_free[st.seg_free] = row
        st.seg_free += 1
    else:
        S.ooo_free[st.ooo_free] = row
        st.ooo_free += 1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def release(S, p):
    """Return packet slot ``p`` to the pool (a connection's packet leaves its count in flight)."""
    st = S.st[0]
    if st.recycle == 1 and not S.pkt[p].flags & F_CBR:
        S.conn[S.pkt[p].conn].n_pkts -= 1
    S.pkt_free[st.free_n] = p
    st.free_n += 1


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def trace_pkt(S, t, kind, p, link):
    """Append one packet event (t, kind, uid, conn, dir, seq, seqlen, ack, flags, link, 3 SACK blocks) to the
    trace."""
    st = S.st[0]
    trp = S.tr_pkt
    pkt = S.pkt
    n = st.n_pkttr
    if n >= trp.shape[0]:  # keep counting so that the rerun can size the trace exactly
        st.flags |= OVF_PKTTR
        st.n_pkttr = n + 1
        return
    trp[n, 0] = t
    trp[n, 1] = kind
    trp[n, 2] = pkt[p].uid
    trp[n, 3] = pkt[p].conn if pkt[p].flags & F_CBR else S.conn[pkt[p].conn].cid  # the scenario's numbers
    trp[n, 4] = pkt[p].dir
    trp[n, 5] = pkt[p].seq
    trp[n, 6] = pkt[p].seqlen
    trp[n, 7] = pkt[p].ack
    trp[n, 8] = pkt[p].flags
    trp[n, 9] = link
    for b in range(2 * SACK_BLOCKS):
        trp[n, TRP_SACK + b] = pkt[p].sack[b]
    trp[n, TRP_NDUP] = pkt[p].ndup
    trp[n, TRP_DUP] = pkt[p].dup
    st.n_pkttr = n + 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def trace_queue(S, t, link):
    """Append one queue sample (t, link, packets, bytes) to the trace."""
    npk, nbytes = link_occupancy(S, link)
    st = S.st[0]
    trq = S.tr_queue
    n = st.n_qtr
    if n >= trq.shape[0]:
        st.flags |= OVF_QTR
        st.n_qtr = n + 1
        return
    trq[n, 0] = t
    trq[n, 1] = link
    trq[n, 2] = npk
    trq[n, 3] = nbytes
    st.n_qtr = n + 1


@njit(cache=True, inline="always")
def _stamp(S, p, path, t):
    """Number, stamp and trace packet ``p`` leaving on route ``path``; return its first link."""
    st = S.st[0]
    r = S.pkt[p]
    r.path = path
    r.hop = 0
    r.uid = st.uid
    st.uid += 1
    st.created += 1
    r.t_sent = t
    if st.recycle == 1 and not r.flags & F_CBR:  # packets in flight: only a slot given back needs them
        S.conn[r.conn].n_pkts += 1
    lnk = S.path_links[S.path_ptr[path]]
    if st.trace == 1:
        outline(trace_pkt, (S, t, TR_SEND, p, lnk))
    return lnk


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def route(S, h):
    """Return the route of the kernel's half ``h`` (slot ``h >> 1``; ``S.path_ptr`` / ``S.path_links``)."""
    return S.conn[h >> 1].rt[h & 1]


@njit(cache=True, inline="always")
def inject(S, p, path, t):
    """Send packet ``p`` (its header fields set by its transport) from the first link of route ``path``
    (``S.path_ptr``/``S.path_links``) at time ``t``: number it, stamp it, trace it, enqueue it. The link
    is inlined here: use it on the per-packet hot path only (TCP's data and ACKs, CBR)."""
    link_enqueue(S, _stamp(S, p, path, t), p, t)


@njit(cache=True, inline="always")
def inject_call(S, p, path, t):
    """``inject`` with the link entered through a real call (``_numba.outline``): one copy of the link per
    module however many places send packets this way."""
    outline(link_enqueue, (S, _stamp(S, p, path, t), p, t))


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def link_drain(S, lnk, t):
    """Forget the packets of link ``lnk`` whose transmission has ended by time ``t``."""
    link = S.link
    ring = S.ring
    cap = link[lnk].ring_cap
    base = link[lnk].ring_base
    head = link[lnk].ring_head
    n = link[lnk].ring_n
    if n > 0 and link[lnk].free_at <= t and link[lnk].has_fluid != 1:
        # the last queued item has left (departures never go back without continuous fluid): all of them have,
        # and the ring is not read (at chapter 2's scale, a cache miss per enqueue on a server's link)
        head += n
        if head >= cap:
            head -= cap
        n = 0
    while n > 0 and ring[base + head].dep <= t:
        link[lnk].qbytes -= ring[base + head].nbytes
        head += 1
        if head == cap:
            head = 0
        n -= 1
    link[lnk].ring_head = head
    link[lnk].ring_n = n
    if n == 0:
        link[lnk].qbytes = 0.0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fluid_advance(S, lnk, t):
    """Advance the unfinished work W of fluid link ``lnk`` to time ``t`` through the rate pieces."""
    link = S.link
    fluid = S.fluid
    w = link[lnk].w
    tl = link[lnk].t_last
    c = link[lnk].rate_Bps
    bmax = link[lnk].bmax
    p = link[lnk].flu_ptr
    p1 = link[lnk].flu_p1
    while tl < t:
        tend = t
        if p + 1 < p1 and fluid[p + 1].t < t:
            tend = fluid[p + 1].t
        dt = tend - tl
        b = fluid[p].rate
        link[lnk].flu_in += b * dt
        w += (b - c) * dt
        if w < 0.0:
            w = 0.0
        elif w > bmax:
            link[lnk].flu_drop += w - bmax
            w = bmax
        tl = tend
        if p + 1 < p1 and fluid[p + 1].t <= tl:
            p += 1
    link[lnk].w = w
    link[lnk].t_last = tl
    link[lnk].flu_ptr = p


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ring_append(S, lnk, n, qb, dep, size):
    """Queue ``size`` bytes departing at ``dep`` (s) at the tail of link ``lnk``'s ring, which held ``n``
    items and ``qb`` bytes, and keep the transmitter busy until ``dep``. Returns nothing."""
    link = S.link
    ring = S.ring
    link[lnk].free_at = dep
    slot = link[lnk].ring_head + n
    if slot >= link[lnk].ring_cap:
        slot -= link[lnk].ring_cap
    slot += link[lnk].ring_base
    ring[slot].dep = dep
    ring[slot].nbytes = size
    link[lnk].ring_n = n + 1
    link[lnk].qbytes = qb + size


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fluid_chunks(S, lnk, t):
    """Admit the fluid chunks of link ``lnk`` due by time ``t`` into its buffer (drop-tail, like packets).

    Each chunk is ``packet_bytes`` of background arriving at the current fluid rate; it occupies the
    buffer and the transmitter like a packet but is never an event and never leaves the link."""
    link = S.link
    fluid = S.fluid
    nxt = link[lnk].flu_next
    if nxt > t:
        return
    size = link[lnk].flu_pkt
    rate = link[lnk].rate_Bps
    p = link[lnk].flu_ptr
    p1 = link[lnk].flu_p1
    qlim_b = link[lnk].qlim_bytes
    while nxt <= t:
        while p + 1 < p1 and fluid[p + 1].t <= nxt:
            p += 1
        b = fluid[p].rate
        if b <= 0.0:
            nxt = fluid[p + 1].t if p + 1 < p1 else np.inf
            continue
        link_drain(S, lnk, nxt)
        n = link[lnk].ring_n
        qb = link[lnk].qbytes
        link[lnk].flu_in += size
        if n + 1 > link[lnk].qlim or (qlim_b > 0 and qb + size > qlim_b):
            link[lnk].flu_drop += size
        else:
            start = link[lnk].free_at
            if start < nxt:
                start = nxt
            ring_append(S, lnk, n, qb, start + size / rate, size)
        nxt += size / b
    link[lnk].flu_ptr = p
    link[lnk].flu_next = nxt


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def link_occupancy(S, lnk):
    """Return (packets, bytes) in link ``lnk``'s buffer after the last drain (fluid backlog included)."""
    link = S.link
    if link[lnk].has_fluid == 1:
        return link[lnk].ring_n, max(link[lnk].w, link[lnk].qbytes)
    return link[lnk].ring_n, link[lnk].qbytes


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def loss_strikes(S, lnk, offered, p):
    """Return True if packet ``p``, the ``offered``-th packet offered to link ``lnk``, is lost: named in its
    drop_sequence, or drawn lost from its stream (drawn only when not named, and not for a retransmission of a
    transport the link spares: ``spare_retx``, which takes no draw, as if it went another way)."""
    link = S.link
    dp = link[lnk].drop_ptr
    if dp < link[lnk].drop_p1 and S.drops[dp] == offered:
        link[lnk].drop_ptr = dp + 1
        return True
    loss = link[lnk].loss
    if loss <= 0.0:
        return False
    spare = link[lnk].spare_retx
    if spare != 0 and S.pkt[p].flags & F_RETX and (spare >> S.conn[S.pkt[p].conn].proto) & 1:
        return False
    return uniform(S.rng, lnk) < loss


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def drop_lost(S, p, lnk, t):
    S.link[lnk].n_drop_l += 1
    st = S.st[0]
    st.drop_l += 1
    if st.trace == 1:
        trace_pkt(S, t, TR_DROP_LOSS, p, lnk)
    release(S, p)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def queue_sample(S, lnk, t, tracing):
    """Count one occupancy sample of link ``lnk`` into its buffer statistics (``q_n``, ``q_sum``,
    ``q_peak``) and, when tracing, into the queue trace (an outlined call: off the per-packet path)."""
    link = S.link
    npk, nb = link_occupancy(S, lnk)
    link[lnk].q_n += 1
    link[lnk].q_sum += nb
    if nb > link[lnk].q_peak:
        link[lnk].q_peak = nb
    if tracing:
        outline(trace_queue, (S, t, lnk))


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def trace_sojourn(S, t, link, p, wait):
    """Append one sojourn record (t: the start of its transmission, link, uid, wait: the time it waited in the
    buffer (s), 1 if the link marked it CE) to the sojourn trace."""
    st = S.st[0]
    tr = S.tr_soj
    n = st.n_sojtr
    if n >= tr.shape[0]:
        st.flags |= OVF_SOJTR
        st.n_sojtr = n + 1
        return
    tr[n, 0] = t
    tr[n, 1] = link
    tr[n, 2] = S.pkt[p].uid
    tr[n, 3] = wait
    tr[n, 4] = 1.0 if S.pkt[p].flags & F_CE else 0.0
    st.n_sojtr = n + 1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def count_sojourn(S, lnk, p, start, wait, tracing):
    """Count the ``wait`` (s) packet ``p`` spent in link ``lnk``'s buffer before its transmission began at
    ``start`` into the link's sojourn statistics and, when tracing, the sojourn trace."""
    link = S.link
    link[lnk].soj_n += 1
    link[lnk].soj_sum += wait
    if wait > link[lnk].soj_max:
        link[lnk].soj_max = wait
    if tracing:
        outline(trace_sojourn, (S, start, lnk, p, wait))


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def offer(S, lnk, p, t):
    """Count packet ``p`` offered to link ``lnk`` at ``t`` and return ``(its number, lost)``: ``lost`` when a loss
    that strikes on arrival took it (counted, traced and released here)."""
    link = S.link
    offered = link[lnk].n_offered
    link[lnk].n_offered = offered + 1
    if link[lnk].loss_arrival == 1 and loss_strikes(S, lnk, offered, p):
        outline(drop_lost, (S, p, lnk, t))
        return offered, True
    return offered, False


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def link_enqueue(S, lnk, p, t):
    """Offer packet ``p`` to link ``lnk`` at time ``t``: drop it (queue full or random loss) or schedule
    its arrival at the far end. Returns 1 if the packet was accepted and not lost, else 0. A random
    loss strikes on arrival (traced at ``t``) or after transmission (traced at its departure).

    This is the drop-tail queue; a link with another queue discipline (``LinkParams.queue``) is handed to it
    (``kernel.qdisc.dispatch.enqueue``, through a call: its code is not copied into every sender)."""
    link = S.link
    if link[lnk].qdisc != 0:
        return outline(Q.enqueue, (S, lnk, p, t))
    st = S.st[0]
    offered, lost = offer(S, lnk, p, t)
    if lost:
        return 0
    if link[lnk].has_fluid == 2:
        outline(fluid_chunks, (S, lnk, t))
    link_drain(S, lnk, t)
    cont = link[lnk].has_fluid == 1
    if cont:
        outline(fluid_advance, (S, lnk, t))
    size = S.pkt[p].ipbytes + link[lnk].hdr
    n = link[lnk].ring_n
    qb = link[lnk].qbytes
    tracing = st.trace == 1
    queue_sample(S, lnk, t, tracing)
    full = False
    if cont:
        w = link[lnk].w
        fb = w - qb
        if fb < 0.0:
            fb = 0.0
        a_rate = link[lnk].pkt_rate * math.exp(-(t - link[lnk].pkt_t) / _RATE_TAU_S) + size / _RATE_TAU_S
        link[lnk].pkt_rate = a_rate
        link[lnk].pkt_t = t
        if n + 1 + fb / link[lnk].flu_pkt > link[lnk].qlim + 1e-9:
            full = True
        if link[lnk].qlim_bytes > 0 and w + size > link[lnk].qlim_bytes:
            full = True
        if full and fb > 0.0 and n + 1 <= link[lnk].qlim:
            # buffer full of fluid: drop packets and fluid alike with p = 1 - C / (B + A)
            b_rate = S.fluid[link[lnk].flu_ptr].rate
            p_drop = 1.0 - link[lnk].rate_Bps / (b_rate + a_rate)
            if p_drop < 0.0 or uniform(S.rng, lnk) >= p_drop:
                full = False
    else:
        if n + 1 > link[lnk].qlim:
            full = True
        if link[lnk].qlim_bytes > 0 and qb + size > link[lnk].qlim_bytes:
            full = True
    if not full and n >= link[lnk].ring_cap:  # the ring was sized by a traffic bound that did not hold
        st.flags |= OVF_RING
        release(S, p)
        return 0
    if full:
        drop_queue(S, lnk, p, t, tracing)
        return 0
    return fifo_depart(S, lnk, p, t, n, qb, size, cont, offered, tracing)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def drop_queue(S, lnk, p, t, tracing):
    """The buffer of link ``lnk`` drops packet ``p`` at ``t`` (full, or its queue discipline's decision): count,
    trace, release."""
    S.link[lnk].n_drop_q += 1
    S.st[0].drop_q += 1
    if tracing:
        outline(trace_pkt, (S, t, TR_DROP_QUEUE, p, lnk))
    release(S, p)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fifo_depart(S, lnk, p, t, n, qb, size, cont, offered, tracing):
    """Queue packet ``p`` (``size`` bytes on the wire), admitted at ``t``, behind the ``n`` items (``qb`` bytes) in
    the buffer of FIFO link ``lnk``, whose departure times are known when they are queued (drop-tail, RED): its
    transmission starts when the link is free (``cont``: after the unfinished work of a continuous fluid
    background); schedule its arrival at the far end, or its loss after transmission. Returns 1 if it will
    arrive, else 0."""
    link = S.link
    rate = link[lnk].rate_Bps
    if cont:
        w = link[lnk].w + size
        link[lnk].w = w
        dep = t + w / rate
        start = dep - size / rate
    else:
        start = link[lnk].free_at
        if start < t:
            start = t
        dep = start + size / rate
    ring_append(S, lnk, n, qb, dep, float(size))
    link[lnk].n_tx += 1
    link[lnk].bytes_tx += size
    queue_sample(S, lnk, t, tracing)
    count_sojourn(S, lnk, p, start, start - t, tracing)
    if link[lnk].loss_arrival != 1 and loss_strikes(S, lnk, offered, p):
        outline(drop_lost, (S, p, lnk, dep))
        return 0
    q = link[lnk].lane
    if q >= 0:
        lane_push(S, q, dep + link[lnk].prop_s, EV_ARRIVE, p)
    else:
        push(S, dep + link[lnk].prop_s, EV_ARRIVE, p)
    return 1


__all__ = [
    "push",
    "take_row",
    "give_row",
    "uniform",
    "alloc",
    "release",
    "trace_pkt",
    "trace_queue",
    "link_drain",
    "fluid_advance",
    "fluid_chunks",
    "link_occupancy",
    "link_enqueue",
    "fifo_depart",
    "drop_queue",
    "offer",
    "loss_strikes",
    "drop_lost",
    "count_sojourn",
    "queue_sample",
    "trace_sojourn",
    "inject",
    "inject_call",
    "route",
]
