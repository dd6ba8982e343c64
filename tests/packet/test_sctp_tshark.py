"""SCTP frames (common header, chunks, CRC32c) in a pcap, read by Debian's tshark with checksum checking on:
every chunk decoded as the RFC 4960 example says, no malformed packet, no bad checksum.

Needs ``tshark``: skipped without it, except under CI=true."""

import subprocess

import numpy as np
import pytest

from simcore.packet.capture import host_ip
from simcore.packet.capture.frames import PROTO_SCTP, FrameFields, TcpOptions, build_frames
from simcore.packet.capture.pcapfile import pcap_bytes
from simcore.packet.capture.sctp_chunks import (
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

pytestmark = pytest.mark.tshark


def _write(path, packets: list[tuple[int, bytes]], snaplen: int = 2000):
    """Write SCTP packets (direction 0: host 0 -> host 1, 1: back) as Ethernet frames 1 ms apart."""
    n = len(packets)
    up = np.array([d == 0 for d, _ in packets])
    z = np.zeros(n, np.int64)
    mac = np.zeros((n, 6), np.uint8)
    f = FrameFields(
        src_mac=mac, dst_mac=mac, src_ip=host_ip(np.where(up, 0, 1)), dst_ip=host_ip(np.where(up, 1, 0)),
        ttl=np.full(n, 64), ip_id=np.arange(n), proto=np.full(n, PROTO_SCTP), src_port=z, dst_port=z,
        payload_bytes=z, seq=z.astype(np.uint64), ack=z.astype(np.uint64), tcp_flags=z, window=z,
        options=TcpOptions(np.zeros(n, bool), z, z, np.zeros(n, bool), np.zeros((n, 3, 2), np.uint32), z),
        sctp=tuple(p for _, p in packets))
    frames, cap, wire = build_frames(f, snaplen)
    path.write_bytes(pcap_bytes(frames, cap, wire, np.arange(n) * 1_000_000, snaplen))
    return wire


def _fields(tshark, path, fields):
    cmd = [tshark, "-n", "-r", str(path), "-o", "sctp.checksum:CRC 32c", "-o", "sctp.relative_tsns:FALSE",
           "-o", "ip.check_checksum:TRUE", "-T", "fields", "-E", "occurrence=a", "-E", "aggregator=,"]
    for fl in fields:
        cmd += ["-e", fl]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def test_an_association_reads_back_chunk_by_chunk_with_good_checksums(tshark, tmp_path):
    a, b = 49152, 7777
    ta, tb = 0x1111, 0x2222  # verification tags: each side's initiate tag
    pk = [
        (0, sctp_packet(a, b, 0, [init_chunk(ta, 65536, 10, 1000)])),
        (1, sctp_packet(b, a, ta, [init_ack_chunk(tb, 65536, 10, 5000, 200)])),
        (0, sctp_packet(a, b, tb, [cookie_echo_chunk(200), data_chunk(1000, 0, 0, 100)])),
        (1, sctp_packet(b, a, ta, [cookie_ack_chunk(), sack_chunk(1000, 65536)])),
        (0, sctp_packet(a, b, tb, [data_chunk(1001, 1, 0, 1452, end=False)])),
        (0, sctp_packet(a, b, tb, [data_chunk(1002, 1, 0, 3, begin=False), data_chunk(1003, 2, 0, 7)])),
        # RFC 4960 sec. 3.3.4's example SACK (TSNs 10-12, 14, 15, 17 held), shifted to TSNs 1000 on
        (1, sctp_packet(b, a, ta, [sack_chunk(1002, 4660, [(2, 3), (5, 5)], [1001])])),
        (0, sctp_packet(a, b, tb, [shutdown_chunk(4999)])),
        (1, sctp_packet(b, a, ta, [shutdown_ack_chunk()])),
        (0, sctp_packet(a, b, tb, [shutdown_complete_chunk()])),
    ]
    wire = _write(tmp_path / "a.pcap", pk)
    # frame: Ethernet 14 + IPv4 20 + SCTP; the INIT packet is 14 + 20 + 12 + 28
    assert wire[0] == 74 and wire[4] == 14 + 1500
    rows = _fields(tshark, tmp_path / "a.pcap", ["frame.len", "ip.proto", "sctp.checksum.status", "sctp.chunk_type",
                                                  "_ws.malformed", "_ws.expert.severity"])
    assert [int(r[0]) for r in rows] == wire.tolist()
    assert all(r[1] == "132" and r[2] == "1" and r[4] == "" and r[5] == "" for r in rows)  # 1: checksum good
    assert [r[3] for r in rows] == ["1", "2", "10,0", "11,3", "0", "0,0", "3", "7", "8", "14"]
    rows = _fields(tshark, tmp_path / "a.pcap", ["sctp.data_tsn_raw", "sctp.data_sid", "sctp.data_ssn",
                                                  "sctp.data_b_bit", "sctp.data_e_bit", "sctp.chunk_length"])
    assert rows[4] == ["1001", "0x0001", "0", "1", "0", "1468"]  # chunk length 16 + 1452
    assert rows[5] == ["1002,1003", "0x0001,0x0002", "0,0", "0,1", "1,1", "19,23"]
    rows = _fields(tshark, tmp_path / "a.pcap", ["sctp.sack_cumulative_tsn_ack_raw", "sctp.sack_a_rwnd",
                                                  "sctp.sack_gap_block_start", "sctp.sack_gap_block_end",
                                                  "sctp.sack_gap_block_start_tsn", "sctp.sack_gap_block_end_tsn",
                                                  "sctp.sack_duplicate_tsn"])
    # gap blocks 2-3 and 5-5 above 1002: TSNs 1004-1005 and 1007
    assert rows[6] == ["1002", "4660", "2,5", "3,5", "1004,1007", "1005,1007", "1001"]
    rows = _fields(tshark, tmp_path / "a.pcap", ["sctp.init_initiate_tag", "sctp.parameter_length",
                                                  "sctp.verification_tag", "sctp.chunk_length",
                                                  "sctp.initack_initiate_tag", "sctp.initack_initial_tsn"])
    assert rows[0][0] == "0x00001111" and rows[1][4:6] == ["0x00002222", "5000"]
    assert rows[0][1] == "6" and rows[0][3] == "26"  # IPv4 address type; the padding is the chunk's
    assert rows[1][1] == "204" and rows[2][3] == "204,116"  # cookie parameter 4 + 200; COOKIE-ECHO, DATA
    assert [r[2] for r in rows[2:4]] == ["0x00002222", "0x00001111"]


def test_a_simulated_association_exports_as_sctp_that_tshark_reads(tshark, tmp_path):
    from simcore.packet import Connection, LinkParams, Message, Network, Scenario, SctpParams, simulate

    # TSN 1 (offered packet 3 on the forward link) lost; a SACK per packet; see test_sctp_assoc.py
    fwd = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100, drop_sequence=(3,))
    back = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100)
    sp = SctpParams(initial_cwnd_mtus=3, delayed_sack=False)
    sc = Scenario(Network(2, Network.duplex(0, 1, fwd, back)), (Connection(0, 1, transport="sctp", sctp=sp),),
                  (Message(0, 8 * 1452, stream=3),), duration_s=3.0)
    r = simulate(sc, seed=5, trace=True)
    path = r.to_pcap(tmp_path / "assoc.pcap", snaplen=2000)
    rows = _fields(tshark, path, ["frame.len", "ip.src", "sctp.checksum.status", "sctp.chunk_type", "_ws.malformed",
                                  "sctp.data_tsn_raw", "sctp.data_sid", "sctp.data_b_bit", "sctp.data_e_bit",
                                  "sctp.sack_cumulative_tsn_ack_raw", "sctp.sack_gap_block_start",
                                  "sctp.sack_gap_block_end", "sctp.retransmission"])
    assert all(x[2] == "1" and x[4] == "" for x in rows)  # CRC32c good, nothing malformed
    assert [x[3] for x in rows[:4]] == ["1", "2", "10", "11"]  # INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK
    # every frame on the wire has the size the simulator counted: IP bytes on link 0 (sent, lost included)
    # and on link 1, plus 14 bytes of Ethernet each
    up = [x for x in rows if x[1] == "10.0.0.1"]
    down = [x for x in rows if x[1] == "10.0.0.2"]
    assert sum(int(x[0]) - 14 for x in up) == r.link_bytes[0]
    assert sum(int(x[0]) - 14 for x in down) == r.link_bytes[1]
    isn = int(r.tcp_isn[0, 0])
    data = [x for x in up if x[3] == "0"]
    tsns = [int(x[5]) - isn for x in data]
    assert tsns[:8] == list(range(8)) and tsns[8:] == [1]  # TSN 1 sent again, once
    assert data[8][12] != ""  # tshark's own TSN analysis calls it a retransmission
    assert {x[6] for x in data} == {"0x0003"}
    assert [(x[7], x[8]) for x in data[:8]] == [("1", "0")] + [("0", "0")] * 6 + [("0", "1")]
    # the SACK answering TSN 2: cumulative TSN ack = TSN 0, one gap block 2-2 (TSN 2)
    sacks = [x for x in down if x[3] == "3"]
    peer = int(r.tcp_isn[0, 0])
    assert (int(sacks[1][9]) - peer, sacks[1][10], sacks[1][11]) == (0, "2", "2")


