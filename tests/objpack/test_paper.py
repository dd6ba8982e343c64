"""The paper's tables, reductions and abstract, checked by hand; the files-per-test derivation;
Tables 1-3 reproduced within stated margins."""

import pytest

from simcore.objpack.paper import (
    abstract_check,
    derive_from_tables,
    files_from_package_packets,
    paper_reductions,
    paper_table,
    reduction_pct,
)
from simcore.objpack.reproduce import reproduce_tables


def test_reductions_by_hand():
    red = paper_reductions()
    assert red[("bytes", "1K")] == pytest.approx(100 * (188362.3 - 106057.1) / 188362.3)  # 43.70
    assert red[("packets", "10K")] == pytest.approx(100 * (1720.4 - 1015.6) / 1720.4)  # 40.97
    assert red[("response_time", "10K")] == pytest.approx(34.75, abs=0.01)
    assert len(paper_table()) == 18
    with pytest.raises(ValueError, match="existing"):
        reduction_pct(0.0, 1.0)


def test_abstract_swaps_bytes_and_packets_at_10k():
    by = {(c["claim"], c["quantity"]): c for c in abstract_check()}
    assert all(by[("text_1k", q)]["matches"] for q in ("bytes", "packets", "response_time"))
    assert by[("abstract_10k", "response_time")]["matches"]
    # printed "bytes 40.1 %, packets 7.1 %": Table 1 gives 7.1 % for bytes, Table 2 41.0 % for packets
    assert not by[("abstract_10k", "bytes")]["matches"]
    assert by[("abstract_10k", "packets")]["matches_other_quantity"] == "bytes"


def test_tables_imply_about_100_files_and_54_byte_headers():
    d = derive_from_tables()
    for s in ("1K", "4K", "10K"):
        assert 95 <= d.files_from_packets[s] <= 105
        assert 95 <= d.files_from_bytes[s] <= 101
        assert 350 <= d.overhead_per_file_at_54[s] <= 450  # an HTTP/1.0 GET + response header
    assert abs(d.fit_header_bytes - 54) < 1.0 * d.fit_header_stderr  # 54 within one standard error
    # by hand: 100 files of 1000 B = 100000 B / 1460 = 68.5 segments, x 1.5 with delayed ACKs, + 8
    assert files_from_package_packets(8 + 1.5 * 100000 / 1460, 1000) == pytest.approx(100)


def test_tables_reproduced_within_stated_margins():
    rows = reproduce_tables()
    by = {(r["quantity"], r["size"]): r for r in rows}
    for s in ("1K", "4K", "10K"):
        # Bytes and packets are independent of the paper's numbers (nothing is fitted to Tables 1-2).
        # simcore.packet's HTTP/1.0 sends 7 / 10 / 16 packets per file (a bare handshake ACK, the server's
        # FIN on its response, the client's FIN on its ACK) against the paper's 9.4 / 11.9 / 17.2 with 100
        # files: 1.2-2.4 per file fewer, each 100 packets and 5400 B less for HTTP/1.0 alone, which lowers
        # both reductions (tests/objpack/test_readings.py counts what a 2002 stack may have sent alone).
        assert -6.0 < by[("bytes", s)]["gap_points"] < 0.0
        assert -8.0 < by[("packets", s)]["gap_points"] < 0.0
        assert 1.0 <= (by[("packets", s)]["paper_existing"] - by[("packets", s)]["ours_existing"]) / 100 <= 2.5
        assert by[("packets", s)]["ours_package"] == pytest.approx(by[("packets", s)]["paper_package"], rel=0.03)
        assert by[("bytes", s)]["ours_existing"] == pytest.approx(by[("bytes", s)]["paper_existing"], rel=0.06)
        # Response times are NOT evidence: the server's two costs are fitted to these six numbers
        # (test_calibrate.py); this only pins what the fit leaves.
        assert abs(by[("response_time", s)]["gap_points"]) < 4.0
