"""The SCTP packets of a traced run, byte by byte, for the capture export (``simcore.packet.capture``).

From each packet's trace row: INIT (flags SYN), INIT-ACK (SYN + ACK), COOKIE-ECHO / COOKIE-ACK (flag F_COOKIE;
client / server; DATA may follow a COOKIE-ECHO), SHUTDOWN / SHUTDOWN-ACK (FIN; from the closer / its peer),
SHUTDOWN-COMPLETE (FIN + SYN), DATA (``seqlen`` bytes at ``seq``), SACK (flag ACK: cumulative TSN ack in
``ack``, gap blocks as TSN ranges in ``sack``). Control chunks go before DATA (RFC 4960 sec. 6.10).

- Verification tags and initial TSNs: the run's random ``tcp_isn`` per direction (tag = isn | 1, never 0;
  initial TSN = isn). The INIT carries tag 0, as sec. 8.5.1 asks; every later packet the peer's tag.
- DATA chunks of a packet: its bytes cut where a message ends and after ``max_payload_bytes`` (as the
  sender cuts them; several small chunks share a packet, bundled). TSN of a DATA chunk: the simulator
  numbers chunks from 0 in the order of their bytes; the capture adds the initial TSN. Stream, SSN and the
  B/E bits (U with ``SctpParams.unordered``): from the messages of that direction in the order they were
  written; SSN: the one the simulator gave the message when written (``PacketResult.message_ssn``).
- a_rwnd: ``SctpParams.rwnd_bytes`` (the window a SACK advertised is not in the trace). Duplicate TSNs:
  the one the SACK reported (``PacketTrace.dup_tsn``).
"""

from __future__ import annotations

import numpy as np

from simcore._validate import check_choice, check_int

from .sctp_chunks import (
    cookie_ack_chunk,
    cookie_echo_chunk,
    data_chunk,
    init_ack_chunk,
    init_chunk,
    sack_chunk,
    sctp_packet,
    shutdown_ack_chunk,
    shutdown_chunk,
    shutdown_complete_chunk,
)

__all__ = ["chunk_bounds", "sctp_packets"]


def _layouts(result) -> dict:
    """Per (conn, dir): (message begins, ends, streams, SSNs) in the order the messages were written."""
    sc = result.scenario
    out: dict = {}
    order = np.argsort(np.where(np.isnan(result.message_write_s), np.inf, result.message_write_s), kind="stable")
    nxt: dict = {}
    for k in order:
        m = sc.messages[k]
        if np.isnan(result.message_write_s[k]) or m.conn is None:
            continue
        key = (m.conn, 0 if m.sender == "client" else 1)
        b = nxt.get(key, 1)
        e = np.iinfo(np.int64).max if m.size_bytes is None else b + m.size_bytes
        nxt[key] = e
        out.setdefault(key, []).append((b, e, m.stream, int(result.message_ssn[k])))
    return {k: tuple(np.array(col, np.int64) for col in zip(*v, strict=True)) for k, v in out.items()}


def _data_rows(pt, conn: int, direction: int) -> np.ndarray:
    return (pt.kind == 0) & (pt.seqlen > 0) & ((pt.flags & 8) == 0) & (pt.conn == conn) & (pt.direction == direction)


def _cuts(seq: int, ln: int, begins: np.ndarray, ends: np.ndarray, mss: int):
    """Yield (first byte, end byte, message index) of each DATA chunk of a packet carrying [seq, seq + ln)."""
    pos, end = seq, seq + ln
    while pos < end:
        k = int(np.searchsorted(begins, pos, side="right")) - 1
        nxt = min(pos + mss, int(ends[k]), end)
        yield pos, nxt, k
        pos = nxt


