"""Numba helpers of the packet kernel: the event push, the packet pool, per-link loss streams, traces and
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

from simcore.engine import heap_insert

from ._layout import (
    EV_ARRIVE,
    L_BMAX,
    L_BYTES_TX,
    L_DROP_P1,
    L_DROP_PTR,
    L_FLU_DROP,
    L_FLU_IN,
    L_FLU_NEXT,
    L_FLU_P1,
    L_FLU_PKT,
    L_FLU_PTR,
    L_FREE_AT,
    L_HAS_FLUID,
    L_HDR,
    L_LOSS,
    L_LOSS_ARRIVAL,
    L_N_DROP_L,
    L_N_DROP_Q,
    L_N_OFFERED,
    L_N_TX,
    L_PKT_RATE,
    L_PKT_T,
    L_PROP,
    L_QBYTES,
    L_QLIM,
    L_QLIM_BYTES,
    L_RATE,
    L_RING_BASE,
    L_RING_CAP,
    L_RING_HEAD,
    L_RING_N,
    L_T_LAST,
    L_W,
    OVF_HEAP,
    OVF_PKTTR,
    OVF_POOL,
    OVF_QTR,
    OVF_RING,
    OVF_ROWS,
    P_ACK,
    P_CONN,
    P_DIR,
    P_FLAGS,
    P_IPBYTES,
    P_SACK,
    P_SEQ,
    P_SEQLEN,
    P_UID,
    ST_DROP_L,
    ST_DROP_Q,
    ST_FLAGS,
    ST_FREE_N,
    ST_N_PKTTR,
    ST_N_QTR,
    ST_TRACE,
    TR_DROP_LOSS,
    TR_DROP_QUEUE,
    TRP_SACK,
)

_RATE_TAU_S = 0.1  # time constant of the packet arrival-rate estimate on continuous-fluid links
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, _nrt=False, forceinline=True)
def push(ht, hs, hk, ha, hm, st, t, k, a):
    """Push event (t, k, a) into the preallocated heap; set the heap-full flag instead of growing."""
    if hm[0] >= ht.shape[0]:
        st[ST_FLAGS] |= OVF_HEAP
        return
    heap_insert(ht, hs, hk, ha, hm, t, k, a)


@njit(cache=True, _nrt=False)
def uniform(rng, i):
    """Return the next U(0,1) draw of stream ``i`` (splitmix64 on the uint64 state ``rng[i]``)."""
    s = rng[i] + _GOLDEN
    rng[i] = s
    z = (s ^ (s >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return float(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True, _nrt=False, forceinline=True)
def alloc(pi, free, st):
    """Return a free packet slot (its int row cleared), or -1 with the pool-full flag set."""
    n = st[ST_FREE_N]
    if n == 0:
        st[ST_FLAGS] |= OVF_POOL
        return -1
    n -= 1
    st[ST_FREE_N] = n
    p = free[n]
    pi[p, :] = 0
    return p


@njit(cache=True, _nrt=False)
def take_row(free, st, counter):
    """Return a free row of a per-half table whose free list is ``free[:st[counter]]``; if none is free,
    flag the run for a redo with one row per half and return row 0 (the aborted run is discarded)."""
    n = st[counter]
    if n == 0:
        st[ST_FLAGS] |= OVF_ROWS
        return 0
    st[counter] = n - 1
    return free[n - 1]


@njit(cache=True, _nrt=False)
def give_row(free, st, counter, row):
    """Return ``row`` to its table's free list."""
    free[st[counter]] = row
    st[counter] += 1


@njit(cache=True, _nrt=False, forceinline=True)
def release(free, st, p):
    """Return packet slot ``p`` to the pool."""
    free[st[ST_FREE_N]] = p
    st[ST_FREE_N] += 1


