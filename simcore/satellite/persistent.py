"""Beyond the paper: persistent HTTP/1.1 connections from the NZ proxy (base architecture only).

The paper simulated HTTP/1.0 (a new connection per request; sec. 4.4, "HTTP 1.1 is not simulated"). With
HTTP/1.1 the NZ proxy keeps its connection to a server open and sends that server's next request on it.
That needs to know which server a request goes to, which the workload does not (the NZIX trace had it).

Server identity: request ``i`` goes to server ``k`` in ``[0, n_servers)`` with probability proportional to
``(k + 1) ** -server_zipf_alpha``: a Zipf-like popularity, as proxy traces of the era showed for documents
(Breslau, Cao, Fan, Phillips & Shenker, "Web caching and Zipf-like distributions", INFOCOM 1999: exponent
0.64-0.83 across six proxy traces) and for servers (Cunha, Bestavros & Crovella, BU-CS-95-010, 1995). The
draw comes from the run's generator after the workload's (the HTTP/1.0 draws are unchanged), one per
request in time order. A server keeps the MSS, window, US delay and release rate of its first request.
The 20 sample pages go to one more server of their own (their modal server), so after the first one they
find a connection already open.

Connections: a request reuses a connection to its server whose previous request is over by the same
generous estimate as the slots' (``slot_slack`` x a nominal duration + 1 s), else the proxy opens a new one
(as a proxy does when every connection to that server is busy; RFC 2616 sec. 8.1.4 lets a proxy hold up to
2N connections to a server for N users). No pipelining: a request is written at its time or when the
previous reply on its connection has arrived, whichever is later. Connections never close during the run
(servers' idle time-outs are not modelled); each has a server slot of its own with the server's rate.
"""

from __future__ import annotations

import numpy as np

from simcore.packet import BulkScenario, LinkParams

from ._slots import assign
from .network import NZ
from .tcp import era_tcp

__all__ = ["as_servers", "server_ids", "persistent_columns"]


def as_servers(w, server: np.ndarray):
    """Return the requests ``w`` with each one's MSS, window, US delay and release rate replaced by those
    of its server's first request (by time)."""
    order = np.argsort(w.time_s, kind="stable")
    first = np.full(int(server.max()) + 1, -1, np.int64)
    first[server[order[::-1]]] = order[::-1]
    lead = first[server]
    keep = ("server_mss_bytes", "server_window_bytes", "us_delay_s", "release_rate_bps")
    return type(w)(**{k: (v[lead] if k in keep else v) for k, v in w.__dict__.items()})


def server_ids(n: int, n_servers: int, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """Return ``n`` server ids drawn from the Zipf-like popularity ``(k + 1) ** -alpha`` on ``[0, n_servers)``."""
    w = np.arange(1, n_servers + 1, dtype=np.float64) ** -alpha
    return rng.choice(n_servers, size=n, p=w / w.sum()).astype(np.int64)


def persistent_columns(p, w, server: np.ndarray, free_after: np.ndarray, classes: tuple, slot_queue_packets: int,
                       make_net) -> tuple:
    """Return (slot per request, slot links, BulkScenario, plan columns) of the HTTP/1.1 base architecture.

    ``server``: each request's server; ``free_after``: when its connection is (by estimate) free again;
    ``classes``: (rate class, rate centres, delay class, delay centres) per request; ``make_net(links)``
    builds the network from the slot links."""
    n = len(w)
    order = np.argsort(w.time_s, kind="stable").astype(np.int64)
    rank = np.empty(n, np.int64)
    rank[order] = np.arange(n)
    first = np.full(int(server.max()) + 1 if n else 1, -1, np.int64)  # each server's first request (by time)
    first[server[order[::-1]]] = order[::-1]
    conn, conn_server = assign(order, server, w.time_s.astype(np.float64), free_after, int(first.size))
    r_idx, r_val, d_idx, d_val = classes
    conn_lead = first[conn_server]
    links = [LinkParams(rate_bps=float(r_val[r_idx[i]]), delay_s=float(d_val[d_idx[i]]),
                        queue_packets=slot_queue_packets) for i in conn_lead.tolist()]
    mss = w.server_mss_bytes.astype(np.int64)[conn_lead]
    rwnd = np.maximum(mss, np.minimum(w.server_window_bytes.astype(np.int64)[conn_lead], p.proxy_window_bytes))
    pairs, which = np.unique(mss << 32 | rwnd, return_inverse=True)
    tcps = tuple(era_tcp(int(k >> 32), int(k & 0xFFFFFFFF), p.tcp_preset) for k in pairs.tolist())
    nconn = len(links)
    t = w.time_s.astype(np.float64)
    opened = np.full(nconn, np.inf)
    np.minimum.at(opened, conn, t)
    # messages in time order: request at rank r is message 2r, its reply 2r + 1; the request waits for the
    # previous reply on its connection (no pipelining)
    prev = np.full(n, -1, np.int64)
    by_conn = order[np.argsort(conn[order], kind="stable")]  # requests grouped by connection, in time order
    same = conn[by_conn[1:]] == conn[by_conn[:-1]]
    prev[by_conn[1:][same]] = 2 * rank[by_conn[:-1][same]] + 1
    o = order
    two = lambda a, b: np.stack([a, b], axis=1).reshape(-1)  # noqa: E731 (request, reply) per rank
    sc = BulkScenario(
        make_net(links), tcps, conn_client=np.full(nconn, NZ), conn_server=2 + np.arange(nconn),
        conn_tcp=which.reshape(-1).astype(np.int64), conn_open_time_s=opened, conn_open_after=np.full(nconn, -1),
        conn_closer=np.full(nconn, -1), msg_conn=np.repeat(conn[o], 2), msg_pool=np.full(2 * n, -1),
        msg_sender=np.tile([0, 1], n), msg_size_bytes=two(w.request_bytes[o], w.reply_bytes[o]),
        msg_start_s=two(t[o], np.zeros(n)), msg_after=two(prev[o], 2 * np.arange(n)),
        msg_delay_s=np.zeros(2 * n), msg_relay_of=np.full(2 * n, -1), duration_s=p.duration_s)
    return conn, links, sc, (2 * rank, 2 * rank + 1, conn, np.full(n, -1, np.int64))