def test_a_shutdown_reads_back_as_the_shutdown_chunks(tshark, tmp_path):
    from simcore.packet import Connection, LinkParams, Message, Network, Scenario, simulate

    link = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100)
    sc = Scenario(Network(2, Network.duplex(0, 1, link)), (Connection(0, 1, transport="sctp", closer="server"),),
                  (Message(0, 100), Message(0, 1000, "server", after_message=0)), duration_s=3.0)
    path = simulate(sc, seed=2, trace=True).to_pcap(tmp_path / "shut.pcap", snaplen=2000)
    rows = _fields(tshark, path, ["ip.src", "sctp.checksum.status", "sctp.chunk_type", "_ws.malformed",
                                  "sctp.shutdown_cumulative_tsn_ack"])
    assert all(x[1] == "1" and x[3] == "" for x in rows)
    # INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK, request, reply + SACK, SACK, SHUTDOWN, SHUTDOWN-ACK, -COMPLETE
    assert [x[2] for x in rows] == ["1", "2", "10", "11", "0", "3,0", "3", "7", "8", "14"]
    assert [x[0][-1] for x in rows[7:]] == ["2", "1", "2"]  # server, client, server
    assert rows[7][4] != ""  # SHUTDOWN carries the cumulative TSN ack of the request


def test_data_bundled_behind_the_cookie_echo_reads_back(tshark, tmp_path):
    from simcore.packet import Connection, LinkParams, Message, Network, Scenario, SctpParams, simulate

    link = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100)
    conn = Connection(0, 1, transport="sctp", sctp=SctpParams(cookie_echo_data=True))
    sc = Scenario(Network(2, Network.duplex(0, 1, link)), (conn,), (Message(0, 100),), duration_s=1.0)
    path = simulate(sc, seed=3, trace=True).to_pcap(tmp_path / "ce.pcap", snaplen=2000)
    rows = _fields(tshark, path, ["frame.len", "sctp.checksum.status", "sctp.chunk_type", "_ws.malformed"])
    assert all(x[1] == "1" and x[3] == "" for x in rows)
    assert [x[2] for x in rows] == ["1", "2", "10,0", "11", "3"]
    assert int(rows[2][0]) == 14 + 352  # Ethernet + IP 20 + common 12 + COOKIE-ECHO 204 + DATA 16 + 100


