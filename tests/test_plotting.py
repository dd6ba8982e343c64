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
