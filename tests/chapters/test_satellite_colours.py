"""Chapter 2's plots: the seven curves differ in hue family and stay apart for readers with red-green colour
blindness (simulated with Machado, Oliveira & Fernandes 2009, severity 1), and in marker too; no curve takes
the paper's colour."""

import itertools
import math

import numpy as np

from simcore.chapters.satellite_figures import CURVE_COLOR, CURVE_ORDER, CURVE_SYMBOL, PAPER_COLOR

# Machado et al. 2009: full-severity simulation matrices on linear RGB
DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])


def _linear(hex_color):
    v = np.array([int(hex_color[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)  # sRGB (IEC 61966-2-1)


def _lab(rgb):
    # sRGB primaries, D65 white -> CIE XYZ -> CIELAB
    xyz = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]) @ np.clip(rgb, 0, 1)
    x, y, z = xyz / np.array([0.95047, 1.0, 1.08883])

    def f(t):
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return np.array([116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))])


def test_the_seven_curves_are_told_apart_also_under_colour_blindness():
    colours = [CURVE_COLOR[c] for c in CURVE_ORDER]
    assert len(set(colours)) == 7 and PAPER_COLOR not in colours
    for a, b in itertools.combinations(colours, 2):
        for m in (np.eye(3), DEUTERANOPIA, PROTANOPIA):
            assert np.linalg.norm(_lab(m @ _linear(a)) - _lab(m @ _linear(b))) >= 20, (a, b)  # CIE76 distance
    labs = [_lab(_linear(c)) for c in colours]
    chromatic = [lab for lab in labs if math.hypot(*lab[1:]) > 15]
    assert len(labs) - len(chromatic) <= 1  # at most one black or grey curve
    assert all(lab[0] < 80 for lab in labs)  # none too pale to see on white
    for a, b in itertools.combinations(chromatic, 2):
        ha, hb = (math.degrees(math.atan2(lab[2], lab[1])) for lab in (a, b))
        assert abs((ha - hb + 180) % 360 - 180) >= 35  # different hue families
    assert len({CURVE_SYMBOL[c] for c in CURVE_ORDER}) == 7
