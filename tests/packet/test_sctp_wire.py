"""SCTP on the wire: sizes derived by hand from RFC 4960 sec. 3, CRC32c against published test vectors
(RFC 3720 appendix B.4, the CRC catalogue's check value), and the chunk encoder read back by scapy, an
independent implementation that recomputes the checksum. tshark's reading: test_sctp_tshark.py."""

import pytest
from scapy.layers.sctp import SCTP

from simcore.packet.capture.sctp_chunks import (
    cookie_ack_chunk,
    cookie_echo_chunk,
    crc32c,
    data_chunk,
    init_ack_chunk,
    init_chunk,
    sack_chunk,
    sctp_packet,
    shutdown_ack_chunk,
    shutdown_chunk,
    shutdown_complete_chunk,
)
from simcore.packet.sctp import wire as w


def test_crc32c_published_vectors():
    # The CRC catalogue's check value of CRC-32C ("123456789"), and RFC 3720 appendix B.4: 32 bytes of
    # zeros give bytes aa 36 91 8a, 32 of ones 43 ab a8 62, 0..31 4e 79 dd 46, 31..0 5c db 3f 11 (stored
    # least significant byte first, as SCTP stores its checksum).
    assert crc32c(b"123456789") == 0xE3069283
    assert crc32c(bytes(32)).to_bytes(4, "little") == bytes.fromhex("aa36918a")
    assert crc32c(b"\xff" * 32).to_bytes(4, "little") == bytes.fromhex("43aba862")
    assert crc32c(bytes(range(32))).to_bytes(4, "little") == bytes.fromhex("4e79dd46")
    assert crc32c(bytes(range(31, -1, -1))).to_bytes(4, "little") == bytes.fromhex("5cdb3f11")


@pytest.mark.parametrize("n, mtu, expected", [
    # one chunk: 20 IP + 12 common + 16 DATA header + data padded to 4
    (1, 1500, 20 + 12 + 16 + 4),
    (4, 1500, 20 + 12 + 16 + 4),
    (5, 1500, 20 + 12 + 16 + 8),
    # a full chunk carries 1500 - 48 = 1452 bytes: the packet is exactly the MTU
    (1452, 1500, 1500),
    # 1453 bytes: a full packet, then 1 byte in a 52-byte packet
    (1453, 1500, 1500 + 52),
    # 3000 = 1452 + 1452 + 96: 1500 + 1500 + 144
    (3000, 1500, 3144),
    # MTU 1498: 1450 would need 2 bytes of padding, so a full chunk holds 1448 (packet 1496);
    # 2000 = 1448 + 552: 1496 + 600
    (2000, 1498, 1496 + 600),
    # MTU 576 (the IPv4 minimum datagram a host accepts): 528 per chunk; 1000 = 528 + 472: 576 + 520
    (1000, 576, 576 + 520),
])
def test_bytes_on_the_wire_of_a_message(n, mtu, expected):
    assert w.message_wire_bytes(n, mtu) == expected


def test_chunks_never_exceed_the_mtu_and_add_up_to_the_message():
    for mtu in (100, 576, 1498, 1500, 9000):
        for n in (1, 51, 52, 53, 1000, 12345):
            parts = w.message_chunk_payloads(n, mtu)
            assert sum(parts) == n
            assert all(w.packet_bytes(w.data_chunk_bytes(p)) <= mtu for p in parts)
            assert all(p == parts[0] for p in parts[:-1])


def test_sack_sizes_and_how_many_reports_fit():
    # sec. 3.3.4: 16 bytes, 4 per gap ack block, 4 per duplicate TSN
    assert w.sack_chunk_bytes(0, 0) == 16
    assert w.sack_chunk_bytes(2, 1) == 28
    # 1500 - 20 - 12 - 16 = 1452 bytes left: 363 reports
    assert w.max_sack_reports(1500) == 363
    assert w.packet_bytes(w.sack_chunk_bytes(363, 0)) == 1500


