"""The cwnd fit of benchmarks/bench_cubic_vs_ns3.py recovers RFC 9438's C from an exact cubic (a test of the fit,
not of CUBIC): W(t) = 0.4 (t - K)^3 + W_max with K = cbrt(W_max (1 - 0.7) / 0.4), sampled every 20 ms between
losses, as the benchmark samples cwnd."""

import importlib.util
import sys
from pathlib import Path

import numpy as np

_BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _bench():
    sys.path.insert(0, str(_BENCH))
    try:
        spec = importlib.util.spec_from_file_location("bench_cubic_vs_ns3", _BENCH / "bench_cubic_vs_ns3.py")
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
    finally:
        sys.path.remove(str(_BENCH))
    return mod


def _exact(epoch_s, duration_s, w_max=200.0, c=0.4, dt=0.02, start_s=0.0):
    """Epochs of ``epoch_s`` between losses, each a cubic from ``start_s`` after its loss (the recovery's round trip
    before congestion avoidance begins); return the cwnd samples and K counted from the loss."""
    k = (w_max * 0.3 / c) ** (1 / 3)
    t = dt * np.arange(1, int(round(duration_s / dt)) + 1)
    losses = np.arange(0.0, duration_s, epoch_s)
    a = losses[np.searchsorted(losses, t, side="left") - 1]
    w = c * (np.maximum(t - a - start_s, 0.0) - k) ** 3 + w_max
    return {"cwnd_seg": w.tolist(), "loss_event_s": losses.tolist()}, k + start_s


def test_the_fit_recovers_c_k_and_w_max_of_an_exact_cubic():
    b = _bench()
    res, k = _exact(8.0, 40.0)
    fits = b.fit_epochs(res, {"sample_s": 0.02}, {"delay_s": 0.04})
    assert len(fits) == 4
    for c, k_fit, w_max, se in fits:
        assert abs(c - 0.4) < 0.004  # K on a 10 ms grid: C within 1 %
        assert abs(k_fit - k) <= 0.01
        assert abs(w_max - 200.0) < 0.5
        assert se <= b.SE_MAX  # an exact cubic over 8 s determines C


def test_a_short_noisy_epoch_does_not_count():
    b = _bench()
    res, _ = _exact(1.0, 10.0)
    rng = np.random.default_rng(1)
    res["cwnd_seg"] = (np.floor(np.asarray(res["cwnd_seg"]) + rng.uniform(0, 1, len(res["cwnd_seg"])))).tolist()
    fits = b.fit_epochs(res, {"sample_s": 0.02}, {"delay_s": 0.04})
    assert fits and not b.determined(fits)  # whole segments over 0.7 s of a cubic leave C undetermined


def test_the_fit_finds_a_k_beyond_the_next_loss():
    # the rtt20 case's geometry: W_max = 94.5 segments, K = cbrt(94.5 * 0.3 / 0.4) = 4.14 s counted from the start
    # of congestion avoidance, one 55 ms round trip (the recovery) after the loss, and the next loss 2.75 s after
    # the last one, on the concave side before W_max is reached: K (4.20 s from the loss) lies past the epoch's end
    b = _bench()
    res, k = _exact(2.75, 30.0, w_max=94.5, start_s=0.055)
    fits = b.fit_epochs(res, {"sample_s": 0.02}, {"delay_s": 0.01})
    assert len(fits) == 10
    for c, k_fit, w_max, _se in fits:
        assert abs(c - 0.4) < 0.004
        assert abs(k_fit - k) <= 0.01
        assert abs(w_max - 94.5) < 0.5
    assert len(b.determined(fits)) == 10


def test_a_straight_line_is_not_a_cubic():
    # an epoch spent wholly in the Reno-friendly region (RFC 9438 sec. 4.3) grows cwnd linearly: no C to find
    b = _bench()
    t = 0.02 * np.arange(1, 1501)
    losses = np.arange(0.0, 30.0, 2.5)
    a = losses[np.searchsorted(losses, t, side="left") - 1]
    res = {"cwnd_seg": (66.0 + 11.0 * (t - a)).tolist(), "loss_event_s": losses.tolist()}
    fits = b.fit_epochs(res, {"sample_s": 0.02}, {"delay_s": 0.01})
    assert fits and not b.determined(fits)
