import functools
import math

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.chapters import delay as ch
from simcore.chapters.delay_figures import LABEL_TRACE, object_labels
from simcore.delay import DelayParams, closed_form_ms, simulate_ideal
from simcore.delay.params import MODES, PACKET_KINDS
from simcore.delay.report import load_correctness, load_sweeps, report_general_formula_ms
from simcore.plotting import color_for


@functools.cache
def _panel():
    return ch.make_panel()


def _bars(panel):
    return panel.figures[0]


def _diagram(panel):
    return panel.figures[1]


def _report_formula_ms(mode, prop, tb, P, C, data=269.0, ctrl=33.0):
    # the report's own section-III.2 formulas (correct for 1.0 and 1.1), priced with its d = d_prop + t_B s
    return report_general_formula_ms(mode, P, C, prop + tb * ctrl, prop + tb * data)


def test_first_slider_is_propagation_delay_and_moving_it_redraws_both_plots():
    panel = ch.make_panel()
    assert list(panel.controls)[0] == "prop_delay_ms" and panel.last_error is None
    bars, diagram = _bars(panel), _diagram(panel)
    before_bars, before_axis = tuple(bars.data[0].y), tuple(diagram.data[0].y)
    panel.set(prop_delay_ms=100.0)
    assert panel.last_error is None
    assert tuple(bars.data[0].y) != before_bars and tuple(diagram.data[0].y) != before_axis
    # bars are in MODES order: HTTP/1.0 and 1.1 must equal the report's own formulas at 100 ms
    y = dict(zip(MODES, bars.data[0].y, strict=True))
    for mode in ("1.0", "1.1"):
        assert y[mode] == pytest.approx(_report_formula_ms(mode, 100.0, 2.0, 2, 2), rel=1e-12)
    # the diagram's client axis ends at the selected mode's (1.1) response time
    assert diagram.data[0].y[1] == pytest.approx(y["1.1"], rel=1e-12)
    assert "N = 6 objects" in panel.status.value


def test_mode_and_cache_controls_change_diagram_and_highlight():
    panel = ch.make_panel()
    diagram = _diagram(panel)
    panel.set(mode="1.0")
    assert diagram.layout.title.text.startswith("HTTP/1.0")
    syn = diagram.data[2 + 2 * PACKET_KINDS.index("SYN")]
    assert int(np.isnan(np.asarray(syn.x, float)).sum()) == 6  # one SYN per object
    opacity = _bars(panel).data[0].marker.opacity
    assert opacity[MODES.index("1.0")] == 1.0 and opacity[MODES.index("1.1")] < 1.0
    panel.set(cache=True, hit_ratio=1.0)
    got = diagram.data[2 + 2 * PACKET_KINDS.index("304")]
    assert int(np.isnan(np.asarray(got.x, float)).sum()) == 6
    assert "304" in " ".join(diagram.data[LABEL_TRACE].text)
    assert _bars(panel).data[0].y[0] == pytest.approx(24 * (200 + 2 * 33), rel=1e-12)  # the report's III.1.c


def _slider_values(panel):
    """A hypothesis strategy over every position of every control of the panel, as the widgets allow."""
    parts = {}
    for name, w in panel.controls.items():
        if hasattr(w, "step") and hasattr(w, "max"):
            n = int(round((w.max - w.min) / w.step))
            if isinstance(w.value, int) and not isinstance(w.value, bool):
                parts[name] = st.integers(0, n).map(lambda k, w=w: w.min + k * w.step)
            else:
                parts[name] = st.integers(0, n).map(lambda k, w=w: min(w.max, w.min + k * w.step))
        elif hasattr(w, "options"):
            parts[name] = st.sampled_from([o[1] if isinstance(o, tuple) else o for o in w.options])
        else:
            parts[name] = st.booleans()
    return st.fixed_dictionaries(parts)


def test_panel_starts_exactly_at_the_reports_setting():
    panel = ch.make_panel()
    assert ch.panel_params(panel.values()) == DelayParams()  # no slider snapped a default value
    assert _bars(panel).data[0].y[MODES.index("1.1")] == 6556.0  # 8 x 266 + 6 x 738, section III.1.a redone


def test_panel_ranges_match_declared_slider_ranges():
    panel = _panel()
    for name, (lo, hi, step) in ch.SLIDER_RANGES.items():
        w = panel.controls[name]
        assert (w.min, w.max, w.step) == (lo, hi, step)


