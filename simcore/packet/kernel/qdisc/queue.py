"""Numba: what the queue disciplines share: their packet queues, their drops and CE marks, and the transmitter of a
link whose discipline decides at dequeue.

**Queues.** A discipline keeps its packets in one or more queues, rows of ``S.fq`` (``FLOWQ``; a link's rows are
``S.qd[i].q0`` on, ``S.qd[i].nq`` of them): a FIFO list through the packets' ``qnext`` fields, with its packets ``n``
and bytes on the wire ``bytes`` (the packets waiting, not the one on the wire). Each packet notes when it entered
(``t_enq``): its sojourn at dequeue is the time since.

**The transmitter** of a link whose discipline decides at dequeue (CoDel, FQ-CoDel): a packet's departure is not
known when it is queued (the discipline may drop packets before it, or send another flow's first), so the link
asks its discipline for the next packet when its transmitter becomes free: at once if it is idle when a packet
arrives, else at an ``EV_DEQUEUE`` event when the packet on the wire has been sent (``tx_done``). That event is
one more per packet and link; drop-tail and RED links have none (their departures are known at enqueue).
The link's ``ring_n`` / ``qbytes`` then count the packets waiting plus the one on the wire, as a drop-tail buffer
counts them (``LinkParams.queue_packets``, the occupancy samples); ``busy`` is 1 while one is on the wire.

**Losses** of a link with a discipline are drawn when the packet arrives, in arrival order, as on a drop-tail
link: on arrival (``loss_where='arrival'``) it never enters the queue; after transmission it is marked
``F_DOOMED`` and lost when its transmission ends (unless the discipline dropped it first).

**Drops and marks** (``aqm_drop``, ``mark``): a drop by the discipline's own rule counts in ``n_drop_q`` and
``n_drop_aqm`` (a full buffer: ``n_drop_q`` only); a packet whose sender is ECN-capable (``F_ECT``) is marked CE
(``n_mark``) instead when the discipline's ``ecn`` is on (RFC 3168 sec. 5; RFC 7567 sec. 4.2.1).
"""

from __future__ import annotations

from numba import njit

from ..._numba.outline import one_signature, outline
from .. import link as K  # a module (late bound): kernel.link calls this folder's dispatch
from ..lane import lane_push, push
from ..layout import EV_ARRIVE, EV_DEQUEUE, F_CBR, F_CE, F_DOOMED, F_ECT
from ..slot import maybe_free
from . import dispatch as Q  # a module (late bound)

# the fields every discipline's row (QDISC) and queue (FLOWQ) has: ecn (1: mark ECT packets CE instead of dropping
# them), q0 / nq (its queues: rows q0 .. q0 + nq - 1 of S.fq); a queue's packet list (head, tail: packet slots,
# -1 none), its packets n and bytes waiting
QDISC_FIELDS = "ecn q0 nq"
FLOWQ_FIELDS = "head tail n bytes:f"


