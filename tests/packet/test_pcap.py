"""Capture export (``PacketResult.to_pcap``): headers read back by an independent reader (scapy) and checked
against values derived by hand from the scenario and the RFCs; determinism; drops seen before, not after;
bad input. tshark's own reading and TCP analysis: test_tshark.py."""

import hashlib
import struct
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scapy.layers.inet import IP, TCP, UDP
from scapy.layers.l2 import Ether
from scapy.utils import PcapNgReader, RawPcapReader, rdpcap

from simcore.packet import (
    CbrSource,
    Connection,
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    bulk_scenario,
    chain,
    dumbbell,
    simulate,
)
from simcore.packet.capture.frames import internet_checksum

D = 0.01
RATE = 8e6  # 1 byte per microsecond


def _two_hosts(drops=(), message_bytes=2500, **tcp_kw):
    # host 0 -> host 1 is link 0 (it drops ``drops``), the way back link 1 (topology.chain)
    back = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=100)
    net = chain(1, replace(back, drop_sequence=drops), back)
    tcp = TcpParams(**{"variant": "sack", "mss_bytes": 1000, "rwnd_bytes": 100_000, **tcp_kw})
    return Scenario(net, (Connection(0, 1, tcp, closer="client"),), (Message(0, message_bytes),), duration_s=2.0)


def test_rfc1071_checksum_of_a_known_ipv4_header():
    # The textbook header 4500 0073 0000 4000 4011 [0000] c0a8 0001 c0a8 00c7 has checksum 0xb861.
    words = [0x4500, 0x0073, 0x0000, 0x4000, 0x4011, 0x0000, 0xC0A8, 0x0001, 0xC0A8, 0x00C7]
    assert int(internet_checksum(np.array([sum(words)]))[0]) == 0xB861


def _ones_complement_ok(data: bytes) -> bool:
    """A header (or pseudo-header + segment) with its checksum in place sums to 0xffff (RFC 1071)."""
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack(f"!{len(data) // 2}H", data))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return s == 0xFFFF


def test_handshake_data_and_fin_read_back_with_hand_derived_fields(tmp_path):
    r = simulate(_two_hosts(), seed=3, trace=True)
    path = r.to_pcap(tmp_path / "run.pcap", snaplen=2000)
    pk = rdpcap(str(path))
    isn_c, isn_s = (int(v) for v in r.tcp_isn[0])
    # At the client host: SYN out; SYN-ACK in; the initial window of 2 segments out (1000 + 1000 bytes, the
    # first carrying the ACK of the SYN-ACK); ACK 1001 in, which opens cwnd to 3 segments: the last 500
    # bytes and the FIN go out (the FIN in its own segment, or riding on the data: RFC 9293 allows both);
    # then the server's FIN with ACK 2502 comes in and the client's last ACK (2 = SYN + FIN) goes out.
    tcp = [p[TCP] for p in pk]
    out = [t.sport == 49152 for t in tcp]
    rel = [((t.seq - (isn_c if o else isn_s)) % 2**32, len(t.payload), str(t.flags))
           for t, o in zip(tcp, out, strict=True)]
    acks = [(t.ack - (isn_s if o else isn_c)) % 2**32 for t, o in zip(tcp, out, strict=True)]
    assert rel[:5] == [(0, 0, "S"), (0, 0, "SA"), (1, 1000, "A"), (1001, 1000, "A"), (1, 0, "A")]
    assert acks[1:5] == [1, 1, 1, 1001]
    fins = [r for r, o in zip(rel, out, strict=True) if o and "F" in r[2]]
    assert len(fins) == 1 and fins[0][0] + fins[0][1] == 2501  # the FIN takes sequence number 2501
    assert rel[-2][2] == "FA" and not out[-2] and acks[-2] == 2502
    assert rel[-1] == (2502, 0, "A") and out[-1] and acks[-1] == 2
    syn, synack = pk[0], pk[1]
    assert syn[Ether].src == "02:00:00:00:00:01" and syn[Ether].dst == "02:00:00:00:00:02"
    assert synack[Ether].src == "02:00:00:00:00:02" and synack[Ether].dst == "02:00:00:00:00:01"
    assert (syn[IP].src, syn[IP].dst, syn[IP].ttl, syn[IP].proto, str(syn[IP].flags)) == \
        ("10.0.0.1", "10.0.0.2", 64, 6, "DF")
    assert (syn[TCP].sport, syn[TCP].dport, synack[TCP].sport, synack[TCP].dport) == (49152, 7777, 7777, 49152)
    assert syn[TCP].seq == isn_c and synack[TCP].seq == isn_s and synack[TCP].ack == (isn_c + 1) % 2**32
    # rwnd 100000 needs a shift of 1 (100000 >> 1 = 50000 < 65536); a SYN's window is never scaled
    assert syn[TCP].options == [("MSS", 1000), ("NOP", None), ("WScale", 1), ("NOP", None), ("NOP", None),
                                ("SAckOK", b"")]
    assert syn[TCP].window == 65535 and pk[2][TCP].window == 50000
    data = [p for p in pk if p[TCP].sport == 49152 and len(p[TCP].payload) > 0]
    assert [len(p[TCP].payload) for p in data] == [1000, 1000, 500]
    assert [p[TCP].seq - isn_c for p in data] == [1, 1001, 2001]
    assert all(p[TCP].ack == (isn_s + 1) % 2**32 for p in data)
    assert [p[IP].len for p in data] == [1040, 1040, 540]
    assert all(bytes(p[TCP].payload) == b"\0" * len(p[TCP].payload) for p in data)
    # times: the SYN leaves at 0; the SYN-ACK (54-byte frame, but simcore's 40-byte IP packet) comes back
    # after two transmissions of 40 us and two propagation delays
    assert float(syn.time) == 0.0
    assert float(synack.time) == pytest.approx(2 * (40e-6 + D), abs=1e-9)
    for p in pk:
        raw = bytes(p[IP])
        assert _ones_complement_ok(raw[:20])
        seg = raw[20:p[IP].len]
        pseudo = bytes(p[IP])[12:20] + struct.pack("!BBH", 0, 6, len(seg))
        assert _ones_complement_ok(pseudo + seg)


