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