def fill(qd, fq, params) -> None:
    """Set the shared fields of a link's row ``qd`` (a ``QDISC`` record) and queues ``fq`` (``FLOWQ`` records)."""
    qd["ecn"] = int(getattr(params, "ecn", False))
    fq["head"] = -1
    fq["tail"] = -1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def wire_bytes(S, lnk, p):
    """Return the bytes packet ``p`` takes on link ``lnk`` (its IP packet plus the link's header)."""
    return S.pkt[p].ipbytes + S.link[lnk].hdr


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def push_tail(S, q, p, size):
    """Append packet ``p`` (``size`` bytes) to queue ``q``."""
    fq = S.fq
    S.pkt[p].qnext = -1
    if fq[q].n == 0:
        fq[q].head = p
    else:
        S.pkt[fq[q].tail].qnext = p
    fq[q].tail = p
    fq[q].n += 1
    fq[q].bytes += size


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def pop_head(S, lnk, q):
    """Remove and return the first packet of queue ``q`` of link ``lnk`` (-1 if it is empty)."""
    fq = S.fq
    n = fq[q].n
    if n == 0:
        return -1
    p = fq[q].head
    fq[q].head = S.pkt[p].qnext
    fq[q].n = n - 1
    if n == 1:
        fq[q].tail = -1
        fq[q].bytes = 0.0
    else:
        fq[q].bytes -= wire_bytes(S, lnk, p)
    return p


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def can_mark(S, lnk, p):
    """Return True if link ``lnk``'s discipline marks rather than drops packet ``p``: its ``ecn`` is on and the
    packet's sender is ECN-capable (ECT)."""
    return S.qd[S.link[lnk].qd].ecn == 1 and (S.pkt[p].flags & F_ECT) != 0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def mark(S, lnk, p):
    """Mark packet ``p`` Congestion Experienced (the IP header's ECN field becomes CE) on link ``lnk``."""
    S.pkt[p].flags |= F_CE
    S.link[lnk].n_mark += 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def aqm_drop(S, lnk, p, t):
    """The discipline of link ``lnk`` drops packet ``p`` (not yet queued, or removed from its queue) at ``t`` by its
    own rule: counted as a queue drop and as the discipline's, traced, released."""
    S.link[lnk].n_drop_aqm += 1
    K.drop_queue(S, lnk, p, t, S.st[0].trace == 1)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def drop_queued(S, lnk, p, t, by_rule, free_slot):
    """Drop packet ``p``, just removed from a queue of link ``lnk`` (that is not on the wire), at ``t``: by the
    discipline's rule (``by_rule``) or for room. With ``free_slot`` its connection's slot is given back if it can
    be now (``kernel.slot``): drops at dequeue happen between events; a drop for room happens while another
    packet is queued, whose own connection may be running its code (``fq_codel`` passes False for it)."""
    link = S.link
    link[lnk].ring_n -= 1
    link[lnk].qbytes -= wire_bytes(S, lnk, p)
    if link[lnk].ring_n == 0:
        link[lnk].qbytes = 0.0
    c = -1 if S.pkt[p].flags & F_CBR else S.pkt[p].conn
    if by_rule:
        aqm_drop(S, lnk, p, t)
    else:
        K.drop_queue(S, lnk, p, t, S.st[0].trace == 1)
    if c >= 0 and free_slot:
        maybe_free(S, c)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def arrive(S, lnk, p, t):
    """Packet ``p`` reaches link ``lnk`` (a discipline that queues it): count it offered, draw its loss (on arrival:
    lost now, False returned; after transmission: marked ``F_DOOMED``), take the occupancy sample before it.
    Returns True if the discipline is to queue it (or drop it)."""
    offered, lost = K.offer(S, lnk, p, t)
    if lost:
        return False
    if S.link[lnk].loss_arrival != 1 and K.loss_strikes(S, lnk, offered, p):
        S.pkt[p].flags |= F_DOOMED
    K.queue_sample(S, lnk, t, S.st[0].trace == 1)
    return True


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def queued(S, lnk, p, t, size):
    """Packet ``p`` (``size`` bytes) has joined a queue of link ``lnk`` at ``t``: count it in the buffer, note its
    time, take the occupancy sample after it."""
    link = S.link
    S.pkt[p].t_enq = t
    link[lnk].ring_n += 1
    link[lnk].qbytes += size
    K.queue_sample(S, lnk, t, S.st[0].trace == 1)


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def start_next(S, lnk, t, arriving):
    """The transmitter of link ``lnk`` is free at ``t``: take the packet its discipline sends next (its drops at
    dequeue happen there) and start sending it, or leave the link idle if none waits. Returns 0 if that packet is
    ``arriving`` (a packet being queued now) and is lost after its transmission (released here), else 1."""
    p = Q.dequeue(S, lnk, t)
    if p < 0:
        return 1
    link = S.link
    size = wire_bytes(S, lnk, p)
    dep = t + size / link[lnk].rate_Bps
    link[lnk].busy = 1
    link[lnk].free_at = dep
    link[lnk].tx_bytes = size
    link[lnk].n_tx += 1
    link[lnk].bytes_tx += size
    K.count_sojourn(S, lnk, p, t, t - S.pkt[p].t_enq, S.st[0].trace == 1)
    push(S, dep, EV_DEQUEUE, lnk)
    if S.pkt[p].flags & F_DOOMED:
        S.pkt[p].flags &= ~F_DOOMED
        c = -1 if S.pkt[p].flags & F_CBR or p == arriving else S.pkt[p].conn
        outline(K.drop_lost, (S, p, lnk, dep))
        if c >= 0:
            maybe_free(S, c)
        return 0 if p == arriving else 1
    q = link[lnk].lane
    if q >= 0:
        lane_push(S, q, dep + link[lnk].prop_s, EV_ARRIVE, p)
    else:
        push(S, dep + link[lnk].prop_s, EV_ARRIVE, p)
    return 1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def kick(S, lnk, p, t):
    """Packet ``p`` was queued on link ``lnk`` at ``t``: if the link is idle, its transmission starts now. Returns
    what ``link_enqueue`` returns: 1, or 0 if ``p`` is lost after that transmission."""
    if S.link[lnk].busy == 0:
        return start_next(S, lnk, t, p)
    return 1


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tx_done(S, lnk, t):
    """``EV_DEQUEUE``: link ``lnk`` has sent the packet on its wire; the next one starts (``start_next``)."""
    link = S.link
    link[lnk].ring_n -= 1
    link[lnk].qbytes -= link[lnk].tx_bytes
    if link[lnk].ring_n == 0:
        link[lnk].qbytes = 0.0
    link[lnk].busy = 0
    start_next(S, lnk, t, -1)
