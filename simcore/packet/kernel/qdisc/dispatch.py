"""The seam between the links and their queue disciplines: the registry (Python) and the dispatch (numba).

``NAMES`` lists the disciplines; a link's ``S.link[k].qdisc`` is its discipline's position there. Drop-tail (0)
is ``kernel.link.link_enqueue`` itself, the fast path; ``link_enqueue`` hands a link with any other discipline to
``enqueue`` here, and the transmitter of a link whose discipline decides at dequeue asks ``dequeue``
(``queue.start_next``). Each function has one branch per discipline, calling that discipline's module.

Each discipline's module gives its parameters (a frozen, validated dataclass with a ``name``, registered in
``PARAMS``), ``QDISC_FIELDS`` (its parameters and state per link, a row of ``S.qd``) and ``FLOWQ_FIELDS`` (its state
per packet queue, rows of ``S.fq``), ``queues(params)`` (how many packet queues a link needs), ``fill(qd, fq,
params, rate_bps)`` (its rows' first values) and the kernels ``enqueue(S, lnk, p, t)`` and ``dequeue(S, lnk, t)``.
The records ``QDISC`` and ``FLOWQ`` are assembled here from every discipline's fields (named, so that a discipline's
state lives beside its code).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..layout import ordered_dtype
from . import codel, fq_codel, queue, red  # modules (late bound): they call kernel.link, which calls this one

NAMES = ("droptail", "red", "codel", "fq_codel")
Q_DROPTAIL = 0
Q_RED = 1
Q_CODEL = 2
Q_FQ_CODEL = 3
MODULES = {"red": red, "codel": codel, "fq_codel": fq_codel}
PARAMS = {"red": red.RedParams, "codel": codel.CoDelParams, "fq_codel": fq_codel.FqCoDelParams}

QUEUE_BUDGET_BYTES = 2**28  # the packet queues' state of every link together (an FQ-CoDel link: flows rows)

QDISC = ordered_dtype(" ".join([queue.QDISC_FIELDS] + [m.QDISC_FIELDS for m in MODULES.values()]))
FLOWQ = ordered_dtype(" ".join([queue.FLOWQ_FIELDS] + [m.FLOWQ_FIELDS for m in MODULES.values()]))


def params_of(q):
    """Return the parameters of queue discipline ``q`` (a name in ``NAMES``: its defaults; or a parameters object),
    or None for drop-tail."""
    if isinstance(q, str):
        return None if q == "droptail" else PARAMS[q]()
    return q


def build(links) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(qdisc, qd, rows, queues)`` for ``links`` (``LinkParams``, validated): per link its discipline's
    number and its row in ``rows`` (``QDISC`` records, -1 for drop-tail), and the packet queues (``FLOWQ``)."""
    if all(lp.queue == "droptail" for lp in links):  # the common case, at once (chapter 2: ~2,000 links)
        return (np.zeros(len(links), np.int64), np.full(len(links), -1, np.int64), np.zeros(1, QDISC),
                np.zeros(1, FLOWQ))
    chosen = [params_of(lp.queue) for lp in links]
    qdisc = np.array([0 if p is None else NAMES.index(p.name) for p in chosen], np.int64)
    used = [i for i, p in enumerate(chosen) if p is not None]
    nq = [MODULES[chosen[i].name].queues(chosen[i]) for i in used]
    need = sum(nq) * FLOWQ.itemsize
    if need > QUEUE_BUDGET_BYTES:
        raise ValueError(f"the queue disciplines of {len(used)} links need {sum(nq):,} packet queues "
                         f"({need / 2**20:.0f} MiB of state), more than the {QUEUE_BUDGET_BYTES // 2**20} MiB allowed: "
                         "give FqCoDelParams fewer flows, or fewer links an FQ-CoDel queue")
    rows = np.zeros(max(len(used), 1), QDISC)
    queues = np.zeros(max(sum(nq), 1), FLOWQ)
    qd = np.full(len(links), -1, np.int64)
    q0 = 0
    for j, (i, n) in enumerate(zip(used, nq, strict=True)):
        p = chosen[i]
        qd[i] = j
        rows["q0"][j] = q0
        rows["nq"][j] = n
        queue.fill(rows[j:j + 1], queues[q0:q0 + n], p)
        MODULES[p.name].fill(rows[j:j + 1], queues[q0:q0 + n], p, links[i].rate_bps)
        q0 += n
    return qdisc, qd, rows, queues


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def enqueue(S, lnk, p, t):
    """Offer packet ``p`` to link ``lnk`` (not drop-tail) at ``t``; return what ``kernel.link.link_enqueue`` returns
    (1: it will reach the far end or is queued, 0: it was dropped or lost)."""
    qd = S.link[lnk].qdisc
    if qd == Q_RED:
        return red.enqueue(S, lnk, p, t)
    if qd == Q_CODEL:
        return codel.enqueue(S, lnk, p, t)
    if qd == Q_FQ_CODEL:
        return fq_codel.enqueue(S, lnk, p, t)
    return 0


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def dequeue(S, lnk, t):
    """The transmitter of link ``lnk`` is free at ``t``: return the packet its discipline sends next (-1: none)."""
    qd = S.link[lnk].qdisc
    if qd == Q_CODEL:
        return codel.dequeue(S, lnk, t)
    if qd == Q_FQ_CODEL:
        return fq_codel.dequeue(S, lnk, t)
    if qd == Q_RED:
        return red.dequeue(S, lnk, t)
    return -1