def test_pcapng_holds_the_same_frames_with_nanosecond_times(tmp_path):
    r = simulate(_two_hosts(), seed=3, trace=True)
    a = [(bytes(p), ts) for p, ts in ((p, p.time) for p in rdpcap(str(r.to_pcap(tmp_path / "a.pcap"))))]
    b = [(bytes(p), p.time) for p in PcapNgReader(str(r.to_pcap(tmp_path / "b.pcapng", format="pcapng")))]
    assert a == b
    pt = r.packet_trace
    first_ack_in = pt.time_s[(pt.kind == 1) & (pt.direction == 1) & (pt.seqlen == 0)][0]
    assert any(abs(float(ts) - first_ack_in) < 1e-9 for _, ts in b)
    with open(tmp_path / "a.pcap", "rb") as fh:  # nanosecond pcap, Ethernet, snaplen as asked
        assert struct.unpack("<IHHiIII", fh.read(24)) == (0xA1B23C4D, 2, 4, 0, 0, 128, 1)


def test_snaplen_cuts_payload_but_never_headers(tmp_path):
    r = simulate(_two_hosts(), seed=3, trace=True)
    recs = list(RawPcapReader(str(r.to_pcap(tmp_path / "s.pcap", snaplen=94))))
    assert max(meta.caplen for _, meta in recs) == 94
    assert {meta.wirelen for _, meta in recs} >= {14 + 1040}
    assert all(meta.caplen == min(meta.wirelen, 94) for _, meta in recs)


def test_same_seed_same_bytes_and_the_seed_draws_the_initial_sequence_numbers(tmp_path):
    db = dumbbell(2, LinkParams(rate_bps=2e6, delay_s=0.02, queue_packets=10, loss_prob=0.02))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), duration_s=2.0)
    files = [simulate(sc, seed=s, trace=True).to_pcap(tmp_path / f"{i}.pcapng", format="pcapng", link=0)
             for i, s in enumerate((7, 7, 8))]
    a, b, c = (f.read_bytes() for f in files)
    assert a == b and a != c
    isn = [simulate(sc, seed=s, trace=True).tcp_isn for s in (7, 8)]
    assert isn[0].shape == (2, 2) and not np.array_equal(isn[0], isn[1])
    assert np.all(isn[0] < 2**32)