def test_encoded_chunks_have_the_sizes_the_simulator_counts():
    assert len(data_chunk(1, 0, 0, 1452)) == w.data_chunk_bytes(1452) == 1468
    assert len(data_chunk(1, 0, 0, 5)) == w.data_chunk_bytes(5) == 24
    assert len(sack_chunk(5, 1000, [(2, 3), (5, 5)], [4])) == w.sack_chunk_bytes(2, 1)
    assert len(init_chunk(1, 65536, 10, 1)) == w.INIT_CHUNK_BYTES == 28
    for cookie in (1, 200, 203):
        assert len(init_ack_chunk(1, 65536, 10, 1, cookie)) == w.init_ack_chunk_bytes(cookie)
        assert len(cookie_echo_chunk(cookie)) == w.cookie_echo_chunk_bytes(cookie)
    assert w.init_ack_chunk_bytes(200) == 20 + 204
    assert len(cookie_ack_chunk()) == w.COOKIE_ACK_BYTES == 4
    assert len(shutdown_chunk(9)) == w.SHUTDOWN_BYTES == 8
    assert len(shutdown_ack_chunk()) == len(shutdown_complete_chunk()) == 4
    pkt = sctp_packet(1, 2, 3, [data_chunk(1, 0, 0, 1452)])
    assert w.IPV4_HEADER_BYTES + len(pkt) == 1500


def test_scapy_reads_the_rfc_example_sack_and_agrees_with_the_checksum():
    # RFC 4960 sec. 3.3.4's example: TSNs 10, 11, 12, 14, 15, 17 received, a_rwnd 4660: cumulative TSN
    # ack 12, gap blocks 2-3 (TSNs 14, 15) and 5-5 (TSN 17). Bundled behind a DATA chunk.
    pkt = sctp_packet(49152, 7777, 0xDEADBEEF, [data_chunk(7, 1, 3, 10, unordered=True),
                                                  sack_chunk(12, 4660, [(2, 3), (5, 5)], [11])])
    s = SCTP(pkt)
    assert (s.sport, s.dport, s.tag) == (49152, 7777, 0xDEADBEEF)
    d, sk = s.payload, s.payload.payload
    assert (d.tsn, d.stream_id, d.stream_seq, d.unordered, d.beginning, d.ending, d.len) == (7, 1, 3, 1, 1, 1, 26)
    assert (sk.cumul_tsn_ack, sk.a_rwnd, sk.n_gap_ack, sk.n_dup_tsn) == (12, 4660, 2, 1)
    assert sk.gap_ack_list == ["2:3", "5:5"] and sk.dup_tsn_list == [11]
    again = SCTP(pkt)
    again.chksum = None  # scapy recomputes CRC32c itself
    assert bytes(again) == pkt


def test_scapy_reads_the_handshake_chunks():
    s = SCTP(sctp_packet(1, 2, 0, [init_chunk(0xABC, 65536, 10, 100)]))
    assert (s.payload.type, s.payload.init_tag, s.payload.a_rwnd, s.payload.n_out_streams,
            s.payload.init_tsn) == (1, 0xABC, 65536, 10, 100)
    s = SCTP(sctp_packet(2, 1, 0xABC, [init_ack_chunk(0xDEF, 65536, 10, 500, 200)]))
    assert s.payload.type == 2 and s.payload.len == 20 + 4 + 200
    s = SCTP(sctp_packet(1, 2, 0xDEF, [cookie_echo_chunk(200), data_chunk(100, 0, 0, 8)]))
    assert (s.payload.type, s.payload.len, s.payload.payload.type) == (10, 204, 0)
    for chunk, t in ((cookie_ack_chunk(), 11), (shutdown_chunk(5), 7), (shutdown_ack_chunk(), 8),
                     (shutdown_complete_chunk(), 14)):
        assert SCTP(sctp_packet(1, 2, 3, [chunk])).payload.type == t
