"""CoDel, Controlled Delay (RFC 8289; K. Nichols, V. Jacobson, "Controlling Queue Delay", ACM Queue 2012): a FIFO
that drops at its head, at dequeue, when packets have waited longer than ``target`` for at least ``interval``.

Each packet is stamped when it enters; at dequeue its sojourn time is ``now - stamp``. The RFC's pseudocode
(sec. 5), followed line by line (``dodequeue``, ``codel_dequeue``):

- ``ok_to_drop``: the sojourn has been at or above ``target`` (5 ms), with more than one MTU left in the queue,
  for a whole ``interval`` (100 ms) since it first was (``first_above_time``);
- not dropping, ``ok_to_drop``: drop that packet, take the next, enter the dropping state; ``count`` starts at 1,
  or at ``count - lastcount`` if the state was left less than 16 intervals ago and more than one packet was
  dropped since it was last entered (the RFC's memory of the drop rate that last controlled the queue);
  the next drop is due at ``now + interval / sqrt(count)``;
- dropping: the state is left as soon as a packet's sojourn is below ``target`` (or the queue empties); while
  ``now >= drop_next``, drop, ``count += 1``, take the next packet, ``drop_next += interval / sqrt(count)``. Under
  constant overload the drops come ``interval`` after entering, then ``interval / sqrt(2)``, ``/ sqrt(3)`` ...
  (100, 70.7, 57.7, 50 ms ...).

With ``ecn`` an ECN-capable packet is marked CE instead of dropped and sent (as Linux and ns-3 do: in the
dropping state the mark ends the loop, ``drop_next`` advanced as for a drop).

Differences from real implementations, all small: times are exact floats (Linux and ns-3 count in 1024 ns units)
and ``interval / sqrt(count)`` is computed exactly (they use Newton's method on an inverse square root); the
"more than one MTU queued" test uses ``bytes > mtu_bytes`` as the RFC (``bytes() <= maxpacket_`` keeps the
packet), ns-3 ``bytes >= MinBytes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from numba import njit

from simcore._validate import check_bool, check_int, check_order, check_real, store_python_numbers

from .. import link as K  # a module (late bound): kernel.link calls this folder's dispatch
from . import queue as QU  # a module (late bound)

# parameters per link (shared with FQ-CoDel, whose queues each run CoDel): target, interval (s), mtu (bytes)
QDISC_FIELDS = "cd_target:f cd_interval:f cd_mtu"
# CoDel's state per queue: first_above (0: below target), drop_next (s), cd_count, cd_lastcount, dropping (0/1)
FLOWQ_FIELDS = "first_above:f drop_next:f cd_count cd_lastcount dropping"


@dataclass(frozen=True)
class CoDelParams:
    """CoDel (RFC 8289) at a link: ``LinkParams(queue=CoDelParams(...))`` or ``queue="codel"`` for these defaults.

    - ``target_s``: the acceptable standing queue delay (RFC 8289 sec. 4.4: 5 ms, 5-10 % of ``interval_s``).
    - ``interval_s``: how long the delay must stay above target before CoDel drops, and the start of its
      drop spacing (100 ms: sec. 4.3, a worst-case round trip of the paths it serves).
    - ``mtu_bytes``: CoDel does not drop while at most this many bytes wait (the RFC's ``maxpacket``, "the
      interface MTU"): a queue of one packet is not a standing queue on a slow link.
    - ``ecn``: mark ECN-capable packets CE instead of dropping them (RFC 8289 sec. 5: "drop or mark"; Linux's
      codel has it off by default, ns-3's too).

    The buffer's hard limit is ``LinkParams.queue_packets`` (and ``queue_bytes``): a packet arriving at a full
    buffer is dropped at the tail. RFC 7567 (the IETF's AQM recommendations): CoDel needs no tuning for
    Internet paths (sec. 4.3), responds to ECN (4.2.1), and controls delay rather than queue length.
    """

    target_s: float = 0.005
    interval_s: float = 0.1
    mtu_bytes: int = 1500
    ecn: bool = False

    name = "codel"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("target_s", self.target_s, 0.0, 10.0, lo_open=True)
        check_real("interval_s", self.interval_s, 0.0, 100.0, lo_open=True)
        check_order("target_s", self.target_s, "interval_s", self.interval_s, strict=True)
        check_int("mtu_bytes", self.mtu_bytes, 0, 10**6)
        check_bool("ecn", self.ecn)


def queues(params: CoDelParams) -> int:
    """Return the packet queues (``FLOWQ`` rows) a CoDel link needs: one."""
    return 1


def fill_codel(qd, fq, target_s: float, interval_s: float, mtu_bytes: int) -> None:
    """Set CoDel's parameters in a link's row ``qd`` and clear its state in the queues ``fq``."""
    qd["cd_target"] = target_s
    qd["cd_interval"] = interval_s
    qd["cd_mtu"] = mtu_bytes
    fq["first_above"] = 0.0
    fq["drop_next"] = 0.0
    fq["cd_count"] = 0
    fq["cd_lastcount"] = 0
    fq["dropping"] = 0


def fill(qd, fq, params: CoDelParams, rate_bps: float) -> None:
    """Set CoDel's fields of a link's row ``qd`` and queue ``fq`` from ``params``."""
    fill_codel(qd, fq, params.target_s, params.interval_s, params.mtu_bytes)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def control_law(t, interval, count):
    """RFC 8289's ``control_law``: the time of the next drop, ``t + interval / sqrt(count)``."""
    return t + interval / math.sqrt(count)


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _dodequeue(S, lnk, q, t):
    """RFC 8289's ``dodequeue``: take the first packet of queue ``q`` at ``t``; return ``(packet or -1,
    ok_to_drop)``, tracking how long the sojourn time has stayed at or above target."""
    r = S.qd[S.link[lnk].qd]
    fq = S.fq
    p = QU.pop_head(S, lnk, q)
    if p < 0:  # an empty queue is below target
        fq[q].first_above = 0.0
        return p, False
    sojourn = t - S.pkt[p].t_enq
    if sojourn < r.cd_target or fq[q].bytes <= r.cd_mtu:
        fq[q].first_above = 0.0  # went below: stay below for at least an interval
        return p, False
    if fq[q].first_above == 0.0:
        fq[q].first_above = t + r.cd_interval  # just went above: ok to drop if still above then
        return p, False
    return p, t >= fq[q].first_above


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def codel_dequeue(S, lnk, q, t):
    """RFC 8289's ``dequeue`` on queue ``q`` of link ``lnk`` at ``t``: the packet to send, or -1 (the queue is
    empty, or CoDel dropped every packet it had). Drops (and marks) happen here."""
    fq = S.fq
    interval = S.qd[S.link[lnk].qd].cd_interval
    p, ok = _dodequeue(S, lnk, q, t)
    if fq[q].dropping == 1:
        if not ok:
            fq[q].dropping = 0  # sojourn time below target: leave the dropping state
        while fq[q].dropping == 1 and t >= fq[q].drop_next:
            fq[q].cd_count += 1
            if QU.can_mark(S, lnk, p):  # mark and send it; the next mark or drop as after a drop
                QU.mark(S, lnk, p)
                fq[q].drop_next = control_law(fq[q].drop_next, interval, fq[q].cd_count)
                break
            QU.drop_queued(S, lnk, p, t, True, True)
            p, ok = _dodequeue(S, lnk, q, t)
            if not ok:
                fq[q].dropping = 0
            else:
                fq[q].drop_next = control_law(fq[q].drop_next, interval, fq[q].cd_count)
    elif ok:
        if QU.can_mark(S, lnk, p):
            QU.mark(S, lnk, p)
        else:
            QU.drop_queued(S, lnk, p, t, True, True)
            p, ok = _dodequeue(S, lnk, q, t)
        fq[q].dropping = 1
        # if the delay went above target soon after it last went below, start from the drop rate that controlled
        # the queue then ("now - drop_next" approximates the time since the last drop)
        delta = fq[q].cd_count - fq[q].cd_lastcount
        count = 1
        if delta > 1 and t - fq[q].drop_next < 16.0 * interval:
            count = delta
        fq[q].cd_count = count
        fq[q].drop_next = control_law(t, interval, count)
        fq[q].cd_lastcount = count
    return p


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def enqueue(S, lnk, p, t):
    """Offer packet ``p`` to CoDel link ``lnk`` at ``t``: lost on arrival, dropped at the tail if the buffer is
    full, else stamped and queued (and sent at once if the link is idle). Returns what ``link_enqueue`` returns."""
    if not QU.arrive(S, lnk, p, t):
        return 0
    link = S.link
    size = QU.wire_bytes(S, lnk, p)
    if link[lnk].ring_n + 1 > link[lnk].qlim or (link[lnk].qlim_bytes > 0
                                                   and link[lnk].qbytes + size > link[lnk].qlim_bytes):
        K.drop_queue(S, lnk, p, t, S.st[0].trace == 1)
        return 0
    QU.push_tail(S, S.qd[link[lnk].qd].q0, p, size)
    QU.queued(S, lnk, p, t, size)
    return QU.kick(S, lnk, p, t)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def dequeue(S, lnk, t):
    """The transmitter of CoDel link ``lnk`` is free at ``t``: return the packet it sends (-1: none waits)."""
    return codel_dequeue(S, lnk, S.qd[S.link[lnk].qd].q0, t)
