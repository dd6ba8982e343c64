"""Numba kernel: an exact discrete-event simulation of the report's ideal HTTP world.

Two one-way links (client->server, server->client). A packet of ``b`` bytes handed to a link at time
``t`` starts transmission at ``max(t, link_free)``, occupies the link for ``b * trans_ms_per_byte`` ms and
arrives ``prop_ms`` after its last bit left. Every arrival is one event on simcore.engine's heap.

The client works through a list of connections; each connection carries a list of objects:

- if the connection needs a handshake the client sends SYN, the server answers ACK;
- then the client sends the GETs: one by one (the next after the previous response arrived) or, with
  pipelining, all back to back; the server answers every GET as soon as it arrives (200 + data, or 304);
- after the connection's last response the client starts the next connection at once.

Packet kinds: 0 SYN, 1 ACK, 2 GET, 3 data (200 OK), 4 304 Not Modified. Times in ms.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.engine import heap_new, heap_pop, heap_push, heap_size

K_SYN = 0
K_ACK = 1
K_GET = 2

EV_AT_SERVER = 0
EV_AT_CLIENT = 1


@njit(cache=True)
def _send(t, src, kind, size, obj, conn, prop_ms, tpb, link_free, n, send_ms, tx_end_ms, arrive_ms,
          from_server, kinds, sizes, objs, conns):
    """Queue one packet on link ``src`` (0 client->server, 1 server->client); return its index."""
    start = t
    if link_free[src] > start:
        start = link_free[src]
    end = start + size * tpb
    link_free[src] = end
    send_ms[n] = start
    tx_end_ms[n] = end
    arrive_ms[n] = end + prop_ms
    from_server[n] = src == 1
    kinds[n] = kind
    sizes[n] = size
    objs[n] = obj
    conns[n] = conn
    return end + prop_ms


@njit(cache=True)
def simulate_page(conn_ptr, conn_obj, conn_hs, get_bytes, resp_bytes, resp_kind, syn_bytes, prop_ms, tpb,
                  pipelining):
    """Return ``(total_ms, send_ms, tx_end_ms, arrive_ms, from_server, kind, size, obj, conn)``.

    ``conn_ptr[c]:conn_ptr[c+1]`` indexes ``conn_obj`` (object ids) for connection ``c``;
    ``conn_hs[c]`` is 1 when connection ``c`` starts with SYN/ACK. Per object: ``get_bytes``,
    ``resp_bytes`` and ``resp_kind`` (3 data, 4 for 304).
    """
    n_conn = conn_hs.shape[0]
    n_obj_req = conn_obj.shape[0]
    n_pkts = 2 * n_obj_req
    for c in range(n_conn):
        n_pkts += 2 * conn_hs[c]
    send_ms = np.empty(n_pkts, np.float64)
    tx_end_ms = np.empty(n_pkts, np.float64)
    arrive_ms = np.empty(n_pkts, np.float64)
    from_server = np.empty(n_pkts, np.bool_)
    kinds = np.empty(n_pkts, np.int64)
    sizes = np.empty(n_pkts, np.float64)
    objs = np.empty(n_pkts, np.int64)
    conns = np.empty(n_pkts, np.int64)
    link_free = np.zeros(2, np.float64)

    h_t, h_s, h_k, h_a, meta = heap_new(16)
    n = 0
    total = 0.0
    if n_conn == 0:
        return (total, send_ms, tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)

    cur = 0  # current connection
    next_get = conn_ptr[0]  # next position in conn_obj to request
    received = 0  # responses received on the current connection
    t = 0.0
    # open the first connection
    if conn_hs[0] == 1:
        arr = _send(t, 0, K_SYN, syn_bytes, -1, 0, prop_ms, tpb, link_free, n, send_ms, tx_end_ms,
                    arrive_ms, from_server, kinds, sizes, objs, conns)
        h_t, h_s, h_k, h_a = heap_push(h_t, h_s, h_k, h_a, meta, arr, EV_AT_SERVER, n)
        n += 1
    else:
        stop = conn_ptr[1] if pipelining else conn_ptr[0] + 1
        while next_get < stop:
            o = conn_obj[next_get]
            arr = _send(t, 0, K_GET, get_bytes[o], o, 0, prop_ms, tpb, link_free, n, send_ms, tx_end_ms,
                        arrive_ms, from_server, kinds, sizes, objs, conns)
            h_t, h_s, h_k, h_a = heap_push(h_t, h_s, h_k, h_a, meta, arr, EV_AT_SERVER, n)
            n += 1
            next_get += 1

    while heap_size(meta) > 0:
        t, ev, p = heap_pop(h_t, h_s, h_k, h_a, meta)
        k = kinds[p]
        if ev == EV_AT_SERVER:
            if k == K_SYN:
                arr = _send(t, 1, K_ACK, syn_bytes, -1, conns[p], prop_ms, tpb, link_free, n, send_ms,
                            tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)
            else:  # a GET: answer it
                o = objs[p]
                arr = _send(t, 1, resp_kind[o], resp_bytes[o], o, conns[p], prop_ms, tpb, link_free, n,
                            send_ms, tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)
            h_t, h_s, h_k, h_a = heap_push(h_t, h_s, h_k, h_a, meta, arr, EV_AT_CLIENT, n)
            n += 1
            continue
        # at the client
        start_gets = False
        if k == K_ACK:
            start_gets = True
        else:  # a response
            received += 1
            if received == conn_ptr[cur + 1] - conn_ptr[cur]:
                # connection done: open the next one, or finish
                total = t
                cur += 1
                received = 0
                if cur == n_conn:
                    continue
                next_get = conn_ptr[cur]
                if conn_hs[cur] == 1:
                    arr = _send(t, 0, K_SYN, syn_bytes, -1, cur, prop_ms, tpb, link_free, n, send_ms,
                                tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)
                    h_t, h_s, h_k, h_a = heap_push(h_t, h_s, h_k, h_a, meta, arr, EV_AT_SERVER, n)
                    n += 1
                else:
                    start_gets = True
            elif not pipelining:
                start_gets = True
        if start_gets:
            stop = conn_ptr[cur + 1] if pipelining else next_get + 1
            while next_get < stop:
                o = conn_obj[next_get]
                arr = _send(t, 0, K_GET, get_bytes[o], o, cur, prop_ms, tpb, link_free, n, send_ms,
                            tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)
                h_t, h_s, h_k, h_a = heap_push(h_t, h_s, h_k, h_a, meta, arr, EV_AT_SERVER, n)
                n += 1
                next_get += 1
    return (total, send_ms, tx_end_ms, arrive_ms, from_server, kinds, sizes, objs, conns)
