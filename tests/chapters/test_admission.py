"""Chapter 1 wiring: panel, sliders, reproduction table, bounds, chronology chart, cross-check, figures."""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.admission import THESIS_SCENARIOS, AdmissionParams, run_grid, simulate_admission, thesis_grid
from simcore.chapters import admission as ch
from simcore.chapters import admission_chronology as chron
from simcore.chapters import admission_panel as panel_mod
from simcore.chapters.admission_panel import PanelSetting

SEEDS = (0, 1)


@pytest.fixture(scope="module")
def sweep():
    with ThreadPoolExecutor(max_workers=1) as pool:
        return ch.run_thesis_sweep(SEEDS, executor=pool, progress=False)


@pytest.fixture(scope="module")
def table(sweep):
    return ch.reproduction_table(sweep)


def _ys(fig):
    return [None if t.y is None else tuple(t.y) for t in fig.data]


def test_panel_builds_and_the_first_slider_changes_the_plots():
    panel = ch.make_panel(PanelSetting(clients_pct=20))
    assert panel.last_error is None and panel.n_runs == 1
    assert list(panel.controls)[0] == "bandwidth_fraction"
    bars, chart = panel.figures
    before_bars, before_chart = _ys(bars), _ys(chart)
    panel.set(bandwidth_fraction=1.0)
    assert panel.last_error is None
    assert _ys(bars) != before_bars and _ys(chart) != before_chart
    assert bars.data[0].name == panel_mod.BAR_NAMES[0]
    # the selected policy's chronology is drawn, and its names are set on redraw
    panel.set(policy="Ticket")
    assert [t.name for t in chart.data] == list(chron.TRACE_NAMES)
    assert "Ticket" in panel.status.value


def _same_result(a, b) -> bool:
    return all(np.array_equal(getattr(a, k), getattr(b, k), equal_nan=True) if isinstance(getattr(a, k), np.ndarray)
               else getattr(a, k) == getattr(b, k) for k in vars(a) if k != "params")


@pytest.mark.parametrize("policy", ["HTTP", "FTP", "Reserve"])
def test_knobs_the_panel_leaves_at_defaults_change_nothing_for_that_policy(policy):
    # PanelSetting.params keeps the Ticket knobs (and, for HTTP / FTP, 'retry after later') at their
    # defaults for policies that never read them, so the panel can reuse runs: check by running with them
    # far from the defaults, at a heavy load where clients are refused and retry
    base = dict(experiment=2, bandwidth_fraction=0.5, policy=policy, extra_sockets=6, n_clients=200,
                record_chronology=True)
    ref = simulate_admission(AdmissionParams(**base), 3)
    assert ref.attempts.sum() > 2 * ref.arrival_s.size
    odd = dict(ready_list_size=2, ready_threshold=1, ticket_ttl_s=7.0)
    if policy != "Reserve":
        odd["retry_later_s"] = 3.0
    assert _same_result(ref, simulate_admission(AdmissionParams(**base, **odd), 3))
    s = PanelSetting(policy=policy, ready_list_size=3, ticket_ttl_s=10.0, retry_later_s=5.0)
    p = s.params(policy, 6)
    assert (p.ready_list_size, p.ticket_ttl_s) == (10, 120.0)
    assert p.retry_later_s == (5.0 if policy == "Reserve" else 30.0)
    assert s.params("Ticket", 6).ticket_ttl_s == 10.0 and s.params("Ticket", 6).ready_list_size == 3


def test_panel_reuses_runs_and_a_reused_run_equals_a_fresh_one():
    s = PanelSetting(clients_pct=30, seed=4)
    first = panel_mod.run_setting(s)
    again = panel_mod.run_setting(PanelSetting(clients_pct=30, seed=4, ticket_ttl_s=60.0))
    assert all(again["runs"][p] is first["runs"][p] for p in ("HTTP", "FTP", "Reserve"))
    assert again["control"] is first["control"] and again["runs"]["Ticket"] is not first["runs"]["Ticket"]
    fresh = simulate_admission(s.params("HTTP", 6, record=True), 4)
    assert _same_result(fresh, again["runs"]["HTTP"])