@njit(cache=True, _nrt=False)
def trace_pkt(trp, st, t, kind, pi, p, link):
    """Append one packet event (t, kind, uid, conn, dir, seq, seqlen, ack, flags, link, 3 SACK blocks) to the
    trace."""
    n = st[ST_N_PKTTR]
    if n >= trp.shape[0]:  # keep counting so that the rerun can size the trace exactly
        st[ST_FLAGS] |= OVF_PKTTR
        st[ST_N_PKTTR] = n + 1
        return
    trp[n, 0] = t
    trp[n, 1] = kind
    trp[n, 2] = pi[p, P_UID]
    trp[n, 3] = pi[p, P_CONN]
    trp[n, 4] = pi[p, P_DIR]
    trp[n, 5] = pi[p, P_SEQ]
    trp[n, 6] = pi[p, P_SEQLEN]
    trp[n, 7] = pi[p, P_ACK]
    trp[n, 8] = pi[p, P_FLAGS]
    trp[n, 9] = link
    for b in range(6):
        trp[n, TRP_SACK + b] = pi[p, P_SACK + b]
    st[ST_N_PKTTR] = n + 1


@njit(cache=True, _nrt=False)
def trace_queue(trq, st, t, link, npk, nbytes):
    """Append one queue sample (t, link, packets, bytes) to the trace."""
    n = st[ST_N_QTR]
    if n >= trq.shape[0]:
        st[ST_FLAGS] |= OVF_QTR
        st[ST_N_QTR] = n + 1
        return
    trq[n, 0] = t
    trq[n, 1] = link
    trq[n, 2] = npk
    trq[n, 3] = nbytes
    st[ST_N_QTR] = n + 1


@njit(cache=True, _nrt=False, forceinline=True)
def link_drain(li, lf, rdep, rbytes, lnk, t):
    """Forget the packets of link ``lnk`` whose transmission has ended by time ``t``."""
    cap = li[lnk, L_RING_CAP]
    base = li[lnk, L_RING_BASE]
    head = li[lnk, L_RING_HEAD]
    n = li[lnk, L_RING_N]
    while n > 0 and rdep[base + head] <= t:
        lf[lnk, L_QBYTES] -= rbytes[base + head]
        head += 1
        if head == cap:
            head = 0
        n -= 1
    li[lnk, L_RING_HEAD] = head
    li[lnk, L_RING_N] = n
    if n == 0:
        lf[lnk, L_QBYTES] = 0.0


@njit(cache=True, _nrt=False)
def fluid_advance(li, lf, flu_t, flu_r, lnk, t):
    """Advance the unfinished work W of fluid link ``lnk`` to time ``t`` through the rate pieces."""
    w = lf[lnk, L_W]
    tl = lf[lnk, L_T_LAST]
    c = lf[lnk, L_RATE]
    bmax = lf[lnk, L_BMAX]
    p = li[lnk, L_FLU_PTR]
    p1 = li[lnk, L_FLU_P1]
    while tl < t:
        tend = t
        if p + 1 < p1 and flu_t[p + 1] < t:
            tend = flu_t[p + 1]
        dt = tend - tl
        b = flu_r[p]
        lf[lnk, L_FLU_IN] += b * dt
        w += (b - c) * dt
        if w < 0.0:
            w = 0.0
        elif w > bmax:
            lf[lnk, L_FLU_DROP] += w - bmax
            w = bmax
        tl = tend
        if p + 1 < p1 and flu_t[p + 1] <= tl:
            p += 1
    lf[lnk, L_W] = w
    lf[lnk, L_T_LAST] = tl
    li[lnk, L_FLU_PTR] = p


@njit(cache=True, _nrt=False, forceinline=True)
def ring_append(li, lf, rdep, rbytes, lnk, n, qb, dep, size):
    """Queue ``size`` bytes departing at ``dep`` (s) at the tail of link ``lnk``'s ring, which held ``n``
    items and ``qb`` bytes, and keep the transmitter busy until ``dep``. Returns nothing."""
    lf[lnk, L_FREE_AT] = dep
    slot = li[lnk, L_RING_HEAD] + n
    if slot >= li[lnk, L_RING_CAP]:
        slot -= li[lnk, L_RING_CAP]
    slot += li[lnk, L_RING_BASE]
    rdep[slot] = dep
    rbytes[slot] = size
    li[lnk, L_RING_N] = n + 1
    lf[lnk, L_QBYTES] = qb + size


