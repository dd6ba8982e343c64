"""The paper's sample-size rule (90% confidence, half-width <= 0.5 s) on data of known spread."""

import math

import numpy as np
import pytest

from simcore.ftp.sampling import half_width_90, runs_needed, sequential_sample, t95


def test_t_quantiles_match_the_table_and_the_normal_limit():
    assert t95(1) == 6.314 and t95(13) == 1.771
    assert t95(60) == pytest.approx(1.671, abs=1e-3)  # published table value
    assert t95(10**6) == pytest.approx(1.644854, abs=1e-5)


def test_alternating_values_stop_where_the_hand_computed_half_width_first_drops_below_half_a_second():
    # values mu+1, mu-1, ...: for even n, s^2 = n/(n-1) so h = t(n-1)/sqrt(n-1); for odd n, s^2 = (n+1)/n,
    # h = t(n-1) sqrt((n+1)/n) / sqrt(n). By hand: n=12: 1.796/sqrt(11)=0.5415; n=13: 1.782*sqrt(14/13)/
    # sqrt(13)=0.5129; n=14: 1.771/sqrt(13)=0.4912 <= 0.5 -> stop at 14.
    s = sequential_sample(lambda i: 5.0 + (1.0 if i % 2 == 0 else -1.0), half_width_s=0.5, max_runs=100)
    assert s.n == 14 and s.reached
    assert s.half_width == pytest.approx(1.771 / math.sqrt(13))
    assert s.mean == pytest.approx(5.0)


def test_the_cap_is_reported_and_constant_data_stop_at_the_minimum():
    s = sequential_sample(lambda i: 3.0 * (-1) ** i, max_runs=10)
    assert s.n == 10 and not s.reached and s.half_width > 0.5
    s = sequential_sample(lambda i: 2.0, min_runs=4)
    assert s.n == 4 and s.reached and s.half_width == 0.0
    s = sequential_sample(lambda i: float("nan") if i == 1 else 1.0)
    assert s.n == 2 and not s.reached and math.isnan(s.mean)


def test_normal_data_of_known_sigma_need_about_the_predicted_number_of_runs():
    sigma = 2.0
    predicted = runs_needed(sigma)  # ceil((1.645 * 2 / 0.5)^2) = 44
    assert predicted == 44
    ns = []
    for seed in range(40):
        x = np.random.default_rng(seed).normal(10.0, sigma, 400)
        ns.append(sequential_sample(lambda i, x=x: x[i], max_runs=400).n)
    assert 0.7 * predicted < np.median(ns) < 1.3 * predicted


def test_half_width_needs_two_finite_values():
    with pytest.raises(ValueError, match="at least 2"):
        half_width_90([1.0])
    with pytest.raises(ValueError, match="max_runs=2"):
        sequential_sample(lambda i: 1.0, min_runs=3, max_runs=2)


def test_a_point_on_a_lossless_path_stops_at_the_minimum_and_a_lossy_one_at_its_rule():
    from simcore.ftp import FtpParams, sample_point
    s = sample_point(FtpParams(n_files=2, file_size_bytes=1000, min_runs=3))
    assert s.n == 3 and s.half_width == 0.0 and s.reached  # every run the same: sd 0
    s = sample_point(FtpParams(n_files=2, file_size_bytes=1000, loss=0.05, max_runs=8))
    assert 3 <= s.n <= 8 and (s.reached == (s.half_width <= 0.5)) and (s.reached or s.n == 8)
    with pytest.raises(ValueError, match="max_runs=2"):
        FtpParams(max_runs=2)


def test_aborted_runs_are_counted_left_out_and_replaced_within_the_cap():
    # runs 1 and 3 abort (None): the values are runs 0, 2, 4, 5 ... of constant 2.0, so the rule stops once
    # three values are in, after five calls; with a cap of 4 calls only two values come in: no interval
    s = sequential_sample(lambda i: None if i in (1, 3) else 2.0, min_runs=3, max_runs=30)
    assert (s.n, s.discarded, s.reached, s.mean) == (3, 2, True, 2.0)
    s = sequential_sample(lambda i: None if i in (1, 3) else 2.0, min_runs=3, max_runs=4)
    assert (s.n, s.discarded, s.reached) == (2, 2, False) and s.half_width == math.inf
    s = sequential_sample(lambda i: None, min_runs=2, max_runs=5)
    assert s.n == 0 and s.discarded == 5 and math.isnan(s.mean)
