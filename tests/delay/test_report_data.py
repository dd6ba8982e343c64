"""The report's numbers in data/ and what they imply about its own simulator."""

import numpy as np
import pytest

from simcore.delay.closed_form import packet_counts
from simcore.delay.params import DelayParams
from simcore.delay.report import (
    inferred_sizes,
    load_correctness,
    load_sweeps,
    per_run_times,
    report_general_formula_ms,
    report_sweep_fits,
)


def test_csvs_complete_and_sourced():
    cases = load_correctness()
    names = ["persistent", "non-persistent", "cached non-persistent", "multiplexing"]
    assert [c["case"] for c in cases] == names
    sweeps = load_sweeps()
    assert len(sweeps) == 100  # 3 sweeps x 3 versions x 10 points + 10 cached points
    assert all(r["source"] for r in cases + sweeps)
    # the three sweeps start from the same configuration: their first points agree (within the 3-trial noise)
    first = {}
    for r in sweeps:
        if r["point"] == 0 and not r["cache"]:
            first.setdefault(r["http_version"], []).append(r["response_time_ms"])
    for v in ("1.0", "1.1"):
        assert max(first[v]) - min(first[v]) < 25


def test_hand_calculations_follow_from_the_stated_counts():
    # each printed hand calculation = control packets x 266 + data packets x 738, except one slip
    for c in load_correctness():
        recomputed = c["ctrl_packets_in_formula"] * 266 + c["data_packets"] * 738
        if c["case"] == "persistent":
            assert c["hand_calc_ms"] - recomputed == 10  # 8 x 266 + 6 x 738 = 6556, printed 6566
        else:
            assert c["hand_calc_ms"] == recomputed
    cached = [c for c in load_correctness() if c["cache"]][0]
    assert cached["ctrl_packets_in_text"] == 18 and cached["ctrl_packets_in_formula"] == 24


@pytest.mark.parametrize(("P", "C"), [(1, 0), (1, 5), (2, 0), (2, 2), (3, 4), (7, 1)])
def test_report_general_formulas_vs_ours(P, C):
    dc, dd = 266.0, 738.0
    for mode in ("1.0", "1.1"):
        c = packet_counts(DelayParams(mode=mode, n_parents=P, n_children=C))
        ours = c["n_ctrl_packets"] * dc + c["n_data_packets"] * dd
        assert report_general_formula_ms(mode, P, C, dc, dd) == ours
    # multiplexing: the report's formula counts 5P + PC control packets, its hand count 2 + 3P + PC
    c = packet_counts(DelayParams(mode="1.2", n_parents=P, n_children=C))
    ours = c["n_ctrl_packets"] * dc + c["n_data_packets"] * dd
    gap = report_general_formula_ms("1.2", P, C, dc, dd) - ours
    if C > 0:
        assert gap == 2 * (P - 1) * dc
    else:  # no child connections at all when C = 0
        assert gap == 2 * (2 * P - 1) * dc


def test_propagation_and_object_sweeps_are_running_totals():
    for sweep in ("propagation", "objects"):
        for v in ("1.0", "1.1", "1.2"):
            x, printed, per_run = per_run_times(sweep, v)
            np.testing.assert_array_equal(np.cumsum(per_run), printed)
            # runs 2..10 lie on a line; the printed totals bend upwards (positive second differences)
            lin = np.polyfit(x[1:], per_run[1:], 1)
            assert np.max(np.abs(per_run[1:] - np.polyval(lin, x[1:]))) < 0.01 * per_run.max()
            assert np.all(np.diff(printed, 2) > 0.5 * np.abs(lin[0]) * (x[1] - x[0]))
    # whereas the transmission sweep is already per run: its second differences are ~0
    _, printed, per_run = per_run_times("transmission", "1.0")
    np.testing.assert_array_equal(printed, per_run)
    assert np.max(np.abs(np.diff(printed[1:], 2))) < 10


def test_packets_per_run_from_propagation_sweep_match_our_counts():
    fits = {(f["sweep"], f["http_version"], f["cache"]): f for f in report_sweep_fits()}
    for v, our_mode in (("1.0", "1.0"), ("1.2", "1.2"), ("1.1", "1.1")):
        ours = packet_counts(DelayParams(mode=our_mode, n_parents=2, n_children=0))["n_packets"]
        slope = fits[("propagation", v, False)]["slope"]  # ms of run time per ms of propagation = packets
        if v == "1.1":
            # the persistent connection stayed open between runs: the handshake is missing
            assert slope == pytest.approx(ours - 2, abs=0.05)
        else:
            assert slope == pytest.approx(ours, abs=0.05)
    # the transmission sweep's intercept (0 ms/byte) is packets x 100 ms of propagation
    for v, packets in (("1.0", 8), ("1.1", 4), ("1.2", 6)):
        assert fits[("transmission", v, False)]["intercept_ms"] == pytest.approx(100 * packets, rel=0.03)
    assert fits[("transmission", "1.0", True)]["intercept_ms"] == pytest.approx(800, rel=0.03)


def test_objects_sweep_is_consistent_with_transmission_sweep():
    # per object, 1.0 pays 4 packets of 100 ms plus 2 ms x the bytes of SYN+ACK+GET+200
    s = inferred_sizes()
    fits = {(f["sweep"], f["http_version"], f["cache"]): f for f in report_sweep_fits()}
    per_obj_10 = 4 * 100 + 2 * (s["syn_plus_ack_bytes"] + s["get_plus_data_bytes"])
    assert fits[("objects", "1.0", False)]["slope"] == pytest.approx(per_obj_10, rel=0.06)
    per_obj_11 = 2 * 100 + 2 * s["get_plus_data_bytes"]
    assert fits[("objects", "1.1", False)]["slope"] == pytest.approx(per_obj_11, rel=0.06)


def test_inferred_sizes_are_physical():
    s = inferred_sizes()
    assert 0 < s["syn_bytes"] < 24  # SYN/ACK are far smaller than the report's smallest HTTP message
    assert 200 < s["get_plus_data_bytes"] < 400  # "2 objects of 200 bytes each" plus headers
    assert 40 < s["cond_get_plus_304_bytes"] < 2 * 43 + 60
    assert 0 < s["mux_header_bytes"] < 40  # "Close-after-this: true" is 22 characters + CRLF
    assert 0 <= s["overhead_ms_per_packet"] < 5


def test_unknown_series_rejected():
    with pytest.raises(ValueError, match="no propagation series"):
        per_run_times("propagation", "1.0", cache=True)
    with pytest.raises(ValueError, match="sweep='latency'"):
        per_run_times("latency", "1.0")
