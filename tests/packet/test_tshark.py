"""Exported captures read by Debian's tshark: no malformed packets or checksum errors, and tshark's own TCP
analysis agrees with simcore's counters (chosen losses derived by hand; random losses), per-stream bytes
and the lab's time-sequence trace.

Needs ``tshark`` (``make tshark`` installs it on Debian/Ubuntu): skipped without it, except under CI=true.
Where tshark and simcore count differently, the test says why (``test_dupack_after_a_scaled_syn_ack``).
"""

import subprocess
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from simcore.chapters.tcp_primer import MSS_BYTES, PrimerSetting, plot_data, run
from simcore.packet import (
    CbrSource,
    Connection,
    LinkParams,
    Message,
    Scenario,
    TcpParams,
    bulk_scenario,
    chain,
    dumbbell,
    simulate,
)

pytestmark = pytest.mark.tshark

FLAGS = ("retransmission", "fast_retransmission", "out_of_order", "spurious_retransmission", "duplicate_ack",
         "zero_window", "window_full", "lost_segment")
CHECKS = ("-o", "tcp.check_checksum:TRUE", "-o", "ip.check_checksum:TRUE", "-o", "udp.check_checksum:TRUE")
D = 0.01
RATE = 8e6  # 1 byte per microsecond


def _fields(tshark: str, path: Path, fields: list[str], *extra: str) -> list[list[str]]:
    cmd = [tshark, "-n", "-r", str(path), *CHECKS, *extra, "-T", "fields"]
    for f in fields:
        cmd += ["-e", f]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=True).stdout
    return [line.split("\t") for line in out.splitlines()]


def _analysis(tshark: str, path: Path, port: int = 49152) -> dict[str, int]:
    """Return how many TCP frames tshark flags with each ``tcp.analysis`` flag."""
    rows = _fields(tshark, path, ["tcp.srcport", *[f"tcp.analysis.{f}" for f in FLAGS]])
    return {f: sum(1 for r in rows if r[i + 1] != "") for i, f in enumerate(FLAGS)}


def _simcore_dupacks(r, conn: int = 0) -> int:
    tr = r.tcp_trace
    return int(np.sum((tr.event == 1) & (tr.conn == conn) & (tr.direction == 0)))


def _two_hosts(drops=(), n_segments=30, **tcp_kw):
    # host 0 -> host 1 is link 0 (it drops ``drops``), the way back link 1 (topology.chain)
    back = LinkParams(rate_bps=RATE, delay_s=D, queue_packets=100)
    net = chain(1, replace(back, drop_sequence=drops), back)
    tcp = TcpParams(**{"variant": "newreno", "mss_bytes": 1000, "rwnd_bytes": 65535, **tcp_kw})
    return Scenario(net, (Connection(0, 1, tcp),), (Message(0, n_segments * 1000),), duration_s=3.0)


def test_chosen_loss_fast_retransmit_matches_the_hand_count(tshark, tmp_path):
    # Offered to the forward link: #0 SYN, #1.. data segments 1, 2, ... (the ACK of the SYN-ACK rides on
    # segment 1). Slow start from 2 segments: ACK1 -> 3, 4; ACK2 -> 5 (dropped), 6; ACK3 -> 7, 8;
    # ACK4 -> 9, 10. Segments 6..10 each draw a duplicate ACK (5); the third triggers the one fast
    # retransmit of segment 5 (NewReno); it comes back with a full ACK of 10. No timeout.
    r = simulate(_two_hosts(drops=(5,)), seed=0, trace=True)
    assert (int(r.retransmits[0, 0]), int(r.fast_retransmits[0, 0]), int(r.timeouts[0, 0])) == (1, 1, 0)
    assert _simcore_dupacks(r) == 5
    a = _analysis(tshark, r.to_pcap(tmp_path / "client.pcap"))
    assert (a["retransmission"], a["fast_retransmission"], a["duplicate_ack"]) == (1, 1, 5)
    assert a["out_of_order"] == a["spurious_retransmission"] == a["zero_window"] == a["lost_segment"] == 0
    # at the server's end of the link the dropped segment is missing: tshark sees the gap at segment 6
    b = _analysis(tshark, r.to_pcap(tmp_path / "server.pcap", link=0, capture_point="receiver"))
    assert b["lost_segment"] == 1 and b["retransmission"] + b["out_of_order"] == 1 and b["duplicate_ack"] == 5