@njit(cache=True, _nrt=False)
def fluid_chunks(li, lf, rdep, rbytes, flu_t, flu_r, lnk, t):
    """Admit the fluid chunks of link ``lnk`` due by time ``t`` into its buffer (drop-tail, like packets).

    Each chunk is ``packet_bytes`` of background arriving at the current fluid rate; it occupies the
    buffer and the transmitter like a packet but is never an event and never leaves the link."""
    nxt = lf[lnk, L_FLU_NEXT]
    if nxt > t:
        return
    size = lf[lnk, L_FLU_PKT]
    rate = lf[lnk, L_RATE]
    p = li[lnk, L_FLU_PTR]
    p1 = li[lnk, L_FLU_P1]
    qlim_b = li[lnk, L_QLIM_BYTES]
    while nxt <= t:
        while p + 1 < p1 and flu_t[p + 1] <= nxt:
            p += 1
        b = flu_r[p]
        if b <= 0.0:
            nxt = flu_t[p + 1] if p + 1 < p1 else np.inf
            continue
        link_drain(li, lf, rdep, rbytes, lnk, nxt)
        n = li[lnk, L_RING_N]
        qb = lf[lnk, L_QBYTES]
        lf[lnk, L_FLU_IN] += size
        if n + 1 > li[lnk, L_QLIM] or (qlim_b > 0 and qb + size > qlim_b):
            lf[lnk, L_FLU_DROP] += size
        else:
            start = lf[lnk, L_FREE_AT]
            if start < nxt:
                start = nxt
            ring_append(li, lf, rdep, rbytes, lnk, n, qb, start + size / rate, size)
        nxt += size / b
    li[lnk, L_FLU_PTR] = p
    lf[lnk, L_FLU_NEXT] = nxt


@njit(cache=True, _nrt=False)
def link_occupancy(li, lf, lnk):
    """Return (packets, bytes) in link ``lnk``'s buffer after the last drain (fluid backlog included)."""
    if li[lnk, L_HAS_FLUID] == 1:
        return li[lnk, L_RING_N], max(lf[lnk, L_W], lf[lnk, L_QBYTES])
    return li[lnk, L_RING_N], lf[lnk, L_QBYTES]


@njit(cache=True, _nrt=False, forceinline=True)
def _loss_strikes(li, lf, rng, drops, lnk, offered):
    """Return True if the ``offered``-th packet offered to link ``lnk`` is lost: named in its
    drop_sequence, or drawn lost from its stream (drawn only when not named)."""
    dp = li[lnk, L_DROP_PTR]
    if dp < li[lnk, L_DROP_P1] and drops[dp] == offered:
        li[lnk, L_DROP_PTR] = dp + 1
        return True
    loss = lf[lnk, L_LOSS]
    return loss > 0.0 and uniform(rng, lnk) < loss


@njit(cache=True, _nrt=False)
def _drop_lost(li, st, trp, pi, free, p, lnk, t):
    li[lnk, L_N_DROP_L] += 1
    st[ST_DROP_L] += 1
    if st[ST_TRACE] == 1:
        trace_pkt(trp, st, t, TR_DROP_LOSS, pi, p, lnk)
    release(free, st, p)


