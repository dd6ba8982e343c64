"""Chapter 5's plots: the methods differ in hue family and stay apart for readers with red-green colour blindness
(Machado, Oliveira, Fernandes 2009, severity 1); the paper's colour is not a method's; where pipelined and
multistream coincide both stay visible."""

import itertools
import math

import numpy as np

from simcore.chapters import objpack as chapter
from simcore.chapters.objpack_figures import METHOD_COLORS, METHOD_DASH
from simcore.plotting import color_for

DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])


def _linear(hex_color: str) -> np.ndarray:
    v = np.array([int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)  # sRGB (IEC 61966-2-1)


def _lab(rgb: np.ndarray) -> np.ndarray:
    """CIELAB (D65) of linear sRGB."""
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ np.clip(rgb, 0, 1)
    x, y, z = xyz / np.array([0.95047, 1.0, 1.08883])

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return np.array([116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))])


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