def test_receive_window_limit_is_tshark_window_full(tshark, tmp_path):
    # rwnd = 4 segments, no loss. IW 2: 1, 2; ACK1 (cwnd 3) -> 3, 4; ACK2 (cwnd 4) -> 5, 6, and 6 ends
    # exactly at una + rwnd: window full. From then on each ACK k opens one segment, k + 4, which fills
    # the window again: segments 6..20 are window-full, 15 of them. simcore never shrinks its
    # advertised window, so there is no zero window.
    r = simulate(_two_hosts(n_segments=20, rwnd_bytes=4000), seed=0, trace=True)
    pt, tr = r.packet_trace, r.tcp_trace
    sent = np.flatnonzero((pt.kind == 0) & (pt.direction == 0) & (pt.seqlen > 0))
    una_t = tr.time_s[tr.direction == 0]
    una = tr.snd_una[tr.direction == 0]
    una_at_send = una[np.searchsorted(una_t, pt.time_s[sent], side="right") - 1]
    assert int(np.sum(pt.seq[sent] + pt.seqlen[sent] - una_at_send == 4000)) == 15  # simcore's own trace
    a = _analysis(tshark, r.to_pcap(tmp_path / "w.pcap"))
    assert a["window_full"] == 15 and a["zero_window"] == 0 and a["retransmission"] == 0


def test_dupack_after_a_scaled_syn_ack(tshark, tmp_path):
    # Segment 1 lost: the receiver's ACK of segment 2 repeats the SYN-ACK's ACK number. simcore counts it as
    # a duplicate ACK. RFC 5681 (and tshark) also ask for the same advertised window, and a SYN-ACK's
    # window field is never scaled (RFC 7323): with rwnd 100000 (shift 1) the field goes from 65535 to
    # 50000, so tshark counts one duplicate ACK fewer. Without scaling (rwnd 65535) they agree.
    for rwnd, missing in ((65535, 0), (100_000, 1)):
        r = simulate(_two_hosts(drops=(1,), n_segments=6, rwnd_bytes=rwnd), seed=0, trace=True)
        a = _analysis(tshark, r.to_pcap(tmp_path / f"{rwnd}.pcap"))
        assert _simcore_dupacks(r) == 1 and a["duplicate_ack"] == 1 - missing
        assert int(r.timeouts[0, 0]) == 1 and a["retransmission"] == int(r.retransmits[0, 0]) == 1


@pytest.mark.parametrize("variant", ["reno", "newreno", "sack"])
def test_random_loss_counts_and_time_sequence_agree(tshark, tmp_path, variant):
    s = PrimerSetting(variant=variant, loss_pct=2.0, seed=2, duration_s=6.0, buffer_packets=20, rwnd_bytes=65535)
    r = run(s)
    path = r.to_pcap(tmp_path / "p.pcap")
    rows = _fields(tshark, path, ["tcp.srcport", "frame.time_epoch", "tcp.seq", "tcp.len", "tcp.flags.syn",
                                  *[f"tcp.analysis.{f}" for f in FLAGS]])
    flag = {f: np.array([x[5 + i] != "" for x in rows]) for i, f in enumerate(FLAGS)}
    # tshark tells retransmissions apart by timing: a later SACK or NewReno retransmission sent within one
    # RTT of new data is "out-of-order"; together they are every retransmission simcore made
    retx = flag["retransmission"] | flag["out_of_order"] | flag["spurious_retransmission"]
    assert retx.sum() == r.retransmits[0, 0] > 0
    assert flag["fast_retransmission"].sum() == r.fast_retransmits[0, 0] > 0
    assert flag["duplicate_ack"].sum() == _simcore_dupacks(r) > 0
    assert flag["zero_window"].sum() == 0
    # the lab's time-sequence plot (sent and retransmitted segments of flow 1, its SYN at 0 included) is
    # tshark's relative sequence number over time
    d = plot_data(r, s, max_points=10**9)
    lab = sorted(zip(np.concatenate([d["sent"][0], d["retx"][0]]).tolist(),
                     np.concatenate([d["sent"][1], d["retx"][1]]).tolist(), strict=True))
    data = [(float(x[1]), int(x[2]) / MSS_BYTES) for x in rows if x[0] == "49152" and (int(x[3]) or x[4] == "1")]
    assert len(data) == len(lab)
    np.testing.assert_allclose(np.array(sorted(data)), np.array(lab), rtol=0, atol=1e-9)


def test_per_stream_bytes_at_the_receivers_equal_goodput_bytes(tshark, tmp_path):
    db = dumbbell(2, LinkParams(rate_bps=4e6, delay_s=0.02, queue_packets=15, loss_prob=0.01))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), duration_s=4.0, start_times_s=(0, 0.3))
    r = simulate(sc, seed=4, trace=True)
    for c, (client, server) in enumerate(db.pairs):
        last = sc.network.route(client, server)[-1]
        rows = _fields(tshark, r.to_pcap(tmp_path / f"s{c}.pcap", link=last, capture_point="receiver"),
                       ["tcp.srcport", "tcp.ack"], "-Y", "tcp.srcport == 7777")
        acked = max(int(x[1]) for x in rows) - 1  # relative ACK number, less the SYN
        assert acked == r.delivered_bytes[c, 0] > 0


