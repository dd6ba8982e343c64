"""The grading capture reader: hand-built files decoded field by field, simcore's captures read the same as
scapy reads them, and malformed input refused with PcapError only (fuzzed)."""

import struct
from dataclasses import replace

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.grading.pcap import PcapError, parse_capture, read_capture


def _tcp_frame(seq=1000, ack=0, flags=0x02, payload_len=0, options=b"\x02\x04\x05\xb4\x01\x01\x04\x02"):
    tcp = struct.pack("!HHIIHHHH", 40000, 80, seq, ack, ((20 + len(options)) // 4) << 12 | flags, 65535, 0, 0)
    tcp += options
    total = 20 + len(tcp) + payload_len
    ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, total, 0, 0, 64, 6, 0, bytes([10, 0, 0, 1]), bytes([10, 0, 1, 2]))
    return b"\x02" * 6 + b"\x04" * 6 + b"\x08\x00" + ip + tcp  # payload not captured (snaplen)


def _pcap(frames, order=">", magic=0xA1B2C3D4, times=None):
    out = struct.pack(order + "IHHiIII", magic, 2, 4, 0, 0, 96, 1)
    for i, f in enumerate(frames):
        sec, frac = times[i] if times else (1, 250_000)
        out += struct.pack(order + "IIII", sec, frac, len(f), len(f) + 100) + f
    return out


def test_a_hand_built_big_endian_pcap_decodes_field_by_field():
    cap = parse_capture(_pcap([_tcp_frame(), _tcp_frame(seq=1001, ack=5, flags=0x18, payload_len=1460,
                                                         options=b"")]))
    assert cap.format == "pcap" and cap.linktype == 1 and len(cap.packets) == 2
    syn, data = cap.packets
    assert syn.time_s == pytest.approx(1.25) and syn.src == "10.0.0.1" and syn.dst == "10.0.1.2"
    assert (syn.proto, syn.sport, syn.dport, syn.seq, syn.flags) == ("tcp", 40000, 80, 1000, frozenset({"SYN"}))
    assert syn.options == {"MSS": 1460, "SACK_PERM": True} and syn.payload_len == 0 and syn.window == 65535
    assert data.flags == {"PSH", "ACK"} and data.ack == 5 and data.payload_len == 1460  # from the IP length
    assert data.wire_len == data.cap_len + 100


def test_nanosecond_little_endian_pcap():
    cap = parse_capture(_pcap([_tcp_frame()], order="<", magic=0xA1B23C4D, times=[(3, 5)]))
    assert cap.packets[0].time_s == pytest.approx(3.000000005, abs=1e-12)


def _block(btype, body):
    n = 12 + len(body)
    return struct.pack("<II", btype, n) + body + struct.pack("<I", n)


def test_a_hand_built_pcapng_with_its_time_resolution():
    shb = _block(0x0A0D0D0A, struct.pack("<IHHq", 0x1A2B3C4D, 1, 0, -1))
    idb = _block(1, struct.pack("<HHI", 1, 0, 96) + struct.pack("<HH", 9, 1) + b"\x03\x00\x00\x00" + b"\0" * 4)
    frame = _tcp_frame()
    ticks = 1_234_567  # milliseconds (if_tsresol = 3)
    epb = _block(6, struct.pack("<IIIII", 0, ticks >> 32, ticks & 0xFFFFFFFF, len(frame), len(frame))
                 + frame + b"\0" * (-len(frame) % 4))
    cap = parse_capture(shb + idb + epb)
    assert cap.format == "pcapng" and cap.packets[0].time_s == pytest.approx(1234.567)
    assert cap.packets[0].seq == 1000
    with pytest.raises(PcapError, match="names interface 1"):
        parse_capture(shb + idb + epb[:8] + struct.pack("<I", 1) + epb[12:])


def test_simcore_captures_read_as_scapy_reads_them(tmp_path):
    from scapy.layers.inet import IP, TCP
    from scapy.utils import PcapNgReader

    from simcore.packet import Connection, LinkParams, Message, Scenario, TcpParams, chain, simulate

    back = LinkParams(rate_bps=8e6, delay_s=0.01, queue_packets=100)
    net = chain(1, replace(back, drop_sequence=(3,)), back)
    sc = Scenario(net, (Connection(0, 1, TcpParams(variant="sack", mss_bytes=1000), closer="client"),),
                  (Message(0, 20_000),), duration_s=2.0)
    path = simulate(sc, seed=4, trace=True).to_pcap(tmp_path / "run.pcapng", format="pcapng")
    ours = read_capture(path).packets
    theirs = list(PcapNgReader(str(path)))
    assert len(ours) == len(theirs) > 20
    for p, q in zip(ours, theirs, strict=True):
        assert p.time_s == pytest.approx(float(q.time), abs=1e-9)
        ip, tcp = q[IP], q[TCP]
        assert (p.src, p.dst, p.sport, p.dport) == (ip.src, ip.dst, tcp.sport, tcp.dport)
        assert (p.seq, p.ack, p.window) == (tcp.seq, tcp.ack, tcp.window)
        assert p.flags == {n for n, b in [("FIN", 1), ("SYN", 2), ("RST", 4), ("PSH", 8), ("ACK", 16)] if tcp.flags & b}
        assert p.payload_len == ip.len - 4 * ip.ihl - 4 * tcp.dataofs
    # the dropped segment is sent again: one data sequence number appears twice from the client
    data = [p.seq for p in ours if p.sport == ours[0].sport and p.payload_len > 0]
    assert len(data) > len(set(data))


def test_obvious_garbage_is_refused_with_pcap_error():
    for bad in (b"", b"hello world!", b"\xd4\xc3\xb2\xa1" + b"\0" * 10, _pcap([_tcp_frame()])[:-3]):
        with pytest.raises(PcapError):
            parse_capture(bad)
    with pytest.raises(PcapError, match="not bytes|is bytes"):
        parse_capture("a string")


_VALID = [_pcap([_tcp_frame(), _tcp_frame(seq=5, flags=0x11)])]


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(_VALID), st.lists(st.tuples(st.integers(0, 10_000), st.integers(0, 255)), max_size=6),
       st.integers(0, 200))
def test_fuzz_mutated_captures_parse_or_raise_pcap_error_only(valid, flips, cut):
    data = bytearray(valid)
    for pos, value in flips:
        data[pos % len(data)] = value
    data = bytes(data[: max(0, len(data) - cut)])
    try:
        parse_capture(data)
    except PcapError:
        pass


@settings(max_examples=300)
@given(st.binary(max_size=400))
def test_fuzz_random_bytes_raise_pcap_error_only(data):
    for head in (b"", b"\x0a\x0d\x0d\x0a", struct.pack("<I", 0xA1B2C3D4)):
        try:
            parse_capture(head + data)
        except PcapError:
            pass
