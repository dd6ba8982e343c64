import math
import re
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import theory
from simcore.chapters import start_here as ch

NOTEBOOK = Path(__file__).resolve().parents[2] / "labs" / "00_start_here.ipynb"


def test_panel_redraws_when_arrival_rate_moves():
    panel = ch.make_panel()
    assert panel.last_error is None
    fig = panel.figures[0]
    before = fig.data[3].x
    panel.set(arrival_rate_pps=300.0)
    assert fig.data[3].x != before and panel.last_error is None
    panel.set(service="deterministic", servers=3)
    assert "M/D/3" in fig.data[0].name
    assert len(fig.data[2].x) > 0 and fig.data[2].name.startswith("ciw")  # ciw's stored crosses follow


def test_status_line_gives_the_interval_and_its_size():
    # the default setting, 600 packets/s on one 10 Mbit/s link: La/R = 0.72, closed form 0.72/0.28 x 1.2 ms
    point = ch.operating_point(ch.RouterSetting())
    assert point["theory_ms"] == pytest.approx(0.72 / 0.28 * 1.2)
    assert point["no_interval"] == "" and point["runs"] == 10 and point["sim_half_ms"] > 0
    text = ch._status(point)
    assert "95% CI: 10 runs" in text and f"{point['packets']:,} packets" in text


def test_curve_intervals_cover_the_closed_form_on_most_points():
    # 19 points, each a 95 % interval: expect about 1 miss; 4 or more would be 3 sd out
    curve = ch.delay_curve(ch.RouterSetting())
    covers = np.abs(curve["sim_ms"] - curve["theory_ms"]) <= curve["sim_half_ms"]
    assert covers.sum() >= 16 and not np.isnan(curve["sim_half_ms"]).any()


def test_near_saturation_the_dot_has_no_interval_and_says_why():
    point = ch.operating_point(ch.RouterSetting(arrival_rate_pps=825.0))  # La/R = 0.99
    assert math.isnan(point["sim_half_ms"]) and "remembers for about" in point["no_interval"]
    assert "without an interval" in ch._status(point)
    unstable = ch.operating_point(ch.RouterSetting(arrival_rate_pps=900.0))
    assert unstable["theory_ms"] == math.inf and "unstable" in ch._status(unstable)


def test_many_links_at_light_load_draw_no_bar_where_waits_are_too_rare():
    curve = ch.delay_curve(ch.RouterSetting(servers=8))
    light = curve["intensity"] <= 0.2
    assert np.isnan(curve["sim_half_ms"][light]).all()  # waits rarer than 1 in 3,700 (Erlang C)
    assert np.all(curve["sim_ms"][light] < 0.01)  # and the delay is nearly 0 there
    assert not np.isnan(curve["sim_half_ms"][curve["intensity"] >= 0.5]).any()


def test_key_numbers_table_prints_closed_forms_and_intervals():
    text = ch.key_numbers_table()
    rows = {(r["service"], r["intensity"]): r for r in ch.key_numbers()}
    # closed forms by hand: M/M/1 rho/(1-rho) L/R, M/D/1 half of it
    assert rows[("exponential", 0.9)]["closed_form_ms"] == pytest.approx(9 * 1.2)
    assert rows[("deterministic", 0.5)]["closed_form_ms"] == pytest.approx(0.6)
    assert "10.80 ms" in text and len(re.findall(r"covers|misses", text)) == 8


def test_cross_checks_report_exact_agreement():
    text = ch.cross_checks()
    assert "same packets dropped: True" in text
    assert "difference simcore vs ciw: 0.0e+00 ms" in text


@settings(max_examples=25, deadline=None)
@given(rate=st.floats(50, 6000), service=st.sampled_from(ch.SERVICES), servers=st.integers(1, 8),
       seed=st.integers(0, 99), link=st.sampled_from([0.5, 2.5, 10.0, 100.0]))
