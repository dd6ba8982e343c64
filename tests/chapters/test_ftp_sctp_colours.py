"""Chapter 3's plots: the curves any one plot shows together differ in hue family and stay apart for
readers with red-green colour blindness (simulated with Machado, Oliveira, Fernandes 2009, severity 1),
and differ in marker and dash too."""

import itertools
import math

import numpy as np
import pytest

from simcore.chapters.ftp_sctp import FIG1_CURVES
from simcore.chapters.ftp_sctp_figures import CURVE_COLORS, CURVE_SYMBOL, DESIGN_GROUPS
from simcore.colour_vision import DEUTERANOPIA, PROTANOPIA
from simcore.colour_vision import cielab as _lab
from simcore.colour_vision import linear_rgb as _linear

SHOWN_TOGETHER = {**DESIGN_GROUPS, "figure 1": FIG1_CURVES}


@pytest.mark.parametrize("group", list(SHOWN_TOGETHER))
def test_curves_shown_together_are_told_apart_also_under_colour_blindness(group):
    curves = SHOWN_TOGETHER[group]
    for a, b in itertools.combinations(curves, 2):
        for name, m in (("normal", np.eye(3)), ("deuteranopia", DEUTERANOPIA), ("protanopia", PROTANOPIA)):
            d = np.linalg.norm(_lab(m @ _linear(CURVE_COLORS[a])) - _lab(m @ _linear(CURVE_COLORS[b])))
            assert d >= 20, (group, a, b, name, d)  # CIE76 distance in CIELAB
    labs = {c: _lab(_linear(CURVE_COLORS[c])) for c in curves}
    chromatic = [c for c in curves if math.hypot(*labs[c][1:]) > 15]
    assert len(curves) - len(chromatic) <= 1  # at most one black or grey curve
    for a, b in itertools.combinations(chromatic, 2):
        ha, hb = (math.degrees(math.atan2(labs[c][2], labs[c][1])) for c in (a, b))
        assert abs((ha - hb + 180) % 360 - 180) >= 35, (group, a, b)  # different hue families
    assert len({CURVE_SYMBOL[c] for c in curves}) == len(curves)
