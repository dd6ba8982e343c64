"""``simulate(scenario, seed, trace)``: run the packet kernel and return a frozen ``PacketResult``.

Random draws (documented order): one uint64 seed per link, in link order, from ``make_generator(seed)``;
each link then draws its Bernoulli losses from its own splitmix64 stream inside the kernel, so a link's
losses do not depend on the traffic of other links. The TCP initial sequence numbers that captures show
(``PacketResult.tcp_isn``) come from a generator seeded with those link seeds (no further draw from
``seed``). Nothing else is random.
"""

from __future__ import annotations

import math

import numpy as np

from simcore._validate import check_bool
from simcore.engine import heap_new, heap_push
from simcore.rng import SeedLike, make_generator

from . import _layout as L
from ._kernel import run
from .params import POOL_RULES, VARIANTS, Scenario
from .results import HopTrace, PacketResult, PacketTrace, QueueTrace, TcpTrace

__all__ = ["PacketResult", "TcpTrace", "PacketTrace", "QueueTrace", "HopTrace", "simulate"]


def _build(sc: Scenario, seed_vals: np.ndarray, trace: bool, caps: dict) -> tuple:
    net = sc.network
    nl = len(net.links)
    nc = len(sc.connections)
    nm = len(sc.messages)
    ncb = len(sc.cbr)
    nh = 2 * nc
    hdr = sc.tcpip_header_bytes

    paths: list[tuple[int, ...]] = []
    for c in sc.connections:
        paths += [net.route(c.client, c.server), net.route(c.server, c.client)]
    for s in sc.cbr:
        paths.append(net.route(s.src, s.dst))
    path_ptr = np.zeros(len(paths) + 1, np.int64)
    path_ptr[1:] = np.cumsum([len(p) for p in paths]) if paths else []
    path_links = np.array([i for p in paths for i in p] or [0], np.int64)

    seg_cap = 64
    for c in sc.connections:
        seg_cap = max(seg_cap, 2 * math.ceil(c.tcp.rwnd_bytes / c.tcp.mss_bytes) + 8)
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
    hf[:, L.HF_SRTT] = -1.0
    hf[:, L.HF_RTO_DEADLINE] = np.inf
    hf[:, L.HF_LAST_SEND] = -np.inf
    hf[:, L.HF_EST_T] = np.nan
    hf[:, L.HF_FIN_ACKED_T] = np.nan
    hf[:, L.HF_FIN_RCVD_T] = np.nan
    cpi = np.zeros((nc, L.CI_N), np.int64)
    cpf = np.zeros((nc, L.CF_N), np.float64)
    for i, c in enumerate(sc.connections):
        tp = c.tcp
        hf[2 * i:2 * i + 2, L.HF_RTO] = tp.initial_rto_s
        cpi[i] = 0
        cpi[i, L.C_CLIENT] = c.client
        cpi[i, L.C_SERVER] = c.server
        cpi[i, L.C_VARIANT] = VARIANTS.index(tp.variant)
        cpi[i, L.C_MSS] = tp.mss_bytes
        cpi[i, L.C_RWND] = tp.rwnd_bytes
        cpi[i, L.C_IW] = tp.initial_window_segments
        cpi[i, L.C_DELACK] = int(tp.delayed_ack)
        cpi[i, L.C_IDLE_RESTART] = int(tp.restart_after_idle)
        cpi[i, L.C_CLOSER] = {"client": 0, "server": 1, "none": -1}[c.closer]
        cpi[i, L.C_MULTISTREAM] = int(c.multistream)
        cpi[i, L.C_HDR] = hdr if c.header_bytes is None else c.header_bytes
        cpf[i, L.C_MIN_RTO] = tp.min_rto_s
        cpf[i, L.C_MAX_RTO] = tp.max_rto_s
        cpf[i, L.C_INIT_RTO] = tp.initial_rto_s
        cpf[i, L.C_DELACK_S] = tp.delayed_ack_timeout_s
        cpf[i, L.C_OPEN_T] = c.open_time_s
        cpf[i, L.C_INIT_SSTHRESH] = 1e30 if tp.initial_ssthresh_bytes is None else tp.initial_ssthresh_bytes
        cpf[i, L.C_TIMEWAIT_T] = np.nan
    for m in sc.messages:
        if m.pool >= 0:  # counted only for closers, which pooled connections are not
            continue
        cpi[m.conn, L.C_TOTAL + (0 if m.sender == "client" else 1)] += 1

    li = np.zeros((nl, L.LI_N), np.int64)
    lf = np.zeros((nl, L.LF_N), np.float64)
    flu_t: list[float] = []
    flu_r: list[float] = []
    drops: list[int] = []
    min_wire = max(1, min([hdr] + [c.header_bytes for c in sc.connections if c.header_bytes is not None]
                          + [s.packet_bytes for s in sc.cbr]))
    pool = 64 + 8 * nh + 4 * ncb
    for i, lk in enumerate(net.links):
        p = lk.params
        li[i, L.L_QLIM] = p.queue_packets
        li[i, L.L_QLIM_BYTES] = p.queue_bytes or 0
        li[i, L.L_HDR] = p.header_bytes
        lf[i, L.L_RATE] = p.rate_bps / 8.0
        lf[i, L.L_PROP] = p.delay_s
        lf[i, L.L_LOSS] = p.loss_prob
        li[i, L.L_DROP_PTR] = len(drops)
        drops += list(p.drop_sequence)
        li[i, L.L_DROP_P1] = len(drops)
        pool += p.queue_packets + int(p.delay_s * p.rate_bps / 8.0 / (min_wire + p.header_bytes)) + 2
        if p.background is not None:
            bg = p.background
            li[i, L.L_HAS_FLUID] = 1 if bg.granularity == "continuous" else 2
            li[i, L.L_FLU_P0] = li[i, L.L_FLU_PTR] = len(flu_t)
            flu_t += list(bg.times_s)
            flu_r += [r / 8.0 for r in bg.rates_bps]
            li[i, L.L_FLU_P1] = len(flu_t)
            lf[i, L.L_FLU_PKT] = bg.packet_bytes
            lf[i, L.L_BMAX] = p.queue_bytes if p.queue_bytes else p.queue_packets * bg.packet_bytes
    ring_cap = max(lk.params.queue_packets for lk in net.links) + 1 if nl else 1
    # Packets alive at once: at most what the buffers and wires hold (pool, above), and at most the TCP
    # windows (segments + their ACKs) plus what the CBR paths hold; a too-small guess is doubled and rerun.
    window_bound = 64 + nh * (2 * seg_cap + 8)
    for k in range(ncb):
        for i in paths[2 * nc + k]:
            p = net.links[i].params
            window_bound += p.queue_packets + int(p.delay_s * p.rate_bps / 8.0 / sc.cbr[k].packet_bytes) + 2
    pool = max(min(pool, window_bound), caps.get("pool", 0))

    mi = np.zeros((max(nm, 1), L.MI_N), np.int64)
    mf = np.full((max(nm, 1), L.MF_N), np.nan)
    deps: list[list[int]] = [[] for _ in range(nm)]
    cdeps: list[list[int]] = [[] for _ in range(nm)]
    for k, m in enumerate(sc.messages):
        mi[k, L.M_CONN] = -1 if m.pool >= 0 else m.conn
        mi[k, L.M_POOL] = m.pool
        mi[k, L.M_DIR] = 0 if m.sender == "client" else 1
        mi[k, L.M_SIZE] = -1 if m.size_bytes is None else m.size_bytes
        mi[k, L.M_NEXT] = -1
        mi[k, L.M_STREAM] = m.stream
        mi[k, L.M_RELAY_OF] = m.relay_of
        mi[k, L.M_RELAY_TO] = -1
        mf[k, L.MF_START] = m.start_time_s
        mf[k, L.MF_DELAY] = m.delay_after_s
        if m.after_message >= 0:
            deps[m.after_message].append(k)
    for k, m in enumerate(sc.messages):
        if m.relay_of >= 0:
            mi[m.relay_of, L.M_RELAY_TO] = k
    for i, c in enumerate(sc.connections):
        if c.open_after_message >= 0:
            cdeps[c.open_after_message].append(i)

    def csr(lists):
        ptr = np.zeros(max(nm, 1) + 1, np.int64)
        ptr[1:nm + 1] = np.cumsum([len(x) for x in lists]) if nm else []
        if nm == 0:
            ptr[1] = 0
        return ptr, np.array([j for x in lists for j in x] or [0], np.int64)

    npo = len(sc.pools)
    poi = np.zeros((max(npo, 1), L.POOL_N), np.int64)
    po_conn: list[int] = []
    for k, p in enumerate(sc.pools):
        poi[k, L.PO_P0] = len(po_conn)
        po_conn += list(p.conns)
        poi[k, L.PO_P1] = len(po_conn)
        poi[k, L.PO_RULE] = POOL_RULES.index(p.rule)

    dep_ptr, dep_msg = csr(deps)
    cdep_ptr, cdep_conn = csr(cdeps)

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

    heap_cap = max(pool + 64 * nh + nm + nc + ncb + 64, caps.get("heap", 0))
    ht, hs, hk, ha, hm = heap_new(heap_cap)
    for i, c in enumerate(sc.connections):
        if c.open_after_message < 0:
            heap_push(ht, hs, hk, ha, hm, c.open_time_s, L.EV_OPEN, i)
    for k, m in enumerate(sc.messages):
        if m.after_message < 0:
            heap_push(ht, hs, hk, ha, hm, m.start_time_s, L.EV_WRITE, k)
    for k, s in enumerate(sc.cbr):
        heap_push(ht, hs, hk, ha, hm, s.start_s, L.EV_CBR, k)

    st = np.zeros(L.ST_N, np.int64)
    st[L.ST_FREE_N] = pool
    st[L.ST_TRACE] = int(trace)
    # np.zeros maps its pages lazily: a generous first guess costs only the rows written (a rerun costs a run)
    tr_rows = caps.get("trace", 1 << 18) if trace else 1
    X = (
        hi, hf,
        np.zeros((nh, seg_cap), np.int64), np.zeros((nh, seg_cap), np.int64),
        np.zeros((nh, seg_cap), np.int64), np.zeros((nh, seg_cap), np.int64),
        np.zeros((nh, ooo_cap), np.int64), np.zeros((nh, ooo_cap), np.int64),
        np.zeros((nh, ooo_cap), np.int64),
        cpi, cpf,
        np.zeros((pool, L.PI_N), np.int64), np.zeros((pool, L.PF_N), np.float64),
        np.arange(pool, dtype=np.int64)[::-1].copy(), st,
        li, lf, np.zeros((max(nl, 1), ring_cap), np.float64), np.zeros((max(nl, 1), ring_cap), np.float64),
        seed_vals.copy(), np.array(flu_t or [0.0]), np.array(flu_r or [0.0]),
        path_ptr, path_links, mi, mf, dep_ptr, dep_msg, cdep_ptr, cdep_conn,
        cbi, cbf, np.array(cb_t or [0.0]), np.array(cb_r or [0.0]),
        np.zeros((max(n_cbr_expected, caps.get("cbr", 0), 1), 3)),
        np.zeros((tr_rows, L.TRP_N)), np.zeros((tr_rows, 9)), np.zeros((tr_rows, 4)),
        ht, hs, hk, ha, hm,
        np.array([float(hdr), float(sc.duration_s), float(any(m.relay_of >= 0 for m in sc.messages))]),
        np.array(drops or [-1], np.int64),
        poi, np.array(po_conn or [0], np.int64),
    )
    assert len(X) == L.X_N
    return X, pool, heap_cap, tr_rows, X[L.X_CB_REC].shape[0]


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
        run(X)
        flags = int(X[L.X_ST][L.ST_FLAGS])
        if flags == 0:
            break
        if flags & L.OVF_POOL:
            caps["pool"] = 2 * pool
        if flags & L.OVF_HEAP:
            caps["heap"] = 2 * heap_cap
        st = X[L.X_ST]
        if flags & (L.OVF_PKTTR | L.OVF_TCPTR | L.OVF_QTR):  # the counts went on past the capacity
            caps["trace"] = int(max(st[L.ST_N_PKTTR], st[L.ST_N_TCPTR], st[L.ST_N_QTR])) + 1
        if flags & L.OVF_CBR:
            caps["cbr"] = int(st[L.ST_N_CBRREC]) + 1
    # Initial sequence numbers of captures (``PacketResult.to_pcap``): from a generator seeded with the link
    # seeds, so they take no draw from ``seed`` and change nothing else.
    isn = np.random.default_rng(seed_vals).integers(0, 2**32, size=(len(scenario.connections), 2), dtype=np.uint64)
    return _result(scenario, X, isn)


def _result(sc: Scenario, X: tuple, isn: np.ndarray) -> PacketResult:
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
    )
