"""Chapter 1's plots: the things one plot shows together differ in hue family and stay apart for readers with
red-green colour blindness (simulated with Machado, Oliveira, Fernandes 2009, severity 1); log axes label
decades only; each plot's axes show what its caption asks the student to see."""

import itertools
import math

import numpy as np
import pytest

from simcore.chapters import admission as ch
from simcore.chapters.admission_panel import PanelSetting
from simcore.colour_vision import VISIONS
from simcore.colour_vision import cielab as _lab
from simcore.colour_vision import linear_rgb as _linear


def _colour(trace) -> str:
    """The colour a trace is drawn in: its line for lines, its marker otherwise."""
    mode = getattr(trace, "mode", None)
    if mode and "lines" in mode and trace.line.color:
        return trace.line.color
    return trace.marker.color


def assert_told_apart(colours: dict[str, str]) -> None:
    """Every pair differs by a CIE76 distance of at least 20 under each vision; chromatic pairs differ in hue
    by at least 35 degrees (different families); achromatic ones (black, grey) by at least 30 in lightness."""
    for (a, ca), (b, cb) in itertools.combinations(colours.items(), 2):
        for vision, m in VISIONS.items():
            d = np.linalg.norm(_lab(m @ _linear(ca)) - _lab(m @ _linear(cb)))
            assert d >= 20, (a, b, vision, round(d, 1))
        la, lb = _lab(_linear(ca)), _lab(_linear(cb))
        chroma = [math.hypot(*la[1:]) > 15, math.hypot(*lb[1:]) > 15]
        if all(chroma):
            ha, hb = (math.degrees(math.atan2(v[2], v[1])) for v in (la, lb))
            assert abs((ha - hb + 180) % 360 - 180) >= 35, (a, b, "same hue family")
        elif not any(chroma):
            assert abs(la[0] - lb[0]) >= 30, (a, b, "two greys too alike")


@pytest.fixture(scope="module")
def panel():
    return ch.make_panel(PanelSetting(clients_pct=50))


def test_the_panels_bars_bound_and_thesis_marks_are_told_apart(panel):
    bars = panel.figures[0]
    colours = {t.name.split(" (")[0]: _colour(t) for t in bars.data}
    # the thesis's number inside the axis and above it are the same thing, drawn alike
    assert colours.pop("thesis's number, above the axis") == colours["thesis's number"]
    assert len(colours) == 4
    assert_told_apart(colours)


def test_the_chronologys_lines_bars_and_attempts_are_told_apart(panel):
    chron = panel.figures[1]
    colours = {t.name: _colour(t) for t in chron.data if t.showlegend is not False}
    assert set(colours) == {"demand on the server", "demand satisfied (sent)", "server capacity", "waiting",
                            "connected", "connection accepted", "connection refused"}
    # the segments are drawn as shapes in the legend entries' colours
    assert [s.line.color for s in chron.layout.shapes] == [colours["waiting"], colours["connected"]]
    assert_told_apart(colours)


def test_the_static_figures_colours_are_told_apart():
    from simcore.plotting import color_for

    assert_told_apart({"thesis": color_for("paper"), "simcore": color_for("simcore")})  # figures 14-15, 25-26
    assert_told_apart({"thesis": color_for("paper"), "simcore": color_for("simcore"),
                       "ideal": color_for("closed form"), "bound": color_for("bound")})  # figure 20


def test_the_demand_axis_is_logarithmic_with_decades_and_shows_sent_and_capacity(panel):
    panel.set(bandwidth_fraction=0.5, clients_pct=100)
    chron = panel.figures[1]
    axis = chron.layout.yaxis
    assert axis.type == "log" and axis.dtick == 1  # labels at 1, 10, 100, 1,000 ... only
    lo, hi = axis.range
    demand, sent, cap = chron.data[0], chron.data[1], chron.data[2]
    peak = max(y for y in demand.y if y == y)
    # heavy overload: the demand peaks tens of times above the capacity, and the capacity sits in the
    # axis's middle decades, not on its floor (on a linear axis it was under 3 % of the height)
    assert peak > 20 * cap.y[0]
    assert lo + 1 <= math.log10(cap.y[0]) <= hi - 1 and math.log10(peak) < hi
    assert max(sent.y) <= cap.y[0] * (1 + 1e-3)


def test_figure_20_labels_decades_only():
    axis = ch._bound_figure([{"load": k, "scenario": "HTTP +0%", "thesis_pct": 100.0, "ours_pct": 100.0,
                              "ideal_pct": 100.0, "bound_pct": 60.0} for k in ch.LOAD_LABELS]).layout.yaxis
    assert axis.type == "log" and axis.dtick == 1
