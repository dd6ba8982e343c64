"""``simulate(scenario, seed, trace)``: run the packet kernel and return a frozen ``PacketResult``.

Random draws (documented order): one uint64 seed per link, in link order, from ``make_generator(seed)``;
each link then draws its Bernoulli losses from its own splitmix64 stream inside the kernel, so a link's
losses do not depend on the traffic of other links. The TCP initial sequence numbers that captures show
(``PacketResult.tcp_isn``), then the per-host offsets of their RFC 7323 timestamp clocks
(``PacketResult.tcp_ts_offset``), come from a generator seeded with those link seeds (no further draw from
``seed``). Nothing else is random.
"""

from __future__ import annotations

import math

import numpy as np

from simcore._validate import MEMORY_BUDGET_BYTES, check_bool
from simcore.engine import heap_new
from simcore.rng import SeedLike, make_generator

from . import build_cache
from ._numba.fixes import compile_fixes
from .bulk import BulkScenario
from .halves import by_connection as _by_connection
from .halves import nan_before_zero as _nan_before_zero
from .kernel import layout as L
from .kernel.batch import SINGLE
from .kernel.loop import run
from .kernel.qdisc import dispatch as Q
from .lazy_result import capture_numbers, lazy_result, traced_result
from .params import CONGESTION_CONTROLS, POOL_RULES, RECOVERIES, TIMEOUT_SSTHRESH, TIMESTAMP_OPTION_BYTES, Scenario
from .results import HopTrace, PacketResult, PacketTrace, QueueTrace, SojournTrace, TcpTrace
from .sctp_params import SctpParams
from .tcp.cc import registry as cc_registry
from .trace_result import TRACE_FIELDS, all_traces, trace_views

__all__ = ["PacketResult", "TcpTrace", "PacketTrace", "QueueTrace", "HopTrace", "SojournTrace", "simulate",
           "run_to_end"]


def _sizes(sc: Scenario | BulkScenario) -> tuple[int, int, int]:
    """Return the numbers of connections, messages and CBR sources of a scenario of either kind."""
    if isinstance(sc, BulkScenario):
        return sc.n_connections, sc.n_messages, 0
    return len(sc.connections), len(sc.messages), len(sc.cbr)


