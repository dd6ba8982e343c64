"""Random Early Detection (S. Floyd, V. Jacobson, "Random Early Detection Gateways for Congestion Avoidance",
IEEE/ACM ToN 1(4), 1993), with the "gentle" variant (S. Floyd, 2000): a FIFO buffer that drops (or marks) an
arriving packet with a probability that grows with the *average* queue.

On each arrival (the paper's figure 2), with ``q`` the packets waiting (or their bytes: ``unit='bytes'``; the
packet on the wire is not waiting, as in the paper's simulator):

- the average: ``avg <- (1 - w_q) avg + w_q q`` while the link is busy; after the link has been idle for ``T``
  seconds, ``avg <- (1 - w_q)^m avg`` with ``m = T / s``, ``s`` the transmission time of a packet of
  ``mean_packet_bytes`` (the packets that could have been sent meanwhile);
- ``avg < min_th``: admit, ``count = -1``; ``min_th <= avg < max_th``: ``count += 1``,
  ``p_b = max_p (avg - min_th) / (max_th - min_th)``, ``p_a = p_b / (1 - count p_b)`` (1 once
  ``count p_b >= 1``), drop (or mark) with probability ``p_a`` and then ``count = 0``;
- gentle: ``max_th <= avg < 2 max_th``: the same with ``p_b = max_p + (1 - max_p) (avg - max_th) / max_th``;
  ``avg >= 2 max_th`` (``avg >= max_th`` without gentle): drop, ``count = 0`` (never a mark: ns-3's and Linux's
  hard drop).

The decision is taken at enqueue, so the departure times stay known when a packet is queued and a RED link costs
no event more than a drop-tail one (``kernel.link.fifo_depart``). The random draws come from the link's own
stream (``kernel.link.uniform``), in arrival order, shared with its random losses.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from numba import njit

from simcore._validate import check_bool, check_choice, check_int, check_order, check_real, store_python_numbers

from .. import link as K  # a module (late bound): kernel.link calls this folder's dispatch
from ..layout import OVF_RING
from . import queue as QU  # a module (late bound)

UNITS = ("packets", "bytes")

# RED's parameters (per link) and state: red_avg (the average queue), red_count (packets since the last drop or
# mark, -1 below min_th); red_bytes (1: the queue in bytes), red_gentle, red_s (seconds to send mean_packet_bytes)
QDISC_FIELDS = "red_min:f red_max:f red_maxp:f red_wq:f red_gentle red_bytes red_s:f red_avg:f red_count"
FLOWQ_FIELDS = ""


@dataclass(frozen=True)
class RedParams:
    """RED (Floyd & Jacobson 1993; gentle mode, Floyd 2000) at a link: ``LinkParams(queue=RedParams(...))`` or
    ``queue="red"`` for these defaults.

    - ``min_th``, ``max_th``: thresholds of the average queue (packets waiting, or bytes with ``unit='bytes'``);
      defaults 5 and 15 packets, the paper's simulations'. Floyd's later advice: ``max_th`` at least 3 ``min_th``.
    - ``max_p``: the drop probability as the average reaches ``max_th`` (0.02, the paper's 1/50).
    - ``w_q``: the weight of the exponential average (0.002, the paper's; its time constant is 1 / w_q = 500
      arrivals).
    - ``gentle``: the probability rises from ``max_p`` to 1 between ``max_th`` and ``2 max_th`` instead of jumping
      to 1 at ``max_th``.
    - ``unit``: 'packets' or 'bytes' (queue and thresholds in bytes; the drop probability does not depend on the
      packet's size, as RFC 7141 recommends: no 'byte-mode drop' favouring small packets).
    - ``mean_packet_bytes``: the typical packet of the idle-time rule (its transmission time ``s``).
    - ``ecn``: mark ECN-capable packets CE instead of dropping them in the probabilistic region (RFC 3168 sec.
      7); the forced drops above stay drops.

    RFC 7567 (the IETF's AQM recommendations, which replace RFC 2309's recommendation of RED): deploy AQM by
    default (sec. 4.1), prefer schemes that need no tuning (4.3), which RED's thresholds are not (they depend
    on the link's rate and the traffic: CoDel and PIE were designed for that), respond to ECN (4.2.1), and do
    not favour small packets (4.4, RFC 7141).
    """

    min_th: float = 5.0
    max_th: float = 15.0
    max_p: float = 0.02
    w_q: float = 0.002
    gentle: bool = True
    unit: str = "packets"
    mean_packet_bytes: int = 1500
    ecn: bool = False

    name = "red"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("min_th", self.min_th, 0.0, 1e12)
        check_real("max_th", self.max_th, 0.0, 1e12, lo_open=True)
        check_order("min_th", self.min_th, "max_th", self.max_th, strict=True)
        check_real("max_p", self.max_p, 0.0, 1.0, lo_open=True)
        check_real("w_q", self.w_q, 0.0, 1.0, lo_open=True)
        check_bool("gentle", self.gentle)
        check_choice("unit", self.unit, UNITS)
        check_int("mean_packet_bytes", self.mean_packet_bytes, 1, 10**6)
        check_bool("ecn", self.ecn)


def queues(params: RedParams) -> int:
    """Return the packet queues (``FLOWQ`` rows) a RED link needs: none (its FIFO is the link's ring)."""
    return 0


def fill(qd, fq, params: RedParams, rate_bps: float) -> None:
    """Set RED's fields of a link's row ``qd`` from ``params`` (``rate_bps``: the link's rate)."""
    qd["red_min"] = params.min_th
    qd["red_max"] = params.max_th
    qd["red_maxp"] = params.max_p
    qd["red_wq"] = params.w_q
    qd["red_gentle"] = int(params.gentle)
    qd["red_bytes"] = int(params.unit == "bytes")
    qd["red_s"] = params.mean_packet_bytes * 8.0 / rate_bps
    qd["red_avg"] = 0.0
    qd["red_count"] = -1


ADMIT = 0
EARLY = 1  # the probabilistic region: drop, or mark an ECN-capable packet
FORCED = 2  # above max_th (2 max_th gentle): drop


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def verdict(S, lnk, t, n, qb):
    """Update the average queue of RED link ``lnk`` for an arrival at ``t`` that finds ``n`` packets (``qb`` bytes)
    in its buffer (the first on the wire), and return ``ADMIT``, ``EARLY`` or ``FORCED`` (see the module)."""
    link = S.link
    r = S.qd[link[lnk].qd]
    wq = r.red_wq
    if n == 0:  # idle since its last packet left (free_at; 0 before any)
        idle = t - link[lnk].free_at
        if idle > 0.0:
            r.red_avg *= math.pow(1.0 - wq, idle / r.red_s)
    else:
        head = link[lnk].ring_base + link[lnk].ring_head
        q = qb - S.ring[head].nbytes if r.red_bytes == 1 else float(n - 1)
        r.red_avg = (1.0 - wq) * r.red_avg + wq * q
    avg = r.red_avg
    lo = r.red_min
    hi = r.red_max
    if avg < lo:
        r.red_count = -1
        return ADMIT
    if avg >= (2.0 * hi if r.red_gentle == 1 else hi):
        r.red_count = 0
        return FORCED
    r.red_count += 1
    if avg < hi:
        pb = r.red_maxp * (avg - lo) / (hi - lo)
    else:
        pb = r.red_maxp + (1.0 - r.red_maxp) * (avg - hi) / hi
    cpb = r.red_count * pb
    pa = 1.0 if cpb >= 1.0 else pb / (1.0 - cpb)
    if K.uniform(S.rng, lnk) < pa:
        r.red_count = 0
        return EARLY
    return ADMIT


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def enqueue(S, lnk, p, t):
    """Offer packet ``p`` to RED link ``lnk`` at ``t``: lost on arrival, dropped (RED's verdict, or a full buffer),
    or queued (marked CE when RED chose it and it is ECN-capable). Returns what ``kernel.link.link_enqueue``
    returns."""
    link = S.link
    st = S.st[0]
    offered, lost = K.offer(S, lnk, p, t)
    if lost:
        return 0
    K.link_drain(S, lnk, t)
    size = QU.wire_bytes(S, lnk, p)
    n = link[lnk].ring_n
    qb = link[lnk].qbytes
    tracing = st.trace == 1
    K.queue_sample(S, lnk, t, tracing)
    v = verdict(S, lnk, t, n, qb)
    if v == FORCED or (v == EARLY and not QU.can_mark(S, lnk, p)):
        QU.aqm_drop(S, lnk, p, t)
        return 0
    if n + 1 > link[lnk].qlim or (link[lnk].qlim_bytes > 0 and qb + size > link[lnk].qlim_bytes):
        K.drop_queue(S, lnk, p, t, tracing)
        return 0
    if n >= link[lnk].ring_cap:  # the ring was sized by a traffic bound that did not hold
        st.flags |= OVF_RING
        K.release(S, p)
        return 0
    if v == EARLY:
        QU.mark(S, lnk, p)
    return K.fifo_depart(S, lnk, p, t, n, qb, size, False, offered, tracing)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def dequeue(S, lnk, t):
    """RED decides at enqueue: its link never asks for a packet."""
    return -1

