"""ciw's stored runs for start-here's plot (data/start_here_ciw.csv): they agree with the closed forms, and a row
re-run gives the same numbers."""

import csv
import importlib.util
from pathlib import Path

from simcore import theory

ROOT = Path(__file__).resolve().parents[2]


def _ciw_rows() -> list[dict]:
    with (ROOT / "data" / "start_here_ciw.csv").open(newline="") as f:
        return list(csv.DictReader(f))


def test_stored_ciw_intervals_cover_the_exact_closed_forms():
    # ciw's stored runs (M/M/c and M/D/1 rows, whose closed forms are exact): about 95 % must cover
    exact = [r for r in _ciw_rows() if r["service"] == "exponential" or int(r["servers"]) == 1]
    hits = 0
    for r in exact:
        c, rho = int(r["servers"]), float(r["intensity"])
        truth = theory.mean_wait_s(rho * c, 1.0, c, r["service"])
        hits += abs(float(r["mean_wait_service_times"]) - truth) <= float(r["half_width_service_times"])
    assert len(exact) >= 60 and hits >= 0.88 * len(exact), (hits, len(exact))


def test_a_stored_ciw_row_is_what_ciw_gives():
    spec = importlib.util.spec_from_file_location("make_start_here_ciw", ROOT / "data" / "make_start_here_ciw.py")
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    rows = {(r["service"], int(r["servers"]), float(r["intensity"])): r for r in _ciw_rows()}
    stored = rows[("exponential", 2, 0.5)]  # one of the cheapest rows: 10 runs of 1,300 packets
    fresh = gen.row("exponential", 2, 0.5)
    assert (stored["mean_wait_service_times"], stored["half_width_service_times"]) == fresh[3:5]
    assert all(gen.wanted(*key) for key in rows)