def _paths(sc: Scenario | BulkScenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (path_ptr, path_links, route_of): route ``u`` is the path ``path_links[path_ptr[u]:path_ptr[u + 1]]``,
    one per distinct (src, dst); ``route_of`` gives the route of each half ``2 * cid + d``, then of each CBR source.
    The tables are small (chapter 2: ~12.5k routes for 0.55 M halves), so they stay in the caches."""
    net = sc.network
    if isinstance(sc, BulkScenario):
        ends = np.empty((2 * sc.n_connections, 2), np.int64)
        ends[0::2, 0] = ends[1::2, 1] = sc.conn_client
        ends[0::2, 1] = ends[1::2, 0] = sc.conn_server
    else:
        ends = np.array([e for c in sc.connections for e in ((c.client, c.server), (c.server, c.client))]
                        + [(s.src, s.dst) for s in sc.cbr], np.int64).reshape(-1, 2)
    if ends.shape[0] == 0:
        return np.zeros(1, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64)
    uniq, which = np.unique(ends[:, 0] * net.n_nodes + ends[:, 1], return_inverse=True)
    routes = [net.route(a // net.n_nodes, a % net.n_nodes) for a in uniq.tolist()]
    path_ptr = np.zeros(len(routes) + 1, np.int64)
    path_ptr[1:] = np.cumsum([len(r) for r in routes])
    return path_ptr, np.array([i for r in routes for i in r] or [0], np.int64), which.reshape(-1).astype(np.int64)


def _seg_cap(sc: Scenario | BulkScenario) -> int:
    """Return the scoreboard ring width: two windows of segments (plus slack) of the widest connection."""
    seg_cap = 64
    if isinstance(sc, BulkScenario):
        for k in np.unique(sc.conn_tcp):
            tp = sc.tcps[k]
            seg_cap = max(seg_cap, 2 * math.ceil(tp.rwnd_bytes / tp.segment_bytes) + 8)
        return seg_cap
    for c in sc.connections:
        if c.transport == "sctp":
            seg_cap = max(seg_cap, 2 * math.ceil(c.sctp.rwnd_bytes / c.sctp.max_payload_bytes) + 8)
        else:
            seg_cap = max(seg_cap, 2 * math.ceil(c.tcp.rwnd_bytes / c.tcp.segment_bytes) + 8)
    return seg_cap


def _message_columns(sc: Scenario | BulkScenario) -> dict:
    """Return the messages' columns (conn, pool, dir, size, stream, relay_of, start, delay, after)."""
    if isinstance(sc, BulkScenario):
        return dict(conn=sc.msg_conn, pool=sc.msg_pool, dir=sc.msg_sender, size=sc.msg_size_bytes,
                    stream=np.zeros(sc.n_messages, np.int64), relay_of=sc.msg_relay_of, start=sc.msg_start_s,
                    delay=sc.msg_delay_s, after=sc.msg_after)
    msgs = sc.messages
    return dict(conn=[-1 if m.pool >= 0 else m.conn for m in msgs], pool=[m.pool for m in msgs],
                dir=[0 if m.sender == "client" else 1 for m in msgs],
                size=[-1 if m.size_bytes is None else m.size_bytes for m in msgs], stream=[m.stream for m in msgs],
                relay_of=np.array([m.relay_of for m in msgs], np.int64), start=[m.start_time_s for m in msgs],
                delay=[m.delay_after_s for m in msgs], after=np.array([m.after_message for m in msgs], np.int64))


def _first_events(sc: Scenario | BulkScenario) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (time, kind, arg) of the events known before the run, in numbering order: the connections
    opening at a time, then the messages written at a time, then the CBR sources."""
    if isinstance(sc, BulkScenario):
        oc = np.flatnonzero(sc.conn_open_after < 0)
        wm = np.flatnonzero(sc.msg_after < 0)
        return (np.r_[sc.conn_open_time_s[oc], sc.msg_start_s[wm]],
                np.r_[np.full(oc.size, L.EV_OPEN, np.int64), np.full(wm.size, L.EV_WRITE, np.int64)],
                np.r_[oc, wm].astype(np.int64))
    first = [(c.open_time_s, L.EV_OPEN, i) for i, c in enumerate(sc.connections) if c.open_after_message < 0]
    first += [(m.start_time_s, L.EV_WRITE, k) for k, m in enumerate(sc.messages) if m.after_message < 0]
    first += [(s.start_s, L.EV_CBR, k) for k, s in enumerate(sc.cbr)]
    return (np.array([e[0] for e in first], np.float64), np.array([e[1] for e in first], np.int64),
            np.array([e[2] for e in first], np.int64))


def _build(sc: Scenario | BulkScenario, seed_vals: np.ndarray, trace: bool, caps: dict) -> tuple:
    """Return ``(S, pool, heap_cap)``: the kernel's state for ``sc``, its packet-pool rows and heap capacity
    (events), sized from the scenario and from ``caps`` (the sizes a previous overflowing run asked for)."""
    bulk = isinstance(sc, BulkScenario)
    nc, nm, ncb = _sizes(sc)
    nh = 2 * nc

    path_ptr, path_links, route_of = _paths(sc)
    seg_cap = _seg_cap(sc)
    ooo_cap = seg_cap // 2 + 2

    # Connection slots (kernel/slot.py): the kernel's half and connection rows are taken when a connection is first
    # needed and given back when it is done, so their tables grow (run_to_end) with the connections alive at
    # once, not with all of them (half rows are 512 bytes; ~0.3 GB for every connection at chapter 2's
    # highest load). np.zeros maps pages lazily: rows never taken cost nothing.
    conn_par, conn_id = _bulk_connection_rows(sc) if bulk else _connection_rows(sc)
    slots = max(nc if caps.get("slots_full") else min(nc, caps.get("first_slots", _first_rows(_FIRST_SLOTS, nc))), 1)
    half = L.records(2 * slots, L.HALF)
    conn = L.records(slots, L.CONN)
    cc = L.records(2 * slots if _needs_cc_rows(conn_par) else 1, cc_registry.STATE)
    rate_samples = _needs_rate_rows(conn_par)
    if rate_samples:  # each connection's own stream for its congestion control (BBR's gain cycle): from the link seeds
        # (as the capture's sequence numbers), so no draw from ``seed`` and nothing else changes
        conn_par["cc_seed"] = cc_seeds(seed_vals, conn_par.shape[0])

    if nc:
        conn_id["rt"] = route_of[:nh].reshape(nc, 2)
    qdisc, qd_of, qd_rows, fq_rows = Q.build([lk.params for lk in sc.network.links])
    link, fluid, drops, ring, pool = _link_rows(sc, path_ptr, path_links, route_of, nh, 2 * seg_cap + 8, caps,
                                                qdisc >= Q.Q_CODEL)
    link["qdisc"] = qdisc
    link["qd"] = qd_of

    blank = L.records(1, L.MSG)
    for f in ("start", "delay", "write", "done"):
        blank[f] = np.nan
    blank["next"] = -1
    blank["ssn"] = -1
    blank["relay_to"] = -1
    msg = np.repeat(blank, max(nm, 1))
    cols = _message_columns(sc)
    after = cols.pop("after")
    relay_of = cols["relay_of"]
    if nm:
        for f, v in cols.items():
            msg[f][:nm] = v
    msg["relay_to"][relay_of[relay_of >= 0]] = np.flatnonzero(relay_of >= 0)
    open_after = sc.conn_open_after if bulk else np.array([c.open_after_message for c in sc.connections], np.int64)

    def csr(parent):
        """Return (ptr, children) listing, for every message k, the indices i with parent[i] == k."""
        has = np.flatnonzero(parent >= 0)
        order = has[np.argsort(parent[has], kind="stable")]
        ptr = np.zeros(max(nm, 1) + 1, np.int64)
        ptr[1:nm + 1] = np.cumsum(np.bincount(parent[has], minlength=nm)) if nm else []
        return ptr, (order.astype(np.int64) if order.size else np.zeros(1, np.int64))

    npo = len(sc.pools)
    pools = L.records(max(npo, 1), L.POOL)
    po_conn: list[int] = []
    for k, p in enumerate(sc.pools):
        pools[k]["p0"] = len(po_conn)
        po_conn += list(p.conns)
        pools[k]["p1"] = len(po_conn)
        pools[k]["rule"] = POOL_RULES.index(p.rule)
    if po_conn:
        conn_id["pooled"][po_conn] = 1

    dep_ptr, dep_msg = csr(after)
    cdep_ptr, cdep_conn = csr(open_after)

    cbr = L.records(max(ncb, 1), L.CBR)
    cb_t: list[float] = []
    cb_r: list[float] = []
    n_cbr_expected = 0
    for k, s in enumerate(() if bulk else sc.cbr):
        cbr[k]["path"] = route_of[nh + k]
        cbr[k]["size"] = s.packet_bytes
        cbr[k]["p0"] = cbr[k]["ptr"] = len(cb_t)
        cb_t += list(s.times_s)
        cb_r += list(s.rates_bps)
        cbr[k]["p1"] = len(cb_t)
        cbr[k]["start"] = s.start_s
        cbr[k]["stop"] = s.stop_s
        span = min(s.stop_s, sc.duration_s) - s.start_s
        expected = int(max(span, 0.0) * max(s.rates_bps) / 8.0 / s.packet_bytes) + len(s.times_s) + 2
        n_cbr_expected += expected
        if expected * _CBR_RECORD_BYTES > MEMORY_BUDGET_BYTES:  # the run records every CBR packet it sends
            raise ValueError(f"cbr[{k}] sends up to {expected:,} packets of {s.packet_bytes} bytes at "
                             f"{max(s.rates_bps):g} bit/s in duration_s={sc.duration_s:g}: their record needs "
                             f"{expected * _CBR_RECORD_BYTES / 2**30:.1f} GiB ({_CBR_RECORD_BYTES} bytes a packet, at "
                             "most 1 GiB): lower rates_bps, raise packet_bytes or shorten the run")

    # Events in the heap at once: packets on the wires (at most the pool), a retransmission timer or
    # two per half, delayed-ACK timers (stale ones wait for their time: more with delayed ACKs), the
    # writes and opens not yet due, the CBR sources. A full heap aborts the run, which is redone larger.
    n_delack = int(conn_par["delack"][conn_id["par"]].sum()) if nc else 0
    heap_cap = max(pool + 4 * nh + 128 * n_delack + nm + nc + ncb + 64, caps.get("heap", 0))
    ht, hs, hk, ha, hm = heap_new(heap_cap)
    known_t, known_k, known_a = _known_events(*_first_events(sc))
    hm[1] = known_t.shape[0]  # the heap numbers its events after the known ones

    # Scoreboard and out-of-order rows are taken when a half opens and given back when it is done, so
    # their tables grow (run_to_end) with the halves open at once, not with all the connections.
    rows = nh if caps.get("rows_full") else min(nh, caps.get("first_rows", _first_rows(_FIRST_ROWS, nh)))
    st = L.records(1, L.STATUS)
    st["seg_free"] = rows
    st["ooo_free"] = rows
    st["trace"] = int(trace)
    st["t_end"] = sc.duration_s
    st["has_relays"] = int((relay_of >= 0).any())
    st["n_known"] = known_t.shape[0]
    st["slot_free"] = slots
    st["n_halves"] = nh
    # Slots are given back only when the first table cannot hold every connection (slots_full: one per connection):
    # in smaller scenarios there is no memory to save, and the packets in flight are not counted (kernel.link,
    # kernel.slot)
    st["recycle"] = int(slots < nc)
    # Prefetching rows (kernel.loop._hint_next) pays where they no longer fit in the caches (chapter 2's highest load:
    # ~8k connections alive among 275k) and costs ~5-10 % where they do (the 10-flow reference dumbbell).
    st["hint"] = int(caps.get("hint", nc >= _HINT_CONNECTIONS))
    # np.zeros maps its pages lazily: a generous first guess costs only the rows written, while a trace that
    # overflows costs a whole second run. Each trace has its own size (a run writes ~1.5 queue samples and
    # ~0.13 cwnd samples per packet record): the first guesses hold 4 bulk flows at 100 Mbit/s for 20 s
    # (the primer's largest setting at its default length: 0.71 M packet records).
    tr_pkt_rows = caps.get("trace_pkt", 1 << 20) if trace else 1
    tr_tcp_rows = caps.get("trace_tcp", 1 << 18) if trace else 1
    tr_queue_rows = caps.get("trace_queue", 3 << 19) if trace else 1
    tr_soj_rows = caps.get("trace_soj", 1 << 20) if trace else 1
    S = L.State(
        half=half, conn=conn, cc=cc, seg=L.records((rows, seg_cap), L.SEG), ooo=L.records((rows, ooo_cap), L.OOO),
        rate=L.records((rows, seg_cap) if rate_samples else (1, 1), L.RATE),
        seg_free=np.arange(rows - 1, -1, -1, dtype=np.int64), ooo_free=np.arange(rows - 1, -1, -1, dtype=np.int64),
        slot_free=np.arange(slots - 1, -1, -1, dtype=np.int64), half_tpl=_half_template(), conn_par=conn_par,
        conn_id=conn_id if nc else L.records(1, L.CONN_ID), half_out=L.records(max(nh, 1), L.HALF_OUT),
        pkt=L.records(pool, L.PKT), pkt_free=np.zeros(pool, np.int64), st=st,
        link=link, ring=ring, rng=seed_vals.copy(), fluid=fluid, drops=np.array(drops or [-1], np.int64),
        path_ptr=path_ptr, path_links=path_links, qd=qd_rows, fq=fq_rows,
        msg=msg, dep_ptr=dep_ptr, dep_msg=dep_msg, cdep_ptr=cdep_ptr, cdep_conn=cdep_conn,
        pool=pools, pool_conn=np.array(po_conn or [0], np.int64),
        ssn_next=np.zeros((nh if (conn_par["proto"] == L.PROTO_SCTP).any() else 1, int(msg["stream"].max()) + 1),
                          np.int64),
        cbr=cbr, cbr_sched=_pieces(cb_t, cb_r), cbr_rec=np.zeros((max(n_cbr_expected, caps.get("cbr", 0), 1), 3)),
        tr_pkt=np.zeros((tr_pkt_rows, L.TRP_N)), tr_tcp=np.zeros((tr_tcp_rows, 9)),
        tr_queue=np.zeros((tr_queue_rows, 4)), tr_soj=np.zeros((tr_soj_rows, 5)),
        heap_t=ht, heap_s=hs, heap_k=hk, heap_a=ha, heap_m=hm,
        lane=np.zeros((L.N_LANES, min(_LANE_WIDTH, pool + 4 * nh + 64)), L.LANE), laneq=_empty_lanes(),
        known_t=_at_least_one(known_t), known_k=_at_least_one(known_k), known_a=_at_least_one(known_a),
        **SINGLE,
    )
    return S, pool, heap_cap


def cc_seeds(seed_vals: np.ndarray, n: int) -> np.ndarray:
    """Return the ``n`` parameter rows' streams for their congestion control (``conn.cc_seed``), drawn from the
    links' seeds ``seed_vals`` (``build_cache`` redraws them for each run of a kept scenario)."""
    return np.random.default_rng([0xBB2, *seed_vals]).integers(0, 2**62, size=n, dtype=np.int64)


def _needs_cc_rows(conn_par: np.ndarray) -> bool:
    """True if a TCP connection of the scenario uses a congestion control with state of its own (``S.cc`` then
    has a row per half slot; else one row that nothing reads)."""
    tcp = conn_par["proto"] == L.PROTO_TCP
    return any(cc_registry.stateful(CONGESTION_CONTROLS[k]) for k in np.unique(conn_par["cc"][tcp]))


def _needs_rate_rows(conn_par: np.ndarray) -> bool:
    """True if a TCP connection of the scenario uses a congestion control that samples the delivery rate (``S.rate``
    then has a record per scoreboard entry; else one that nothing reads)."""
    tcp = conn_par["proto"] == L.PROTO_TCP
    return any(cc_registry.samples_rate(CONGESTION_CONTROLS[k]) for k in np.unique(conn_par["cc"][tcp]))


def _half_template() -> np.ndarray:
    """Return the row a half starts with (one ``L.HALF`` record; its ``rto`` is set per connection): a new copy
    of its bytes, made once (setting its 18 fields cost more than the rest of a small scenario's half rows)."""
    if not _HALF_TEMPLATE:
        _HALF_TEMPLATE.append(_new_half_template().tobytes())
    return np.ndarray((1,), L.HALF, bytearray(_HALF_TEMPLATE[0]))


_HALF_TEMPLATE: list[bytes] = []


def _new_half_template() -> np.ndarray:
    """Make the row a half starts with (``_half_template`` keeps its bytes)."""
    blank = L.records(1, L.HALF)
    for f in ("fin_seq", "rtt_seq", "msg_head", "msg_tail", "rcv_fin", "seg_row", "ooo_row", "avail_m"):
        blank[f] = -1
    blank["write_end"] = 1
    blank["stream_end"] = 1
    blank["srtt"] = -1.0
    blank["rto_deadline"] = np.inf
    blank["giveup_t"] = np.inf
    blank["last_send"] = -np.inf
    for f in ("est_t", "fin_acked_t", "fin_rcvd_t", "abort_t"):
        blank[f] = np.nan
    return blank


def _empty_lanes() -> np.ndarray:
    """Return the lanes' heads and counts (``kernel.lane``), every lane empty."""
    lq = L.records(L.N_LANES, L.LANEQ)
    lq["t_first"] = np.inf
    return lq


def _pieces(times: list[float], rates: list[float]) -> np.ndarray:
    """Return a piecewise-constant profile as a ``L.PIECE`` record array (one zero piece if empty)."""
    out = np.zeros(max(len(times), 1), L.PIECE)
    if times:
        out["t"] = times
        out["rate"] = rates
    return out



_ROW_TABLES = (("seg", "seg_free"), ("ooo", "ooo_free"))  # (table, its free list and status counter)
# Rows of each per-half table at the start, and the factor it grows by: np.zeros maps pages lazily, so rows
# never taken cost nothing, while each growth copies the table (at chapter 2's highest load, doubling from
# 256 rows paused the run 12 times and copied ~0.25 GB).
_FIRST_ROWS = 4096
_ROW_GROWTH = 4
_HINT_CONNECTIONS = 20_000  # scenarios with at least this many connections prefetch rows (kernel.loop._hint_next)
_FIRST_SLOTS = 4096  # connection slots (kernel/slot.py) at the start; they grow by _ROW_GROWTH too
_FIRST_SHARE = 16  # ... or a 16th of the rows the table can need, if more: chapter 2's highest load (275k
# connections, ~8k alive at once) then never grows: each growth copied the table (~40 MB) into pages touched
# for the first time, which cost more than the copy (~2 ms per MB on the virtual machine we measure on)
_LANE_WIDTH = 1 << 14  # events a lane holds at most (more go to the heap): a lane's ring is written all round


def _first_rows(first: int, n: int) -> int:
    """Return the rows a table that can need ``n`` starts with: ``first``, or ``n / _FIRST_SHARE`` if more
    (the rows are taken lowest first, so the pages of rows never taken are never touched)."""
    return max(first, n // _FIRST_SHARE)


def _grow(rows: np.ndarray, new: int) -> np.ndarray:
    """Return ``rows`` (a table of rows) grown to ``new`` rows, the new ones zero (mapped when first written)."""
    grown = L.records((new,) + rows.shape[1:], rows.dtype)
    grown[:rows.shape[0]] = rows
    return grown


def _free_list(old: int, new: int) -> np.ndarray:
    """Return the free list of a table grown from ``old`` to ``new`` rows: the lowest new row is taken first."""
    free = np.zeros(new, np.int64)
    free[:new - old] = np.arange(new - 1, old - 1, -1)
    return free


_compiled = False  # True once ``run`` has compiled (or loaded its cache)


def _set_compiled() -> None:
    global _compiled
    _compiled = True


def run_kernel(S: L.State) -> None:
    """One call of the event loop (``kernel.loop.run``) on ``S``; the first compiles the packet kernels (or loads
    them from numba's cache)."""
    if _compiled or run.signatures:  # (numba's signatures list costs ~30 us to make: asked until compiled)
        run(S)
    else:
        with compile_fixes():
            run(S)
    _set_compiled()


def run_to_end(S: L.State) -> L.State:
    """Run the kernel on ``S`` to its end, growing a per-half row table whenever it pauses for one;
    return the (possibly regrown) state."""
    while True:
        run_kernel(S)
        st = S.st
        if not st["flags"][0] & L.PAUSE_ROWS:
            return S
        nh = int(st["n_halves"][0])
        grow = {}
        for table, free_name in _ROW_TABLES:
            rows = getattr(S, table)
            old = rows.shape[0]
            if st[free_name][0] > 0 or old >= nh:
                continue
            new = min(nh, _ROW_GROWTH * old)
            grow[table] = _grow(rows, new)
            grow[free_name] = _free_list(old, new)
            if table == "seg" and S.rate.shape[0] > 1:  # delivery-rate records sit beside the scoreboard entries
                grow["rate"] = _grow(S.rate, new)
            st[free_name] = new - old
        old = S.conn.shape[0]
        if st["slot_free"][0] == 0 and old < nh // 2:
            new = min(nh // 2, _ROW_GROWTH * old)
            grow["conn"] = _grow(S.conn, new)
            grow["half"] = _grow(S.half, 2 * new)
            if S.cc.shape[0] > 1:
                grow["cc"] = _grow(S.cc, 2 * new)
            grow["slot_free"] = _free_list(old, new)
            st["slot_free"] = new - old
        st["flags"] &= ~L.PAUSE_ROWS
        S = S._replace(**grow)


def _known_events(t: np.ndarray, kind: np.ndarray, arg: np.ndarray) -> tuple:
    """Return the events (time ``t``, ``kind``, ``arg``), numbered in array order, sorted by (time, number):
    the order in which the kernel takes them (``kernel.loop.run`` merges them with the heap)."""
    order = np.lexsort((np.arange(t.shape[0]), t))
    return t[order].astype(np.float64), kind[order].astype(np.int64), arg[order].astype(np.int64)


def _at_least_one(a: np.ndarray) -> np.ndarray:
    """Return ``a``, or one zero if it is empty (the kernel reads only ``st.n_known`` of them)."""
    return a if a.shape[0] else L.records(1, a.dtype)


def _link_rows(sc: Scenario | BulkScenario, path_ptr: np.ndarray, path_links: np.ndarray, route_of: np.ndarray,
               nh: int, per_half_packets: int, caps: dict, no_ring: np.ndarray) -> tuple:
    """Return the link records, their fluid pieces, drop sequences and rings, and the packet pool size.

    A link's ring holds the packets (and fluid chunks) in its buffer, so it needs room for the queue
    limit (in packets, or the byte limit over the smallest packet), but never more than the packets
    that can be on it at once: the sum, over the connection halves whose path crosses it, of a half's
    bound ``per_half_packets`` (segments of two windows and their ACKs). Links carrying CBR packets or
    chunked fluid get the queue limit. ``caps["rings_full"]`` (set after a ring overflowed) asks for
    the queue limit everywhere. Links whose queue discipline decides at dequeue (``no_ring``) keep their
    packets in lists (``kernel.qdisc.queue``) and get no ring. The pool starts at what the wires hold plus a
    modest share of each buffer; a run that overflows it is redone with twice as many (``simulate``)."""
    links = sc.network.links
    nl = len(links)
    hdr = sc.tcpip_header_bytes
    link = L.records(nl, L.LINK)
    flu_t: list[float] = []
    flu_r: list[float] = []
    drops: list[int] = []
    if isinstance(sc, BulkScenario):
        min_wire = max(1, hdr)
    else:
        min_wire = max(1, min([hdr] + [c.header_bytes for c in sc.connections if c.header_bytes is not None]
                              + [s.packet_bytes for s in sc.cbr]))
    traffic = np.zeros(nl, np.int64)  # a route never crosses a link twice
    r_len = np.diff(path_ptr)
    halves = np.bincount(route_of[:nh], minlength=r_len.size)  # halves on each route
    np.add.at(traffic, path_links[:path_ptr[-1]], np.repeat(per_half_packets * halves, r_len))
    cbr_routes = np.zeros(r_len.size, bool)
    cbr_routes[route_of[nh:]] = True
    np.add.at(traffic, path_links[:path_ptr[-1]], np.repeat(np.where(cbr_routes, 1 << 40, 0), r_len))
    # one pass of Python per distinct LinkParams (links share them: chapter 2's ~6,000 slot links have ~140),
    # then the columns by index; fluid backgrounds and drop sequences (a few links) link by link, in order
    of: dict[int, int] = {}
    uniq: list = []  # the distinct LinkParams
    which = []
    for lk in links:
        j = of.get(id(lk.params))
        if j is None:
            j = of[id(lk.params)] = len(uniq)
            uniq.append(lk.params)
        which.append(j)
    which = np.array(which, np.int64).reshape(nl)
    col = lambda f: np.array([f(p) for p in uniq])[which]  # noqa: E731 (a column from each distinct params)
    link["qlim"] = col(lambda p: p.queue_packets)
    link["qlim_bytes"] = col(lambda p: p.queue_bytes or 0)
    link["hdr"] = col(lambda p: p.header_bytes)
    link["rate_Bps"] = col(lambda p: p.rate_bps / 8.0)
    link["prop_s"] = col(lambda p: p.delay_s)
    link["loss"] = col(lambda p: p.loss_prob)
    link["loss_arrival"] = col(lambda p: int(p.loss_where == "arrival"))
    link["spare_retx"] = col(lambda p: sum(1 << (L.PROTO_SCTP if t == "sctp" else L.PROTO_TCP)
                                           for t in p.spared_retransmissions))
    n_drops = col(lambda p: len(p.drop_sequence))
    link["drop_p1"] = np.cumsum(n_drops)
    link["drop_ptr"] = link["drop_p1"] - n_drops
    small_u = [min_wire + p.header_bytes if p.background is None or p.background.granularity != "packets"
               else min(min_wire + p.header_bytes, p.background.packet_bytes) for p in uniq]
    for i in np.flatnonzero(n_drops).tolist():
        drops += list(links[i].params.drop_sequence)
    for i in np.flatnonzero(col(lambda p: p.background is not None)).tolist():
        p = links[i].params
        bg = p.background
        link["has_fluid"][i] = 1 if bg.granularity == "continuous" else 2
        link["flu_p0"][i] = link["flu_ptr"][i] = len(flu_t)
        flu_t += list(bg.times_s)
        flu_r += [r / 8.0 for r in bg.rates_bps]
        link["flu_p1"][i] = len(flu_t)
        link["flu_pkt"][i] = bg.packet_bytes
        link["bmax"][i] = p.queue_bytes if p.queue_bytes else p.queue_packets * bg.packet_bytes
        if bg.granularity == "packets":
            traffic[i] = 1 << 40
    qlim = np.array([p.queue_packets if not p.queue_bytes else min(p.queue_packets, p.queue_bytes // sm + 1)
                     for p, sm in zip(uniq, small_u, strict=True)], np.int64)[which]
    caps_l = (qlim if caps.get("rings_full") else np.minimum(qlim, traffic)) + 1
    wire = np.array([int(p.delay_s * p.rate_bps / 8.0 / sm) + 2 for p, sm in zip(uniq, small_u, strict=True)],
                    np.int64)[which]
    pool = 64 + int(wire.sum()) + int(np.minimum(caps_l, 256).sum())
    caps_l[no_ring.astype(bool)] = 0
    link["ring_cap"] = caps_l
    # the links that hold the most packets in flight send their arrivals to lanes, not the heap (kernel/lane.py)
    link["lane"] = -1
    bdp = link["rate_Bps"] * link["prop_s"]
    big = [i for i in np.argsort(-bdp, kind="stable")[:L.N_LINK_LANES] if bdp[i] > 0.0]
    link["lane"][big] = L.LANE_LINK0 + np.arange(len(big))
    link["ring_base"] = np.cumsum(caps_l) - caps_l
    total = max(int(caps_l.sum()), 1)
    return link, _pieces(flu_t, flu_r), drops, L.records(total, L.RING), max(pool, caps.get("pool", 0))


def _tcp_fields(tcps) -> dict:
    """Return the ``L.CONN`` fields that come from each connection's ``TcpParams``, as lists."""
    return {
        "recovery": [RECOVERIES.index(tp.recovery) for tp in tcps],
        "cc": [CONGESTION_CONTROLS.index(tp.congestion_control) for tp in tcps],
        "mss": [tp.segment_bytes for tp in tcps],
        "dupthresh": [tp.dupack_threshold for tp in tcps], "limited_tx": [tp.limited_transmit for tp in tcps],
        "delack_ticks": [tp.delayed_ack_on_ticks for tp in tcps], "rwnd": [tp.rwnd_bytes for tp in tcps],
        "iw": [tp.initial_window_segments for tp in tcps], "delack": [tp.delayed_ack for tp in tcps],
        "idle_restart": [tp.restart_after_idle for tp in tcps],
        "min_rto": [tp.min_rto_s for tp in tcps], "max_rto": [tp.max_rto_s for tp in tcps],
        "init_rto": [tp.initial_rto_s for tp in tcps], "delack_s": [tp.delayed_ack_timeout_s for tp in tcps],
        "tick_s": [tp.timer_granularity_s for tp in tcps],
        "rto_ss": [TIMEOUT_SSTHRESH.index(tp.timeout_ssthresh) for tp in tcps],
        "bare_ack": [not tp.request_on_handshake_ack for tp in tcps],
        "ecn": [tp.ecn for tp in tcps],
        "init_ssthresh": [1e30 if tp.initial_ssthresh_bytes is None else tp.initial_ssthresh_bytes for tp in tcps],
        "syn_bsd": [tp.syn_backoff == "bsd" for tp in tcps],
        "keepinit": [np.inf if tp.connect_timeout_s is None else tp.connect_timeout_s for tp in tcps],
        "max_rxt": [-1 if tp.max_retransmits is None else tp.max_retransmits for tp in tcps],
        "synack_max": [-1 if tp.synack_retries is None else tp.synack_retries for tp in tcps],
    }


def _conn_ids(conn_par: np.ndarray, par: np.ndarray, client, server, closer, open_t) -> np.ndarray:
    """Return the per-connection records (``L.CONN_ID``): parameter row ``par`` and the connection's columns."""
    ids = L.records(par.shape[0], L.CONN_ID)
    ids["slot"] = -1
    ids["par"] = par
    ids["client"] = client
    ids["server"] = server
    ids["closer"] = closer
    ids["open_t"] = open_t
    ids["timewait_t"] = np.nan
    return ids


def _bulk_connection_rows(sc: BulkScenario) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(conn_par, conn_id)`` of a ``BulkScenario``: one ``L.CONN`` record of parameters per distinct
    ``TcpParams`` (the values ``_connection_rows`` writes), and the connections' own columns (``L.CONN_ID``)."""
    nc = sc.n_connections
    if nc == 0:
        return L.records(1, L.CONN), L.records(0, L.CONN_ID)
    per_tcp = _tcp_fields(sc.tcps)
    per_tcp["hdr"] = [sc.tcpip_header_bytes + (TIMESTAMP_OPTION_BYTES if tp.timestamps else 0) for tp in sc.tcps]
    rows = L.records(len(sc.tcps), L.CONN)  # one row per distinct TcpParams, gathered in one pass
    for name, vals in per_tcp.items():
        rows[name] = vals
    rows["proto"] = L.PROTO_TCP
    rows["timewait_t"] = np.nan
    ids = _conn_ids(rows, np.asarray(sc.conn_tcp, np.int64), sc.conn_client, sc.conn_server, sc.conn_closer,
                    sc.conn_open_time_s)
    own = sc.msg_pool < 0  # pooled: no closer
    np.add.at(ids["total"], (sc.msg_conn[own], sc.msg_sender[own]), 1)
    return rows, ids


def _connection_rows(sc: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """Return ``(conn_par, conn_id)``: the per-connection records (``L.CONN``), field by field, one parameter
    row per connection, and the connections' own columns (``L.CONN_ID``)."""
    conns = sc.connections
    nc = len(conns)
    conn = L.records(nc, L.CONN)
    if nc == 0:
        return L.records(1, L.CONN), L.records(0, L.CONN_ID)
    hdr = sc.tcpip_header_bytes
    closer = {"client": 0, "server": 1, "none": -1}
    fields = {
        "proto": [L.PROTO_TCP] * nc,
        "client": [c.client for c in conns], "server": [c.server for c in conns],
        **_tcp_fields([c.tcp for c in conns]),
        "closer": [closer[c.closer] for c in conns],
        "multistream": [c.multistream for c in conns],
        "hdr": [(hdr if c.header_bytes is None else c.header_bytes)
                + (TIMESTAMP_OPTION_BYTES if c.tcp.timestamps else 0) for c in conns],
        "open_t": [c.open_time_s for c in conns],
    }
    for name, vals in fields.items():
        conn[name] = vals
    for i, c in enumerate(conns):
        if c.transport == "sctp":
            _sctp_row(conn[i : i + 1], c.sctp)
    conn["timewait_t"] = np.nan
    ids = _conn_ids(conn, np.arange(nc, dtype=np.int64), conn["client"], conn["server"], conn["closer"],
                    conn["open_t"])
    own = [(m.conn, 0 if m.sender == "client" else 1) for m in sc.messages if m.pool < 0]  # pooled: no closer
    if own:
        c, d = np.array(own, np.int64).T
        np.add.at(ids["total"], (c, d), 1)
    return conn, ids


def _sctp_row(row: np.ndarray, sp: SctpParams) -> None:
    """Fill the ``L.CONN`` record of an SCTP association from its ``SctpParams`` (TCP's fields unused)."""
    vals = {
        "proto": L.PROTO_SCTP, "mss": sp.max_payload_bytes, "rwnd": sp.rwnd_bytes, "iw": sp.initial_cwnd_bytes,
        "delack": sp.delayed_sack, "delack_s": sp.sack_timeout_s, "idle_restart": sp.idle_decay,
        "multistream": 2 if sp.unordered else 1, "hdr": 32, "min_rto": sp.rto_min_s, "max_rto": sp.rto_max_s,
        "init_rto": sp.rto_initial_s, "tick_s": 0.0, "init_ssthresh": sp.rwnd_bytes,  # the peer's a_rwnd
        "mtu": sp.mtu_bytes, "max_burst": sp.max_burst, "burst_pkts": sp.max_burst_rule == "packets",
        "miss_thr": sp.miss_indications, "htna": sp.htna, "fast_rec": sp.fast_recovery,
        "ss_min": sp.ssthresh_min_mtus, "idle_min": sp.idle_cwnd_min_mtus, "sack_every": sp.sack_every_packets,
        "cookie": sp.cookie_bytes, "cookie_data": sp.cookie_echo_data, "delack_ticks": 0, "recovery": 0, "cc": 0,
        "max_init": sp.max_init_retransmits,
        "max_rxt": -1 if sp.max_retransmits is None else sp.max_retransmits,
        "syn_bsd": 0, "keepinit": np.inf, "synack_max": -1,
    }
    for name, v in vals.items():
        row[name] = v


_CBR_RECORD_BYTES = 24  # a CBR packet's record (three float64)


def _too_big(sc: Scenario | BulkScenario, exc: MemoryError) -> str:
    """Return why a scenario's tables did not fit in memory, naming what to change. Every connection direction
    open at once keeps a scoreboard row two windows wide (of the widest window in the scenario), so wide
    windows on many connections are what usually asks for too much."""
    seg_cap = _seg_cap(sc)
    tcps = sc.tcps if isinstance(sc, BulkScenario) else [c.tcp for c in sc.connections if c.transport == "tcp"]
    rate = any(cc_registry.samples_rate(tp.congestion_control) for tp in tcps)  # BBR: a rate record per entry
    row = seg_cap * (L.SEG.itemsize + (L.RATE.itemsize if rate else 0)) + (seg_cap // 2 + 2) * L.OOO.itemsize
    nh = 2 * _sizes(sc)[0]
    return (f"this scenario does not fit in memory ({exc}): each of its {nh:,} connection directions keeps, "
            f"while open, a scoreboard of {row / 2**20:,.1f} MB (two windows of {(seg_cap - 8) // 2:,} segments: "
            f"the widest rwnd_bytes over its segment size), {nh * row / 2**30:,.1f} GB if all are open at once: "
            "lower rwnd_bytes, or open fewer connections at once")


def _check_trace_memory(S: L.State, st) -> None:
    """Refuse a traced run whose traces (their exact sizes, counted by the run that overflowed) would take
    more than 1 GiB, naming what to change."""
    rows = {"packet": (int(st["n_pkttr"]), S.tr_pkt), "TCP": (int(st["n_tcptr"]), S.tr_tcp),
            "queue": (int(st["n_qtr"]), S.tr_queue), "sojourn": (int(st["n_sojtr"]), S.tr_soj)}
    need = sum((n + 1) * a.shape[1] * a.itemsize for n, a in rows.values())
    if need > MEMORY_BUDGET_BYTES:
        counts = ", ".join(f"{n:,} {what} records" for what, (n, _) in rows.items())
        raise ValueError(f"trace=True: this run's traces ({counts}) need {need / 2**30:.1f} GiB (at most 1 GiB): "
                         "run it with trace=False, or a shorter duration_s")


def simulate(scenario: Scenario, seed: SeedLike = 0, trace: bool = False) -> PacketResult:
    """Return the ``PacketResult`` of running ``scenario`` for ``scenario.duration_s`` simulated seconds.

    ``seed`` fixes the per-link loss streams (same seed => bit-identical result). ``trace=True`` also
    records the TCP, per-packet, router-hop and queue traces (slower, more memory); ``result.to_pcap`` then
    writes the run as a capture file.
    """
    if not isinstance(scenario, (Scenario, BulkScenario)):
        raise ValueError(f"scenario={scenario!r} is not allowed: must be a Scenario or a BulkScenario")
    check_bool("trace", trace)
    seed_vals = _link_seeds(seed, max(len(scenario.network.links), 1))
    caps: dict = {}
    while True:
        try:
            (S, pool, heap_cap), tpl = _built(scenario, seed_vals, trace, caps)
            S = run_to_end(S)
        except MemoryError as exc:  # the tables this scenario asks for: say which, as a refusal
            raise ValueError(_too_big(scenario, exc)) from exc
        st = S.st[0]
        flags = int(st["flags"])
        if flags == 0:
            break
        if flags & L.OVF_POOL:
            caps["pool"] = 2 * pool
        if flags & L.OVF_HEAP:
            caps["heap"] = 2 * heap_cap
        if flags & L.OVF_RING:
            caps["rings_full"] = True
        if flags & L.OVF_ROWS:
            caps["rows_full"] = True
        if flags & (L.OVF_PKTTR | L.OVF_TCPTR | L.OVF_QTR | L.OVF_SOJTR):
            _check_trace_memory(S, st)
        if flags & L.OVF_PKTTR:  # the counts went on past the capacity: the rerun's size is exact
            caps["trace_pkt"] = int(st["n_pkttr"]) + 1
        if flags & L.OVF_TCPTR:
            caps["trace_tcp"] = int(st["n_tcptr"]) + 1
        if flags & L.OVF_QTR:
            caps["trace_queue"] = int(st["n_qtr"]) + 1
        if flags & L.OVF_SOJTR:
            caps["trace_soj"] = int(st["n_sojtr"]) + 1
        if flags & L.OVF_CBR:
            caps["cbr"] = int(st["n_cbrrec"]) + 1
    if tpl is not None:  # the engine's tables go back to the template; the result is assembled when read
        S = build_cache.give_back(tpl, S)
        if not trace:
            return lazy_result(scenario, S, seed_vals, *_sizes(scenario)[:2])
    # Initial sequence numbers of captures (``PacketResult.to_pcap``): from a generator seeded with the link
    # seeds, so they take no draw from ``seed`` and change nothing else.
    # The timestamp clock offsets are drawn after the ISNs, so the ISNs are those of runs before timestamps.
    cap = capture_numbers(seed_vals, _sizes(scenario)[0], scenario.network.n_nodes)
    isn, ts_offset = cap["tcp_isn"], cap["tcp_ts_offset"]
    if trace:  # the traces are assembled when first read (``trace_result``)
        full = _result(scenario, S, isn, ts_offset, with_traces=False)
        return traced_result(full, trace_views(S, _sizes(scenario)[0]))
    return _result(scenario, S, isn, ts_offset)


_SEEDS_KEPT = 1 << 14  # (seed, links) pairs whose link seeds are kept (16 bytes a link each)
_seeds: dict = {}


def _link_seeds(seed: SeedLike, n: int) -> np.ndarray:
    """Return the links' seeds of a run with ``seed``: ``n`` draws from ``make_generator(seed)``. Those of an int
    seed are kept (read-only) and handed out again: a small run's seeding costs a fifth of its kernel time."""
    key = (seed, n) if type(seed) is int else None
    vals = _seeds.get(key) if key is not None else None
    if vals is None:
        vals = make_generator(seed).integers(0, 2**64, size=n, dtype=np.uint64, endpoint=False)
        if key is not None:
            vals.flags.writeable = False
            if len(_seeds) >= _SEEDS_KEPT:
                _seeds.clear()
            _seeds[key] = vals
    return vals


def _built(sc: Scenario | BulkScenario, seed_vals: np.ndarray, trace: bool, caps: dict) -> tuple:
    """Return (``_build(sc, seed_vals, trace, caps)``, the ``build_cache`` template it comes from or is kept as, or
    None: a state too big to keep, or a retry): for a first try, from the template of this scenario if there is one
    (else built, and kept if small)."""
    if caps:
        return _build(sc, seed_vals, trace, caps), None
    out = build_cache.borrow(sc, trace, seed_vals)
    if out is not None:
        return out[:3], out[3]
    out = _build(sc, seed_vals, trace, caps)
    return out, build_cache.remember(sc, trace, *out)


def _result(sc: Scenario | BulkScenario, S: L.State, isn: np.ndarray, ts_offset: np.ndarray | None = None,
            with_traces: bool = True) -> PacketResult:
    """The run ``S``'s result, every field computed now (the traces only ``with_traces``: else None)."""
    nc, nm, ncb = _sizes(sc)
    half, timewait = _by_connection(S, nc)
    link, st = S.link, S.st[0]
    T = sc.duration_s
    def per_half(a):
        return a.reshape(nc, 2) if nc else np.zeros((0, 2), a.dtype)

    rn = half["rcv_nxt"]
    delivered = np.maximum(rn - 1 - half["fin_rcvd"], 0) * (half["rcv_started"] == 1)
    msg = S.msg[:nm]
    fin_acked = per_half(half["fin_acked_t"])
    closed = np.where(np.isnan(fin_acked).any(axis=1), np.nan, np.nanmax(fin_acked, axis=1, initial=-np.inf)) \
        if nc else np.zeros(0)
    rec = S.cbr_rec[: st["n_cbrrec"]]
    rate_Bps = link["rate_Bps"]
    traces = all_traces(trace_views(S, nc)) if with_traces else dict.fromkeys(TRACE_FIELDS)
    return PacketResult(
        duration_s=T,
        events=int(st["events"]),
        delivered_bytes=per_half(delivered),
        goodput_bps=per_half(delivered * 8.0 / T),
        segments_sent=per_half(half["n_segs"]),
        retransmits=per_half(half["n_retx"]),
        timeouts=per_half(half["n_timeout"]),
        fast_retransmits=per_half(half["n_fretx"]),
        cwnd_bytes=per_half(half["cwnd"]),
        ssthresh_bytes=per_half(half["ssthresh"]),
        srtt_s=per_half(_nan_before_zero(half["srtt"])),
        rto_s=per_half(half["rto"]),
        established_s=half["est_t"][0::2].copy(),
        timewait_s=timewait,
        closed_s=closed,
        aborted_s=np.fmin(half["abort_t"][0::2], half["abort_t"][1::2]),
        message_write_s=msg["write"].copy(),
        message_done_s=msg["done"].copy(),
        message_latency_s=msg["done"] - msg["write"],
        message_conn=msg["conn"].copy(),
        message_ssn=msg["ssn"].copy(),
        link_packets=link["n_tx"].copy(),
        link_bytes=link["bytes_tx"].copy(),
        link_drops_queue=link["n_drop_q"].copy(),
        link_drops_loss=link["n_drop_l"].copy(),
        link_utilization=link["bytes_tx"] / (rate_Bps * T),
        fluid_offered_bytes=link["flu_in"].copy(),
        fluid_dropped_bytes=link["flu_drop"].copy(),
        cbr_sent=S.cbr["sent"][:ncb].copy(),
        cbr_received=S.cbr["rcvd"][:ncb].copy(),
        cbr_source=rec[:, 0].astype(np.int64),
        cbr_send_time_s=rec[:, 1].copy(),
        cbr_delay_s=rec[:, 2].copy(),
        packets_created=int(st["created"]),
        packets_delivered=int(st["delivered"]),
        packets_dropped_queue=int(st["drop_q"]),
        packets_dropped_loss=int(st["drop_l"]),
        packets_in_flight=int(st["pkt_hw"] - st["free_n"]),
        link_queue_samples=link["q_n"].copy(),
        link_queue_mean_bytes=link["q_sum"] / np.maximum(link["q_n"], 1),
        link_queue_peak_bytes=link["q_peak"].copy(),
        scenario=sc,
        tcp_isn=isn,
        tcp_ts_offset=np.zeros(sc.network.n_nodes, np.uint64) if ts_offset is None else ts_offset,
        link_drops_aqm=link["n_drop_aqm"].copy(),
        link_marks=link["n_mark"].copy(),
        link_sojourn_packets=link["soj_n"].copy(),
        link_sojourn_mean_s=link["soj_sum"] / np.maximum(link["soj_n"], 1),
        link_sojourn_max_s=link["soj_max"].copy(),
        ecn_reductions=per_half(half["n_ecn"]),
        **traces,
    )
