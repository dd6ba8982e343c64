import math

import pytest

from simcore import theory


def test_erlang_b_known_values():
    # Textbook values: B(1, A) = A / (1 + A); B(5, 3 Erlangs) = 0.1101 (Erlang B tables).
    assert theory.erlang_b(1, 2.0) == pytest.approx(2.0 / 3.0)
    assert theory.erlang_b(5, 3.0) == pytest.approx(0.11005, abs=5e-5)
    assert theory.erlang_b(0, 3.0) == 1.0


def test_erlang_c_and_mmc_reduce_to_mm1():
    lam, es = 0.7, 1.0
    assert theory.erlang_c(1, lam * es) == pytest.approx(0.7)
    assert theory.mmc_mean_wait_s(lam, es, 1) == pytest.approx(0.7 / 0.3)
    assert theory.mm1_ps_mean_sojourn_s(lam, 1.0) == pytest.approx(1.0 / 0.3)


def test_erlang_c_closed_form_for_two_servers():
    # For c = 2: C = 2 rho^2 / (1 + rho) with rho = A / 2.
    a = 1.2
    rho = a / 2
    assert theory.erlang_c(2, a) == pytest.approx(2 * rho**2 / (1 + rho))


def test_pollaczek_khinchine_md1_is_half_mm1():
    assert theory.md1_mean_wait_s(0.8, 1.0) == pytest.approx(0.5 * theory.mmc_mean_wait_s(0.8, 1.0, 1))


def test_unstable_is_infinite_and_bad_input_rejected():
    assert theory.mmc_mean_wait_s(2.0, 1.0, 1) == math.inf
    with pytest.raises(ValueError, match="offered_load_erlangs"):
        theory.erlang_c(2, 2.5)
    with pytest.raises(ValueError, match="servers"):
        theory.erlang_b(-1, 1.0)
    with pytest.raises(ValueError, match="service='gamma'"):
        theory.mean_wait_s(0.5, 1.0, 1, "gamma")


def test_mmck_blocking_reduces_to_erlang_b_and_mm1k():
    assert theory.mmck_blocking(4, 0, 3.0) == pytest.approx(theory.erlang_b(4, 3.0))
    rho, k = 0.8, 5  # M/M/1/K: (1 - rho) rho^K / (1 - rho^(K+1))
    assert theory.mmck_blocking(1, k - 1, rho) == pytest.approx((1 - rho) * rho**k / (1 - rho ** (k + 1)))