def test_untraced_results_are_unchanged_by_the_isn_draws():
    db = dumbbell(1, LinkParams(rate_bps=2e6, delay_s=0.02, queue_packets=10, loss_prob=0.02))
    sc = bulk_scenario(db.network, db.pairs, duration_s=2.0)
    g1, g2 = np.random.default_rng(5), np.random.default_rng(5)
    simulate(sc, seed=g1)
    g2.integers(0, 2**64, size=len(sc.network.links), dtype=np.uint64)  # the documented draws only
    assert g1.random() == g2.random()


def test_a_bottleneck_drop_is_seen_on_the_sender_side_and_not_on_the_receiver_side(tmp_path):
    link = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=100, drop_sequence=(3,))
    db = dumbbell(1, link, access=LinkParams(rate_bps=1e8, delay_s=0.001, queue_packets=100))
    sc = Scenario(db.network, (Connection(db.left[0], db.right[0], TcpParams(mss_bytes=1000)),),
                  (Message(0, 6000),), duration_s=3.0)
    r = simulate(sc, seed=1, trace=True)
    pt = r.packet_trace
    lost = pt.uid[(pt.kind == 3) & (pt.link == db.bottleneck_link)]
    assert lost.size == 1
    ids = {}
    for side in ("sender", "receiver"):
        pk = rdpcap(str(r.to_pcap(tmp_path / f"{side}.pcap", link=db.bottleneck_link, capture_point=side)))
        ids[side] = [p[IP].id for p in pk if p[IP].src == "10.0.0.3"]
        # the bottleneck is the second hop: one router passed
        assert {p[IP].ttl for p in pk if p[IP].src == "10.0.0.3"} == {63}
        assert {p[Ether].src for p in pk if p[IP].src == "10.0.0.3"} == {"02:00:00:00:00:01"}
    assert int(lost[0]) in ids["sender"] and int(lost[0]) not in ids["receiver"]
    assert len(ids["sender"]) == len(ids["receiver"]) + 1


def test_cbr_packets_are_udp_datagrams(tmp_path):
    net = Network(2, (Link(0, 1, LinkParams(rate_bps=RATE, delay_s=D)), Link(1, 0, LinkParams())))
    sc = Scenario(net, cbr=(CbrSource(0, 1, rates_bps=(80_000.0,), packet_bytes=100, stop_s=0.095),),
                  duration_s=0.2)
    r = simulate(sc, seed=0, trace=True)
    pk = rdpcap(str(r.to_pcap(tmp_path / "u.pcap")))
    assert len(pk) == 10  # 80 kbit/s of 100-byte packets: one every 10 ms, at 0 ... 90 ms
    assert all(p[UDP].sport == 32768 and p[UDP].dport == 7778 and p[UDP].len == 80 and p[IP].len == 100
               for p in pk)
    assert [round(float(p.time), 9) for p in pk] == [round(0.01 * k, 9) for k in range(10)]
    for p in pk:
        raw = bytes(p[IP])
        assert _ones_complement_ok(raw[12:20] + struct.pack("!BBH", 0, 17, 80) + raw[20:100])


@pytest.mark.parametrize("kw, name", [
    ({"link": 9}, "link"), ({"capture_point": "middle"}, "capture_point"), ({"snaplen": 40}, "snaplen"),
    ({"format": "erf"}, "format"),
])
def test_bad_arguments_name_the_parameter_and_write_nothing(tmp_path, kw, name):
    r = simulate(_two_hosts(), seed=3, trace=True)
    with pytest.raises(ValueError, match=name):
        r.to_pcap(tmp_path / "x.pcap", **kw)
    assert list(tmp_path.iterdir()) == []