@settings(max_examples=40, deadline=None)
@given(values=_slider_values(_panel()))
def test_every_slider_position_is_safe(values):
    panel = _panel()
    panel.set(**values)
    assert panel.last_error is None, panel.last_error
    p = ch.panel_params(panel.values())
    y = np.asarray(_bars(panel).data[0].y, float)
    sim = np.asarray(_bars(panel).data[1].y, float)
    assert np.all(np.isfinite(y)) and np.all(y >= 0)
    np.testing.assert_allclose(sim, y, rtol=1e-12, atol=1e-9)
    # the diagram shows the selected mode: its time axis ends at that mode's response time
    assert _diagram(panel).data[0].y[1] == pytest.approx(closed_form_ms(p), rel=1e-12, abs=1e-9)


@pytest.mark.parametrize(("mode", "pipelining", "expected"), [
    ("1.0", False, 2 * 8),   # Kurose & Ross: non-persistent HTTP, 2 RTT per object
    ("1.1", False, 1 + 8),   # persistent without pipelining: 1 RTT to connect, 1 per object
    ("1.2", False, 3 + 8),   # 1 + P handshakes, 1 per object
    ("1.1", True, 1 + 3),    # one handshake, then 3 pipelined lists (parents, children of A, of B)
])
def test_round_trips_follow_the_textbook_count(mode, pipelining, expected):
    p = DelayParams(n_parents=2, n_children=3, mode=mode, pipelining=pipelining)
    assert ch.round_trips(p) == expected
    if not pipelining:
        assert ch.round_trips(p) == simulate_ideal(p).trace.n_packets / 2


def test_correctness_table_has_four_rows_with_closed_form_equal_to_simulation():
    rows = ch.correctness_rows()
    csv_rows = {r["case"]: r for r in load_correctness()}
    assert len(rows) == 4 and {r["case"] for r in rows} == set(csv_rows)
    for r in rows:
        assert r["closed_form_ms"] == r["simulated_ms"]
        c = csv_rows[r["case"]]
        # the report's own packet counts priced at 266 / 738 ms (III.1) equal our closed form
        assert r["closed_form_ms"] == pytest.approx(
            c["ctrl_packets_in_formula"] * (200 + 2 * 33) + c["data_packets"] * (200 + 2 * 269), rel=1e-12)
        assert r["report_measured_ms"] == c["measured_ms"] and r["explanation"]
    text = ch.correctness_text()
    assert "closed form == simulation in every case: True" in text
    assert max(map(len, text.splitlines())) <= 110


def test_formulas_cover_every_mode_with_the_reports_numbers():
    md = ch.formulas_markdown()
    for mode in MODES:
        assert f"**HTTP/{mode}" in md
    for case in load_correctness():
        recomputed = case["ctrl_packets_in_formula"] * 266 + case["data_packets"] * 738
        assert f"T = {recomputed:g}" in md.replace("\\ ", " ")


def test_object_labels_name_each_arrival_and_connection():
    res = simulate_ideal(DelayParams(mode="1.0"))
    y, _, text = object_labels(res)
    joined = " ".join(text)
    for name in ("A ", "A1 ", "A2 ", "B ", "B1 ", "B2 "):
        assert f"{name}arrives" in joined
    assert joined.count("opens: SYN") == 6 and np.all(np.diff(y) > 0)
    assert y[-1] == res.response_time_ms


def test_figures_are_the_three_sweeps_the_report_case_and_part_2():
    figs = ch.figures()
    assert set(figs) == {"sweep_transmission", "sweep_propagation", "sweep_objects",
                         "space_time_report_case_http10", "tcp_modes_vs_formulas", "tcp_rtt_sweep",
                         "tcp_space_time_pipelined"}
    sweeps = load_sweeps()
    for name in ("transmission", "propagation", "objects"):
        fig = figs[f"sweep_{name}"]
        assert isinstance(fig, go.Figure)
        report = [t for t in fig.data if t.mode == "markers"]
        assert sum(len(t.x) for t in report) == sum(r["sweep"] == name for r in sweeps)
        assert all(t.marker.line.color == color_for("paper") for t in report)
        dashed = [t for t in fig.data if t.mode == "lines" and t.line.dash == "dash"]
        assert len(dashed) == 3  # ours with the cache on, every mode
    st_fig = figs["space_time_report_case_http10"]
    n_packets = sum(int(np.isnan(np.asarray(st_fig.data[2 + 2 * k].x, float)).sum()) for k in range(5))
    assert n_packets == 24 and math.isclose(st_fig.data[0].y[1], 9216.0)


def test_warm_compiles_the_kernel_and_figures_are_registered():
    from simcore.delay._kernel import simulate_page
    from simcore.figures import _BUILDERS

    ch.warm()
    assert simulate_page.signatures  # compiled (or loaded from numba's cache)
    assert _BUILDERS["delay"] is ch.figures
