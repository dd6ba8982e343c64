"""Chiu and Jain's idealised AIMD (1989; K&R sec. 3.7.3, fig. 3.55) and its closed forms.

Two flows share a link of capacity C. Time runs in steps; at the end of each the network says whether the link
was overloaded (x1 + x2 > C). Without overload each flow adds its increment; with it both multiply their rate by
b (TCP: b = 1/2). Chiu & Jain take one increment a for both, so every increase moves the point (x1, x2) parallel to
the fairness line x1 = x2 and every decrease moves it towards the origin: the gap x1 - x2 is unchanged by an
increase and multiplied by b by a decrease. After m decreases it is b^m times what it was, and the point converges
to the fairness line while oscillating about the full-utilisation line x1 + x2 = C.

``aimd_trajectory`` also takes a per-flow increment, as TCP's congestion avoidance gives it: one MSS per the flow's
own RTT, i.e. its rate grows by MSS/RTT_i per RTT_i, a slope of MSS/RTT_i^2 per second. With synchronised decreases
the rates then settle where each cycle's growth balances its cut: x_i proportional to the slope, so
x1/x2 = (RTT2/RTT1)^2 (``synchronised_share_ratio``).

D.-M. Chiu and R. Jain, "Analysis of the Increase and Decrease Algorithms for Congestion Avoidance in Computer
Networks", Computer Networks and ISDN Systems 17(1), 1989, pp. 1-14.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_int, check_real

__all__ = ["AimdTrajectory", "aimd_trajectory", "gap_after_decreases", "decreases_to_fairness", "jain_index_pair",
           "synchronised_share_ratio", "MAX_STEPS"]

MAX_STEPS = 1_000_000


@dataclass(frozen=True)
class AimdTrajectory:
    """x1, x2: the two rates after each step (row 0: the start), in the unit of the input. decreased: whether
    step k (ending in row k) was a decrease. jain: Jain's index (x1 + x2)^2 / (2 (x1^2 + x2^2)) per row."""

    x1: np.ndarray
    x2: np.ndarray
    decreased: np.ndarray
    jain: np.ndarray


def jain_index_pair(x1, x2):
    """Return Jain's fairness index of two rates, (x1 + x2)^2 / (2 (x1^2 + x2^2)), elementwise (1 where both are 0)."""
    a, b = np.asarray(x1, dtype=float), np.asarray(x2, dtype=float)
    den = 2.0 * (a * a + b * b)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, (a + b) ** 2 / np.where(den > 0, den, 1.0), 1.0)


def aimd_trajectory(x1: float, x2: float, capacity: float, increase, decrease: float = 0.5,
                    steps: int = 100) -> AimdTrajectory:
    """Iterate Chiu & Jain's synchronous AIMD from (x1, x2) for ``steps`` steps.

    capacity: C > 0 (any rate unit). increase: the additive increment per step, one number for both flows (Chiu &
    Jain) or a pair (a1, a2), each >= 0. decrease: the multiplicative factor b in (0, 1). A step is a decrease if
    x1 + x2 > C at its start."""
    c = check_real("capacity", capacity, 0.0, lo_open=True)
    x1 = check_real("x1", x1, 0.0)
    x2 = check_real("x2", x2, 0.0)
    b = check_real("decrease", decrease, 0.0, 1.0, lo_open=True, hi_open=True)
    n = check_int("steps", steps, 0, MAX_STEPS)
    pair = increase if isinstance(increase, (tuple, list, np.ndarray)) else (increase, increase)
    if len(pair) != 2:
        raise ValueError(f"increase={increase!r} is not allowed: must be a number >= 0 or a pair of them")
    a1, a2 = (check_real(f"increase[{i}]", v, 0.0) for i, v in enumerate(pair))
    r1, r2, dec = np.empty(n + 1), np.empty(n + 1), np.zeros(n + 1, bool)
    r1[0], r2[0] = x1, x2
    for k in range(1, n + 1):
        if x1 + x2 > c:
            x1, x2 = b * x1, b * x2
            dec[k] = True
        else:
            x1, x2 = x1 + a1, x2 + a2
        r1[k], r2[k] = x1, x2
    return AimdTrajectory(r1, r2, dec, jain_index_pair(r1, r2))


def gap_after_decreases(gap: float, decreases: int, decrease: float = 0.5) -> float:
    """Return |x1 - x2| after ``decreases`` multiplicative decreases (equal increments leave it alone): b^m gap."""
    check_real("gap", gap, 0.0)
    m = check_int("decreases", decreases, 0)
    b = check_real("decrease", decrease, 0.0, 1.0, lo_open=True, hi_open=True)
    return gap * b**m


def decreases_to_fairness(gap: float, tolerance: float, decrease: float = 0.5) -> int:
    """Return the fewest decreases m with b^m gap <= tolerance: ceil(ln(tolerance/gap) / ln b) (0 if already)."""
    g = check_real("gap", gap, 0.0)
    tol = check_real("tolerance", tolerance, 0.0, lo_open=True)
    b = check_real("decrease", decrease, 0.0, 1.0, lo_open=True, hi_open=True)
    if g <= tol:
        return 0
    return math.ceil(math.log(tol / g) / math.log(b) - 1e-12)


def synchronised_share_ratio(rtt1_s: float, rtt2_s: float) -> float:
    """Return x1/x2 where synchronised AIMD with TCP's increments (MSS/RTT_i per RTT_i) settles: (RTT2/RTT1)^2."""
    r1 = check_real("rtt1_s", rtt1_s, 0.0, lo_open=True)
    r2 = check_real("rtt2_s", rtt2_s, 0.0, lo_open=True)
    return (r2 / r1) ** 2
