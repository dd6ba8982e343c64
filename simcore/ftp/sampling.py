"""The paper's sample-size rule: "a 90% confidence level is achieved with an acceptable error not more
than one half of a second" (sec. 6), as sequential stopping.

Runs are added one at a time (from ``min_runs`` on) until the Student-t 90% confidence interval of the
mean has half-width ``t_{0.95, n-1} s / sqrt(n) <= half_width_s``, or ``max_runs`` is reached (then
``reached`` is False and the interval is wider than asked). Sequential stopping makes the interval a
little optimistic (the stopping time depends on the data); the paper's wording does not say whether it
fixed n in advance, and a fixed n from a pilot run gives nearly the same sizes. The sample size the rule
implies for a known standard deviation sigma is about ``(1.645 sigma / half_width_s)**2``
(``runs_needed``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_int, check_real

__all__ = ["Sample", "t95", "half_width_90", "runs_needed", "sequential_sample"]

# One-sided 95% Student t quantiles (= two-sided 90%) for 1..30 degrees of freedom.
_T95 = (6.314, 2.920, 2.353, 2.132, 2.015, 1.943, 1.895, 1.860, 1.833, 1.812, 1.796, 1.782, 1.771, 1.761,
        1.753, 1.746, 1.740, 1.734, 1.729, 1.725, 1.721, 1.717, 1.714, 1.711, 1.708, 1.706, 1.703, 1.701,
        1.699, 1.697)
_Z95 = 1.6448536269514722


def t95(df: int) -> float:
    """Return the 95% quantile of Student's t with ``df`` degrees of freedom (table to 30, then the
    Cornish-Fisher expansion z + (z^3 + z)/(4 df) + (5z^5 + 16z^3 + 3z)/(96 df^2), within 1e-4)."""
    df = check_int("df", df, 1)
    if df <= len(_T95):
        return _T95[df - 1]
    z = _Z95
    return z + (z**3 + z) / (4 * df) + (5 * z**5 + 16 * z**3 + 3 * z) / (96 * df**2)


def half_width_90(values) -> float:
    """Return the half-width of the 90% confidence interval of the mean of ``values`` (>= 2 values)."""
    x = np.asarray(values, dtype=float)
    if x.size < 2 or not np.all(np.isfinite(x)):
        raise ValueError(f"values has {x.size} entries: need at least 2 finite numbers")
    return t95(x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)


def runs_needed(sigma_s: float, half_width_s: float = 0.5) -> int:
    """Return the normal-approximation sample size ceil((1.645 sigma / half_width)^2), at least 2."""
    check_real("sigma_s", sigma_s, 0.0)
    check_real("half_width_s", half_width_s, 0.0, lo_open=True)
    return max(2, math.ceil((_Z95 * sigma_s / half_width_s) ** 2))


@dataclass(frozen=True)
class Sample:
    """What the rule gave at one point: the values, their mean, the interval's half-width, and whether
    the target was met before the cap (False also when a run did not finish: its value is nan);
    ``discarded``: runs that ended without a value (an aborted transfer, repeated with the next run)."""

    values: np.ndarray
    n: int
    mean: float
    half_width: float
    reached: bool
    discarded: int = 0


def sequential_sample(draw: Callable[[int], float | None], half_width_s: float = 0.5, min_runs: int = 3,
                      max_runs: int = 30) -> Sample:
    """Call ``draw(i)`` for i = 0, 1, ... until the 90% half-width is <= ``half_width_s`` (at least
    ``min_runs`` values; at most ``max_runs`` calls). ``i`` is the run's index, e.g. its seed. ``draw``
    returns None for a run that ended without a value (an aborted transfer: as on a testbed, it is
    counted, left out, and the next run is made); nan for one that did not finish (then the point has
    no mean)."""
    check_real("half_width_s", half_width_s, 0.0, lo_open=True)
    check_int("min_runs", min_runs, 2)
    check_int("max_runs", max_runs, min_runs)
    vals: list[float] = []
    hw = math.inf
    discarded = 0
    for i in range(max_runs):
        got = draw(i)
        if got is None:
            discarded += 1
            continue
        v = float(got)
        vals.append(v)
        if not math.isfinite(v):
            return Sample(np.array(vals), len(vals), math.nan, math.inf, False, discarded)
        if len(vals) >= min_runs:
            hw = half_width_90(vals)
            if hw <= half_width_s:
                break
    x = np.array(vals)
    if x.size < 2:
        return Sample(x, x.size, float(x.mean()) if x.size else math.nan, math.inf, False, discarded)
    return Sample(x, x.size, float(x.mean()), hw, hw <= half_width_s, discarded)
