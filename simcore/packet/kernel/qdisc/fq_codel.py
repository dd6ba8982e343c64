"""FQ-CoDel, Flow Queue CoDel (RFC 8290): packets hashed into per-flow queues, served by deficit round robin with
new flows first, each queue under its own CoDel (``codel.codel_dequeue``).

- **Flows**: a packet's queue is a hash of its flow modulo ``flows`` (1024). RFC 8290 hashes the 5-tuple (source
  and destination addresses and ports, protocol); here the flow is the connection and its direction (the
  scenario's connection number, so both directions of one connection are two flows), or the CBR source:
  the same thing for the simulator's hosts, whose connections each have their own port pair. Two flows may
  share a queue when their hashes collide, as in Linux (``perturbation`` is the hash's salt).
- **Enqueue** (sec. 4.1): stamp, append to the flow's queue; a queue that was in no list joins the tail of the
  *new* list with ``deficit = quantum``. When the buffer then holds more than its limit
  (``LinkParams.queue_packets``), packets are dropped from the head of the *fattest* queue (most bytes): as
  Linux and ns-3 do, a batch, until half of that queue's bytes or ``drop_batch`` (64) packets are gone.
- **Dequeue** (sec. 4.2): take the first queue of the new list, else of the old list; if its deficit is not
  positive, add ``quantum`` (1514 bytes) and move it to the tail of the old list, and look again. Else ask its
  CoDel for a packet: none (empty, or CoDel dropped what it had): a new queue moves to the tail of the old list,
  an old one leaves the lists; a packet: deficit minus its bytes, send it.

With ``ecn`` (on by default, as in RFC 8290 sec. 5 and Linux) CoDel marks ECN-capable packets CE instead of
dropping them; the overflow drops stay drops.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from simcore._validate import check_bool, check_int, check_order, check_real, store_python_numbers

from ..._numba.outline import one_signature
from ..layout import F_CBR
from . import codel as CD  # modules (late bound): kernel.link calls this folder's dispatch
from . import queue as QU

# per link: quantum (bytes), flows, drop batch, hash salt; the new and old lists of queues (first, last; -1 empty)
QDISC_FIELDS = "fq_quantum fq_flows fq_batch fq_salt new_head new_tail old_head old_tail"
# per queue: its deficit (bytes), the next queue in its list (-1 last), status (0 in no list, 1 new, 2 old)
FLOWQ_FIELDS = "deficit nextq status"

_INACTIVE = 0
_NEW = 1
_OLD = 2


@dataclass(frozen=True)
class FqCoDelParams:
    """FQ-CoDel (RFC 8290) at a link: ``LinkParams(queue=FqCoDelParams(...))`` or ``queue="fq_codel"``.

    - ``target_s``, ``interval_s``, ``mtu_bytes``: the CoDel of each queue (see ``CoDelParams``; RFC 8290 sec. 5.2).
    - ``quantum_bytes``: the bytes a queue may send per round (1514: one full Ethernet frame; sec. 5.1).
    - ``flows``: queues the flows are hashed into (1024, sec. 5.3).
    - ``drop_batch``: at most this many packets dropped from the fattest queue when the buffer overflows (64,
      Linux's and ns-3's default; they stop at half that queue's bytes).
    - ``perturbation``: the salt of the flow hash (changes which flows collide).
    - ``ecn``: mark ECN-capable packets CE instead of dropping them (on, RFC 8290 sec. 5).

    The buffer's limit is ``LinkParams.queue_packets`` (RFC 8290 sec. 5.4 suggests 10240 packets, Linux's
    default; the link's default is 100). RFC 7567: FQ-CoDel isolates flows (a short flow's packets do not wait
    behind a bulk flow's queue), needs no tuning, and is the default queue discipline of most Linux
    distributions.
    """

    target_s: float = 0.005
    interval_s: float = 0.1
    quantum_bytes: int = 1514
    flows: int = 1024
    drop_batch: int = 64
    mtu_bytes: int = 1500
    perturbation: int = 0
    ecn: bool = True

    name = "fq_codel"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("target_s", self.target_s, 0.0, 10.0, lo_open=True)
        check_real("interval_s", self.interval_s, 0.0, 100.0, lo_open=True)
        check_order("target_s", self.target_s, "interval_s", self.interval_s, strict=True)
        check_int("quantum_bytes", self.quantum_bytes, 1, 10**6)
        check_int("flows", self.flows, 1, 65536, why="each queue is a row of state")
        check_int("drop_batch", self.drop_batch, 1, 10**6)
        check_int("mtu_bytes", self.mtu_bytes, 0, 10**6)
        check_int("perturbation", self.perturbation, 0, 2**32 - 1)
        check_bool("ecn", self.ecn)


def queues(params: FqCoDelParams) -> int:
    """Return the packet queues (``FLOWQ`` rows) an FQ-CoDel link needs: ``flows``."""
    return params.flows


def fill(qd, fq, params: FqCoDelParams, rate_bps: float) -> None:
    """Set FQ-CoDel's fields of a link's row ``qd`` and queues ``fq`` from ``params``."""
    CD.fill_codel(qd, fq, params.target_s, params.interval_s, params.mtu_bytes)
    qd["fq_quantum"] = params.quantum_bytes
    qd["fq_flows"] = params.flows
    qd["fq_batch"] = params.drop_batch
    qd["fq_salt"] = params.perturbation
    for f in ("new_head", "new_tail", "old_head", "old_tail"):
        qd[f] = -1
    fq["deficit"] = 0
    fq["nextq"] = -1
    fq["status"] = _INACTIVE


_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def flow_hash(key, salt, flows):
    """Return the queue (0 .. flows - 1) of flow ``key`` (a non-negative int): splitmix64 of ``key`` and ``salt``."""
    z = np.uint64(key) * _GOLDEN + np.uint64(salt) + _GOLDEN
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    z = z ^ (z >> np.uint64(31))
    return np.int64(z % np.uint64(flows))


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def flow_key(S, p):
    """Return packet ``p``'s flow: 2 x its connection's number (in the scenario) + its direction, or for a CBR
    packet 2**62 + its source (never a connection's)."""
    pk = S.pkt[p]
    if pk.flags & F_CBR:
        return (1 << 62) + pk.conn
    return 2 * S.conn[pk.conn].cid + pk.dir


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _pop_list(S, i, new):
    """Remove the first queue of link row ``i``'s new (``new``) or old list."""
    r = S.qd[i]
    f = r.new_head if new else r.old_head
    nxt = S.fq[f].nextq
    S.fq[f].nextq = -1
    if new:
        r.new_head = nxt
        if nxt < 0:
            r.new_tail = -1
    else:
        r.old_head = nxt
        if nxt < 0:
            r.old_tail = -1


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _append(S, i, f, new):
    """Append queue ``f`` to the tail of link row ``i``'s new (``new``) or old list and set its status."""
    r = S.qd[i]
    S.fq[f].nextq = -1
    S.fq[f].status = _NEW if new else _OLD
    tail = r.new_tail if new else r.old_tail
    if tail < 0:
        if new:
            r.new_head = f
        else:
            r.old_head = f
    else:
        S.fq[tail].nextq = f
    if new:
        r.new_tail = f
    else:
        r.old_tail = f


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def drop_fattest(S, lnk, t, arriving):
    """The buffer of link ``lnk`` holds more than its limit: drop packets from the head of the queue with the most
    bytes (the first such queue), until half its bytes or ``drop_batch`` packets are gone. Returns True if
    ``arriving`` (the packet just queued) was among them."""
    i = S.link[lnk].qd
    q0 = S.qd[i].q0
    fat = q0
    most = -1.0
    for f in range(q0, q0 + S.qd[i].nq):
        if S.fq[f].bytes > most:
            most = S.fq[f].bytes
            fat = f
    half = most / 2.0
    dropped = 0.0
    k = 0
    hit = False
    c_arr = -1 if S.pkt[arriving].flags & F_CBR else S.pkt[arriving].conn
    while True:
        p = QU.pop_head(S, lnk, fat)
        if p < 0:
            break
        dropped += QU.wire_bytes(S, lnk, p)
        if p == arriving:
            hit = True
        # the arriving packet's connection may be in the middle of its own code (sending it): the caller (its
        # sender, or the event loop after the hop) frees its slot if it can, not this drop
        mine = p == arriving or (c_arr >= 0 and not S.pkt[p].flags & F_CBR and S.pkt[p].conn == c_arr)
        QU.drop_queued(S, lnk, p, t, False, not mine)
        k += 1
        if k >= S.qd[i].fq_batch or dropped >= half:
            break
    return hit


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def enqueue(S, lnk, p, t):
    """Offer packet ``p`` to FQ-CoDel link ``lnk`` at ``t``: lost on arrival, or stamped and queued in its flow's
    queue (a batch dropped from the fattest queue if the buffer overflows), and sent at once if the link is idle.
    Returns what ``link_enqueue`` returns (0 if ``p`` itself was dropped)."""
    if not QU.arrive(S, lnk, p, t):
        return 0
    link = S.link
    i = link[lnk].qd
    r = S.qd[i]
    f = r.q0 + flow_hash(flow_key(S, p), r.fq_salt, r.fq_flows)
    size = QU.wire_bytes(S, lnk, p)
    QU.push_tail(S, f, p, size)
    if S.fq[f].status == _INACTIVE:
        S.fq[f].deficit = r.fq_quantum
        _append(S, i, f, True)
    QU.queued(S, lnk, p, t, size)
    if link[lnk].ring_n > link[lnk].qlim or (link[lnk].qlim_bytes > 0 and link[lnk].qbytes > link[lnk].qlim_bytes):
        if drop_fattest(S, lnk, t, p):
            return 0
    return QU.kick(S, lnk, p, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def dequeue(S, lnk, t):
    """The transmitter of FQ-CoDel link ``lnk`` is free at ``t``: return the packet it sends (-1: none waits), by
    deficit round robin over the new, then the old queues (RFC 8290 sec. 4.2)."""
    i = S.link[lnk].qd
    r = S.qd[i]
    fq = S.fq
    while True:
        new = r.new_head >= 0
        if new:
            f = r.new_head
        elif r.old_head >= 0:
            f = r.old_head
        else:
            return -1
        if fq[f].deficit <= 0:
            fq[f].deficit += r.fq_quantum
            _pop_list(S, i, new)
            _append(S, i, f, False)
            continue
        p = CD.codel_dequeue(S, lnk, f, t)
        if p < 0:
            _pop_list(S, i, new)
            if new:  # a new queue goes round the old ones once before it may leave (no starving them)
                _append(S, i, f, False)
            else:
                fq[f].status = _INACTIVE
            continue
        fq[f].deficit -= QU.wire_bytes(S, lnk, p)
        return p