def test_every_slider_position_is_safe(rate, service, servers, seed, link):
    setting = ch.RouterSetting(arrival_rate_pps=rate, service=service, servers=servers, seed=seed,
                               link_rate_mbps=link)
    point = ch.operating_point(setting)
    assert np.isfinite(point["sim_ms"]) and point["sim_ms"] >= 0 and point["packets"] <= 2_000_000
    assert math.isnan(point["sim_half_ms"]) == bool(point["no_interval"])


def test_setting_validation():
    with pytest.raises(ValueError, match="servers=9"):
        ch.RouterSetting(servers=9)
    with pytest.raises(ValueError, match="arrival_rate_pps=-5"):
        ch.RouterSetting(arrival_rate_pps=-5)


def test_static_figures_have_all_traces():
    figs = ch.figures()
    assert set(figs) == {"delay_vs_intensity_exponential", "delay_vs_intensity_deterministic"}
    for fig in figs.values():
        assert len(fig.data) == 4 and len(fig.data[1].y) == len(ch.RHO_GRID)


def test_the_panels_curve_at_another_link_rate_is_a_fresh_run_of_that_rate():
    # the panel rescales its cached 10 Mbit/s curve by L/R; a new simulation at 37.5 Mbit/s must agree
    setting = ch.RouterSetting(service="deterministic", servers=2, link_rate_mbps=37.5)
    fresh, scaled = ch.delay_curve(setting), ch._curve(setting)
    for key in ("sim_ms", "sim_half_ms", "theory_ms"):
        np.testing.assert_allclose(scaled[key], fresh[key], rtol=1e-9)


def test_predictions_answer_mm1_closed_form_and_set_the_panel():
    preds = ch.predictions()
    panel = ch.make_panel(gate=preds)
    assert panel.veiled
    preds[0].commit(1.0)
    preds[1].commit(5.0)
    assert not panel.veiled
    assert preds[0].outcome.answer == pytest.approx(1.0) and preds[0].outcome.correct  # 0.5 / (1 - 0.5)
    assert preds[1].outcome.answer == pytest.approx(9.0) and not preds[1].outcome.correct  # 0.9 / 0.1
    assert panel.values()["arrival_rate_pps"] == pytest.approx(0.9 / 1.2e-3, abs=5)


def test_pooling_prediction_answer_from_erlang_c_by_hand():
    pred = ch.pooling_prediction()
    wq_one = 0.72 / 0.28 * 1.2  # ms, M/M/1
    a = 600 * 4.8e-3
    top = a**4 / math.factorial(4) * 4 / (4 - a)
    wq_four = top / (sum(a**k / math.factorial(k) for k in range(4)) + top) / (4 * 0.28) * 4.8  # ms, M/M/4
    assert wq_four < wq_one and wq_four + 4.8 > wq_one + 1.2  # less queueing, more total time
    out = pred.commit("four slow links queue less, but one fast link is faster in total")
    assert out.correct and f"{wq_one + 1.2:.1f} ms" in pred.explanation_text()
    assert f"{wq_four + 4.8:.1f} ms" in pred.explanation_text()


def test_the_text_quotes_the_packets_the_panel_runs():
    nb = nbformat.read(NOTEBOOK, as_version=4)
    text = " ".join(c.source for c in nb.cells if c.cell_type == "markdown")
    for packets in ch.PACKETS_SHOWN.values():
        assert f"{packets:,}" in text, packets
    assert "simulates 20,000 packets" not in text  # what the text said while the panel ran 5,000


def test_closed_forms_by_hand():
    # M/M/1 at 0.5 waits one transmission time; M/D/1 half of that (Pollaczek-Khinchine)
    s = ch.RouterSetting(arrival_rate_pps=0.5 / 1.2e-3)
    assert ch._closed_form_s(s, s.arrival_rate_pps) == pytest.approx(1.2e-3)
    assert theory.md1_mean_wait_s(s.arrival_rate_pps, 1.2e-3) == pytest.approx(0.6e-3)
