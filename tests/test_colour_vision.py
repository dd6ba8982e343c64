"""simcore.colour_vision against values worked out independently."""

import numpy as np
import pytest

from simcore import colour_vision as cv


def test_white_black_and_a_primary_in_cielab():
    # D65 white is L* = 100, a* = b* = 0; black is L* = 0; sRGB red is (53.24, 80.09, 67.20) (Lindbloom's calculator)
    assert np.allclose(cv.cielab(cv.linear_rgb("#ffffff")), [100, 0, 0], atol=0.02)
    assert np.allclose(cv.cielab(cv.linear_rgb("#000000")), [0, 0, 0], atol=1e-9)
    assert np.allclose(cv.cielab(cv.linear_rgb("#ff0000")), [53.24, 80.09, 67.20], atol=0.05)


def test_red_and_green_collapse_for_a_deuteranope_but_blue_and_orange_do_not():
    assert cv.distance("#ff0000", "#00ff00") > 80
    assert cv.distance("#d62728", "#2ca02c", "deuteranopia") < cv.distance("#d62728", "#2ca02c") / 3
    assert cv.distance("#0072B2", "#E69F00", "deuteranopia") > 40  # Okabe-Ito's pair, made for this


def test_hue_gap_wraps_around_the_circle():
    assert cv.hue_gap_deg("#ff0000", "#ff0000") == 0
    assert 0 <= cv.hue_gap_deg("#ff0000", "#ff00ff") <= 180


@pytest.mark.parametrize("bad", ["red", "#12345", "#gggggg", 7])
def test_a_bad_colour_is_refused_by_name(bad):
    with pytest.raises(ValueError, match=r"^hex_color="):
        cv.linear_rgb(bad)


def test_a_bad_vision_is_refused_by_name():
    with pytest.raises(ValueError, match=r"^vision="):
        cv.distance("#000000", "#ffffff", "tritanopia")
