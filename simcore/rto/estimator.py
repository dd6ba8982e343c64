"""TCP's round-trip time estimator and timeout (K&R sec. 3.5.3, RFC 6298 sec. 2), and its closed forms.

    EstimatedRTT <- (1 - alpha) EstimatedRTT + alpha SampleRTT          (alpha = 1/8)
    DevRTT       <- (1 - beta) DevRTT + beta |SampleRTT - EstimatedRTT| (beta = 1/4)
    TimeoutInterval = EstimatedRTT + K DevRTT                            (K = 4)

RFC 6298 sec. 2.3 fixes what K&R leaves open: DevRTT (RTTVAR) is updated first, with the EstimatedRTT (SRTT) from
before this sample; the first sample R sets EstimatedRTT = R, DevRTT = R/2; before any sample the timeout is 1 s
(sec. 2.1); the timeout is at least ``min_timeout_s`` (RFC 6298 sec. 2.4 says 1 s; K&R's formula alone has no
floor) and at most ``max_timeout_s`` (sec. 2.5: at least 60 s). simcore.packet's TCP runs the same rules
(``simcore.packet._rtt``); the tests check that both give the same numbers from the same samples.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_real, store_python_numbers

__all__ = ["EstimatorParams", "Estimates", "estimate", "step_response", "samples_to_settle"]


@dataclass(frozen=True)
class EstimatorParams:
    """alpha: EstimatedRTT's gain, in (0, 1]. beta: DevRTT's gain, in (0, 1]. k: DevRTT's weight in the timeout,
    in [0, 16]. min_timeout_s: the timeout's floor, seconds, in [0, 60]. max_timeout_s: its ceiling, seconds, in
    [min_timeout_s, 600] and > 0. initial_timeout_s: the timeout before the first sample, seconds, in (0, 600]."""

    alpha: float = 0.125
    beta: float = 0.25
    k: float = 4.0
    min_timeout_s: float = 0.0
    max_timeout_s: float = 60.0
    initial_timeout_s: float = 1.0

    def __post_init__(self):
        store_python_numbers(self)
        check_real("alpha", self.alpha, 0.0, 1.0, lo_open=True)
        check_real("beta", self.beta, 0.0, 1.0, lo_open=True)
        check_real("k", self.k, 0.0, 16.0)
        check_real("min_timeout_s", self.min_timeout_s, 0.0, 60.0)
        check_real("max_timeout_s", self.max_timeout_s, max(self.min_timeout_s, 1e-9), 600.0)
        check_real("initial_timeout_s", self.initial_timeout_s, 0.0, 600.0, lo_open=True)

    def timeout(self, estimated_s: float, dev_s: float) -> float:
        """Return EstimatedRTT + k DevRTT kept within [min_timeout_s, max_timeout_s], seconds."""
        return min(max(estimated_s + self.k * dev_s, self.min_timeout_s), self.max_timeout_s)


@dataclass(frozen=True)
class Estimates:
    """After each sample i: ``estimated_s[i]``, ``dev_s[i]`` and ``timeout_s[i]`` (seconds)."""

    estimated_s: np.ndarray
    dev_s: np.ndarray
    timeout_s: np.ndarray


def estimate(samples_s, params: EstimatorParams | None = None) -> Estimates:
    """Return the estimator's state after each of ``samples_s`` (seconds, each finite and >= 0), in order."""
    p = params or EstimatorParams()
    x = np.asarray(samples_s, dtype=float)
    if x.ndim != 1 or not np.all(np.isfinite(x)) or np.any(x < 0):
        raise ValueError(f"samples_s={samples_s!r} is not allowed: must be a 1-D sequence of finite times >= 0 s")
    est, dev, to = np.empty(x.size), np.empty(x.size), np.empty(x.size)
    e = d = math.nan
    for i, r in enumerate(x.tolist()):
        if i == 0:
            e, d = r, r / 2.0
        else:
            d = (1.0 - p.beta) * d + p.beta * abs(e - r)  # RFC 6298 2.3: RTTVAR first, with the old SRTT
            e = (1.0 - p.alpha) * e + p.alpha * r
        est[i], dev[i], to[i] = e, d, p.timeout(e, d)
    return Estimates(est, dev, to)


def step_response(n: int, before_s: float, after_s: float, alpha: float = 0.125) -> float:
    """Return EstimatedRTT after ``n`` samples of ``after_s`` that follow a long run at ``before_s``:
    after - (after - before) (1 - alpha)^n (each sample n steps back weighs alpha (1 - alpha)^n)."""
    check_real("alpha", alpha, 0.0, 1.0, lo_open=True)
    if int(n) != n or n < 0:
        raise ValueError(f"n={n!r} is not allowed: must be an integer >= 0")
    return after_s - (after_s - before_s) * (1.0 - alpha) ** n


def samples_to_settle(fraction: float = 0.1, alpha: float = 0.125) -> float:
    """Return how many samples EstimatedRTT needs to close all but ``fraction`` of a step: ln(f) / ln(1 - alpha)
    (17.2 for 10 % at alpha = 1/8)."""
    f = check_real("fraction", fraction, 0.0, 1.0, lo_open=True, hi_open=True)
    a = check_real("alpha", alpha, 0.0, 1.0, lo_open=True, hi_open=True)
    return math.log(f) / math.log(1.0 - a)
