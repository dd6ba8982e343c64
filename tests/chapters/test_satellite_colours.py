"""Chapter 2's plots: the seven curves differ in hue family and stay apart for readers with red-green colour
blindness (simulated with Machado, Oliveira & Fernandes 2009, severity 1), and in marker too; no curve takes
the paper's colour."""

import itertools
import math

import numpy as np

from simcore.chapters.satellite_figures import CURVE_COLOR, CURVE_ORDER, CURVE_SYMBOL, PAPER_COLOR
from simcore.colour_vision import DEUTERANOPIA, PROTANOPIA
from simcore.colour_vision import cielab as _lab
from simcore.colour_vision import linear_rgb as _linear


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
