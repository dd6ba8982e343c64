"""data/ftp_sctp_claims.csv: every row is sourced, and the testbed rows match FtpParams' defaults."""

import csv
from pathlib import Path

from simcore.ftp import FtpParams

CSV = Path(__file__).resolve().parents[2] / "data" / "ftp_sctp_claims.csv"


def test_claims_are_sourced_and_the_testbed_matches_the_defaults():
    rows = {r["id"]: r for r in csv.DictReader(CSV.open())}
    assert all(r["source"].startswith(r["section"]) and "Ladha" in r["source"] and r["words"] for r in rows.values())
    p = FtpParams()
    assert float(rows["P1"]["value"]) * 1e6 == p.rate_bps
    assert float(rows["P2"]["value"]) / 1e3 == p.one_way_delay_s
    assert int(rows["P3"]["value"]) == p.queue_packets
    assert int(rows["P6"]["value"]) == p.n_files
    assert rows["P7"]["value"] == "10K" and p.file_size_bytes == 10 * 1024
    assert [float(v) for v in rows["P4"]["value"].split(";")] == [0.0, 0.1, 0.3]
    assert {"C1", "C2", "C3"} <= {k for k, r in rows.items() if r["needs_sctp"] == "yes"}
    assert all("inference" in r["source"] for k, r in rows.items() if k.startswith("C") or k in ("P7", "P8"))
