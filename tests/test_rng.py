import random

import numpy as np
import pytest

from simcore.rng import check_seed, generator_of_words, make_generator, spawn_generators


def test_same_seed_same_stream_and_generator_passed_through():
    a = make_generator(42).random(5)
    b = make_generator(42).random(5)
    assert np.array_equal(a, b)
    g = np.random.default_rng(1)
    assert make_generator(g) is g


@pytest.mark.parametrize("bad", [-1, 2**63, 1.5, "7", None, True])
def test_bad_seeds_rejected(bad):
    with pytest.raises(ValueError, match="seed="):
        check_seed(bad)


def test_global_state_untouched():
    random.seed(123)
    np.random.seed(123)  # noqa: NPY002 (the test checks global state is untouched)
    before_py, before_np = random.random(), np.random.random()  # noqa: NPY002
    random.seed(123)
    np.random.seed(123)  # noqa: NPY002 (the test checks global state is untouched)
    make_generator(5).random(100)
    spawn_generators(5, 3)
    assert random.random() == before_py and np.random.random() == before_np  # noqa: NPY002


def test_spawned_streams_differ_and_repeat():
    s1 = [g.random() for g in spawn_generators(9, 3)]
    s2 = [g.random() for g in spawn_generators(9, 3)]
    assert s1 == s2 and len(set(s1)) == 3


@pytest.mark.parametrize("values", [
    [0], [1, 2, 3], [2**32 - 1, 2**32, 2**32 + 1], [2**64 - 1, 0, 2**63],
    np.random.default_rng(5).integers(0, 2**64, size=2000, dtype=np.uint64, endpoint=False).tolist(),
])
def test_generator_of_words_is_default_rng_of_the_values(values):
    """numpy's own default_rng of the uint64 array is the reference: the same state and the same draws, also for
    values below 2**32 (one 32-bit word each, not two) and zero."""
    v = np.array(values, np.uint64)
    ours, ref = generator_of_words(v), np.random.default_rng(v)
    assert ours.bit_generator.state == ref.bit_generator.state
    assert np.array_equal(ours.integers(0, 2**32, size=50, dtype=np.uint64),
                          ref.integers(0, 2**32, size=50, dtype=np.uint64))
