import numpy as np
import pytest

from simcore.stats import batch_means_ci, jain_index


def test_batch_means_ci_covers_true_mean_about_95_percent():
    rng = np.random.default_rng(0)
    hits = 0
    for _ in range(400):
        mean, half = batch_means_ci(rng.normal(3.0, 1.0, 400))
        hits += abs(mean - 3.0) <= half
    assert 0.92 <= hits / 400 <= 0.98


def test_batch_means_rejects_short_series_and_odd_batches():
    with pytest.raises(ValueError, match="need at least"):
        batch_means_ci(np.ones(10))
    with pytest.raises(ValueError, match="n_batches=7"):
        batch_means_ci(np.ones(100), 7)


def test_jain_index_bounds():
    assert jain_index(np.ones(5)) == pytest.approx(1.0)
    assert jain_index(np.array([1.0, 0, 0, 0])) == pytest.approx(0.25)
    with pytest.raises(ValueError):
        jain_index(np.array([-1.0, 1.0]))


@pytest.mark.parametrize("values, named", [
    ([float("nan"), 1.0], r"values\[0\]=nan"), ([1.0, float("inf")], r"values\[1\]=inf"),
    ([1.0, -2.0], r"values\[1\]=-2.0"), (None, "values=None"), ([], r"values=\[\]"), ("ab", "values='ab'"),
    ([[1.0, 2.0]], r"values=\[\[1.0, 2.0\]\]"),
])
def test_jain_index_refuses_what_is_not_a_list_of_rates_naming_it(values, named):
    """Issue 29: jain_index([nan, 1.0]) returned nan."""
    with pytest.raises(ValueError, match=named + r".* is not allowed: must be a non-empty 1-D sequence of finite"):
        jain_index(values)
