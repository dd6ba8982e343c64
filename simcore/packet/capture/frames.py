"""Ethernet / IPv4 / TCP / UDP headers of many frames at once (numpy), with RFC 1071 checksums.

``build_frames`` takes one array per header field (one entry per frame) and returns the frames as rows of
a zero-filled byte matrix: headers first, then the payload as zero bytes cut at the snap length. Zero
payload bytes add nothing to a one's-complement sum, so the checksums are those of the whole packet
even when the frame is cut. All multi-byte fields are big-endian (network order).

Layout: Ethernet II (14 bytes: destination MAC, source MAC, type 0x0800), IPv4 (20 bytes, no options,
DF set), then TCP (20 bytes + options, RFC 9293), UDP (8 bytes, RFC 768) or SCTP (RFC 4960: the whole
SCTP packet, common header and chunks with its CRC32c, given per frame as bytes by
``simcore.packet.capture.sctp_chunks``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

__all__ = ["ETH_BYTES", "IP_BYTES", "MAX_HEADER_BYTES", "TcpOptions", "FrameFields", "build_frames",
           "internet_checksum"]

ETH_BYTES = 14
IP_BYTES = 20
MAX_HEADER_BYTES = ETH_BYTES + IP_BYTES + 60  # the largest TCP header
PROTO_TCP = 6
PROTO_UDP = 17
PROTO_SCTP = 132
_L4 = ETH_BYTES + IP_BYTES  # offset of the TCP/UDP header in a frame


@dataclass(frozen=True)
class TcpOptions:
    """TCP options per frame. ``syn``: write MSS ``mss`` (kind 2), window scale ``wscale`` (kind 3) and, if
    ``sack_permitted``, SACK-permitted (kind 4); else ``sack`` (n, 3, 2) holds up to three SACK blocks
    (kind 5, 32-bit edges) with ``sack_n`` (n,) of them used. Where ``ts``: the timestamps option (kind 8,
    RFC 7323) with ``tsval`` and ``tsecr`` on every segment; three SACK blocks still fit beside it."""

    syn: np.ndarray  # bool
    mss: np.ndarray
    wscale: np.ndarray
    sack_permitted: np.ndarray  # bool
    sack: np.ndarray  # (n, 3, 2) uint32 edges
    sack_n: np.ndarray
    ts: np.ndarray | None = None  # bool; None: no frame carries timestamps
    tsval: np.ndarray | None = None  # uint32
    tsecr: np.ndarray | None = None  # uint32


@dataclass(frozen=True)
class FrameFields:
    """One entry per frame. ``proto`` 6 (TCP), 17 (UDP) or 132 (SCTP); TCP fields are ignored for UDP and
    SCTP frames. ``sctp``: per frame, the SCTP packet (bytes, checksum included; empty for other frames)."""

    src_mac: np.ndarray  # (n, 6) uint8
    dst_mac: np.ndarray  # (n, 6) uint8
    src_ip: np.ndarray  # uint32
    dst_ip: np.ndarray  # uint32
    ttl: np.ndarray
    ip_id: np.ndarray
    proto: np.ndarray
    src_port: np.ndarray
    dst_port: np.ndarray
    payload_bytes: np.ndarray
    seq: np.ndarray  # uint32
    ack: np.ndarray  # uint32
    tcp_flags: np.ndarray  # FIN 0x01, SYN 0x02, ACK 0x10, ECE 0x40, CWR 0x80
    window: np.ndarray  # the 16-bit field as sent
    options: TcpOptions
    sctp: tuple[bytes, ...] | None = None
    ecn: np.ndarray | None = None  # the IP header's ECN field (0 Not-ECT, 1 ECT(1), 2 ECT(0), 3 CE); None: all 0


def _put(buf: np.ndarray, col: np.ndarray | int, value: np.ndarray, nbytes: int) -> None:
    """Write ``value`` big-endian into ``nbytes`` bytes of every row of ``buf`` from column ``col``."""
    rows = np.arange(buf.shape[0])
    v = np.asarray(value, dtype=np.uint64)
    for k in range(nbytes):
        buf[rows, np.asarray(col) + k] = (v >> np.uint64(8 * (nbytes - 1 - k))) & np.uint64(0xFF)


def _sum16(b: np.ndarray) -> np.ndarray:
    """Return the sum of the big-endian 16-bit words of every row of ``b`` (uint8, even width)."""
    w = b.astype(np.uint64)
    return (w[:, 0::2] << np.uint64(8) | w[:, 1::2]).sum(axis=1, dtype=np.uint64)


def internet_checksum(total: np.ndarray) -> np.ndarray:
    """Return the RFC 1071 checksum (one's complement of the folded one's-complement sum) of word sums."""
    s = np.asarray(total, dtype=np.uint64)
    for _ in range(4):
        s = (s & np.uint64(0xFFFF)) + (s >> np.uint64(16))
    return (~s) & np.uint64(0xFFFF)


def _put_ts(opt: np.ndarray, rows: np.ndarray, col: int, o: TcpOptions) -> None:
    """Write the 10-byte timestamps option (kind 8, length 10, TSval, TSecr) at ``col`` of ``rows``."""
    part = np.zeros((rows.size, 10), np.uint8)
    part[:, 0:2] = (8, 10)
    _put(part, 2, o.tsval[rows], 4)
    _put(part, 6, o.tsecr[rows], 4)
    opt[rows, col:col + 10] = part


def _tcp_options(o: TcpOptions) -> tuple[np.ndarray, np.ndarray]:
    """Return (bytes (n, 40), length (n,)): options padded with NOPs (kind 1) to a multiple of 4 bytes.

    Layouts (those of Linux): SYN without timestamps: MSS, NOP, WS, [NOP, NOP, SACK-permitted] (8 or 12
    bytes); SYN with timestamps: MSS, SACK-permitted or NOP NOP, TS, NOP, WS (20 bytes); other segments:
    [NOP, NOP, TS] (12 bytes), then [NOP, NOP, SACK with k <= 3 blocks] (4 + 8k bytes): at most 40 bytes."""
    n = o.syn.shape[0]
    ts = np.zeros(n, bool) if o.ts is None else o.ts
    opt = np.zeros((n, 40), np.uint8)
    ln = np.zeros(n, np.int64)
    syn = np.flatnonzero(o.syn)
    if syn.size:
        opt[syn, 0:2] = (2, 4)
        opt[syn, 2] = (o.mss[syn] >> 8) & 0xFF
        opt[syn, 3] = o.mss[syn] & 0xFF
        plain = syn[~ts[syn]]  # MSS, NOP, window scale: 8 bytes; then NOP, NOP, SACK-permitted: 4 more
        opt[plain, 4:7] = (1, 3, 3)
        opt[plain, 7] = o.wscale[plain]
        sp = plain[o.sack_permitted[plain]]
        opt[sp, 8:12] = (1, 1, 4, 2)
        ln[plain] = np.where(o.sack_permitted[plain], 12, 8)
        tss = syn[ts[syn]]  # MSS, SACK-permitted (or NOP, NOP), TS, NOP, window scale: 20 bytes
        opt[tss, 4:6] = np.where(o.sack_permitted[tss, None], np.array([4, 2], np.uint8), np.uint8(1))
        _put_ts(opt, tss, 6, o)
        opt[tss, 16:19] = (1, 3, 3)
        opt[tss, 19] = o.wscale[tss]
        ln[tss] = 20
    data_ts = np.flatnonzero(~o.syn & ts)
    if data_ts.size:
        opt[data_ts, 0:2] = (1, 1)
        _put_ts(opt, data_ts, 2, o)
        ln[data_ts] = 12
    sk = np.flatnonzero(~o.syn & (o.sack_n > 0))
    if sk.size:
        k = o.sack_n[sk]
        base = ln[sk]  # after the timestamps option where there is one
        edges = o.sack[sk].reshape(-1, 6).astype(np.uint64)
        for b0 in np.unique(base):
            rows = sk[base == b0]
            kk, ee = k[base == b0], edges[base == b0]
            opt[rows, b0:b0 + 3] = (1, 1, 5)
            opt[rows, b0 + 3] = 2 + 8 * kk
            for j in range(6):
                col = b0 + 4 + 4 * j
                used = (j // 2) < kk
                part = np.zeros((rows.size, 4), np.uint8)
                _put(part, 0, ee[:, j], 4)
                opt[rows[used], col:col + 4] = part[used]
        ln[sk] = base + 4 + 8 * k
    return opt, ln


def build_frames(f: FrameFields, snaplen: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return (frames (n, width) uint8, captured length (n,), length on the wire (n,)) of ``f``.

    ``width`` = the largest captured length; bytes of a row past its captured length are zero."""
    n = f.src_ip.shape[0]
    tcp = f.proto == PROTO_TCP
    sctp = np.flatnonzero(f.proto == PROTO_SCTP) if f.sctp is not None else np.zeros(0, np.int64)
    opt, optlen = _tcp_options(f.options)
    l4_hdr = np.where(tcp, 20 + optlen, 8)
    l4_hdr[sctp] = [len(f.sctp[i]) for i in sctp]
    ip_len = IP_BYTES + l4_hdr + f.payload_bytes
    wire = ETH_BYTES + ip_len
    h = np.zeros((n, MAX_HEADER_BYTES), np.uint8)
    h[:, 0:6] = f.dst_mac
    h[:, 6:12] = f.src_mac
    h[:, 12:14] = (0x08, 0x00)
    h[:, 14] = 0x45  # IPv4, 5 words of header
    if f.ecn is not None:
        h[:, 15] = np.asarray(f.ecn, np.uint8) & 0x03  # DSCP 0, ECN (RFC 3168)
    _put(h, 16, ip_len, 2)
    _put(h, 18, f.ip_id, 2)
    h[:, 20] = 0x40  # don't fragment
    h[:, 22] = f.ttl
    h[:, 23] = f.proto
    _put(h, 26, f.src_ip, 4)
    _put(h, 30, f.dst_ip, 4)
    _put(h, 24, internet_checksum(_sum16(h[:, 14:34])), 2)
    _put(h, _L4, f.src_port, 2)
    _put(h, _L4 + 2, f.dst_port, 2)
    l4_len = ip_len - IP_BYTES
    t = np.flatnonzero(tcp)
    ht = h[t]
    _put(ht, _L4 + 4, f.seq[t], 4)
    _put(ht, _L4 + 8, f.ack[t], 4)
    ht[:, _L4 + 12] = (l4_hdr[t] // 4) << 4
    ht[:, _L4 + 13] = f.tcp_flags[t]
    _put(ht, _L4 + 14, f.window[t], 2)
    ht[:, _L4 + 20:_L4 + 60] = opt[t]
    h[t] = ht
    u = np.flatnonzero(~tcp & (f.proto != PROTO_SCTP))
    hu = h[u]
    _put(hu, _L4 + 4, l4_len[u], 2)
    h[u] = hu
    # pseudo-header: source, destination, protocol, TCP/UDP length (RFC 9293 sec. 3.1, RFC 768)
    pseudo = (f.src_ip.astype(np.uint64) >> np.uint64(16)) + (f.src_ip.astype(np.uint64) & np.uint64(0xFFFF)) \
        + (f.dst_ip.astype(np.uint64) >> np.uint64(16)) + (f.dst_ip.astype(np.uint64) & np.uint64(0xFFFF)) \
        + f.proto.astype(np.uint64) + l4_len.astype(np.uint64)
    ck = internet_checksum(pseudo + _sum16(h[:, _L4:]))
    ck_col = np.where(tcp, _L4 + 16, _L4 + 6)
    ck = np.where(~tcp & (ck == 0), np.uint64(0xFFFF), ck)  # UDP sends an all-zero sum as all ones
    _put(h, ck_col, ck, 2)
    cap = np.minimum(wire, snaplen)
    width = int(cap.max()) if n else 0
    frames = np.zeros((n, width), np.uint8)
    hdr_w = min(width, MAX_HEADER_BYTES)
    frames[:, :hdr_w] = h[:, :hdr_w]
    for i in sctp:  # the SCTP packet after the IP header, cut at the snap length
        k = int(cap[i]) - _L4
        frames[i, _L4:] = 0
        frames[i, _L4:_L4 + k] = np.frombuffer(f.sctp[i], np.uint8)[:k]
    return frames, cap.astype(np.int64), wire.astype(np.int64)
