"""The traces of a traced run (``simulate(..., trace=True)``), each assembled from the kernel's trace table when
first read.

The kernel writes four float tables (``layout``: ``tr_tcp``, ``tr_pkt``, ``tr_queue``, ``tr_soj``). Turning one
into its ``results`` record takes integer conversions of every column: for the packet table of a 40 s bulk run
(~260k records of 44 columns) about 0.4 s, which a caller that reads only the sojourn trace (the primer's
bufferbloat part) paid in full. ``trace_views`` keeps the used rows of each table (views: no copy), and
``TRACE_GROUPS`` says how each field is made from them; ``lazy_result.traced_result`` builds a field on first read,
``simulate._result`` builds them all at once. The packet and hop traces come from one table and are made
together.
"""

from __future__ import annotations

import numpy as np

from .halves import nan_before_zero
from .kernel import layout as L
from .results import HopTrace, PacketTrace, QueueTrace, SojournTrace, TcpTrace

__all__ = ["TRACE_FIELDS", "TRACE_GROUPS", "all_traces", "trace_views"]


def trace_views(S: L.State, n_conn: int) -> dict:
    """Return the used rows of the run ``S``'s trace tables and what their conversion needs (each connection's
    protocol), or None if the run was not traced. Views: they keep the tables alive, not the rest of ``S``."""
    st = S.st[0]
    if st["trace"] != 1:
        return None
    proto = S.conn_par["proto"][S.conn_id["par"]] if n_conn else np.zeros(1, np.int64)
    return {"tcp": S.tr_tcp[: st["n_tcptr"]], "pkt": S.tr_pkt[: st["n_pkttr"]], "queue": S.tr_queue[: st["n_qtr"]],
            "soj": S.tr_soj[: st["n_sojtr"]], "proto": proto, "n_conn": n_conn}


def _tcp(v: dict) -> dict:
    t = v["tcp"]
    return {"tcp_trace": TcpTrace(t[:, 0], t[:, 1].astype(np.int64) // 2, t[:, 1].astype(np.int64) % 2, t[:, 2],
                                  t[:, 3], nan_before_zero(t[:, 4]), t[:, 5], t[:, 6].astype(np.int64),
                                  t[:, 7].astype(np.int64), t[:, 8].astype(np.int64))}


def _packets(v: dict) -> dict:
    p = v["pkt"]
    fwd = p[:, 1] == L.TR_FORWARD
    hop = HopTrace(p[fwd, 0], p[fwd, 2].astype(np.int64), p[fwd, 9].astype(np.int64))
    p = p[~fwd]
    ints = p[:, 1:].astype(np.int64)
    sack = ints[:, L.TRP_SACK - 1:L.TRP_NDUP - 1].reshape(-1, L.SACK_BLOCKS, 2)
    cbr = (ints[:, 7] & L.F_CBR) != 0
    sack[cbr] = -1
    proto = v["proto"]
    sctp = ~cbr & (proto[np.where(cbr, 0, ints[:, 2])] == L.PROTO_SCTP) if v["n_conn"] else cbr
    sack[~sctp, L.TCP_SACK_BLOCKS:] = -1
    # as many block columns as the run used, at least TCP's three (runs with <= 3 gaps keep their shape)
    sack = sack[:, :max(L.TCP_SACK_BLOCKS, int((sack[:, :, 0] >= 0).sum(axis=1).max(initial=0)))]
    dup = np.where(ints[:, L.TRP_NDUP - 1] > 0, ints[:, L.TRP_DUP - 1], -1)
    return {"packet_trace": PacketTrace(p[:, 0], *[ints[:, j] for j in range(9)], sack=sack, dup_tsn=dup),
            "hop_trace": hop}


def _queue(v: dict) -> dict:
    q = v["queue"]
    return {"queue_trace": QueueTrace(q[:, 0], q[:, 1].astype(np.int64), q[:, 2].astype(np.int64), q[:, 3])}


def _sojourn(v: dict) -> dict:
    j = v["soj"]
    return {"sojourn_trace": SojournTrace(j[:, 0], j[:, 1].astype(np.int64), j[:, 2].astype(np.int64), j[:, 3],
                                          j[:, 4] > 0.5)}


# how each trace field is made from ``trace_views``' dict (fields made together share one function)
TRACE_GROUPS = {_tcp: ("tcp_trace",), _packets: ("packet_trace", "hop_trace"), _queue: ("queue_trace",),
                _sojourn: ("sojourn_trace",)}
TRACE_FIELDS = tuple(name for names in TRACE_GROUPS.values() for name in names)


def all_traces(views: dict | None) -> dict:
    """Every trace field of a run (None for each if ``views`` is None: the run was not traced)."""
    if views is None:
        return dict.fromkeys(TRACE_FIELDS)
    out = {}
    for make in TRACE_GROUPS:
        out.update(make(views))
    return out