def test_a_sack_with_five_gap_blocks_reads_back_with_all_of_them(tshark, tmp_path):
    from simcore.packet import Connection, LinkParams, Message, Network, Scenario, SctpParams, simulate

    # TSNs 1, 3, ..., 11 lost of 12 sent at once (see test_sctp_assoc.py): the SACK of TSN 10 reports cum TSN
    # ack 0 and five gap blocks 2-2, 4-4, 6-6, 8-8, 10-10: 20 + 12 + 16 + 5 * 4 = 68 bytes of IP
    fwd = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100, drop_sequence=(3, 5, 7, 9, 11, 13))
    back = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100)
    sp = SctpParams(initial_cwnd_mtus=12, max_burst=0, delayed_sack=False)
    sc = Scenario(Network(2, Network.duplex(0, 1, fwd, back)), (Connection(0, 1, transport="sctp", sctp=sp),),
                  (Message(0, 12 * 1452),), duration_s=5.0)
    r = simulate(sc, seed=1, trace=True)
    path = r.to_pcap(tmp_path / "gaps.pcap", snaplen=2000)
    rows = _fields(tshark, path, ["frame.len", "ip.src", "sctp.checksum.status", "sctp.chunk_type", "_ws.malformed",
                                  "sctp.sack_cumulative_tsn_ack_raw", "sctp.sack_number_of_gap_blocks",
                                  "sctp.sack_gap_block_start", "sctp.sack_gap_block_end"])
    assert all(x[2] == "1" and x[4] == "" for x in rows)
    up = [x for x in rows if x[1] == "10.0.0.1"]
    down = [x for x in rows if x[1] == "10.0.0.2"]
    assert sum(int(x[0]) - 14 for x in up) == r.link_bytes[0]
    assert sum(int(x[0]) - 14 for x in down) == r.link_bytes[1]
    sacks = [x for x in down if x[3] == "3"]
    assert [int(x[6]) for x in sacks[:6]] == [0, 1, 2, 3, 4, 5]
    assert [int(x[0]) for x in sacks[:6]] == [14 + 48 + 4 * j for j in range(6)]
    assert (int(sacks[5][5]) - int(r.tcp_isn[0, 0]), sacks[5][7], sacks[5][8]) == (0, "2,4,6,8,10", "2,4,6,8,10")
