"""A small capture reader for hidden tests, written from the file formats, not from simcore's writer.

Reads pcap (libpcap: magic 0xa1b2c3d4 for microseconds, 0xa1b23c4d for nanoseconds, either byte order) and
pcapng (Section Header, Interface Description and Enhanced / Simple Packet blocks; other blocks skipped;
``if_tsresol`` honoured), and decodes Ethernet II (one 802.1Q tag allowed) -> IPv4 -> TCP (ports, sequence and
acknowledgement numbers, flags, window, options: MSS, window scale, SACK, timestamps) or SCTP (chunk types,
DATA TSNs, SACK cumulative TSN) or UDP. A TCP or SCTP payload's length comes from the IPv4 total length, so it
is right in captures cut by their snaplen. Anything malformed raises ``PcapError`` saying where; nothing else
is raised (fuzzed in tests/grading/test_pcap_reader.py).

Hidden tests read the capture of the student's own run with it and compute the answers from what is on the
wire, independently of the simulator that wrote it:

    cap = read_capture("my_run.pcapng")
    data = [p for p in cap.packets if p.proto == "tcp" and p.payload_len > 0]
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["PcapError", "Packet", "Capture", "read_capture", "parse_capture"]

TCP_FLAGS = {"FIN": 0x01, "SYN": 0x02, "RST": 0x04, "PSH": 0x08, "ACK": 0x10, "URG": 0x20, "ECE": 0x40, "CWR": 0x80}
_PCAP_MAGIC = {0xA1B2C3D4: 1e-6, 0xA1B23C4D: 1e-9}
_MAX_RECORD = 1 << 24  # 16 MB: larger than any link's frame; a bigger length is a damaged file


class PcapError(ValueError):
    """The capture is malformed (the message says where)."""


@dataclass(frozen=True)
class Packet:
    """One captured frame, decoded as far as it goes.

    index: 0-based position in the file. time_s: timestamp, seconds. wire_len / cap_len: bytes on the wire and
    in the file. src / dst: dotted IPv4 addresses ("" if not IPv4). proto: "tcp", "sctp", "udp", or the IP
    protocol number as a string, or "" (not IPv4). sport / dport: ports (-1 if none). TCP: seq, ack (raw 32-bit
    numbers), flags (a set of names: "SYN", "ACK" ...), window (unscaled), options (name -> value: "MSS",
    "WS", "SACK_PERM", "SACK" (list of (left, right)), "TS" (value, echo)). payload_len: TCP/UDP/SCTP payload
    bytes (for SCTP, the DATA chunks' user data). SCTP: chunks (list of (type number, TSN or None): DATA's TSN,
    SACK's cumulative TSN ack).
    """

    index: int
    time_s: float
    wire_len: int
    cap_len: int
    src: str = ""
    dst: str = ""
    proto: str = ""
    sport: int = -1
    dport: int = -1
    seq: int = -1
    ack: int = -1
    flags: frozenset = frozenset()
    window: int = -1
    options: dict = field(default_factory=dict)
    payload_len: int = 0
    chunks: tuple = ()


@dataclass(frozen=True)
class Capture:
    """A capture file: its format ("pcap" or "pcapng"), link type and packets (in file order)."""

    format: str
    linktype: int
    packets: list


def read_capture(path) -> Capture:
    """Read and decode the capture file at ``path``."""
    return parse_capture(Path(path).read_bytes())


def parse_capture(data: bytes) -> Capture:
    """Decode a capture given as bytes (pcap or pcapng, told apart by their first four bytes)."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise PcapError(f"a capture is bytes, not {type(data).__name__}")
    data = bytes(data)
    if len(data) < 12:
        raise PcapError(f"{len(data)} bytes is too short for a capture file")
    if data[:4] == b"\x0a\x0d\x0d\x0a":
        return _pcapng(data)
    return _pcap(data)


def _pcap(data: bytes) -> Capture:
    if len(data) < 24:
        raise PcapError("pcap: the global header needs 24 bytes")
    for order in "<>":
        (magic,) = struct.unpack(order + "I", data[:4])
        if magic in _PCAP_MAGIC:
            break
    else:
        raise PcapError(f"not a pcap or pcapng file (first bytes {data[:4].hex()})")
    unit = _PCAP_MAGIC[magic]
    major, _minor, _zone, _sigfigs, _snaplen, linktype = struct.unpack(order + "HHiIII", data[4:24])
    if major != 2:
        raise PcapError(f"pcap: version {major} is not 2")
    packets, pos = [], 24
    while pos < len(data):
        if pos + 16 > len(data):
            raise PcapError(f"pcap: record header at byte {pos} is cut short")
        sec, frac, cap_len, wire_len = struct.unpack(order + "IIII", data[pos:pos + 16])
        if cap_len > _MAX_RECORD or pos + 16 + cap_len > len(data):
            raise PcapError(f"pcap: record at byte {pos} says {cap_len} bytes, the file has {len(data) - pos - 16}")
        if frac * unit >= 1.0:
            raise PcapError(f"pcap: record at byte {pos} has a fraction of a second >= 1 ({frac})")
        frame = data[pos + 16:pos + 16 + cap_len]
        packets.append(_decode(len(packets), sec + frac * unit, wire_len, frame, linktype))
        pos += 16 + cap_len
    return Capture("pcap", linktype, packets)


def _pcapng(data: bytes) -> Capture:
    packets: list[Packet] = []
    interfaces: list[tuple[int, float]] = []  # (linktype, seconds per tick) of the current section
    order, pos = "<", 0
    while pos < len(data):
        if pos + 12 > len(data):
            raise PcapError(f"pcapng: block at byte {pos} is cut short")
        if data[pos:pos + 4] == b"\x0a\x0d\x0d\x0a":  # a section starts: its byte-order magic says the order
            magic = data[pos + 8:pos + 12]
            order = {b"\x4d\x3c\x2b\x1a": "<", b"\x1a\x2b\x3c\x4d": ">"}.get(magic)
            if order is None:
                raise PcapError(f"pcapng: section at byte {pos} has no byte-order magic ({magic.hex()})")
            interfaces = []
        btype, blen = struct.unpack(order + "II", data[pos:pos + 8])
        if blen < 12 or blen % 4 or pos + blen > len(data) or blen > _MAX_RECORD:
            raise PcapError(f"pcapng: block at byte {pos} has length {blen} (file has {len(data) - pos} left)")
        (trail,) = struct.unpack(order + "I", data[pos + blen - 4:pos + blen])
        if trail != blen:
            raise PcapError(f"pcapng: block at byte {pos}: its two lengths differ ({blen}, {trail})")
        body = data[pos + 8:pos + blen - 4]
        if btype == 0x0A0D0D0A:
            if len(body) < 16:
                raise PcapError(f"pcapng: section header at byte {pos} is too short")
            major = struct.unpack(order + "H", body[4:6])[0]
            if major != 1:
                raise PcapError(f"pcapng: section at byte {pos} has version {major}, not 1")
        elif btype == 1:  # Interface Description Block
            if len(body) < 8:
                raise PcapError(f"pcapng: interface block at byte {pos} is too short")
            linktype = struct.unpack(order + "H", body[:2])[0]
            tick = 1e-6
            for code, value in _options(body[8:], order, pos):
                if code == 9:  # if_tsresol
                    if len(value) != 1:
                        raise PcapError(f"pcapng: interface block at byte {pos}: if_tsresol is not one byte")
                    v = value[0]
                    if (v & 0x7F) > 63:
                        raise PcapError(f"pcapng: interface block at byte {pos}: if_tsresol {v} is out of range")
                    tick = 2.0 ** -(v & 0x7F) if v & 0x80 else 10.0 ** -v
            interfaces.append((linktype, tick))
        elif btype == 6:  # Enhanced Packet Block
            if len(body) < 20:
                raise PcapError(f"pcapng: packet block at byte {pos} is too short")
            iface, hi, lo, cap_len, wire_len = struct.unpack(order + "IIIII", body[:20])
            if iface >= len(interfaces):
                raise PcapError(f"pcapng: packet block at byte {pos} names interface {iface}, "
                                f"{len(interfaces)} described")
            if 20 + cap_len > len(body):
                raise PcapError(f"pcapng: packet block at byte {pos} says {cap_len} bytes, it holds {len(body) - 20}")
            linktype, tick = interfaces[iface]
            packets.append(_decode(len(packets), ((hi << 32) | lo) * tick, wire_len, body[20:20 + cap_len], linktype))
        elif btype == 3:  # Simple Packet Block: no time
            if len(body) < 4 or not interfaces:
                raise PcapError(f"pcapng: simple packet block at byte {pos} is too short or has no interface")
            (wire_len,) = struct.unpack(order + "I", body[:4])
            frame = body[4:4 + min(wire_len, len(body) - 4)]
            packets.append(_decode(len(packets), float("nan"), wire_len, frame, interfaces[0][0]))
        pos += blen
    if not data.startswith(b"\x0a\x0d\x0d\x0a"):
        raise PcapError("pcapng: the file does not start with a section header")
    return Capture("pcapng", interfaces[0][0] if interfaces else -1, packets)


def _options(raw: bytes, order: str, where: int):
    pos = 0
    while pos + 4 <= len(raw):
        code, length = struct.unpack(order + "HH", raw[pos:pos + 4])
        if code == 0:  # opt_endofopt
            return
        if pos + 4 + length > len(raw):
            raise PcapError(f"pcapng: block at byte {where}: option {code} runs past the block")
        yield code, raw[pos + 4:pos + 4 + length]
        pos += 4 + (length + 3) // 4 * 4


def _ip(b: bytes) -> str:
    return ".".join(str(x) for x in b)


def _decode(index: int, t: float, wire_len: int, frame: bytes, linktype: int) -> Packet:
    base = dict(index=index, time_s=t, wire_len=wire_len, cap_len=len(frame))
    if linktype != 1 or len(frame) < 14:
        return Packet(**base)
    ethertype, off = struct.unpack("!H", frame[12:14])[0], 14
    if ethertype == 0x8100 and len(frame) >= 18:
        ethertype, off = struct.unpack("!H", frame[16:18])[0], 18
    if ethertype != 0x0800 or len(frame) < off + 20:
        return Packet(**base)
    ip = frame[off:]
    if ip[0] >> 4 != 4:
        raise PcapError(f"packet {index}: IPv4 ethertype but IP version {ip[0] >> 4}")
    ihl = (ip[0] & 0x0F) * 4
    total = struct.unpack("!H", ip[2:4])[0]
    if ihl < 20 or total < ihl or len(ip) < ihl:
        raise PcapError(f"packet {index}: IPv4 header length {ihl} / total length {total} do not fit")
    proto_num = ip[9]
    base.update(src=_ip(ip[12:16]), dst=_ip(ip[16:20]))
    seg, seg_len = ip[ihl:total], total - ihl  # the segment as captured (may be cut), and its real length
    if proto_num == 6:
        return _tcp(base, seg, seg_len, index)
    if proto_num == 132:
        return _sctp(base, seg, seg_len, index)
    if proto_num == 17 and len(seg) >= 8:
        sport, dport, ulen = struct.unpack("!HHH", seg[:6])
        return Packet(**base, proto="udp", sport=sport, dport=dport, payload_len=max(0, ulen - 8))
    return Packet(**base, proto=str(proto_num))


def _tcp(base: dict, seg: bytes, seg_len: int, index: int) -> Packet:
    if len(seg) < 20:
        raise PcapError(f"packet {index}: TCP header cut short ({len(seg)} bytes)")
    sport, dport, seq, ack, off_flags, window = struct.unpack("!HHIIHH", seg[:16])
    hlen = (off_flags >> 12) * 4
    if hlen < 20 or hlen > seg_len or hlen > len(seg):
        raise PcapError(f"packet {index}: TCP data offset {hlen} does not fit the segment ({seg_len} bytes)")
    flags = frozenset(n for n, bit in TCP_FLAGS.items() if off_flags & bit)
    options, raw, pos = {}, seg[20:hlen], 0
    while pos < len(raw):
        kind = raw[pos]
        if kind == 0:
            break
        if kind == 1:
            pos += 1
            continue
        if pos + 1 >= len(raw) or raw[pos + 1] < 2 or pos + raw[pos + 1] > len(raw):
            raise PcapError(f"packet {index}: TCP option {kind} runs past the header")
        value = raw[pos + 2:pos + raw[pos + 1]]
        if kind == 2 and len(value) == 2:
            options["MSS"] = struct.unpack("!H", value)[0]
        elif kind == 3 and len(value) == 1:
            options["WS"] = value[0]
        elif kind == 4:
            options["SACK_PERM"] = True
        elif kind == 5 and len(value) % 8 == 0:
            options["SACK"] = [struct.unpack("!II", value[i:i + 8]) for i in range(0, len(value), 8)]
        elif kind == 8 and len(value) == 8:
            options["TS"] = struct.unpack("!II", value)
        pos += raw[pos + 1]
    return Packet(**base, proto="tcp", sport=sport, dport=dport, seq=seq, ack=ack, flags=flags, window=window,
                  options=options, payload_len=seg_len - hlen)


def _sctp(base: dict, seg: bytes, seg_len: int, index: int) -> Packet:
    if len(seg) < 12:
        raise PcapError(f"packet {index}: SCTP common header cut short ({len(seg)} bytes)")
    sport, dport = struct.unpack("!HH", seg[:4])
    chunks, pos, user = [], 12, 0
    while pos + 4 <= min(len(seg), seg_len):
        ctype, _cflags, clen = struct.unpack("!BBH", seg[pos:pos + 4])
        if clen < 4 or pos + clen > seg_len:
            raise PcapError(f"packet {index}: SCTP chunk {ctype} at offset {pos} has length {clen}")
        tsn = None
        if ctype in (0, 3) and pos + 8 <= len(seg):  # DATA: TSN; SACK: cumulative TSN ack
            tsn = struct.unpack("!I", seg[pos + 4:pos + 8])[0]
        if ctype == 0:
            if clen < 16:
                raise PcapError(f"packet {index}: SCTP DATA chunk of {clen} bytes (at least 16)")
            user += clen - 16
        chunks.append((ctype, tsn))
        pos += (clen + 3) // 4 * 4
    return Packet(**base, proto="sctp", sport=sport, dport=dport, payload_len=user, chunks=tuple(chunks))
