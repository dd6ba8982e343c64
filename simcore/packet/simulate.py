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

from simcore._validate import check_bool
from simcore.engine import heap_new
from simcore.rng import SeedLike, make_generator

from . import _layout as L
from ._kernel import run
from .params import POOL_RULES, TIMESTAMP_OPTION_BYTES, VARIANTS, Scenario
from .results import HopTrace, PacketResult, PacketTrace, QueueTrace, TcpTrace

__all__ = ["PacketResult", "TcpTrace", "PacketTrace", "QueueTrace", "HopTrace", "simulate", "run_to_end"]


def _build(sc: Scenario, seed_vals: np.ndarray, trace: bool, caps: dict) -> tuple:
    net = sc.network
    nc = len(sc.connections)
    nm = len(sc.messages)
    ncb = len(sc.cbr)
    nh = 2 * nc
    hdr = sc.tcpip_header_bytes

    routes: dict[tuple[int, int], tuple[int, ...]] = {}
    ends = [e for c in sc.connections for e in ((c.client, c.server), (c.server, c.client))]
    ends += [(s.src, s.dst) for s in sc.cbr]
    paths = [routes[e] if e in routes else routes.setdefault(e, net.route(*e)) for e in ends]
    path_ptr = np.zeros(len(paths) + 1, np.int64)
    path_ptr[1:] = np.cumsum([len(p) for p in paths]) if paths else []
    path_links = np.array([i for p in paths for i in p] or [0], np.int64)

    seg_cap = 64
    for c in sc.connections:
        seg_cap = max(seg_cap, 2 * math.ceil(c.tcp.rwnd_bytes / c.tcp.segment_bytes) + 8)
    ooo_cap = seg_cap // 2 + 2

    hi = np.zeros((nh, L.HI_N), np.int64)
    hf = np.zeros((nh, L.HF_N), np.float64)
    hi[:, L.H_FIN_SEQ] = -1
    hi[:, L.H_RTT_SEQ] = -1
    hi[:, L.H_MSG_HEAD] = -1
    hi[:, L.H_MSG_TAIL] = -1
    hi[:, L.H_RCV_FIN] = -1
    hi[:, L.H_WRITE_END] = 1
    hi[:, L.H_STREAM_END] = 1
    hi[:, L.H_SEG_ROW] = -1
    hi[:, L.H_OOO_ROW] = -1
    hf[:, L.HF_SRTT] = -1.0
    hf[:, L.HF_RTO_DEADLINE] = np.inf
    hf[:, L.HF_LAST_SEND] = -np.inf
    hf[:, L.HF_EST_T] = np.nan
    hf[:, L.HF_FIN_ACKED_T] = np.nan
    hf[:, L.HF_FIN_RCVD_T] = np.nan
    cpi, cpf = _connection_rows(sc)
    hf[:, L.HF_RTO] = np.repeat(cpf[:, L.C_INIT_RTO], 2)

    li, lf, flu_t, flu_r, drops, rdep, rbytes, pool = _link_rows(sc, paths, 2 * seg_cap + 8, caps)

    mi = np.zeros((max(nm, 1), L.MI_N), np.int64)
    mf = np.full((max(nm, 1), L.MF_N), np.nan)
    msgs = sc.messages
    after = np.array([m.after_message for m in msgs], np.int64)
    relay_of = np.array([m.relay_of for m in msgs], np.int64)
    if nm:
        mi[:nm, L.M_CONN] = [-1 if m.pool >= 0 else m.conn for m in msgs]
        mi[:nm, L.M_POOL] = [m.pool for m in msgs]
        mi[:nm, L.M_DIR] = [0 if m.sender == "client" else 1 for m in msgs]
        mi[:nm, L.M_SIZE] = [-1 if m.size_bytes is None else m.size_bytes for m in msgs]
        mi[:nm, L.M_STREAM] = [m.stream for m in msgs]
        mi[:nm, L.M_RELAY_OF] = relay_of
        mf[:nm, L.MF_START] = [m.start_time_s for m in msgs]
        mf[:nm, L.MF_DELAY] = [m.delay_after_s for m in msgs]
    mi[:, L.M_NEXT] = -1
    mi[:, L.M_RELAY_TO] = -1
    mi[relay_of[relay_of >= 0], L.M_RELAY_TO] = np.flatnonzero(relay_of >= 0)
    open_after = np.array([c.open_after_message for c in sc.connections], np.int64)

    def csr(parent):
        """Return (ptr, children) listing, for every message k, the indices i with parent[i] == k."""
        has = np.flatnonzero(parent >= 0)
        order = has[np.argsort(parent[has], kind="stable")]
        ptr = np.zeros(max(nm, 1) + 1, np.int64)
        ptr[1:nm + 1] = np.cumsum(np.bincount(parent[has], minlength=nm)) if nm else []
        return ptr, (order.astype(np.int64) if order.size else np.zeros(1, np.int64))

    npo = len(sc.pools)
    poi = np.zeros((max(npo, 1), L.POOL_N), np.int64)
    po_conn: list[int] = []
    for k, p in enumerate(sc.pools):
        poi[k, L.PO_P0] = len(po_conn)
        po_conn += list(p.conns)
        poi[k, L.PO_P1] = len(po_conn)
        poi[k, L.PO_RULE] = POOL_RULES.index(p.rule)

    dep_ptr, dep_msg = csr(after)
    cdep_ptr, cdep_conn = csr(open_after)

    cbi = np.zeros((max(ncb, 1), L.CBI_N), np.int64)
    cbf = np.zeros((max(ncb, 1), L.CBF_N), np.float64)
    cb_t: list[float] = []
    cb_r: list[float] = []
    n_cbr_expected = 0
    for k, s in enumerate(sc.cbr):
        cbi[k, L.CB_PATH] = 2 * nc + k
        cbi[k, L.CB_SIZE] = s.packet_bytes
        cbi[k, L.CB_P0] = cbi[k, L.CB_PTR] = len(cb_t)
        cb_t += list(s.times_s)
        cb_r += list(s.rates_bps)
        cbi[k, L.CB_P1] = len(cb_t)
        cbf[k, L.CB_START] = s.start_s
        cbf[k, L.CB_STOP] = s.stop_s
        span = min(s.stop_s, sc.duration_s) - s.start_s
        n_cbr_expected += int(max(span, 0.0) * max(s.rates_bps) / 8.0 / s.packet_bytes) + len(s.times_s) + 2

    # Events in the heap at once: packets on the wires (at most the pool), a retransmission timer or
    # two per half, delayed-ACK timers (stale ones wait for their time: more with delayed ACKs), the
    # writes and opens not yet due, the CBR sources. A full heap aborts the run, which is redone larger.
    n_delack = int(cpi[:, L.C_DELACK].sum()) if nc else 0
    heap_cap = max(pool + 4 * nh + 128 * n_delack + nm + nc + ncb + 64, caps.get("heap", 0))
    first = [(c.open_time_s, L.EV_OPEN, i) for i, c in enumerate(sc.connections) if c.open_after_message < 0]
    first += [(m.start_time_s, L.EV_WRITE, k) for k, m in enumerate(sc.messages) if m.after_message < 0]
    first += [(s.start_s, L.EV_CBR, k) for k, s in enumerate(sc.cbr)]
    ht, hs, hk, ha, hm = _heap_of(first, heap_cap)

    # Scoreboard and out-of-order rows are taken when a half opens and given back when it is done, so
    # their tables grow (run_to_end) with the halves open at once, not with all the connections.
    rows = nh if caps.get("rows_full") else min(nh, 256)
    st = np.zeros(L.ST_N, np.int64)
    st[L.ST_FREE_N] = pool
    st[L.ST_SEG_FREE] = rows
    st[L.ST_OOO_FREE] = rows
    st[L.ST_TRACE] = int(trace)
    # np.zeros maps its pages lazily: a generous first guess costs only the rows written (a rerun costs a run)
    tr_rows = caps.get("trace", 1 << 18) if trace else 1
    X = (
        hi, hf,
        np.zeros((rows, seg_cap), np.int64), np.zeros((rows, seg_cap), np.int64),
        np.zeros((rows, seg_cap), np.int64), np.zeros((rows, seg_cap), np.int64),
        np.zeros((rows, ooo_cap), np.int64), np.zeros((rows, ooo_cap), np.int64),
        np.zeros((rows, ooo_cap), np.int64),
        cpi, cpf,
        np.zeros((pool, L.PI_N), np.int64), np.zeros((pool, L.PF_N), np.float64),
        np.arange(pool, dtype=np.int64)[::-1].copy(), st,
        li, lf, rdep, rbytes,
        seed_vals.copy(), np.array(flu_t or [0.0]), np.array(flu_r or [0.0]),
        path_ptr, path_links, mi, mf, dep_ptr, dep_msg, cdep_ptr, cdep_conn,
        cbi, cbf, np.array(cb_t or [0.0]), np.array(cb_r or [0.0]),
        np.zeros((max(n_cbr_expected, caps.get("cbr", 0), 1), 3)),
        np.zeros((tr_rows, L.TRP_N)), np.zeros((tr_rows, 9)), np.zeros((tr_rows, 4)),
        ht, hs, hk, ha, hm,
        np.array([float(hdr), float(sc.duration_s), float(any(m.relay_of >= 0 for m in sc.messages))]),
        np.array(drops or [-1], np.int64),
        poi, np.array(po_conn or [0], np.int64),
        np.arange(rows - 1, -1, -1, dtype=np.int64), np.arange(rows - 1, -1, -1, dtype=np.int64),
    )
    assert len(X) == L.X_N
    return X, pool, heap_cap, tr_rows, X[L.X_CB_REC].shape[0]


