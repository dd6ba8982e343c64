"""Colours as readers see them: simulated red-green colour blindness and CIELAB distances, for checking that
the curves one plot shows together stay apart (the chapters' colour tests use it).

Simulation: Machado, Oliveira & Fernandes (2009), "A physiologically-based model for simulation of color
vision deficiency", IEEE TVCG 15(6), full-severity matrices on linear RGB. Colour space: sRGB (IEC 61966-2-1)
to CIE XYZ (D65) to CIELAB; distances are CIE76 (Euclidean in CIELAB: about 2.3 is just noticeable, 20 or
more is told apart at a glance).
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["DEUTERANOPIA", "PROTANOPIA", "VISIONS", "linear_rgb", "cielab", "distance", "hue_deg", "hue_gap_deg"]

DEUTERANOPIA = np.array([[0.367322, 0.860646, -0.227968], [0.280085, 0.672501, 0.047413],
                         [-0.011820, 0.042940, 0.968881]])
PROTANOPIA = np.array([[0.152286, 1.052583, -0.204868], [0.114503, 0.786281, 0.099216],
                       [-0.003882, -0.048116, 1.051998]])
VISIONS = {"normal": np.eye(3), "deuteranopia": DEUTERANOPIA, "protanopia": PROTANOPIA}

_SRGB_TO_XYZ = np.array([[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]])
_D65 = np.array([0.95047, 1.0, 1.08883])


def linear_rgb(hex_color: str) -> np.ndarray:
    """Return ``#rrggbb`` as linear RGB in [0, 1] (the sRGB transfer function undone)."""
    s = str(hex_color)
    if len(s) != 7 or s[0] != "#":
        raise ValueError(f"hex_color={hex_color!r} is not allowed: must be '#rrggbb'")
    try:
        v = np.array([int(s[i:i + 2], 16) / 255 for i in (1, 3, 5)])
    except ValueError:
        raise ValueError(f"hex_color={hex_color!r} is not allowed: must be '#rrggbb' in hex digits") from None
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def cielab(rgb: np.ndarray) -> np.ndarray:
    """Return linear RGB (clipped to [0, 1]) as CIELAB (L*, a*, b*) under D65."""
    x, y, z = (_SRGB_TO_XYZ @ np.clip(np.asarray(rgb, dtype=float), 0, 1)) / _D65

    def f(t: float) -> float:
        return t ** (1 / 3) if t > 216 / 24389 else (24389 / 27 * t + 16) / 116

    return np.array([116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))])


def distance(a: str, b: str, vision: str = "normal") -> float:
    """Return the CIE76 distance between colours ``a`` and ``b`` as a reader with ``vision`` sees them."""
    if vision not in VISIONS:
        raise ValueError(f"vision={vision!r} is not allowed: must be one of {sorted(VISIONS)}")
    m = VISIONS[vision]
    return float(np.linalg.norm(cielab(m @ linear_rgb(a)) - cielab(m @ linear_rgb(b))))


def hue_deg(hex_color: str) -> float:
    """Return the CIELAB hue angle of ``hex_color`` in degrees (0-360)."""
    _, a, b = cielab(linear_rgb(hex_color))
    return math.degrees(math.atan2(b, a)) % 360


def hue_gap_deg(a: str, b: str) -> float:
    """Return the smaller angle between the hues of ``a`` and ``b`` (0-180 degrees)."""
    return abs((hue_deg(a) - hue_deg(b) + 180) % 360 - 180)
