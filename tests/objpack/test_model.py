"""The testbed's packets, bytes and times derived by hand; determinism; Figure 5's trend."""

from dataclasses import replace

import numpy as np
import pytest

from simcore.objpack import ObjpackParams, simulate_objpack
from simcore.objpack.reproduce import files_sweep
from simcore.objpack.streaming import streamed_file_done_s

ONE = ObjpackParams(n_files=1, mean_file_bytes=1000)


def test_one_1kb_file_over_http10_counted_by_hand():
    r = simulate_objpack(ONE, trace=True)
    # SYN, SYN-ACK, the client's bare ACK (a real stack: connect() returns on the SYN-ACK and the kernel
    # ACKs at once), the GET on its own, the response (180 + 1000 = 1180 <= MSS: one segment) carrying the
    # server's FIN (the server closes right behind its last write: RFC 793, as BSD stacks do), the client's
    # FIN+ACK (a FIN is acknowledged at once, and the client closes on it), the server's last ACK:
    # 7 packets, 54 header bytes each (14 + 20 + 20).
    assert r.packets == 7
    assert r.bytes == 220 + 1180 + 7 * 54
    pt = r.packet.packet_trace
    sent = (pt.kind == 0) & ((pt.flags & 8) == 0)
    flags, seqlen, direction = pt.flags[sent], pt.seqlen[sent], pt.direction[sent]
    assert int(np.sum(flags & 1)) == 2 and int(np.sum((flags & 4) != 0)) == 2  # two SYNs, two FINs
    assert int(np.sum(((flags & 4) != 0) & (seqlen == 1180 + 1))) == 1  # one FIN rides on the response
    # the third packet is the bare ACK (no payload), the fourth the GET alone, both from the client
    assert (direction[2], seqlen[2]) == (0, 0) and (direction[3], seqlen[3]) == (0, 220)


def test_one_file_response_time_by_hand():
    p = ONE
    stack_hdr = p.server_packet_s * p.server_stack_rate_bps / 8  # 625 bytes of per-packet cost
    fast = lambda ip: ip * 8 / 1e11  # noqa: E731 - the client's NIC and the hub's exit ports
    medium = lambda ip: (ip + 14 + 24) * 8 / p.link_rate_bps + p.rtt_s / 2 + fast(ip)  # noqa: E731
    stack = lambda ip: (ip + stack_hdr) * 8 / p.server_stack_rate_bps  # noqa: E731
    syn_at_server = fast(40) + medium(40)
    synack_at_client = syn_at_server + stack(40) + medium(40)
    # the bare ACK and the GET leave together: on the medium the GET waits for the ACK's frame
    ack_frame = (40 + 14 + 24) * 8 / p.link_rate_bps
    get_at_server = synack_at_client + fast(40) + ack_frame + medium(40 + 220)
    written = get_at_server + p.server_file_s + p.server_copy_s_per_byte * 1000
    done = written + stack(40 + 1180) + medium(40 + 1180)
    assert simulate_objpack(p).response_time_s == pytest.approx(done, abs=1e-12)