_ROW_TABLES = (((L.X_SEG_S, L.X_SEG_L, L.X_SEG_F, L.X_SEG_E), L.X_SEG_FREE, L.ST_SEG_FREE),
               ((L.X_OLO, L.X_OHI, L.X_OAGE), L.X_OOO_FREE, L.ST_OOO_FREE))


def run_to_end(X: tuple) -> tuple:
    """Run the kernel on ``X`` to its end, doubling a per-half row table whenever it pauses for one;
    return the (possibly regrown) state tuple."""
    while True:
        run(X)
        st = X[L.X_ST]
        if not st[L.ST_FLAGS] & L.PAUSE_ROWS:
            return X
        nh = X[L.X_HI].shape[0]
        Y = list(X)
        for arrays, free_at, count_at in _ROW_TABLES:
            old = Y[arrays[0]].shape[0]
            if st[count_at] > 0 or old >= nh:
                continue
            new = min(nh, 2 * old)
            for a in arrays:
                grown = np.zeros((new, Y[a].shape[1]), Y[a].dtype)
                grown[:old] = Y[a]
                Y[a] = grown
            free = np.zeros(new, np.int64)
            free[:new - old] = np.arange(new - 1, old - 1, -1)  # the lowest new row is taken first
            Y[free_at] = free
            st[count_at] = new - old
        st[L.ST_FLAGS] &= ~L.PAUSE_ROWS
        X = tuple(Y)


