"""Capture export (``PacketResult.to_pcap``): headers read back by an independent reader (scapy) and checked
against values derived by hand from the scenario and the RFCs; determinism; drops seen before, not after;
bad input. tshark's own reading and TCP analysis: test_tshark.py."""

import struct

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
    dumbbell,
    simulate,
)
from simcore.packet._frames import internet_checksum

D = 0.01
RATE = 8e6  # 1 byte per microsecond


def _two_hosts(drops=(), **tcp_kw):
    fwd = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=100, drop_sequence=drops)
    back = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=100)
    net = Network(2, (Link(0, 1, fwd), Link(1, 0, back)))
    tcp = TcpParams(**{"variant": "sack", "mss_bytes": 1000, "rwnd_bytes": 100_000, **tcp_kw})
    return Scenario(net, (Connection(0, 1, tcp, closer="client"),), (Message(0, 2500),), duration_s=2.0)


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
