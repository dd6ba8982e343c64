"""Packets per HTTP/1.0 file, counted by hand under each reading of what the paper's stacks sent alone; reading S
(simcore's testbed) checked against the simulation; the files per test the package column implies."""

from dataclasses import replace

import pytest

from simcore.objpack import ObjpackParams, simulate_objpack
from simcore.objpack.readings import (
    READINGS,
    SIMCORE,
    TEXTBOOK,
    files_from_package,
    http10_packets_per_file,
    package_packets,
    page_bytes,
    reading_rows,
    readings_summary,
    reductions_rows,
)

BY = {r.name: r for r in READINGS}


@pytest.mark.parametrize(("name", "expected"), [
    # responses of 180 + 1000, 180 + 4000, 180 + 10000 bytes: 1, 3 and 7 segments of 1460 (d)
    # T: SYN, SYN-ACK, ACK + GET (3); d data; ACKs after every second segment, floor((d - 1) / 2), and the
    # client's FIN + ACK of the last one; the server's last ACK: 3 + d + floor((d-1)/2) + 1 + 1 = 6, 9, 15
    ("T", (6, 9, 15)),
    # S: the GET alone after the bare ACK: one more, 7, 10, 16
    ("S", (7, 10, 16)),
    # C: the client's ACK and its FIN apart: one more, 8, 11, 17
    ("C", (8, 11, 17)),
    # CF: the server's FIN alone only when the response fits the initial window of 2 (1K: d = 1): the FIN,
    # and the client's ACK covers data and FIN together: 9 at 1K; 4K and 10K as C
    ("CF", (9, 11, 17)),
    # CA: the FIN always alone: +1 at every size; the ACKs become floor(d / 2) + 1: the same at d = 1, 3, 7
    ("CA", (9, 12, 18)),
    # CFG: CF and the GET acknowledged at once: +1 at every size
    ("CFG", (10, 12, 18)),
    # CFH: CF with the 180-byte header in a segment of its own: d = 2, 4, 8. At 1K both fit the initial
    # window, so the FIN is alone: 4 + 2 + (2 // 2 + 1) + 1 + 1 + 1 = 11; at 4K 4 + 4 + (3 // 2 + 1) + 1 + 1
    # = 12; at 10K 4 + 8 + (7 // 2 + 1) + 1 + 1 = 18
    ("CFH", (11, 12, 18)),
])
def test_packets_per_file_by_hand(name, expected):
    assert tuple(http10_packets_per_file(BY[name], s) for s in (1000, 4000, 10000)) == expected


@pytest.mark.parametrize("size", [1000, 1280, 2740, 2741, 4000, 10000, 14600])
def test_reading_s_is_what_the_testbed_sends(size):
    # 1280 + 180 = 1460: one full segment; 2741 + 180 = 2921: one byte into a third segment
    p = ObjpackParams(n_files=3, mean_file_bytes=size)
    http = simulate_objpack(p)
    assert http.packets == 3 * http10_packets_per_file(SIMCORE, size)
    assert http.bytes == page_bytes(SIMCORE, "http10", 3, size)
    pkg = simulate_objpack(replace(p, method="package"))
    assert pkg.packets == package_packets(SIMCORE, 3, size) and pkg.bytes == page_bytes(SIMCORE, "package", 3, size)


def test_reading_t_is_what_the_textbook_handshake_sends(monkeypatch):
    from simcore.objpack import testbed

    real = testbed._tcp
    monkeypatch.setattr(testbed, "_tcp", lambda p, sack=False: replace(real(p, sack), request_on_handshake_ack=True))
    for size in (1000, 4000, 10000):
        assert simulate_objpack(ObjpackParams(n_files=2, mean_file_bytes=size)).packets == \
            2 * http10_packets_per_file(TEXTBOOK, size)


def test_package_of_100_files_by_every_reading():
    # the 1K package: 180 + 9 + 100 x 11 + 1109 name bytes + 100000 = 102398 bytes: 71 segments, the last
    # partly full; S: 4 + 71 + 35 + 1 + 1 = 112; C adds the client's FIN apart: 113; CA the server's FIN
    # alone as well (ACKs 71 // 2 + 1 = 36): 4 + 71 + 36 + 1 + 1 + 1 = 114
    assert package_packets(SIMCORE, 100, 1000) == 112
    assert package_packets(BY["C"], 100, 1000) == 113
    assert package_packets(BY["CA"], 100, 1000) == 114


def test_files_from_package_inverts_the_count():
    p = ObjpackParams()
    for name in ("S", "CA"):
        r = BY[name]
        n = files_from_package(r, "4K", "packets", p)
        # Table 2's 420.2 package packets at 4K lie between the counts of floor(n) and ceil(n) files
        lo, hi = int(n), int(n) + 1
        assert package_packets(r, lo, 4000) <= 420.2 <= package_packets(r, hi, 4000)
    with pytest.raises(ValueError, match="no number of files"):
        files_from_package(SIMCORE, "1K", "packets", n_range=(1, 10))


def test_reading_rows_and_summary_say_what_the_numbers_say():
    rows = {r["reading"]: r for r in reading_rows()}
    s = rows["S"]
    assert [s[k]["ours"] for k in ("1K", "4K", "10K")] == [7, 10, 16]
    assert s["1K"]["paper_n100"] == pytest.approx(9.442) and s["10K"]["paper_n100"] == pytest.approx(17.204)
    assert s["max_gap_n100"] == pytest.approx(9.442 - 7)
    text = readings_summary()
    assert "**7 / 10 / 16**" in text and "**9.4 / 11.9 / 17.2**" in text and "2.4 / 1.9 / 1.2 more" in text
    best = min(r["max_gap_n100"] for r in rows.values())
    assert f"by {best:.1f} packets" in text or f"within {best:.1f} packets" in text


def test_reductions_of_reading_s_are_the_simulated_ones():
    from simcore.objpack.reproduce import reproduce_tables

    sim = {(r["quantity"], r["size"]): r["ours_reduction_pct"] for r in reproduce_tables()}
    for r in reductions_rows():
        if r["reading"] == "S":
            assert r["packets_pct"] == pytest.approx(sim[("packets", r["size"])], abs=1e-9)
            assert r["bytes_pct"] == pytest.approx(sim[("bytes", r["size"])], abs=1e-9)
