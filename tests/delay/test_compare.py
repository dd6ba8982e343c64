"""The correctness table and the Appendix-2 sweeps: the report next to our model."""

import math

import numpy as np
import pytest

from simcore.delay.compare import appendix2_sweep, calibrated_params, correctness_table, sweep_params
from simcore.delay.params import DelayParams
from simcore.delay.report import report_sweep_fits


@pytest.fixture(scope="module")
def table():
    return correctness_table()


def test_closed_form_and_simulation_agree_with_the_reports_counts(table):
    assert len(table) == 4
    for r in table:
        assert r["closed_form_ms"] == r["simulated_ms"]
        assert r["closed_form_ms"] == r["report_hand_recomputed_ms"]
        assert r["ctrl_packets_ours"] == r["ctrl_packets_report_formula"]


def test_every_gap_is_explained(table):
    by = {r["case"]: r for r in table}
    assert "6556" in by["persistent"]["explanation"] and "6566" in by["persistent"]["explanation"]
    assert "18 control packets" in by["cached non-persistent"]["explanation"]
    assert "5P + PC" in by["multiplexing"]["explanation"]
    assert by["multiplexing"]["report_general_formula_ms"] - by["multiplexing"]["closed_form_ms"] == 2 * 266
    assert math.isnan(by["cached non-persistent"]["report_general_formula_ms"])
    for r in table:
        # the report calls every case "correct", yet every measurement is below the hand calculation
        assert r["report_measured_ms"] < r["report_hand_ms"]
        assert r["measured_minus_ours_ms"] == r["report_measured_ms"] - r["closed_form_ms"]
        assert "Measured" in r["explanation"] and "remaining" in r["explanation"]


def test_adjusted_model_closes_the_gaps(table):
    # with the sizes and connection reuse inferred from Appendix 2 (a different experiment), the
    # model lands within 3% of every correctness measurement, and closer than the hand calculation
    # except for the cached case, where the hand calculation's two errors cancel
    for r in table:
        adj_err = abs(r["adjusted_model_ms"] - r["report_measured_ms"]) / r["report_measured_ms"]
        assert adj_err < 0.03, r["case"]
        if r["case"] != "cached non-persistent":
            assert abs(r["adjusted_model_ms"] - r["report_measured_ms"]) < abs(r["measured_minus_ours_ms"])


@pytest.mark.parametrize("sweep", ["transmission", "propagation", "objects"])
def test_sweep_records(sweep):
    recs = appendix2_sweep(sweep)
    key = lambda r: (r["http_version"], r["cache"], r["x"])  # noqa: E731
    cf = {key(r): r["response_time_ms"] for r in recs if r["source"] == "closed form"}
    sim = {key(r): r["response_time_ms"] for r in recs if r["source"] == "simulation"}
    assert cf == sim and len(cf) == 3 * 2 * 10
    printed = [r for r in recs if r["source"] == "report (as printed)"]
    assert len(printed) == (40 if sweep == "transmission" else 30)
    # cached never slower than uncached, and the x grid is the report's
    for (v, c, x), t in cf.items():
        if c:
            assert t <= cf[(v, False, x)]
    xs = sorted({r["x"] for r in recs})
    assert xs[0] == {"transmission": 2, "propagation": 100, "objects": 2}[sweep] and len(xs) == 10


def test_model_tracks_the_reports_per_run_slopes():
    # response time grows linearly in every swept variable, in the report (per run) and in our model;
    # for 1.0 (no connection reuse to confuse it) the slope against propagation is the packet count
    recs = appendix2_sweep("propagation", simulate=False)
    ours = sorted((r["x"], r["response_time_ms"]) for r in recs
                  if r["source"] == "closed form" and r["http_version"] == "1.0" and not r["cache"])
    rep = sorted((r["x"], r["response_time_ms"]) for r in recs
                 if r["source"] == "report (per run)" and r["http_version"] == "1.0")
    slope_ours = (ours[-1][1] - ours[1][1]) / (ours[-1][0] - ours[1][0])
    slope_rep = (rep[-1][1] - rep[1][1]) / (rep[-1][0] - rep[1][0])
    assert slope_ours == 8.0
    assert slope_rep == pytest.approx(slope_ours, rel=0.02)


def test_sweep_params():
    assert sweep_params("objects", 20).n_children == 9
    assert sweep_params("transmission", 29).trans_ms_per_byte == 29.0
    p = sweep_params("propagation", 280, DelayParams(ctrl_size_bytes=10.0, n_parents=7))
    assert (p.prop_delay_ms, p.n_parents, p.ctrl_size_bytes) == (280.0, 2, 10.0)
    with pytest.raises(ValueError, match="even number"):
        sweep_params("objects", 5)
    with pytest.raises(ValueError, match="sweep='size'"):
        appendix2_sweep("size")


def _series(recs, v, source, cache=False):
    pts = sorted((r["x"], r["response_time_ms"]) for r in recs
                 if r["http_version"] == v and r["cache"] == cache and r["source"] == source)
    return np.array([p[1] for p in pts])


def test_calibrated_model_predicts_the_other_sweeps():
    # sizes come from the transmission sweep only; the propagation and objects sweeps are out of sample
    prop = appendix2_sweep("propagation", simulate=False)
    objs = appendix2_sweep("objects", simulate=False)
    for v in ("1.0", "1.1", "1.2"):
        for recs, tol in ((prop, 0.01), (objs, 0.06)):
            rep = _series(recs, v, "report (per run)")
            cal = _series(recs, v, "calibrated closed form")
            assert np.all(np.abs(rep[1:] - cal[1:]) / rep[1:] < tol), v
    # run 1 of 1.1 paid a third of a handshake more (only its first trial opened the connection), and
    # run 1 of 1.2 a third less (its first trial found the connection 1.1 had left open)
    p = calibrated_params("1.1")
    third = 2 * (p.prop_delay_ms + p.trans_ms_per_byte * p.syn_size_bytes) / 3
    fits = {(f["sweep"], f["http_version"]): f["first_point_residual_ms"] for f in report_sweep_fits()
            if not f["cache"]}
    for sweep in ("transmission", "propagation"):
        assert fits[(sweep, "1.1")] == pytest.approx(third, abs=8)
        assert fits[(sweep, "1.2")] == pytest.approx(-third, abs=8)


def test_calibrated_params():
    assert calibrated_params("1.1").warm_connection and not calibrated_params("1.0").warm_connection
    assert not calibrated_params("1.1", warm_connection=False).warm_connection
    with pytest.raises(ValueError, match="mode='3'"):
        calibrated_params("3")


def test_calibrated_model_reproduces_the_reports_1_2_puzzle():
    # the report found 1.2 slower than 1.0 in the transmission sweep except at 2 ms/byte; with the
    # header the data imply, our closed form orders them the same way at every point
    recs = appendix2_sweep("transmission", simulate=False, cache_values=(False,))
    rep10, rep12 = (_series(recs, v, "report (per run)") for v in ("1.0", "1.2"))
    cal10, cal12 = (_series(recs, v, "calibrated closed form") for v in ("1.0", "1.2"))
    np.testing.assert_array_equal(rep12 > rep10, cal12 > cal10)
    assert not (rep12 > rep10)[0] and (rep12 > rep10)[1:].all()
    # without the header (the report's hand-calculation world) 1.2 would never be slower than 1.0
    plain10, plain12 = (_series(recs, v, "closed form") for v in ("1.0", "1.2"))
    assert (plain12 < plain10).all()
