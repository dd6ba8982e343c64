"""Read the Linux kernel's per-socket TCP counters: ``getsockopt(IPPROTO_TCP, TCP_INFO)``.

Offsets into ``struct tcp_info`` (``include/uapi/linux/tcp.h``, present since Linux 4.2 for the segment
counters, 4.6 for the data-segment counters; checked against ``/usr/include/linux/tcp.h`` here): eight
``__u8`` fields (state at 0), then ``__u32`` rto 8, ato 12, snd_mss 16, rcv_mss 20, ... pmtu 60, ...
total_retrans 100; ``__u64`` pacing_rate 104, max_pacing_rate 112, bytes_acked 120, bytes_received 128;
``__u32`` segs_out 136, segs_in 140, notsent_bytes 144, min_rtt 148, data_segs_in 152, data_segs_out 156.
The kernel copies min(len, sizeof) bytes, so asking for 160 bytes works on any kernel that has them; an
older kernel returns fewer bytes and ``read_tcp_info`` says so.
"""

from __future__ import annotations

import socket
import struct
import sys
from dataclasses import dataclass

__all__ = ["TcpInfo", "read_tcp_info", "parse_tcp_info", "TCP_INFO_BYTES", "available"]

TCP_INFO_BYTES = 160
_TCP_INFO = getattr(socket, "TCP_INFO", 11)
_FIELDS = {  # name: (offset, struct format)
    "state": (0, "B"), "snd_mss": (16, "I"), "rcv_mss": (20, "I"), "pmtu": (60, "I"),
    "total_retrans": (100, "I"), "bytes_acked": (120, "Q"), "bytes_received": (128, "Q"),
    "segs_out": (136, "I"), "segs_in": (140, "I"), "data_segs_in": (152, "I"), "data_segs_out": (156, "I"),
}


@dataclass(frozen=True)
class TcpInfo:
    """The counters this lab uses (segments include SYN, FIN and pure ACKs; data_segs only payload)."""

    state: int
    snd_mss: int
    rcv_mss: int
    pmtu: int
    total_retrans: int
    bytes_acked: int
    bytes_received: int
    segs_out: int
    segs_in: int
    data_segs_in: int
    data_segs_out: int


def available() -> bool:
    """Return True on Linux, where TCP_INFO has these counters."""
    return sys.platform.startswith("linux")


def parse_tcp_info(raw: bytes) -> TcpInfo:
    """Return the ``TcpInfo`` in the first ``TCP_INFO_BYTES`` bytes of a raw ``struct tcp_info``
    (native byte order, as the kernel writes it). ValueError if ``raw`` is shorter."""
    if not isinstance(raw, (bytes, bytearray)) or len(raw) < TCP_INFO_BYTES:
        n = len(raw) if isinstance(raw, (bytes, bytearray)) else raw
        raise ValueError(f"struct tcp_info of {n!r} bytes is too short: need {TCP_INFO_BYTES} "
                         "(Linux 4.6 or newer)")
    return TcpInfo(**{k: struct.unpack_from("=" + f, raw, off)[0] for k, (off, f) in _FIELDS.items()})


def read_tcp_info(sock: socket.socket) -> TcpInfo:
    """Return the kernel's TCP counters of ``sock`` (Linux only)."""
    if not available():
        raise ValueError(f"TCP_INFO counters need Linux, not {sys.platform!r}")
    return parse_tcp_info(sock.getsockopt(socket.IPPROTO_TCP, _TCP_INFO, TCP_INFO_BYTES))