def test_panel_shows_the_thesis_number_only_on_a_thesis_scenario():
    panel = ch.make_panel(PanelSetting(clients_pct=100, bandwidth_fraction=0.5, extra_sockets=3))
    bars = panel.figures[0]
    inside, above = bars.data[3], bars.data[4]
    # figure 19: HTTP-30 1,265 s and Reserve +10% 506 s, far above our bars (< 400 s): marked at the top edge
    # with the value written, the axis kept for our bars; Ticket +10% (375 s) fits and is a diamond
    assert above.customdata[0] == 1265 and above.customdata[3] == 506 and above.text[0] == "1,265 s"
    assert inside.y[4] == 375 and inside.y[0] is None and above.customdata[4] is None
    assert "fig. 19" in inside.name and above.showlegend
    top = bars.layout.yaxis.range[1]
    ours = [c + w for c, w in zip(bars.data[0].y, bars.data[1].y, strict=True)]
    assert max(ours) < top < 506 and above.y[0] == pytest.approx(0.97 * top)
    panel.set(retry_busy_s=20.0)
    assert all(v is None for v in bars.data[3].y) and all(v is None for v in bars.data[4].customdata)
    assert not bars.data[4].showlegend


def test_bar_axis_keeps_thesis_numbers_near_ours_and_marks_those_far_above():
    # ours up to 100 s: thesis 140 s (within 2 x) joins the axis, top 1.15 x 140 = 161 s
    top, inside, above = panel_mod.bar_axis([80.0, 100.0, 40.0], [140.0, None, 90.0])
    assert top == pytest.approx(161.0) and inside == [140.0, None, 90.0] and above == [None, None, None]
    # thesis 400 s (> 2 x 100): the axis stays at 115 s; 400 is marked above, 90 s is drawn
    top, inside, above = panel_mod.bar_axis([80.0, 100.0, 40.0], [400.0, None, 90.0])
    assert top == pytest.approx(115.0) and inside == [None, None, 90.0] and above == [400.0, None, None]


_PANEL = {}


def _panel():
    if "p" not in _PANEL:
        _PANEL["p"] = ch.make_panel(PanelSetting(clients_pct=10))
    return _PANEL["p"]


def _positions(control):
    """A strategy over every position of a slider or dropdown, read from the widget itself."""
    if hasattr(control, "options"):
        return st.sampled_from([o[1] if isinstance(o, tuple) else o for o in control.options])
    n = round((control.max - control.min) / control.step)
    return st.integers(0, n).map(lambda k: round(control.min + k * control.step, 9))


@settings(max_examples=30, deadline=None)
@given(data=st.data())
def test_every_slider_position_is_safe(data):
    panel = _panel()
    values = {name: data.draw(_positions(c), label=name) for name, c in panel.controls.items()}
    values["clients_pct"] = data.draw(st.sampled_from([10, 20]), label="clients_pct (kept small)")
    setting = PanelSetting(**values)  # the widget ranges are valid settings
    out = panel_mod.run_setting(setting)
    for res in [out["control"], *out["runs"].values()]:
        assert res.completed.all()
        assert res.mean_session_s >= res.lower_bound_mean_session_s * (1 - 1e-9)
    panel.set(**values)
    assert panel.last_error is None, panel.last_error


def test_slider_extremes_are_valid_settings():
    panel = _panel()
    for name, c in panel.controls.items():
        if hasattr(c, "min"):
            PanelSetting(**{name: c.min})
            PanelSetting(**{name: c.max})
    with pytest.raises(ValueError, match="extra_sockets=13"):
        PanelSetting(extra_sockets=13)


def test_reproduction_table_has_thesis_and_ours_for_every_scenario(table):
    assert len(table) == 2 * 3 * len(THESIS_SCENARIOS)
    keys = {(r["experiment"], r["load"], r["policy"], r["extra_sockets"]) for r in table}
    assert keys == {(e, load, p, x) for e in (1, 2) for load in ch.LOAD_LABELS for p, x in THESIS_SCENARIOS}
    for r in table:
        assert r["n_seeds"] == len(SEEDS)
        assert r["thesis_mean_session_s"] > 0 and np.isfinite(r["mean_session_s"])
        assert r["mean_session_s_min"] <= r["mean_session_s"] <= r["mean_session_s_max"]
        # no policy beats the hard bound, in any seed
        assert r["mean_session_s_min"] >= r["lower_bound_mean_session_s_min"]
        control = r["policy"] == "HTTP" and r["extra_sockets"] == 0
        assert (r["thesis_time_improvement_pct"] is None) == control
    text = ch.format_reproduction(table, 2)
    assert "figure 19" in text and text.count("Ticket +20%") == 3