def chunk_bounds(result, conn: int, direction: int) -> tuple[np.ndarray, np.ndarray]:
    """Return (first byte, end byte) of every DATA chunk one direction of association ``conn`` sent, in TSN
    order (TSN k is the k-th, from 0 as the simulator counts; chunks keep their bytes when resent). Bytes
    are numbered as the packet trace's ``seq``: the first data byte is 1 (the set-up takes 0, as TCP's SYN).

    ``result``: a ``PacketResult`` of ``simulate(..., trace=True)``; ``conn``: the index of an SCTP
    association in its scenario; ``direction``: 0 (client to server) or 1."""
    pt = getattr(result, "packet_trace", None)
    if pt is None:
        raise ValueError("result has no packet trace: run simulate(..., trace=True)")
    conns = getattr(result.scenario, "connections", ())  # a BulkScenario holds TCP connections only
    if not any(c.transport == "sctp" for c in conns):
        raise ValueError("result's scenario has no SCTP association")
    check_int("conn", conn, 0, len(conns) - 1)
    if conns[conn].transport != "sctp":
        raise ValueError(f"conn={conn} is a {conns[conn].transport!r} connection: must be an SCTP association")
    check_choice("direction", direction, (0, 1))
    sel = _data_rows(pt, conn, direction)
    lay = _layouts(result).get((conn, direction))
    if lay is None or not sel.any():
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    begins, ends = lay[0], lay[1]
    mss = result.scenario.connections[conn].sctp.max_payload_bytes
    bounds: dict = {}
    for seq, ln in {(int(a), int(b)) for a, b in zip(pt.seq[sel], pt.seqlen[sel], strict=True)}:
        for a, b, _ in _cuts(seq, ln, begins, ends, mss):
            bounds[a] = b
    starts = np.array(sorted(bounds), np.int64)
    return starts, np.array([bounds[a] for a in starts.tolist()], np.int64)


def _sack(pt, i, peer_isn, sp) -> bytes:
    cum = int(pt.ack[i])
    blocks = pt.sack[i] if pt.sack is not None else np.full((3, 2), -1)
    gaps = [(int(lo) - cum, int(hi) - 1 - cum) for lo, hi in blocks if lo >= 0]
    dups = [int(peer_isn) + int(pt.dup_tsn[i])] if pt.dup_tsn is not None and pt.dup_tsn[i] >= 0 else []
    return sack_chunk(int(peer_isn) + cum, sp.rwnd_bytes, gaps, dups)


def sctp_packets(result, rows: np.ndarray, server_port: int, client_port0: int) -> list[bytes]:
    """Return the SCTP packet (common header and chunks, CRC32c) of every trace row in ``rows``."""
    pt, sc = result.packet_trace, result.scenario
    isn = result.tcp_isn.astype(np.int64)
    tags = (isn | 1) & 0xFFFFFFFF
    data = (pt.kind == 0) & (pt.seqlen > 0) & ((pt.flags & 8) == 0)
    starts = {}
    for c, d in {(int(a), int(b)) for a, b in zip(pt.conn[data], pt.direction[data], strict=True)}:
        if sc.connections[c].transport == "sctp":  # a scenario may run TCP connections beside
            starts[(c, d)] = chunk_bounds(result, c, d)[0]
    lay = _layouts(result)
    out = []
    for i in rows:
        c, d = int(pt.conn[i]), int(pt.direction[i])
        f, ln = int(pt.flags[i]), int(pt.seqlen[i])
        sp = sc.connections[c].sctp
        cport = client_port0 + c % 16384
        src, dst = (cport, server_port) if d == 0 else (server_port, cport)
        mine, peer = int(tags[c, d]), int(tags[c, 1 - d])
        chunks = []
        vtag = peer
        if f & 4:  # the SHUTDOWN family: FIN + SYN ends it; FIN from the closer / from its peer
            closer = 0 if sc.connections[c].closer == "client" else 1
            if f & 1:
                chunks.append(shutdown_complete_chunk())
            elif d == closer:
                chunks.append(shutdown_chunk(int(isn[c, 1 - d]) + int(pt.ack[i])))
            else:
                chunks.append(shutdown_ack_chunk())
            if f & 2:
                chunks.insert(0, _sack(pt, i, isn[c, 1 - d], sp))
        elif f & 1:
            if f & 2:
                chunks.append(init_ack_chunk(mine, sp.rwnd_bytes, sp.n_streams, int(isn[c, d]), sp.cookie_bytes))
            else:
                chunks.append(init_chunk(mine, sp.rwnd_bytes, sp.n_streams, int(isn[c, d])))
                vtag = 0
        else:
            if f & 32:  # F_COOKIE
                chunks.append(cookie_echo_chunk(sp.cookie_bytes) if d == 0 else cookie_ack_chunk())
            if f & 2:
                chunks.append(_sack(pt, i, isn[c, 1 - d], sp))
            if ln > 0:
                b, e, stream, ssn = lay[(c, d)]
                for lo, hi, k in _cuts(int(pt.seq[i]), ln, b, e, sp.max_payload_bytes):
                    tsn = int(np.searchsorted(starts[(c, d)], lo))
                    chunks.append(data_chunk(int(isn[c, d]) + tsn, int(stream[k]), int(ssn[k]), hi - lo,
                                             begin=lo == b[k], end=hi == e[k], unordered=sp.unordered))
        out.append(sctp_packet(src, dst, vtag, chunks))
    return out
