"""Small statistics helpers for simulation output: batch means and Jain's fairness index."""

from __future__ import annotations

import math

import numpy as np

__all__ = ["batch_means_ci", "jain_index"]

# Two-sided 95% Student t quantiles by degrees of freedom (no scipy dependency).
_T975 = {4: 2.776, 9: 2.262, 14: 2.145, 19: 2.093, 24: 2.064, 29: 2.045, 39: 2.023, 49: 2.010}


def batch_means_ci(samples: np.ndarray, n_batches: int = 20) -> tuple[float, float]:
    """Return (mean, half-width of a 95% confidence interval) by the method of batch means, in the
    samples' unit.

    The series is cut into ``n_batches`` contiguous batches (5, 10, 15, 20, 25, 30, 40 or 50); batch
    means of a long stationary run are nearly independent, so a Student t interval over them is valid
    even though consecutive samples (e.g. successive waits in a queue) are correlated.
    """
    try:
        x = np.asarray(samples, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"samples={samples!r} is not allowed: must be a 1-D sequence of numbers") from None
    if isinstance(n_batches, bool) or not isinstance(n_batches, int | np.integer) or n_batches - 1 not in _T975:
        raise ValueError(f"n_batches={n_batches!r} is not allowed: must be one of {[k + 1 for k in _T975]}")
    if x.size < 2 * n_batches:
        raise ValueError(f"samples has {x.size} values: need at least {2 * n_batches} for {n_batches} batches")
    size = x.size // n_batches
    means = x[: size * n_batches].reshape(n_batches, size).mean(axis=1)
    half = _T975[n_batches - 1] * means.std(ddof=1) / math.sqrt(n_batches)
    return float(means.mean()), float(half)


def jain_index(values: np.ndarray) -> float:
    """Return Jain's fairness index (sum x)^2 / (n sum x^2), dimensionless in [1/n, 1]. ``values``: a
    non-empty 1-D sequence of finite non-negative numbers (a NaN or an infinity is refused, naming it)."""
    allowed = "must be a non-empty 1-D sequence of finite non-negative numbers"
    try:
        x = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"values={values!r} is not allowed: {allowed}") from None
    if x.ndim != 1 or x.size == 0:
        raise ValueError(f"values={values!r} is not allowed: {allowed}")
    bad = np.flatnonzero(~np.isfinite(x) | (x < 0))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"values[{i}]={float(x[i])!r} is not allowed: {allowed}")
    s2 = float(np.sum(x * x))
    return 1.0 if s2 == 0 else float(np.sum(x) ** 2 / (x.size * s2))