def test_sweep_rows_equal_the_admission_packages_grid_runner(sweep):
    ref = run_grid(thesis_grid(experiments=(2,)), seeds=[1])
    ours = {
        (r["load"], r["policy"], r["extra_sockets"]): r
        for r in sweep.to_records()
        if r["experiment"] == 2 and r["seed"] == 1
    }
    for r in ref:
        o = ours[(r["load"], r["policy"], r["extra_sockets"])]
        assert o["mean_session_s"] == r["mean_session_s"]
        assert o["time_improvement_pct"] == r["time_improvement_pct"]
        assert o["net_faster_clients"] == r["net_faster_clients"]


def test_bounds_and_relative_times(sweep, table):
    bounds = ch.bound_table(table)
    assert len(bounds) == 6
    for b in bounds:
        assert b["bound_min_s"] <= b["bound_s"] <= b["bound_max_s"] <= b["ours_min_s"]
    rel = ch.relative_times(sweep)
    assert len(rel) == 33
    control = next(r for r in rel if r["load"] == "sufficient" and r["scenario"] == "HTTP +0%")
    assert control["ours_pct"] == pytest.approx(100.0) and control["thesis_pct"] == 100.0
    assert all(r["bound_pct"] <= r["ours_pct"] for r in rel)
    assert {r["ideal_pct"] for r in rel} == {100.0, 133.0, 200.0}
    f = ch.findings(table, rel)
    assert f["exp2_heavy_control_thesis_s"] == 1265
    assert "thesis's 'ideal': 200 %" in ch.format_findings(f)


def test_thesis_share_is_net_over_400_in_both_experiments():
    text = ch.thesis_share_check()
    assert "experiment 1 (200 clients): printed % = net/400 in 30 of 30 cells" in text


def test_chronology_has_one_bar_per_client_and_adds_up():
    p = AdmissionParams(
        experiment=1, bandwidth_fraction=0.5, policy="FTP", n_clients=60, record_chronology=True
    )
    r = simulate_admission(p, 4)
    fig = chron.chronology_figure(r)
    ys = {y for t in fig.data[7:9] for y in t.y}  # the segments' hover points
    assert ys == set(range(60))
    paths = [s.path for s in fig.layout.shapes[:2]]  # the segments: one SVG path per kind, M start H end
    seg_all = chron.chronology_segments(r)
    assert [p.count("M") for p in paths] == [len(seg_all["waiting"]), len(seg_all["connected"])]
    seg = chron.chronology_segments(r)
    for kind, expected in (("waiting", r.waiting_s), ("connected", r.connected_s)):
        total = np.zeros(60)
        np.add.at(total, seg[kind][:, 0].astype(int), seg[kind][:, 2] - seg[kind][:, 1])
        assert np.allclose(total, expected, atol=1e-9)
    assert len(fig.data[5].x) + len(fig.data[6].x) == r.attempts.sum()
    stories = chron.client_stories(r)
    assert len(stories) == 60 and f"session {r.session_s[7]:.1f} s" in stories[7]
    with pytest.raises(ValueError, match="record_chronology"):
        chron.chronology_segments(simulate_admission(AdmissionParams(n_clients=3), 0))


def test_erlang_cross_check_agrees_with_erlang_b_and_ciw():
    d = ch.erlang_cross_check(n_clients=4000)
    assert d["same_fate_fraction"] == 1.0 and d["ciw"] == pytest.approx(d["simcore"], abs=1e-12)
    assert abs(d["simcore"] - d["erlang_b"]) <= 3 * d["simcore_ci95"] / 1.96 + 0.005
    assert "Erlang B" in ch.format_erlang_check(d)


def test_figures_returns_the_expected_figures():
    figs = ch.figures()
    assert set(figs) == {
        "exp1_time_improvement",
        "exp1_net_faster",
        "exp2_time_improvement",
        "exp2_net_faster",
        "chronology_exp2_heavy_ticket",
        "bound_vs_ideal",
    }
    assert len(figs["exp2_time_improvement"].data) == 6  # thesis and ours for each of 3 loads
    assert len(figs["exp2_time_improvement"].data[0].x) == 10  # every scenario but the control
    ys = {y for t in figs["chronology_exp2_heavy_ticket"].data[7:9] for y in t.y}  # segments' hover points
    assert len(ys) == 400


def test_warm_runs():
    ch.warm()