def _heap_of(events: list[tuple[float, int, int]], capacity: int) -> tuple:
    """Return a heap (``simcore.engine`` layout) holding ``events`` (time, kind, arg), numbered in list
    order: sorted by (time, number), an array is already a valid binary heap."""
    ht, hs, hk, ha, hm = heap_new(max(capacity, len(events)))
    n = len(events)
    if n:
        t = np.array([e[0] for e in events], np.float64)
        order = np.lexsort((np.arange(n), t))
        ht[:n] = t[order]
        hs[:n] = order
        hk[:n] = np.array([e[1] for e in events], np.int64)[order]
        ha[:n] = np.array([e[2] for e in events], np.int64)[order]
    hm[0] = n
    hm[1] = n
    return ht, hs, hk, ha, hm


def _link_rows(sc: Scenario, paths: list[tuple[int, ...]], per_half_packets: int, caps: dict) -> tuple:
    """Return the link arrays (li, lf, fluid times and rates, drop sequences, rings) and the packet pool size.

    A link's ring holds the packets (and fluid chunks) in its buffer, so it needs room for the queue
    limit (in packets, or the byte limit over the smallest packet), but never more than the packets
    that can be on it at once: the sum, over the connection halves whose path crosses it, of a half's
    bound ``per_half_packets`` (segments of two windows and their ACKs). Links carrying CBR packets or
    chunked fluid get the queue limit. ``caps["rings_full"]`` (set after a ring overflowed) asks for
    the queue limit everywhere. The pool starts at what the wires hold plus a modest share of each
    buffer; a run that overflows it is redone with twice as many (``simulate``)."""
    net = sc.network
    links = net.links
    nl = len(links)
    nc = len(sc.connections)
    hdr = sc.tcpip_header_bytes
    li = np.zeros((nl, L.LI_N), np.int64)
    lf = np.zeros((nl, L.LF_N), np.float64)
    flu_t: list[float] = []
    flu_r: list[float] = []
    drops: list[int] = []
    min_wire = max(1, min([hdr] + [c.header_bytes for c in sc.connections if c.header_bytes is not None]
                          + [s.packet_bytes for s in sc.cbr]))
    traffic = np.zeros(nl, np.int64)
    for h, path in enumerate(paths):
        traffic[list(path)] += per_half_packets if h < 2 * nc else 1 << 40
    caps_l = np.zeros(nl, np.int64)
    pool = 64
    for i, lk in enumerate(links):
        p = lk.params
        li[i, L.L_QLIM] = p.queue_packets
        li[i, L.L_QLIM_BYTES] = p.queue_bytes or 0
        li[i, L.L_HDR] = p.header_bytes
        lf[i, L.L_RATE] = p.rate_bps / 8.0
        lf[i, L.L_PROP] = p.delay_s
        lf[i, L.L_LOSS] = p.loss_prob
        li[i, L.L_LOSS_ARRIVAL] = int(p.loss_where == "arrival")
        li[i, L.L_DROP_PTR] = len(drops)
        drops += list(p.drop_sequence)
        li[i, L.L_DROP_P1] = len(drops)
        smallest = min_wire + p.header_bytes
        if p.background is not None:
            bg = p.background
            li[i, L.L_HAS_FLUID] = 1 if bg.granularity == "continuous" else 2
            li[i, L.L_FLU_P0] = li[i, L.L_FLU_PTR] = len(flu_t)
            flu_t += list(bg.times_s)
            flu_r += [r / 8.0 for r in bg.rates_bps]
            li[i, L.L_FLU_P1] = len(flu_t)
            lf[i, L.L_FLU_PKT] = bg.packet_bytes
            lf[i, L.L_BMAX] = p.queue_bytes if p.queue_bytes else p.queue_packets * bg.packet_bytes
            if bg.granularity == "packets":
                smallest = min(smallest, bg.packet_bytes)
                traffic[i] = 1 << 40
        qlim = p.queue_packets if not p.queue_bytes else min(p.queue_packets, p.queue_bytes // smallest + 1)
        caps_l[i] = (qlim if caps.get("rings_full") else min(qlim, traffic[i])) + 1
        wire = int(p.delay_s * p.rate_bps / 8.0 / smallest) + 2
        pool += wire + min(int(caps_l[i]), 256)
    li[:, L.L_RING_CAP] = caps_l
    li[:, L.L_RING_BASE] = np.cumsum(caps_l) - caps_l
    total = max(int(caps_l.sum()), 1)
    return (li, lf, flu_t, flu_r, drops, np.zeros(total, np.float64), np.zeros(total, np.float64),
            max(pool, caps.get("pool", 0)))


def _connection_rows(sc: Scenario) -> tuple[np.ndarray, np.ndarray]:
    """Return the per-connection parameter rows (cpi, cpf), column by column."""
    conns = sc.connections
    nc = len(conns)
    cpi = np.zeros((nc, L.CI_N), np.int64)
    cpf = np.zeros((nc, L.CF_N), np.float64)
    if nc == 0:
        return cpi, cpf
    tcps = [c.tcp for c in conns]
    hdr = sc.tcpip_header_bytes
    closer = {"client": 0, "server": 1, "none": -1}
    cols_i = {
        L.C_CLIENT: [c.client for c in conns], L.C_SERVER: [c.server for c in conns],
        L.C_VARIANT: [VARIANTS.index(tp.variant) for tp in tcps], L.C_MSS: [tp.segment_bytes for tp in tcps],
        L.C_DUPTHRESH: [tp.dupack_threshold for tp in tcps], L.C_LIMITED_TX: [tp.limited_transmit for tp in tcps],
        L.C_DELACK_TICKS: [tp.delayed_ack_on_ticks for tp in tcps], L.C_RWND: [tp.rwnd_bytes for tp in tcps],
        L.C_IW: [tp.initial_window_segments for tp in tcps], L.C_DELACK: [tp.delayed_ack for tp in tcps],
        L.C_IDLE_RESTART: [tp.restart_after_idle for tp in tcps], L.C_CLOSER: [closer[c.closer] for c in conns],
        L.C_MULTISTREAM: [c.multistream for c in conns],
        L.C_HDR: [(hdr if c.header_bytes is None else c.header_bytes)
                  + (TIMESTAMP_OPTION_BYTES if c.tcp.timestamps else 0) for c in conns],
    }
    cols_f = {
        L.C_MIN_RTO: [tp.min_rto_s for tp in tcps], L.C_MAX_RTO: [tp.max_rto_s for tp in tcps],
        L.C_INIT_RTO: [tp.initial_rto_s for tp in tcps], L.C_DELACK_S: [tp.delayed_ack_timeout_s for tp in tcps],
        L.C_TICK_S: [tp.timer_granularity_s for tp in tcps], L.C_OPEN_T: [c.open_time_s for c in conns],
        L.C_INIT_SSTHRESH: [1e30 if tp.initial_ssthresh_bytes is None else tp.initial_ssthresh_bytes
                            for tp in tcps],
    }
    for col, vals in cols_i.items():
        cpi[:, col] = vals
    for col, vals in cols_f.items():
        cpf[:, col] = vals
    cpf[:, L.C_TIMEWAIT_T] = np.nan
    own = [(m.conn, 0 if m.sender == "client" else 1) for m in sc.messages if m.pool < 0]  # pooled: no closer
    if own:
        c, d = np.array(own, np.int64).T
        np.add.at(cpi, (c, L.C_TOTAL + d), 1)
    return cpi, cpf


def _nan_before_zero(a: np.ndarray) -> np.ndarray:
    out = a.astype(float).copy()
    out[out < 0] = np.nan
    return out


def simulate(scenario: Scenario, seed: SeedLike = 0, trace: bool = False) -> PacketResult:
    """Return the ``PacketResult`` of running ``scenario`` for ``scenario.duration_s`` simulated seconds.

    ``seed`` fixes the per-link loss streams (same seed => bit-identical result). ``trace=True`` also
    records the TCP, per-packet, router-hop and queue traces (slower, more memory); ``result.to_pcap`` then
    writes the run as a capture file.
    """
    if not isinstance(scenario, Scenario):
        raise ValueError(f"scenario={scenario!r} is not allowed: must be a Scenario")
    check_bool("trace", trace)
    rng = make_generator(seed)
    nl = len(scenario.network.links)
    seed_vals = rng.integers(0, 2**64, size=max(nl, 1), dtype=np.uint64, endpoint=False)
    caps: dict = {}
    while True:
        X, pool, heap_cap, tr_rows, cbr_rows = _build(scenario, seed_vals, trace, caps)
        X = run_to_end(X)
        flags = int(X[L.X_ST][L.ST_FLAGS])
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
        st = X[L.X_ST]
        if flags & (L.OVF_PKTTR | L.OVF_TCPTR | L.OVF_QTR):  # the counts went on past the capacity
            caps["trace"] = int(max(st[L.ST_N_PKTTR], st[L.ST_N_TCPTR], st[L.ST_N_QTR])) + 1
        if flags & L.OVF_CBR:
            caps["cbr"] = int(st[L.ST_N_CBRREC]) + 1
    # Initial sequence numbers of captures (``PacketResult.to_pcap``): from a generator seeded with the link
    # seeds, so they take no draw from ``seed`` and change nothing else.
    # The timestamp clock offsets are drawn after the ISNs, so the ISNs are those of runs before timestamps.
    isn_rng = np.random.default_rng(seed_vals)
    isn = isn_rng.integers(0, 2**32, size=(len(scenario.connections), 2), dtype=np.uint64)
    ts_offset = isn_rng.integers(0, 2**32, size=scenario.network.n_nodes, dtype=np.uint64)
    return _result(scenario, X, isn, ts_offset)


def _result(sc: Scenario, X: tuple, isn: np.ndarray, ts_offset: np.ndarray | None = None) -> PacketResult:
    nc = len(sc.connections)
    nm = len(sc.messages)
    ncb = len(sc.cbr)
    hi, hf, cpf, st, li, lf = X[L.X_HI], X[L.X_HF], X[L.X_CPF], X[L.X_ST], X[L.X_LI], X[L.X_LF]
    T = sc.duration_s

    def per_half(a):
        return a.reshape(nc, 2) if nc else np.zeros((0, 2), a.dtype)

    rn = hi[:, L.H_RCV_NXT]
    delivered = np.maximum(rn - 1 - hi[:, L.H_FIN_RCVD], 0) * (hi[:, L.H_RCV_STARTED] == 1)
    mf = X[L.X_MF][:nm]
    fin_acked = per_half(hf[:, L.HF_FIN_ACKED_T])
    closed = np.where(np.isnan(fin_acked).any(axis=1), np.nan, np.nanmax(fin_acked, axis=1, initial=-np.inf)) \
        if nc else np.zeros(0)
    rec = X[L.X_CB_REC][: st[L.ST_N_CBRREC]]
    rate_Bps = lf[:, L.L_RATE]
    tcp_tr = pkt_tr = q_tr = hop_tr = None
    if st[L.ST_TRACE] == 1:
        t = X[L.X_TRT][: st[L.ST_N_TCPTR]]
        tcp_tr = TcpTrace(t[:, 0], t[:, 1].astype(np.int64) // 2, t[:, 1].astype(np.int64) % 2, t[:, 2], t[:, 3],
                          _nan_before_zero(t[:, 4]), t[:, 5], t[:, 6].astype(np.int64), t[:, 7].astype(np.int64),
                          t[:, 8].astype(np.int64))
        p = X[L.X_TRP][: st[L.ST_N_PKTTR]]
        fwd = p[:, 1] == L.TR_FORWARD
        hop_tr = HopTrace(p[fwd, 0], p[fwd, 2].astype(np.int64), p[fwd, 9].astype(np.int64))
        p = p[~fwd]
        ints = p[:, 1:].astype(np.int64)
        sack = ints[:, L.TRP_SACK - 1:L.TRP_SACK + 5].reshape(-1, 3, 2)
        sack[(ints[:, 7] & L.F_CBR) != 0] = -1
        pkt_tr = PacketTrace(p[:, 0], *[ints[:, j] for j in range(9)], sack=sack)
        q = X[L.X_TRQ][: st[L.ST_N_QTR]]
        q_tr = QueueTrace(q[:, 0], q[:, 1].astype(np.int64), q[:, 2].astype(np.int64), q[:, 3])
    return PacketResult(
        duration_s=T,
        events=int(st[L.ST_EVENTS]),
        delivered_bytes=per_half(delivered),
        goodput_bps=per_half(delivered * 8.0 / T),
        segments_sent=per_half(hi[:, L.H_N_SEGS]),
        retransmits=per_half(hi[:, L.H_N_RETX]),
        timeouts=per_half(hi[:, L.H_N_TIMEOUT]),
        fast_retransmits=per_half(hi[:, L.H_N_FRETX]),
        cwnd_bytes=per_half(hf[:, L.HF_CWND]),
        ssthresh_bytes=per_half(hf[:, L.HF_SSTHRESH]),
        srtt_s=per_half(_nan_before_zero(hf[:, L.HF_SRTT])),
        rto_s=per_half(hf[:, L.HF_RTO]),
        established_s=hf[0::2, L.HF_EST_T].copy(),
        timewait_s=cpf[:, L.C_TIMEWAIT_T].copy(),
        closed_s=closed,
        message_write_s=mf[:, L.MF_WRITE].copy(),
        message_done_s=mf[:, L.MF_DONE].copy(),
        message_latency_s=mf[:, L.MF_DONE] - mf[:, L.MF_WRITE],
        message_conn=X[L.X_MI][:nm, L.M_CONN].copy(),
        link_packets=li[:, L.L_N_TX].copy(),
        link_bytes=lf[:, L.L_BYTES_TX].copy(),
        link_drops_queue=li[:, L.L_N_DROP_Q].copy(),
        link_drops_loss=li[:, L.L_N_DROP_L].copy(),
        link_utilization=lf[:, L.L_BYTES_TX] / (rate_Bps * T),
        fluid_offered_bytes=lf[:, L.L_FLU_IN].copy(),
        fluid_dropped_bytes=lf[:, L.L_FLU_DROP].copy(),
        cbr_sent=X[L.X_CBI][:ncb, L.CB_SENT].copy(),
        cbr_received=X[L.X_CBI][:ncb, L.CB_RCVD].copy(),
        cbr_source=rec[:, 0].astype(np.int64),
        cbr_send_time_s=rec[:, 1].copy(),
        cbr_delay_s=rec[:, 2].copy(),
        packets_created=int(st[L.ST_CREATED]),
        packets_delivered=int(st[L.ST_DELIVERED]),
        packets_dropped_queue=int(st[L.ST_DROP_Q]),
        packets_dropped_loss=int(st[L.ST_DROP_L]),
        packets_in_flight=int(X[L.X_PI].shape[0] - st[L.ST_FREE_N]),
        tcp_trace=tcp_tr,
        packet_trace=pkt_tr,
        queue_trace=q_tr,
        hop_trace=hop_tr,
        scenario=sc,
        tcp_isn=isn,
        tcp_ts_offset=np.zeros(sc.network.n_nodes, np.uint64) if ts_offset is None else ts_offset,
    )