@njit(cache=True, _nrt=False, forceinline=True)
def link_enqueue(li, lf, rdep, rbytes, rng, flu_t, flu_r, pi, free, st, trp, trq,
                 ht, hs, hk, ha, hm, drops, lnk, p, t):
    """Offer packet ``p`` to link ``lnk`` at time ``t``: drop it (queue full or random loss) or schedule
    its arrival at the far end. Returns 1 if the packet was accepted and not lost, else 0. A random
    loss strikes on arrival (traced at ``t``) or after transmission (traced at its departure)."""
    offered = li[lnk, L_N_OFFERED]
    li[lnk, L_N_OFFERED] = offered + 1
    arrival_loss = li[lnk, L_LOSS_ARRIVAL] == 1
    if arrival_loss and _loss_strikes(li, lf, rng, drops, lnk, offered):
        _drop_lost(li, st, trp, pi, free, p, lnk, t)
        return 0
    if li[lnk, L_HAS_FLUID] == 2:
        fluid_chunks(li, lf, rdep, rbytes, flu_t, flu_r, lnk, t)
    link_drain(li, lf, rdep, rbytes, lnk, t)
    fluid = li[lnk, L_HAS_FLUID] == 1
    if fluid:
        fluid_advance(li, lf, flu_t, flu_r, lnk, t)
    size = pi[p, P_IPBYTES] + li[lnk, L_HDR]
    n = li[lnk, L_RING_N]
    qb = lf[lnk, L_QBYTES]
    tracing = st[ST_TRACE] == 1
    if tracing:
        npk, nb = link_occupancy(li, lf, lnk)
        trace_queue(trq, st, t, lnk, npk, nb)
    full = False
    if fluid:
        w = lf[lnk, L_W]
        fb = w - qb
        if fb < 0.0:
            fb = 0.0
        a_rate = lf[lnk, L_PKT_RATE] * math.exp(-(t - lf[lnk, L_PKT_T]) / _RATE_TAU_S) + size / _RATE_TAU_S
        lf[lnk, L_PKT_RATE] = a_rate
        lf[lnk, L_PKT_T] = t
        if n + 1 + fb / lf[lnk, L_FLU_PKT] > li[lnk, L_QLIM] + 1e-9:
            full = True
        if li[lnk, L_QLIM_BYTES] > 0 and w + size > li[lnk, L_QLIM_BYTES]:
            full = True
        if full and fb > 0.0 and n + 1 <= li[lnk, L_QLIM]:
            # buffer full of fluid: drop packets and fluid alike with p = 1 - C / (B + A)
            b_rate = flu_r[li[lnk, L_FLU_PTR]]
            p_drop = 1.0 - lf[lnk, L_RATE] / (b_rate + a_rate)
            if p_drop < 0.0 or uniform(rng, lnk) >= p_drop:
                full = False
    else:
        if n + 1 > li[lnk, L_QLIM]:
            full = True
        if li[lnk, L_QLIM_BYTES] > 0 and qb + size > li[lnk, L_QLIM_BYTES]:
            full = True
    if not full and n >= li[lnk, L_RING_CAP]:  # the ring was sized by a traffic bound that did not hold
        st[ST_FLAGS] |= OVF_RING
        release(free, st, p)
        return 0
    if full:
        li[lnk, L_N_DROP_Q] += 1
        st[ST_DROP_Q] += 1
        if tracing:
            trace_pkt(trp, st, t, TR_DROP_QUEUE, pi, p, lnk)
        release(free, st, p)
        return 0
    rate = lf[lnk, L_RATE]
    if fluid:
        w = lf[lnk, L_W] + size
        lf[lnk, L_W] = w
        dep = t + w / rate
    else:
        start = lf[lnk, L_FREE_AT]
        if start < t:
            start = t
        dep = start + size / rate
    ring_append(li, lf, rdep, rbytes, lnk, n, qb, dep, size)
    li[lnk, L_N_TX] += 1
    lf[lnk, L_BYTES_TX] += size
    if tracing:
        npk, nb = link_occupancy(li, lf, lnk)
        trace_queue(trq, st, t, lnk, npk, nb)
    if not arrival_loss and _loss_strikes(li, lf, rng, drops, lnk, offered):
        _drop_lost(li, st, trp, pi, free, p, lnk, dep)
        return 0
    push(ht, hs, hk, ha, hm, st, dep + lf[lnk, L_PROP], EV_ARRIVE, p)
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
]
