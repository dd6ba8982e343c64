"""A traced packet run as a capture file (pcap or pcapng) that Wireshark and tshark read like a real one.

``write_capture(result, path, link=..., capture_point=...)`` (also ``PacketResult.to_pcap``) records what a
sniffer on one link would see at one of its ends:

- ``capture_point='sender'``: at the link's source node. The link's own packets as they are offered to
  its buffer (so a packet that the link then drops, full buffer or random loss, is in the capture), and
  the packets coming back from the far node as they arrive (after any loss on the way back).
- ``capture_point='receiver'``: at the link's far node. The link's packets as they arrive (a dropped one is
  missing), and the packets going back as they are offered to the reverse link.

Timestamps are simulated time (``frame.time_epoch`` = seconds since the run started). Headers:

- Ethernet: MAC 02:00:00:xx:xx:xx of the two nodes of the link the frame is on (xx = node + 1).
- IPv4: address 10.0.0.0 + (host node + 1) per host, identification = packet uid mod 2**16, DF, TTL
  64 minus the routers passed, header checksum.
- TCP: client port 49152 + connection, server port 7777 (neither is given a dissector by Wireshark);
  sequence and acknowledgement numbers = simcore's (the SYN is 0, data starts at 1) plus a random
  initial sequence number per direction (``PacketResult.tcp_isn``, from the run's seed); flags SYN, FIN,
  ACK; window = ``TcpParams.rwnd_bytes`` (simcore's receiver always advertises it), scaled by the window
  scale option on the SYNs (the smallest shift that fits 16 bits); options MSS, window scale and
  SACK-permitted (recovery 'sack') on SYNs, up to three SACK blocks otherwise; with
  ``TcpParams.timestamps`` the RFC 7323 timestamps option on every segment (see ``tcp_timestamps``);
  checksum; ECE and CWR (RFC 3168) on connections with ``TcpParams.ecn``.
- IPv4's ECN field: ECT(0) on the data an ECN-capable sender sends, CE once a link's AQM marked the packet
  (``LinkParams.queue``) at or before the capture point.
- UDP for CBR packets: source port 32768 + source index, destination port 7778, checksum.
- Payload: zero bytes, cut at ``snaplen`` (so files stay small); checksums are of the whole packet.
- pcapng only: a packet comment on every frame that the link then drops (its buffer or random loss), so
  ``frame.comment`` finds the drops in a sender-side capture.

Sizes follow real headers (20 bytes IPv4 + 20 bytes TCP + options), not ``Scenario.tcpip_header_bytes``;
with the default 40 bytes (plus the engine's 12 with timestamps) they agree on every segment but SYNs.
Connections with transport 'tcp_streams' are TCP and written as such. SCTP associations are written as
SCTP (IP protocol 132): common header, chunks and CRC32c, same ports (``simcore.packet.capture.sctp_packets``).
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

import numpy as np

from simcore._validate import check_choice, check_int

from ..results import PacketResult
from .frames import MAX_HEADER_BYTES, PROTO_SCTP, PROTO_TCP, PROTO_UDP, FrameFields, TcpOptions, build_frames
from .pcapfile import pcap_bytes, pcapng_bytes
from .sctp_packets import sctp_packets

__all__ = ["CAPTURE_POINTS", "FORMATS", "SERVER_PORT", "CLIENT_PORT0", "CBR_PORT0", "CBR_DST_PORT",
           "host_ip", "window_scale", "tcp_timestamps", "capture_frames", "write_capture"]

CAPTURE_POINTS = ("sender", "receiver")
FORMATS = ("pcap", "pcapng")
SERVER_PORT = 7777
CLIENT_PORT0 = 49152
CBR_PORT0 = 32768
CBR_DST_PORT = 7778
MAX_SNAPLEN = 262144
_TTL = 64


def host_ip(node) -> np.ndarray:
    """Return the IPv4 address (uint32) of node(s): 10.0.0.0 + node + 1."""
    return (10 << 24) + np.asarray(node, dtype=np.uint64) + 1


def _mac(node: np.ndarray) -> np.ndarray:
    m = np.zeros((node.shape[0], 6), np.uint8)
    m[:, 0] = 0x02  # locally administered, unicast
    v = node.astype(np.int64) + 1
    m[:, 3], m[:, 4], m[:, 5] = (v >> 16) & 0xFF, (v >> 8) & 0xFF, v & 0xFF
    return m


def window_scale(rwnd_bytes: int) -> int:
    """Return the smallest window-scale shift s with rwnd_bytes >> s < 2**16 (RFC 7323: at most 14)."""
    s = 0
    while rwnd_bytes >> s > 0xFFFF and s < 14:
        s += 1
    return s


def tcp_timestamps(result: PacketResult) -> tuple[np.ndarray, np.ndarray]:
    """Return (TSval, TSecr) (uint64 < 2**32) of every row of ``result.packet_trace`` (RFC 7323).

    TSval: the sending host's clock in ms ticks, floor(send time in ns / 10**6) + that host's offset
    ``result.tcp_ts_offset`` (a row that is not a send carries the TSval of its packet's send). TSecr:
    TS.Recent simplified: the TSval of the latest segment of the same connection that arrived at the sender
    from its peer before this one left (in trace order, so an ACK sent on an arrival echoes it); 0 if none
    has (the initial SYN). Zero for CBR rows."""
    pt, sc = result.packet_trace, result.scenario
    n = pt.time_s.size
    tcp = (pt.flags & 8) == 0
    off = np.zeros(sc.network.n_nodes, np.uint64) if result.tcp_ts_offset is None else result.tcp_ts_offset
    tsval = np.zeros(n, np.uint64)
    tsecr = np.zeros(n, np.uint64)
    if not sc.connections:
        return tsval, tsecr
    conn = np.where(tcp, pt.conn, 0)  # a CBR row's conn is its source: not a connection
    ends = np.array([[c.client, c.server] for c in sc.connections], np.int64)
    host = ends[conn, np.clip(pt.direction, 0, 1)]
    ms = (np.round(pt.time_s * 1e9).astype(np.int64) // 10**6).astype(np.uint64)
    mod = np.uint64(0xFFFFFFFF)
    sent = np.flatnonzero((pt.kind == 0) & tcp)
    tsval[sent] = (ms[sent] + off[host[sent]]) & mod
    by_uid = sent[np.argsort(pt.uid[sent], kind="stable")]
    other = np.flatnonzero((pt.kind != 0) & tcp)
    tsval[other] = tsval[by_uid[np.searchsorted(pt.uid[by_uid], pt.uid[other])]]
    # each endpoint (connection, end) is a group; a send by end d echoes the last arrival at end d, that is
    # of a packet of direction 1 - d, in an earlier row
    arr = np.flatnonzero((pt.kind == 1) & tcp)
    key_arr = (2 * pt.conn[arr] + 1 - pt.direction[arr]) * n + arr  # sorted: rows ascending within a group
    order = np.argsort(key_arr, kind="stable")
    key_arr, arr = key_arr[order], arr[order]
    group = 2 * pt.conn[sent] + pt.direction[sent]
    j = np.searchsorted(key_arr, group * n + sent) - 1
    hit = (j >= 0) & (key_arr[np.maximum(j, 0)] // n == group) if arr.size else np.zeros(sent.size, bool)
    tsecr[sent[hit]] = tsval[arr[j[hit]]]
    tsecr[other] = tsecr[by_uid[np.searchsorted(pt.uid[by_uid], pt.uid[other])]]
    return tsval, tsecr


def _paths(result: PacketResult) -> list[tuple[int, ...]]:
    """Return the routes in the kernel's order: per connection client->server then back, then CBR."""
    sc = result.scenario
    net = sc.network
    out: list[tuple[int, ...]] = []
    for c in sc.connections:
        out += [net.route(c.client, c.server), net.route(c.server, c.client)]
    out += [net.route(s.src, s.dst) for s in sc.cbr]
    return out


def capture_frames(result: PacketResult, link: int | None = None, capture_point: str = "sender") -> dict:
    """Return what the capture sees, in time order: ``row`` (into ``result.packet_trace``: the packet's send
    event), ``time_s``, ``on_link`` (the link each frame is on), ``hop`` (its position on the path),
    ``dropped`` (2: that link's buffer then drops it, full or by its queue discipline, 3: it is lost on that
    link, else 0), ``ce`` (a link's AQM marked it Congestion Experienced before this point), and ``link``,
    ``node`` (where the capture is taken) and ``peer`` (the node at the link's other end)."""
    pt, ht, sc = result.packet_trace, result.hop_trace, result.scenario
    if pt is None or ht is None or sc is None or result.tcp_isn is None:
        raise ValueError("result has no packet trace: capture a run of simulate(..., trace=True)")
    links = sc.network.links
    paths = _paths(result)
    if link is None:
        link = paths[0][0] if sc.connections else 0
    check_int("link", link, 0, len(links) - 1)
    check_choice("capture_point", capture_point, CAPTURE_POINTS)
    here, there = (links[link].src, links[link].dst) if capture_point == "sender" else (links[link].dst,
                                                                                          links[link].src)
    back = [i for i, lk in enumerate(links) if lk.src == links[link].dst and lk.dst == links[link].src]
    out_links = [link] if capture_point == "sender" else back
    in_links = back if capture_point == "sender" else [link]
    nc, nl = len(sc.connections), len(links)
    # every (route, link) of the kernel's routes: the link's position on the route and the link before it
    keys = np.array([r * nl + lk for r, p in enumerate(paths) for lk in p], np.int64)
    pos_k = np.array([k for p in paths for k in range(len(p))], np.int64)
    prev_k = np.array([p[k - 1] if k else -1 for p in paths for k in range(len(p))], np.int64)
    by_key = np.argsort(keys)

    def lookup(values, r, lk):
        return values[by_key[np.searchsorted(keys, r * nl + lk, sorter=by_key)]]

    cbr = (pt.flags & 8) != 0
    route = np.where(cbr, 2 * nc + pt.conn, 2 * pt.conn + pt.direction)  # the kernel's path of each packet
    sent = np.flatnonzero(pt.kind == 0)
    by_uid = sent[np.argsort(pt.uid[sent], kind="stable")]

    def send_row(uid):
        return by_uid[np.searchsorted(pt.uid[by_uid], uid)]

    h_row = send_row(ht.uid)
    h_prev = lookup(prev_k, route[h_row], ht.link)
    parts = []  # (send-event row, time, link the frame is on, is a hop event, position in its trace, arrived)
    # offered to an outgoing link: sent by this host, or forwarded by this router
    sel = np.flatnonzero((pt.kind == 0) & np.isin(pt.link, out_links))
    parts.append((sel, pt.time_s[sel], pt.link[sel], 0, sel, 0))
    sel = np.flatnonzero(np.isin(ht.link, out_links))
    parts.append((h_row[sel], ht.time_s[sel], ht.link[sel], 1, sel, 0))
    # arrived over an incoming link: received by this host, or about to be forwarded by this router
    sel = np.flatnonzero((pt.kind == 1) & np.isin(pt.link, in_links))
    parts.append((send_row(pt.uid[sel]), pt.time_s[sel], pt.link[sel], 0, sel, 1))
    sel = np.flatnonzero(np.isin(h_prev, in_links))
    parts.append((h_row[sel], ht.time_s[sel], h_prev[sel], 1, sel, 1))
    row, t, on, is_hop, pos, arrived = (np.concatenate([np.broadcast_to(np.asarray(p[j]), p[0].shape) for p in parts])
                                        for j in range(6))
    # equal times keep the simulator's order (host events first: a router hand-over is independent of them)
    order = np.lexsort((pos, is_hop, t))
    row, t, on, arrived = row[order].astype(np.int64), t[order], on[order].astype(np.int64), arrived[order] == 1
    hop = lookup(pos_k, route[row], on)
    # frames this capture sees go on to be dropped by the link they are on (offered frames only)
    drop = np.flatnonzero((pt.kind == 2) | (pt.kind == 3))
    fate = dict(zip(zip(pt.uid[drop].tolist(), pt.link[drop].tolist(), strict=True), pt.kind[drop].tolist(),
                    strict=True))
    uid = pt.uid[row]
    dropped = np.array([fate.get((u, k), 0) for u, k in zip(uid.tolist(), on.tolist(), strict=True)], np.int64)
    # CE: a link's AQM marked the packet (RFC 3168) on a link before this frame, or on this frame's link if the
    # frame is seen arriving over it
    ce = np.zeros(row.size, bool)
    st = result.sojourn_trace
    if st is not None and st.ce.any():
        m = np.flatnonzero(st.ce)
        m_hop = lookup(pos_k, route[send_row(st.uid[m])], st.link[m])
        marked_at = dict(zip(st.uid[m].tolist(), m_hop.tolist(), strict=True))
        at = np.array([marked_at.get(u, 1 << 30) for u in uid.tolist()], np.int64)
        ce = (at < hop) | ((at == hop) & arrived)
    return {"row": row, "time_s": t, "on_link": on, "hop": hop, "dropped": dropped, "ce": ce, "link": link,
            "node": here, "peer": there}


def _frame_fields(result: PacketResult, cap: dict) -> FrameFields:
    """Return the header fields of every captured frame."""
    pt, sc = result.packet_trace, result.scenario
    row = cap["row"]
    n = row.size
    flags = pt.flags[row]
    cbr = (flags & 8) != 0
    conn, d = pt.conn[row], pt.direction[row]
    tcp_i = np.flatnonzero(~cbr)
    cbr_i = np.flatnonzero(cbr)
    links = sc.network.links
    on = cap["on_link"]
    l_src = np.array([lk.src for lk in links], np.int64)
    l_dst = np.array([lk.dst for lk in links], np.int64)
    src = np.zeros(n, np.int64)
    dst = np.zeros(n, np.int64)
    sport = np.zeros(n, np.int64)
    dport = np.zeros(n, np.int64)
    payload = np.zeros(n, np.int64)
    seq = np.zeros(n, np.uint64)
    ack = np.zeros(n, np.uint64)
    tflags = np.zeros(n, np.int64)
    window = np.zeros(n, np.int64)
    syn = np.zeros(n, bool)
    mss = np.zeros(n, np.int64)
    wscale = np.zeros(n, np.int64)
    sackp = np.zeros(n, bool)
    sack = np.zeros((n, 3, 2), np.uint32)
    sack_n = np.zeros(n, np.int64)
    ts = np.zeros(n, bool)
    tsval = np.zeros(n, np.uint64)
    tsecr = np.zeros(n, np.uint64)
    if tcp_i.size:
        c, dd, f = conn[tcp_i], d[tcp_i], flags[tcp_i]
        cs = sc.connections
        client = np.array([x.client for x in cs], np.int64)[c]
        server = np.array([x.server for x in cs], np.int64)[c]
        rwnd = np.array([x.tcp.rwnd_bytes for x in cs], np.int64)[c]
        ws = np.array([window_scale(x.tcp.rwnd_bytes) for x in cs], np.int64)[c]
        up = dd == 0
        src[tcp_i] = np.where(up, client, server)
        dst[tcp_i] = np.where(up, server, client)
        cport = CLIENT_PORT0 + c % 16384
        sport[tcp_i] = np.where(up, cport, SERVER_PORT)
        dport[tcp_i] = np.where(up, SERVER_PORT, cport)
        is_syn = (f & 1) != 0
        payload[tcp_i] = pt.seqlen[row[tcp_i]] - is_syn - ((f & 4) != 0)
        isn = result.tcp_isn
        mod = np.uint64(0xFFFFFFFF)
        seq[tcp_i] = (isn[c, dd] + pt.seq[row[tcp_i]].astype(np.uint64)) & mod
        has_ack = (f & 2) != 0
        peer_isn = isn[c, 1 - dd]
        ack[tcp_i] = np.where(has_ack, (peer_isn + pt.ack[row[tcp_i]].astype(np.uint64)) & mod, 0)
        tflags[tcp_i] = (np.where(is_syn, 0x02, 0) | np.where(has_ack, 0x10, 0) | np.where((f & 4) != 0, 0x01, 0)
                         | np.where((f & 256) != 0, 0x40, 0) | np.where((f & 512) != 0, 0x80, 0))  # ECE, CWR
        window[tcp_i] = np.where(is_syn, np.minimum(rwnd, 0xFFFF), rwnd >> ws)
        syn[tcp_i] = is_syn
        mss[tcp_i] = np.array([x.tcp.mss_bytes for x in cs], np.int64)[c]
        wscale[tcp_i] = ws
        sackp[tcp_i] = np.array([x.tcp.recovery == "sack" for x in cs], bool)[c]
        blocks = pt.sack[row[tcp_i], :3] if pt.sack is not None else np.full((tcp_i.size, 3, 2), -1)
        used = blocks[:, :, 0] >= 0
        sack_n[tcp_i] = used.sum(axis=1)
        ts[tcp_i] = np.array([x.tcp.timestamps for x in cs], bool)[c]
        if ts.any():
            all_val, all_ecr = tcp_timestamps(result)
            tsval[tcp_i], tsecr[tcp_i] = all_val[row[tcp_i]], all_ecr[row[tcp_i]]
        sack[tcp_i] = np.where(used[:, :, None], (peer_isn[:, None, None] + np.maximum(blocks, 0).astype(np.uint64))
                               & mod, 0).astype(np.uint32)
    if cbr_i.size:
        k = conn[cbr_i]
        src[cbr_i] = np.array([s.src for s in sc.cbr], np.int64)[k]
        dst[cbr_i] = np.array([s.dst for s in sc.cbr], np.int64)[k]
        sport[cbr_i] = CBR_PORT0 + k % 16384
        dport[cbr_i] = CBR_DST_PORT
        payload[cbr_i] = np.maximum(np.array([s.packet_bytes for s in sc.cbr], np.int64)[k] - 28, 0)
    proto = np.where(cbr, PROTO_UDP, PROTO_TCP)
    # the IP header's ECN field (RFC 3168): ECT(0) = 0b10 as sent, CE = 0b11 once a link marked it
    ecn = np.where((flags & 64) != 0, 2, 0) | np.where(cap["ce"], 3, 0)
    sctp = None
    is_sctp = np.array([x.transport == "sctp" for x in sc.connections] or [False], bool)
    sct_i = np.flatnonzero(~cbr & is_sctp[np.where(cbr, 0, conn)]) if sc.connections else np.zeros(0, np.int64)
    if sct_i.size:
        proto[sct_i] = PROTO_SCTP
        payload[sct_i] = 0
        packets = sctp_packets(result, row[sct_i], SERVER_PORT, CLIENT_PORT0)
        sctp = [b""] * n
        for k, i in enumerate(sct_i):
            sctp[i] = packets[k]
        sctp = tuple(sctp)
    return FrameFields(
        src_mac=_mac(l_src[on]), dst_mac=_mac(l_dst[on]), src_ip=host_ip(src), dst_ip=host_ip(dst),
        ttl=_TTL - cap["hop"], ip_id=pt.uid[row] & 0xFFFF, proto=proto, sctp=sctp, ecn=ecn,
        src_port=sport, dst_port=dport, payload_bytes=payload, seq=seq, ack=ack, tcp_flags=tflags,
        window=window, options=TcpOptions(syn, mss, wscale, sackp, sack, sack_n, ts,
                                                           tsval, tsecr))


def _describe(result: PacketResult, cap: dict) -> tuple[str, str]:
    link = cap["link"]
    lk = result.scenario.network.links[link]
    side = "sender" if cap["node"] == lk.src else "receiver"
    name = f"link{link}-{side}"
    text = (f"simcore: link {link} (node {lk.src} -> node {lk.dst}), captured at node {cap['node']} "
            f"({side} side), both directions")
    return name, text


def write_capture(result: PacketResult, path, *, link: int | None = None, capture_point: str = "sender",
                  snaplen: int = 128, format: str = "pcap") -> Path:
    """Write ``result`` (a traced run) as a capture seen on ``link`` at ``capture_point``; return the path.

    See the module docstring (and ``PacketResult.to_pcap``) for what the capture holds. The file is
    written whole or not at all (a temporary file in the same folder, then renamed)."""
    if not isinstance(result, PacketResult):
        raise ValueError(f"result={type(result).__name__} is not allowed: must be a PacketResult")
    check_int("snaplen", snaplen, MAX_HEADER_BYTES, MAX_SNAPLEN)
    check_choice("format", format, FORMATS)
    try:
        target = Path(os.fspath(path))
    except TypeError:
        raise ValueError(f"path={path!r} is not allowed: must be a file path (str or os.PathLike)") from None
    if not target.parent.is_dir():
        raise ValueError(f"path={str(target)!r} is not allowed: folder {str(target.parent)!r} does not exist")
    cap = capture_frames(result, link, capture_point)
    frames, caplen, wire = build_frames(_frame_fields(result, cap), snaplen)
    t_ns = np.round(cap["time_s"] * 1e9).astype(np.int64)
    if format == "pcap":
        data = pcap_bytes(frames, caplen, wire, t_ns, snaplen)
    else:
        name, text = _describe(result, cap)
        comments = {2: "dropped after this capture by the buffer of this link (full, or its queue discipline)",
                    3: "lost after this capture: random loss on this link"}
        data = pcapng_bytes(frames, caplen, wire, t_ns, snaplen, name, text, "simcore",
                            comment_of=cap["dropped"], comments=comments)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".part")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return target
