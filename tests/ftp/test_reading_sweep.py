"""The stored reading sweep and its verdicts: complete, sourced, still what the code computes, and the
verdict file is exactly the one computation's output (no verdict typed anywhere)."""

import math

import pytest

from simcore.ftp.claims import verdicts
from simcore.ftp.reading_sweep import SEEDS, SIZES, evidence_rows, load_readings, load_verdicts, reading_point
from simcore.ftp.readings import READINGS, reading, reading_params


def test_every_reading_size_loss_and_design_is_stored_with_its_source():
    recs = load_readings()
    got = {(r["reading"], r["file_size_bytes"], r["loss"], r["design"]) for r in recs}
    want = {(n, s, lo, d) for n, rd in READINGS.items() for s in SIZES for lo in rd.losses for d in (1, 2, 3, 4)}
    assert got == want and len(recs) == len(want)
    assert all("simulation (not the paper's)" in r["source"] for r in recs)
    for r in recs:
        assert r["n_runs"] == (SEEDS[r["file_size_bytes"]] if r["loss"] > 0 else 3)
        assert r["n_done"] + r["n_gave_up"] == r["n_runs"]  # every session finished or was given up


def test_loss_free_points_are_deterministic_and_what_the_code_computes_now():
    # a stale CSV (the model changed, the data not re-run) fails here: python -m simcore.ftp.reading_sweep
    stored = {(r["file_size_bytes"], r["design"]): r for r in load_readings() if r["reading"] == "percent"
              and r["loss"] == 0.0}
    for d in (1, 2, 3, 4):
        r = stored[(10240, d)]
        assert r["sd_s"] == 0.0
        assert r["mean_s"] == pytest.approx(reading_point("percent", 10240, 0.0, d, 2)["mean_s"], abs=1e-4)


def test_one_lossy_point_is_what_the_code_computes_now():
    r = next(x for x in load_readings() if x["reading"] == "fraction_c2s" and x["file_size_bytes"] == 10240
             and x["loss"] == 0.1 and x["design"] == 4)
    got = reading_point("fraction_c2s", 10240, 0.1, 4, r["n_runs"])
    assert got["mean_s"] == pytest.approx(r["mean_s"], abs=1e-4) and got["n_gave_up"] == r["n_gave_up"]


def test_the_stored_verdicts_are_the_computation_on_the_stored_sweep():
    want = [(v.claim, v.reading, v.file_size_bytes, v.verdict, v.why) for v in verdicts(load_readings())]
    got = [(r["claim"], r["reading"], r["file_size_bytes"], r["verdict"], r["why"]) for r in load_verdicts()]
    assert got == want


def test_the_sample_size_rule_separates_the_units():
    # the paper's rule (90% interval, +-0.5 s): a few runs a point at 0.1% / 0.3%, thousands or more at 10% / 30%
    ev = {(e["reading"], e["file_size_bytes"]): e for e in evidence_rows()}
    assert all(ev[("percent", s)]["max_runs_needed"] <= 30 for s in SIZES)
    for name in ("fraction", "fraction_c2s", "fraction_s2c", "spared_sctp", "spared_all"):
        assert all(math.isnan(ev[(name, s)]["max_runs_needed"]) or ev[(name, s)]["max_runs_needed"] > 1000
                   for s in SIZES), name


def test_readings_are_records_with_their_params():
    assert reading("fraction_c2s").loss_direction == "client_to_server"
    assert reading_params(reading("spared_sctp")) == {"loss_direction": "both", "spared_retransmissions": ("sctp",)}
    assert [READINGS[n].losses for n in ("percent", "fraction")] == [(0.0, 0.001, 0.003), (0.0, 0.1, 0.3)]
    with pytest.raises(ValueError, match="name='kilo'"):
        reading("kilo")