def test_every_export_reads_without_malformed_packets_or_checksum_errors(tshark, tmp_path):
    db = dumbbell(2, LinkParams(rate_bps=2e6, delay_s=0.02, queue_packets=8, loss_prob=0.02))
    cbr = (CbrSource(db.left[1], db.right[1], rates_bps=(3e5,), packet_bytes=700),)
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="sack", rwnd_bytes=1 << 20), duration_s=2.0,
                       cbr=cbr)
    r = simulate(sc, seed=5, trace=True)
    files = [r.to_pcap(tmp_path / "full.pcap", link=0, snaplen=65535),
             r.to_pcap(tmp_path / "host.pcapng", format="pcapng"),
             r.to_pcap(tmp_path / "rx.pcap", link=0, capture_point="receiver"),
             r.to_pcap(tmp_path / "rev.pcapng", link=1, capture_point="receiver", format="pcapng")]
    for f in files:
        rows = _fields(tshark, f, ["_ws.malformed", "_ws.expert.severity", "ip.checksum.status",
                                   "tcp.checksum.status", "udp.checksum.status", "frame.cap_len", "frame.len"])
        assert len(rows) > 100
        assert all(x[0] == "" for x in rows), f"malformed packets in {f.name}"
        assert not any("8388608" in x[1].split(",") for x in rows), f"expert errors in {f.name}"
        assert all(x[2] == "1" for x in rows), f"IPv4 checksums not good in {f.name}"
        for x in rows:  # TCP/UDP checksums: good, or unverifiable only where the payload was cut
            l4 = x[3] or x[4]
            assert l4 == "1" or (l4 == "2" and int(x[5]) < int(x[6])), f"checksum status {l4} in {f.name}"
    # captured at node 0 (the far end of link 1), outgoing frames are offered to link 0, the bottleneck:
    # those it then drops carry a packet comment, as many as its drop counters
    noted = _fields(tshark, files[3], ["frame.comment"], "-Y", "frame.comment")
    assert len(noted) == r.link_drops_queue[0] + r.link_drops_loss[0] > 0
    assert {x[0] for x in noted} <= {
        "dropped after this capture by the buffer of this link (full, or its queue discipline)",
        "lost after this capture: random loss on this link"}
    full = _fields(tshark, files[0], ["tcp.checksum.status", "udp.checksum.status"])
    assert {x[0] or x[1] for x in full} == {"1"}
    assert any(x[1] == "1" for x in full)  # CBR datagrams cross the bottleneck too
    expert = subprocess.run([tshark, "-n", "-r", str(files[0]), *CHECKS, "-q", "-z", "expert"],
                            capture_output=True, text=True, timeout=120, check=True).stdout
    assert "Errors (" not in expert and "Malformed" not in expert and "checksum" not in expert.lower()


def test_timestamps_read_by_tshark_as_derived_by_hand(tshark, tmp_path):
    # SACK, window scale 0 (rwnd 65535), timestamps; three losses so that SACK blocks ride beside them
    r = simulate(_two_hosts(drops=(8, 10, 12), variant="sack", timestamps=True), seed=2, trace=True)
    o0, o1 = (int(v) for v in r.tcp_ts_offset[:2])
    rows = _fields(tshark, r.to_pcap(tmp_path / "ts.pcap", snaplen=2000),
                   ["tcp.options.timestamp.tsval", "tcp.options.timestamp.tsecr", "tcp.hdr_len",
                    "tcp.options.sack.count", "tcp.flags.syn", "_ws.malformed", "_ws.expert.severity",
                    "tcp.checksum.status", "ip.checksum.status"])
    # times at 1 byte/us and 10 ms each way, 52-byte headers (test_pcap: SYN 0 ms, SYN-ACK 10.052 ms, data
    # 20.104 ms, first ACK 31.144 ms); TSval = offset + whole ms; TSecr = the peer's last TSval received
    ms = [(0, None), (10, 0), (20, 10), (20, 10), (31, 20)]
    want = [(str((o + a) % 2**32), "0" if b is None else str((p + b) % 2**32))
            for (a, b), o, p in zip(ms, (o0, o1, o0, o0, o1), (o1, o0, o1, o1, o0), strict=True)]
    assert [(x[0], x[1]) for x in rows[:5]] == want
    # SYNs: MSS 4 + NOP NOP + TS 10 + NOP + WS 3 = 20 option bytes; others 12, plus 4 + 8 per SACK block
    for x in rows:
        k = int(x[3] or 0)
        assert int(x[2]) == (40 if x[4] == "1" else 32 + (4 + 8 * k if k else 0))
    assert max(int(x[3] or 0) for x in rows) == 3
    assert all(x[5] == "" for x in rows) and not any("8388608" in x[6].split(",") for x in rows)
    assert {x[7] for x in rows} == {x[8] for x in rows} == {"1"}
