"""pcap and pcapng file bytes from a matrix of frames, all records at once (numpy).

pcap: the libpcap format with nanosecond timestamps (magic 0xa1b23c4d), version 2.4, little-endian,
link type 1 (Ethernet). pcapng (RFC draft-ietf-opsawg-pcapng): a Section Header Block, one Interface
Description Block (Ethernet, ``if_tsresol`` = 9: nanoseconds, ``if_name`` / ``if_description`` say where
the capture was taken) and one Enhanced Packet Block per frame, with an optional packet comment.
"""

from __future__ import annotations

import struct

import numpy as np

__all__ = ["LINKTYPE_ETHERNET", "pcap_bytes", "pcapng_bytes"]

LINKTYPE_ETHERNET = 1
PCAP_MAGIC_NS = 0xA1B23C4D
PCAPNG_BYTE_ORDER_MAGIC = 0x1A2B3C4D


def _le32(values: np.ndarray) -> np.ndarray:
    """Return (n, 4) little-endian bytes of uint32 ``values``."""
    return np.asarray(values, dtype="<u4").reshape(-1, 1).view(np.uint8)


def _records(head: np.ndarray, frames: np.ndarray, caplen: np.ndarray, pad4: bool, tail: np.ndarray | None,
             tail_len: np.ndarray | None = None):
    """Return the bytes of all records: row i is head[i], frames[i, :caplen[i]] (zero-padded to 4 bytes if
    ``pad4``), then tail[i, :tail_len[i]] (all of tail[i] if ``tail_len`` is None)."""
    n, hw = head.shape
    body = (caplen + 3) // 4 * 4 if pad4 else caplen
    tw = 0 if tail is None else tail.shape[1]
    tl = np.full(n, tw, np.int64) if tail_len is None else tail_len
    width = hw + (int(body.max()) if n else 0) + tw
    out = np.zeros((n, width), np.uint8)
    out[:, :hw] = head
    out[:, hw:hw + frames.shape[1]] = frames
    cols = np.arange(width)
    out[:, hw:][cols[None, : width - hw] >= caplen[:, None]] = 0  # nothing of a frame past its capture
    if tail is not None:
        at = hw + body[:, None] + np.arange(tw)[None, :]
        out[np.arange(n)[:, None], at] = tail
    keep = cols[None, :] < (hw + body + tl)[:, None]
    return out[keep].tobytes()


def _split_ns(t_ns: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    return t_ns // 1_000_000_000, t_ns % 1_000_000_000


def pcap_bytes(frames: np.ndarray, caplen: np.ndarray, wirelen: np.ndarray, t_ns: np.ndarray, snaplen: int) -> bytes:
    """Return a whole pcap file: global header, then one record (16-byte header + frame) per row."""
    header = struct.pack("<IHHiIII", PCAP_MAGIC_NS, 2, 4, 0, 0, snaplen, LINKTYPE_ETHERNET)
    sec, ns = _split_ns(t_ns)
    head = np.hstack([_le32(sec), _le32(ns), _le32(caplen), _le32(wirelen)])
    return header + _records(head, frames, caplen, False, None)


def _option(code: int, value: bytes) -> bytes:
    return struct.pack("<HH", code, len(value)) + value + b"\0" * (-len(value) % 4)


def _block(block_type: int, body: bytes) -> bytes:
    total = 12 + len(body)
    return struct.pack("<II", block_type, total) + body + struct.pack("<I", total)


def pcapng_bytes(frames: np.ndarray, caplen: np.ndarray, wirelen: np.ndarray, t_ns: np.ndarray, snaplen: int,
                 if_name: str, if_description: str, application: str, comment_of: np.ndarray | None = None,
                 comments: dict[int, str] | None = None) -> bytes:
    """Return a whole pcapng file: SHB, one IDB (nanosecond timestamps), one EPB per row; row i carries the
    packet comment ``comments[comment_of[i]]`` if there is one (EPB option opt_comment)."""
    end = struct.pack("<HH", 0, 0)
    shb = _block(0x0A0D0D0A, struct.pack("<IHHq", PCAPNG_BYTE_ORDER_MAGIC, 1, 0, -1)
                 + _option(4, application.encode()) + end)
    idb = _block(0x00000001, struct.pack("<HHI", LINKTYPE_ETHERNET, 0, snaplen)
                 + _option(2, if_name.encode()) + _option(3, if_description.encode()) + _option(9, b"\x09") + end)
    n = caplen.shape[0]
    # per row: its options (a comment and the end of options, or nothing), then the block's total length
    opts = {k: _option(1, v.encode()) + end for k, v in (comments or {}).items()}
    which = np.zeros(n, np.int64) if comment_of is None else np.asarray(comment_of)
    opt_len = np.array([len(opts.get(k, b"")) for k in range(int(which.max(initial=0)) + 1)], np.int64)[which]
    total = 32 + (caplen + 3) // 4 * 4 + opt_len
    tail = np.zeros((n, int(opt_len.max(initial=0)) + 4), np.uint8)
    for k, o in opts.items():
        rows = np.flatnonzero(which == k)
        if rows.size:
            tail[rows, :len(o)] = np.frombuffer(o, np.uint8)
    tail[np.arange(n)[:, None], opt_len[:, None] + np.arange(4)] = _le32(total)
    t = t_ns.astype(np.uint64)
    head = np.hstack([_le32(np.full(n, 6)), _le32(total), _le32(np.zeros(n)), _le32(t >> np.uint64(32)),
                      _le32(t & np.uint64(0xFFFFFFFF)), _le32(caplen), _le32(wirelen)])
    return shb + idb + _records(head, frames, caplen, True, tail, opt_len + 4)
