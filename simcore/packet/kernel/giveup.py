"""Numba: a transport gives a connection up (TCP's connection-establishment timer or retransmission limit,
SCTP's Association.Max.Retrans), for either transport.

A connection given up is *dead*: ``abort_t`` of the half whose rule fired is set, both halves' timers stop,
no acknowledgement is owed any more, and ``kernel.transport`` hands the connection nothing more (packets still
in flight to it are dropped on arrival, application writes and closes are ignored). The peer is stopped at the
same instant: the RST (TCP) or ABORT (SCTP) that would tell it is not simulated. The application sees the
connection's messages never complete (``PacketResult.aborted_s`` says when and which).
"""

from __future__ import annotations

import math

from numba import njit

from .delack import delack_cancel
from .trace import trace_tcp

_INF = math.inf


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def give_up(S, h, t):
    """The transport of half ``h`` gives its connection up at ``t``: mark it dead and stop both halves."""
    c = h >> 1
    S.conn[c].dead = 1
    S.half[h].abort_t = t
    for k in (2 * c, 2 * c + 1):
        S.half[k].rto_deadline = _INF
        S.half[k].ack_owed = 0
        delack_cancel(S, k)  # its lane entry becomes a no-op (the position is not left pointing at a reused slot)
    trace_tcp(S, h, t, 2)
