"""SCTP packets byte by byte (RFC 4960 sec. 3): common header, chunks, and the CRC32c checksum.

Each ``*_chunk`` function returns one chunk's bytes, padded to a multiple of 4; ``sctp_packet`` puts a
common header in front of a list of chunks and fills in the checksum. User data is zero bytes (the
simulator carries no payload). Used by the capture export (``simcore.packet.capture``); the sizes agree
with ``simcore.packet.sctp.wire`` (tested).

CRC32c (Castagnoli, reflected polynomial 0x82F63B78), as RFC 4960 appendix B (and RFC 3309) computes it:
register preset to all ones, bytes fed least significant bit first, the result complemented; it is
computed over the whole packet with the checksum field zero and stored least significant byte first
(appendix B's byte swap, then network order).
"""

from __future__ import annotations

import struct

import numpy as np
from numba import njit

__all__ = ["crc32c", "sctp_packet", "data_chunk", "sack_chunk", "init_chunk", "init_ack_chunk",
           "cookie_echo_chunk", "cookie_ack_chunk", "shutdown_chunk", "shutdown_ack_chunk",
           "shutdown_complete_chunk", "CHUNK_TYPES"]

CHUNK_TYPES = {"DATA": 0, "INIT": 1, "INIT_ACK": 2, "SACK": 3, "SHUTDOWN": 7, "SHUTDOWN_ACK": 8,
               "COOKIE_ECHO": 10, "COOKIE_ACK": 11, "SHUTDOWN_COMPLETE": 14}
_POLY = 0x82F63B78


def _table() -> np.ndarray:
    t = np.zeros(256, np.uint32)
    for b in range(256):
        c = b
        for _ in range(8):
            c = (c >> 1) ^ _POLY if c & 1 else c >> 1
        t[b] = c
    return t


_TABLE = _table()


@njit(cache=True)
def _crc32c_update(crc: np.uint32, data: np.ndarray, table: np.ndarray) -> np.uint32:
    c = np.uint32(crc)
    for i in range(data.shape[0]):
        c = table[(c ^ np.uint32(data[i])) & np.uint32(0xFF)] ^ (c >> np.uint32(8))
    return c


def crc32c(data: bytes | bytearray | np.ndarray) -> int:
    """Return the CRC32c of ``data`` (RFC 3309; ``crc32c(b"123456789") == 0xE3069283``)."""
    buf = np.frombuffer(bytes(data), np.uint8) if not isinstance(data, np.ndarray) else data.astype(np.uint8)
    return int(_crc32c_update(np.uint32(0xFFFFFFFF), buf, _TABLE)) ^ 0xFFFFFFFF


def _chunk(ctype: int, flags: int, value: bytes) -> bytes:
    """Return a chunk: type, flags, length (header + value, padding excluded), value, zero padding."""
    length = 4 + len(value)
    return struct.pack("!BBH", ctype, flags, length) + value + b"\0" * (-length % 4)


def data_chunk(tsn: int, stream: int, ssn: int, payload_bytes: int, *, begin: bool = True, end: bool = True,
               unordered: bool = False, ppid: int = 0) -> bytes:
    """Return a DATA chunk (sec. 3.3.1) of ``payload_bytes`` zero bytes; flags U (4), B (2), E (1)."""
    flags = (4 if unordered else 0) | (2 if begin else 0) | (1 if end else 0)
    return _chunk(0, flags, struct.pack("!IHHI", tsn & 0xFFFFFFFF, stream, ssn & 0xFFFF, ppid)
                  + b"\0" * payload_bytes)


def sack_chunk(cum_tsn: int, a_rwnd: int, gaps: list[tuple[int, int]] = (), dups: list[int] = ()) -> bytes:
    """Return a SACK chunk (sec. 3.3.4); ``gaps`` are (start, end) offsets from ``cum_tsn``, inclusive."""
    value = struct.pack("!IIHH", cum_tsn & 0xFFFFFFFF, a_rwnd, len(gaps), len(dups))
    value += b"".join(struct.pack("!HH", s, e) for s, e in gaps)
    value += b"".join(struct.pack("!I", d & 0xFFFFFFFF) for d in dups)
    return _chunk(3, 0, value)


def init_chunk(tag: int, a_rwnd: int, n_streams: int, initial_tsn: int, *, ack: bool = False,
               cookie_bytes: int = 0) -> bytes:
    """Return an INIT (sec. 3.3.2: with a Supported Address Types parameter, IPv4) or, if ``ack``, an
    INIT-ACK (sec. 3.3.3: with a State Cookie parameter of ``cookie_bytes``)."""
    fixed = struct.pack("!IIHHI", tag, a_rwnd, n_streams, n_streams, initial_tsn & 0xFFFFFFFF)
    if ack:
        param = struct.pack("!HH", 7, 4 + cookie_bytes) + b"\0" * cookie_bytes
    else:
        param = struct.pack("!HHH", 12, 6, 5)  # Supported Address Types: IPv4 (5)
    # the last parameter's padding is the chunk's: outside the chunk length (RFC 9260 sec. 3.2)
    return _chunk(2 if ack else 1, 0, fixed + param)


def init_ack_chunk(tag: int, a_rwnd: int, n_streams: int, initial_tsn: int, cookie_bytes: int) -> bytes:
    """Return an INIT-ACK carrying a state cookie of ``cookie_bytes``."""
    return init_chunk(tag, a_rwnd, n_streams, initial_tsn, ack=True, cookie_bytes=cookie_bytes)


def cookie_echo_chunk(cookie_bytes: int) -> bytes:
    """Return a COOKIE-ECHO chunk (sec. 3.3.11) echoing a cookie of ``cookie_bytes``."""
    return _chunk(10, 0, b"\0" * cookie_bytes)


def cookie_ack_chunk() -> bytes:
    """Return a COOKIE-ACK chunk (sec. 3.3.12)."""
    return _chunk(11, 0, b"")


def shutdown_chunk(cum_tsn: int) -> bytes:
    """Return a SHUTDOWN chunk (sec. 3.3.8)."""
    return _chunk(7, 0, struct.pack("!I", cum_tsn & 0xFFFFFFFF))


def shutdown_ack_chunk() -> bytes:
    """Return a SHUTDOWN-ACK chunk (sec. 3.3.9)."""
    return _chunk(8, 0, b"")


def shutdown_complete_chunk() -> bytes:
    """Return a SHUTDOWN-COMPLETE chunk (sec. 3.3.13; T bit clear: the sender had a TCB)."""
    return _chunk(14, 0, b"")


def sctp_packet(src_port: int, dst_port: int, vtag: int, chunks: list[bytes]) -> bytes:
    """Return an SCTP packet: the common header (sec. 3.1) then ``chunks``, with its CRC32c filled in."""
    body = b"".join(chunks)
    head = struct.pack("!HHII", src_port, dst_port, vtag & 0xFFFFFFFF, 0)
    crc = crc32c(head + body)
    return head[:8] + struct.pack("<I", crc) + body
