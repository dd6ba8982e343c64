"""Sizes of SCTP on the wire (RFC 4960 sec. 3), in plain Python: headers, chunks, padding, packets.

Every size here is of the IP packet or of a chunk *with* its padding: a chunk's length field excludes
the padding, but the padding is sent, the last chunk of a packet included (sec. 3.2). The kernel uses
the same constants; ``simcore.packet.capture.sctp_chunks`` writes the chunks byte by byte, and the tests check
that its lengths agree with these.

- IPv4 header 20 bytes (no options), SCTP common header 12 bytes (ports, verification tag, CRC32c).
- DATA chunk (sec. 3.3.1): 16-byte header (type, flags, length, TSN, stream, SSN, PPID) + user data,
  padded to 4 bytes. A DATA chunk never holds bytes of two messages.
- SACK chunk (sec. 3.3.4): 16 bytes + 4 per gap ack block + 4 per duplicate TSN.
- INIT (sec. 3.3.2): 20 bytes + a Supported Address Types parameter (IPv4; 6 bytes, padded to 8).
- INIT-ACK (sec. 3.3.3): 20 bytes + the State Cookie parameter (4 bytes + cookie, padded).
- COOKIE-ECHO (sec. 3.3.11): 4 bytes + the cookie, padded. COOKIE-ACK (sec. 3.3.12): 4 bytes.
- SHUTDOWN (sec. 3.3.8): 8 bytes (cumulative TSN ack). SHUTDOWN-ACK, SHUTDOWN-COMPLETE: 4 bytes.
"""

from __future__ import annotations

from simcore._validate import check_int

__all__ = [
    "IPV4_HEADER_BYTES", "COMMON_HEADER_BYTES", "DATA_CHUNK_HEADER_BYTES", "DATA_OVERHEAD_BYTES",
    "SACK_CHUNK_BYTES", "GAP_BLOCK_BYTES", "DUP_TSN_BYTES", "INIT_CHUNK_BYTES", "INIT_ACK_FIXED_BYTES",
    "COOKIE_ACK_BYTES", "SHUTDOWN_BYTES", "SHUTDOWN_ACK_BYTES", "SHUTDOWN_COMPLETE_BYTES",
    "pad4", "max_data_payload_bytes", "data_chunk_bytes", "sack_chunk_bytes", "max_sack_reports",
    "init_ack_chunk_bytes", "cookie_echo_chunk_bytes", "message_chunk_payloads", "message_wire_bytes",
    "packet_bytes",
]

IPV4_HEADER_BYTES = 20
COMMON_HEADER_BYTES = 12
DATA_CHUNK_HEADER_BYTES = 16
DATA_OVERHEAD_BYTES = IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + DATA_CHUNK_HEADER_BYTES  # 48
SACK_CHUNK_BYTES = 16
GAP_BLOCK_BYTES = 4
DUP_TSN_BYTES = 4
SUPPORTED_ADDRESS_TYPES_BYTES = 8  # type 12, length 6 (one address type: IPv4), 2 bytes of padding
INIT_CHUNK_BYTES = 20 + SUPPORTED_ADDRESS_TYPES_BYTES  # 28
INIT_ACK_FIXED_BYTES = 20
COOKIE_ACK_BYTES = 4
SHUTDOWN_BYTES = 8
SHUTDOWN_ACK_BYTES = 4
SHUTDOWN_COMPLETE_BYTES = 4


def pad4(n: int) -> int:
    """Return ``n`` rounded up to a multiple of 4 (chunks and parameters are padded so)."""
    return (n + 3) // 4 * 4


def max_data_payload_bytes(mtu_bytes: int) -> int:
    """Return the user data of a full DATA chunk alone in a packet of at most ``mtu_bytes``: the MTU less
    48 bytes of headers, rounded down to a multiple of 4 so that the chunk's padding fits too."""
    return (mtu_bytes - DATA_OVERHEAD_BYTES) // 4 * 4


def data_chunk_bytes(payload_bytes: int) -> int:
    """Return the bytes a DATA chunk of ``payload_bytes`` user data takes in a packet (padding included)."""
    return pad4(DATA_CHUNK_HEADER_BYTES + payload_bytes)


def sack_chunk_bytes(n_gap_blocks: int, n_dup_tsns: int) -> int:
    """Return the size of a SACK chunk reporting ``n_gap_blocks`` gap ack blocks and ``n_dup_tsns``
    duplicate TSNs (sec. 3.3.4; always a multiple of 4)."""
    return SACK_CHUNK_BYTES + GAP_BLOCK_BYTES * n_gap_blocks + DUP_TSN_BYTES * n_dup_tsns


def max_sack_reports(mtu_bytes: int) -> int:
    """Return how many gap ack blocks plus duplicate TSNs a SACK alone in a packet of ``mtu_bytes`` holds."""
    return (mtu_bytes - IPV4_HEADER_BYTES - COMMON_HEADER_BYTES - SACK_CHUNK_BYTES) // 4


def init_ack_chunk_bytes(cookie_bytes: int) -> int:
    """Return the size of an INIT-ACK carrying a state cookie of ``cookie_bytes``."""
    return INIT_ACK_FIXED_BYTES + pad4(4 + cookie_bytes)


def cookie_echo_chunk_bytes(cookie_bytes: int) -> int:
    """Return the size of a COOKIE-ECHO chunk echoing a cookie of ``cookie_bytes``."""
    return pad4(4 + cookie_bytes)


def packet_bytes(chunk_bytes: int) -> int:
    """Return the IP packet size of an SCTP packet holding chunks of ``chunk_bytes`` in all."""
    return IPV4_HEADER_BYTES + COMMON_HEADER_BYTES + chunk_bytes


def message_chunk_payloads(size_bytes: int, mtu_bytes: int) -> list[int]:
    """Return the user data of each DATA chunk a message of ``size_bytes`` is cut into: full chunks of
    ``max_data_payload_bytes(mtu_bytes)``, then the rest (sec. 6.9: fragments fill the path MTU)."""
    check_int("size_bytes", size_bytes, 1)
    check_int("mtu_bytes", mtu_bytes, DATA_OVERHEAD_BYTES + 4, 65535)
    p = max_data_payload_bytes(mtu_bytes)
    full, rest = divmod(size_bytes, p)
    return [p] * full + ([rest] if rest else [])


def message_wire_bytes(size_bytes: int, mtu_bytes: int = 1500) -> int:
    """Return the IP bytes that carry a message of ``size_bytes`` over a path of ``mtu_bytes``, each of its
    DATA chunks in a packet of its own (nothing bundled with it): per chunk, 20 (IPv4) + 12 (common
    header) + 16 (DATA chunk header) + the data padded to 4 bytes."""
    return sum(packet_bytes(data_chunk_bytes(p)) for p in message_chunk_payloads(size_bytes, mtu_bytes))
