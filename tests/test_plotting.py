import ipywidgets as widgets
import pytest

from simcore.plotting import COLORS, LivePanel, color_for, float_slider, new_figure


def test_colors_are_consistent_and_case_insensitive():
    assert color_for("Reserve") == color_for("reserve") == COLORS["Reserve"]
    assert color_for("something new") == color_for("something new")


def _panel():
    fig = new_figure(widget=True)
    fig.add_scatter(x=[0], y=[0])
    slider = float_slider("x", 1.0, 0.0, 10.0, 0.5)

    def update(values):
        if values["x"] > 8:
            raise ValueError(f"x={values['x']} is out of range: must be <= 8")
        fig.data[0].y = [values["x"] ** 2]
        return f"x squared is {values['x'] ** 2:g}"

    return LivePanel({"x": slider}, update, [fig]), fig


def test_live_panel_redraws_on_slider_change():
    panel, fig = _panel()
    assert fig.data[0].y == (1.0,)
    panel.set(x=3.0)
    assert fig.data[0].y == (9.0,) and "x squared is 9" in panel.status.value
    assert isinstance(panel.widget, widgets.VBox) and panel.n_runs == 2


def test_live_panel_shows_errors_instead_of_raising_and_recovers():
    panel, fig = _panel()
    panel.set(x=9.0)  # must not raise
    assert isinstance(panel.last_error, ValueError)
    assert "Cannot run with these settings" in panel.status.value and "x=9.0" in panel.status.value
    assert fig.data[0].y == (1.0,)  # the figure keeps the last good drawing
    panel.set(x=2.0)
    assert panel.last_error is None and fig.data[0].y == (4.0,)


def test_live_panel_rejects_unknown_control():
    panel, _ = _panel()
    with pytest.raises(ValueError, match="'y' is not a control"):
        panel.set(y=1)


def test_slider_from_range_picks_int_or_float_slider():
    from simcore.plotting import slider_from_range

    ranges = {"n": (1, 10, 1), "rate": (0.5, 20.0, 0.5)}
    n = slider_from_range(ranges, "n", "n", 3)
    rate = slider_from_range(ranges, "rate", "rate", 2.0, continuous_update=True)
    assert isinstance(n, widgets.IntSlider) and (n.min, n.max, n.step, n.value) == (1, 10, 1, 3)
    assert isinstance(rate, widgets.FloatSlider) and rate.continuous_update and rate.max == 20.0


def test_live_panel_is_a_widget_in_a_live_kernel(monkeypatch):
    monkeypatch.delenv("SIMCORE_STATIC", raising=False)
    panel, _ = _panel()
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "text/html" not in bundle


def test_live_panel_is_a_static_snapshot_in_a_book_build(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    panel, _ = _panel()
    panel.set(x=3.0)
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    page = bundle["text/html"]
    assert page.count("plotly-graph-div") == 1  # the one figure, drawn by plotly.js
    assert "x <b>3</b>" in page and "x squared is 9" in page  # the settings it shows, and its status line
    assert "re-ran in" not in page  # no timing in a static page
    assert "<script src" not in page and "cdn" not in page.lower()  # plotly.js comes from the page, once
    assert '"y":[9.0]' in page  # drawn at the settings shown


def test_static_snapshot_shows_the_error_when_the_last_move_failed(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    panel, _ = _panel()
    panel.set(x=9.0)
    assert "Cannot run with these settings" in panel.static_html()


def test_static_renderer_draws_figures_without_embedding_plotly_js():
    import plotly.io as pio

    from simcore import static

    before = pio.renderers.default
    try:
        static.use_static_renderer()
        fig = new_figure(title="t")
        fig.add_scatter(x=[0, 1], y=[2, 3])
        bundle = pio.renderers[static.RENDERER].to_mimebundle(fig.to_dict())
        assert pio.renderers.default == static.RENDERER and list(bundle) == ["text/html"]
        assert "Plotly.newPlot" in bundle["text/html"] and "<script src" not in bundle["text/html"]
    finally:
        pio.renderers.default = before


def test_tick_path_draws_one_short_line_per_point():
    from simcore.plotting import tick_path

    assert tick_path([1.0, 2.5], [3, 4], half_width=0.25) == "M0.75,3.0H1.25M2.25,4.0H2.75"
    assert tick_path([10.0], [7], half_height=0.4, decimals=2) == "M10.0,6.6V7.4"
    assert tick_path([], []) == ""