def test_untraced_run_and_missing_folder_are_refused(tmp_path):
    with pytest.raises(ValueError, match="trace=True"):
        simulate(_two_hosts(), seed=3).to_pcap(tmp_path / "x.pcap")
    with pytest.raises(ValueError, match="does not exist"):
        simulate(_two_hosts(), seed=3, trace=True).to_pcap(tmp_path / "no" / "x.pcap")
    assert list(tmp_path.iterdir()) == []


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(variant=st.sampled_from(["reno", "newreno", "sack"]), rwnd=st.sampled_from([3000, 65535, 300_000]),
       loss=st.sampled_from([0.0, 0.05]), drops=st.lists(st.integers(0, 40), max_size=4, unique=True),
       delack=st.booleans(), flows=st.integers(1, 2), seed=st.integers(0, 2**32 - 1),
       where=st.sampled_from([(None, "sender"), (0, "sender"), (0, "receiver"), (1, "sender")]))
def test_any_run_exports_frames_that_match_its_trace(tmp_path, variant, rwnd, loss, drops, delack, flows, seed,
                                                     where):
    link = LinkParams(rate_bps=2e6, delay_s=0.01, queue_packets=6, loss_prob=loss, drop_sequence=tuple(sorted(drops)))
    db = dumbbell(flows, link)
    tcp = TcpParams(variant=variant, mss_bytes=1000, rwnd_bytes=rwnd, delayed_ack=delack)
    r = simulate(bulk_scenario(db.network, db.pairs, tcp, duration_s=1.0), seed=seed, trace=True)
    pk = rdpcap(str(r.to_pcap(tmp_path / "h.pcap", link=where[0], capture_point=where[1], snaplen=2000)))
    pt = r.packet_trace
    if where[0] is None:  # the client host of flow 1: what it sent and what reached it
        assert len(pk) == np.sum(((pt.kind == 0) | (pt.kind == 1)) & (pt.conn == 0)
                                 & ((pt.kind == 0) == (pt.direction == 0)))
    for p in pk:
        raw = bytes(p[IP])
        assert _ones_complement_ok(raw[:20])
        assert _ones_complement_ok(raw[12:20] + struct.pack("!BBH", 0, 6, p[IP].len - 20) + raw[20:p[IP].len])
        c = p[TCP].sport - 49152 if p[TCP].sport != 7777 else p[TCP].dport - 49152
        d = int(p[TCP].sport == 7777)
        row = np.flatnonzero((pt.uid & 0xFFFF) == p[IP].id)
        assert row.size and pt.seq[row[0]] == (p[TCP].seq - int(r.tcp_isn[c, d])) % 2**32
        assert pt.conn[row[0]] == c and pt.direction[row[0]] == d


def test_pcapng_comments_mark_the_frames_the_link_then_drops(tmp_path):
    r = simulate(_two_hosts(drops=(3,)), seed=3, trace=True)
    pt = r.packet_trace
    lost = int(pt.uid[pt.kind == 3][0])
    frames = list(PcapNgReader(str(r.to_pcap(tmp_path / "c.pcapng", format="pcapng"))))
    noted = [p for p in frames if p.comments]
    assert [p[IP].id for p in noted] == [lost]
    assert noted[0].comments == [b"lost after this capture: random loss on this link"]
    after = list(PcapNgReader(str(r.to_pcap(tmp_path / "d.pcapng", format="pcapng", capture_point="receiver"))))
    assert not any(p.comments for p in after) and lost not in [p[IP].id for p in after]