def test_package_of_100_files_counted_by_hand():
    p = ObjpackParams(method="package")
    r = simulate_objpack(p)
    name_bytes = sum(len(n) for n in r.page.names)  # "obj0000.html", "obj0001.gif", ...
    body = 180 + 100 * 1000 + 9 + 100 * (2 + 8 + 1) + name_bytes  # response header, data, package header (FORMAT.md)
    segs = -(-body // 1460)  # 71 segments: 70 full, the last 189 B (body = 102389 B)
    # 4 (SYN, SYN-ACK, the bare ACK, the GET) + the data segments, the server's FIN on the last one + one
    # delayed ACK per two full-sized segments before it (RFC 5681 sec. 4.2: 2 x 1460 B unacknowledged;
    # (71 - 1) // 2 = 35; an odd one left over would be covered by the next ACK) + the client's FIN+ACK of
    # the last segment (a FIN is acknowledged at once) + the server's last ACK: 4 + 71 + 35 + 2 = 112
    assert segs == 71 and body % 1460 != 0
    assert r.packets == 4 + segs + (segs - 1) // 2 + 2 == 112
    assert r.bytes == 220 + body + 54 * r.packets
    assert r.n_connections == 1


def test_same_seed_same_result_and_sizes_vary_with_seed():
    p = ObjpackParams(n_files=20, size_distribution="lognormal", mean_file_bytes=4000, method="parallel")
    a, b = simulate_objpack(p, 3), simulate_objpack(p, 3)
    assert a.response_time_s == b.response_time_s and a.packets == b.packets
    assert np.array_equal(a.file_done_s, b.file_done_s)
    assert simulate_objpack(p, 4).page.sizes != a.page.sizes


def test_every_method_delivers_every_file():
    p = ObjpackParams(n_files=13, mean_file_bytes=3000, size_distribution="uniform")
    for m in ("http10", "keepalive", "parallel", "pipelined", "multistream", "package"):
        r = simulate_objpack(replace(p, method=m))
        assert np.all(np.isfinite(r.file_done_s)) and r.retransmits == 0
        assert r.response_time_s == pytest.approx(r.file_done_s.max())


def test_compression_shrinks_text_and_the_package_most():
    p = ObjpackParams(n_files=20, method="package")
    off, on = simulate_objpack(p), simulate_objpack(replace(p, compress=True))
    assert on.bytes < off.bytes


def test_streamed_package_gives_files_in_order_before_the_end():
    r = simulate_objpack(ObjpackParams(n_files=30, method="package"), trace=True)
    t = streamed_file_done_s(r)
    assert np.all(np.diff(t) >= 0) and t[0] < 0.5 * r.response_time_s
    assert t[-1] == pytest.approx(r.response_time_s)


def _data_arrivals_s(r):
    """Arrival times at the client of the server's data segments (SYN-ACK and FIN excluded), in order."""
    pt = r.packet.packet_trace
    sel = (pt.kind == 1) & (pt.direction == 1) & (pt.seqlen > 1)
    return pt.time_s[sel]


def test_streamed_files_become_usable_with_the_segment_holding_their_last_byte():
    # 3 files of 1000 B named obj0000.html, obj0001.jpg, obj0002.js (12, 11, 10 bytes): the package's
    # header is 9 + (11 + 12) + (11 + 11) + (11 + 10) = 75 bytes (FORMAT.md), the response 180 + 75 + 3000
    # = 3255 bytes in segments of 1460: bytes [0, 1460), [1460, 2920), [2920, 3255). The files end at
    # response offsets 180 + 75 + 1000 = 1255, 2255 and 3255: one in each segment.
    r = simulate_objpack(ObjpackParams(n_files=3, mean_file_bytes=1000, method="package"), trace=True)
    assert r.page.names == ("obj0000.html", "obj0001.jpg", "obj0002.js")
    assert list(r.response_bytes) == [3255]
    arrivals = _data_arrivals_s(r)
    assert arrivals.size == 3
    np.testing.assert_array_equal(streamed_file_done_s(r), arrivals)


@pytest.mark.parametrize(("size", "first_segment"), [(1226, 0), (1227, 1)])
def test_a_file_ending_on_a_segment_boundary_is_usable_with_that_segment(size, first_segment):
    # 2 files named obj0000.html, obj0001.jpg: header 9 + 23 + 22 = 54 bytes. With 1226-byte files the
    # first ends at response offset 180 + 54 + 1226 = 1460, the last byte of segment 1; one byte more
    # and it needs segment 2. The second ends at 180 + 54 + 2 * size <= 2920: segment 2.
    r = simulate_objpack(ObjpackParams(n_files=2, mean_file_bytes=size, method="package"), trace=True)
    arrivals = _data_arrivals_s(r)
    assert arrivals.size == 2
    t = streamed_file_done_s(r)
    assert t[0] == arrivals[first_segment] and t[1] == arrivals[1]


def test_figure5_trend_flat_above_ten_files():
    rows = {r["n_files"]: r["response_time_reduction_pct"] for r in files_sweep(n_files=(1, 2, 10, 30, 100))}
    # one file: the package only adds its header, nothing to save
    assert abs(rows[1]) < 2.0
    assert rows[10] - rows[2] > 20.0 and abs(rows[100] - rows[30]) < 5.0


def test_rejects_non_params():
    with pytest.raises(ValueError, match="must be an ObjpackParams"):
        simulate_objpack({"n_files": 3})
