import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore import theory
from simcore.chapters import start_here as ch


def test_panel_redraws_when_arrival_rate_moves():
    panel = ch.make_panel()
    assert panel.last_error is None
    fig = panel.figures[0]
    before = fig.data[2].x
    panel.set(arrival_rate_pps=300.0)
    assert fig.data[2].x != before and panel.last_error is None
    panel.set(service="deterministic", servers=3)
    assert "M/D/3" in fig.data[0].name


def test_delay_curve_agrees_with_closed_form_at_light_load():
    curve = ch.delay_curve(ch.RouterSetting(n_customers=50_000))
    light = curve["intensity"] <= 0.6
    err = np.abs(curve["sim_ms"][light] - curve["theory_ms"][light])
    assert np.all(err <= 3 * curve["sim_half_ms"][light] + 1e-3)


def test_key_numbers_match_pollaczek_khinchine_for_md1():
    rows = {(r["service"], r["intensity"]): r for r in ch.key_numbers(range(1, 3))}
    md1 = rows[("deterministic", 0.5)]
    assert md1["simcore_ms"] == pytest.approx(md1["closed_form_ms"], abs=0.02)
    assert md1["closed_form_ms"] == pytest.approx(1e3 * theory.md1_mean_wait_s(0.5 / 1.2e-3, 1.2e-3), abs=0.01)


def test_cross_checks_report_exact_agreement():
    text = ch.cross_checks()
    assert "same packets dropped: True" in text
    assert "difference simcore vs ciw: 0.0e+00 ms" in text


@settings(max_examples=25, deadline=None)
@given(rate=st.floats(50, 6000), service=st.sampled_from(ch.SERVICES), servers=st.integers(1, 8),
       seed=st.integers(0, 99))
def test_every_slider_position_is_safe(rate, service, servers, seed):
    point = ch.operating_point(ch.RouterSetting(arrival_rate_pps=rate, service=service, servers=servers,
                                                seed=seed, n_customers=1000), ciw_customers=200)
    assert np.isfinite(point["sim_ms"]) and point["sim_ms"] >= 0


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
    setting = ch.RouterSetting(service="deterministic", servers=2, n_customers=2000, link_rate_mbps=37.5)
    fresh, scaled = ch.delay_curve(setting), ch._curve(setting)
    for key in ("sim_ms", "sim_half_ms", "theory_ms"):
        np.testing.assert_allclose(scaled[key], fresh[key], rtol=1e-9)


def test_a_router_loaded_144_times_over_warns_nothing_and_shows_no_ciw_dot():
    # 6000 packets/s of 1500 B on 0.5 Mbit/s: ciw serves fewer packets than its warm-up in the horizon
    import warnings

    setting = ch.RouterSetting(arrival_rate_pps=6000.0, link_rate_mbps=0.5, n_customers=1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        point = ch.operating_point(setting, ciw_customers=500)
    assert np.isnan(point["ciw_ms"]) and point["intensity"] == pytest.approx(144.0)
