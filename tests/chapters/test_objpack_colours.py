"""Chapter 5's plots: the methods differ in hue family and stay apart for readers with red-green colour blindness
(Machado, Oliveira, Fernandes 2009, severity 1); the paper's colour is not a method's; where pipelined and
multistream coincide both stay visible."""

import itertools
import math

import numpy as np

from simcore.chapters import objpack as chapter
from simcore.chapters.objpack_figures import METHOD_COLORS, METHOD_DASH
from simcore.colour_vision import DEUTERANOPIA, PROTANOPIA
from simcore.colour_vision import cielab as _lab
from simcore.colour_vision import linear_rgb as _linear
from simcore.plotting import color_for


def test_every_method_has_its_own_hue_family_also_under_colour_blindness():
    for (a, ca), (b, cb) in itertools.combinations(METHOD_COLORS.items(), 2):
        for m in (np.eye(3), DEUTERANOPIA, PROTANOPIA):
            assert np.linalg.norm(_lab(m @ _linear(ca)) - _lab(m @ _linear(cb))) >= 20, (a, b)  # CIE76
        la, lb = _lab(_linear(ca)), _lab(_linear(cb))
        chroma = [math.hypot(*la[1:]) > 15, math.hypot(*lb[1:]) > 15]
        if all(chroma):
            ha, hb = (math.degrees(math.atan2(v[2], v[1])) for v in (la, lb))
            assert abs((ha - hb + 180) % 360 - 180) >= 35, (a, b, "same hue family")
        elif not any(chroma):
            assert abs(la[0] - lb[0]) >= 30, (a, b, "two greys too alike")
    assert color_for("paper") not in METHOD_COLORS.values()


def test_the_panel_draws_each_method_in_its_colour_and_coinciding_curves_stay_visible():
    panel = chapter.make_panel()
    bars, usable = panel.figures
    assert list(bars.data[0].marker.color) == [METHOD_COLORS[m] for m in chapter.METHODS]
    lines = {tr.name: tr for tr in usable.data}
    assert len({tr.line.color for tr in lines.values()}) == 6
    pipe, multi = lines["pipelined"], lines["multistream"]
    assert list(pipe.x) == list(multi.x)  # no loss: the two fetches coincide ...
    assert METHOD_DASH["multistream"] == multi.line.dash == "dot" and pipe.line.dash == "solid"  # ... both visible
    assert "coincide" in panel.status.value
    # the plot shows every file usable, the axes span what the caption asks
    assert usable.layout.yaxis.range[1] >= 100 and usable.layout.xaxis.range[1] >= max(bars.data[0].y)