def test_timestamps_option_on_every_segment_with_hand_derived_values(tmp_path):
    r = simulate(_two_hosts(timestamps=True), seed=3, trace=True)
    o0, o1 = (int(v) for v in r.tcp_ts_offset[:2])  # the clocks of the client (node 0) and the server

    def ts(off, ms):
        return (off + ms) % 2**32

    pk = rdpcap(str(r.to_pcap(tmp_path / "ts.pcap", snaplen=2000)))
    tcp = [p[TCP] for p in pk]
    assert all(any(k == "Timestamp" for k, _ in t.options) for t in tcp)
    # SYN at 0 ms (TSecr 0). The engine's SYN is 40 + 12 = 52 bytes: at 1 byte/us it reaches the server at
    # 10.052 ms, whose SYN-ACK (TSval 10 ms) echoes the SYN; it reaches the client at 20.104 ms, when the
    # first two data segments (988 bytes: MSS 1000 less 12) leave with TSval 20 ms, echoing the SYN-ACK.
    # The first is 52 + 988 bytes: it arrives at 20.104 + 1.040 + 10 = 31.144 ms, ACKed at once (TSval 31,
    # echoing 20); that ACK reaches the client at 41.196 ms, which sends the rest with TSval 41, echoing 31.
    assert tcp[0].options == [("MSS", 1000), ("SAckOK", b""), ("Timestamp", (ts(o0, 0), 0)), ("NOP", None),
                              ("WScale", 1)]
    assert tcp[1].options == [("MSS", 1000), ("SAckOK", b""), ("Timestamp", (ts(o1, 10), ts(o0, 0))),
                              ("NOP", None), ("WScale", 1)]
    assert tcp[0].dataofs == tcp[1].dataofs == 10  # 20 + 20 option bytes
    expected = [(49152, 988, ts(o0, 20), ts(o1, 10)), (49152, 988, ts(o0, 20), ts(o1, 10)),
                (7777, 0, ts(o1, 31), ts(o0, 20)), (49152, 524, ts(o0, 41), ts(o1, 31))]
    got = [(t.sport, len(t.payload), *dict(t.options)["Timestamp"]) for t in tcp[2:6]]
    assert got == expected
    assert all(t.options[:2] == [("NOP", None), ("NOP", None)] and t.dataofs == 8 for t in tcp[2:])
    # frame sizes are the engine's: 40 + 12 header bytes per segment; only the SYN is 8 bytes longer (real
    # SYN options are 20 bytes, the engine counts 12), so the bytes the forward link sent are those seen
    out = [p for p in pk if p[TCP].sport == 49152]
    assert all(p[IP].len == 40 + 12 + len(p[TCP].payload) for p in out[1:])
    assert r.link_bytes[0] == sum(p[IP].len for p in out) - 8


def test_sack_blocks_fit_beside_timestamps(tmp_path):
    r = simulate(_two_hosts(drops=(8, 10, 12), message_bytes=20000, timestamps=True), seed=3, trace=True)
    pk = rdpcap(str(r.to_pcap(tmp_path / "sts.pcap", snaplen=2000)))
    isn_c = int(r.tcp_isn[0, 0])
    sacks = []
    for p in pk[2:]:
        t = p[TCP]
        kinds = [k for k, _ in t.options]
        assert kinds[:3] == ["NOP", "NOP", "Timestamp"]
        if "SAck" in kinds:
            assert kinds[3:] == ["NOP", "NOP", "SAck"]
            blocks = dict(t.options)["SAck"]
            assert t.dataofs * 4 == 20 + 12 + 4 + 4 * len(blocks) <= 60
            sacks.append([(e - isn_c) % 2**32 for e in blocks])
    # the receiver's blocks are the trace's: [lo, hi) relative to the client's ISN (data starts at 1)
    pt = r.packet_trace
    acks = (pt.kind == 1) & (pt.direction == 1) & (pt.sack[:, 0, 0] >= 0)
    assert sacks == [[int(v) for v in b[b[:, 0] >= 0].ravel()] for b in pt.sack[acks]]
    assert max(len(s) for s in sacks) == 6  # three blocks: the most RFC 7323 leaves room for


def test_without_timestamps_the_bytes_are_those_from_before_the_option(tmp_path):
    # sha256 of the captures written by the code before the timestamps option (commit a2838a2), SACK
    # blocks included: turning the option off must change nothing
    r = simulate(_two_hosts(drops=(4, 6), message_bytes=20000), seed=3, trace=True)
    digest = {f: hashlib.sha256(r.to_pcap(tmp_path / f"x.{f}", snaplen=2000, format=f).read_bytes()).hexdigest()
              for f in ("pcap", "pcapng")}
    assert digest == {"pcap": "9620f48277e55dd7a941a8bce513c2acc6ea13a554c0153b6b7fb7493676adc0",
                      "pcapng": "c4d196519d3b9473ee8322179ae84e7db839f4bac08e6cf3c73c1cfbdc7eed38"}
