"""The random-number policy of the lab.

Every model takes an explicit ``seed``: a non-negative int or a ``numpy.random.Generator``. Global random
state (``numpy.random.seed``, ``random.seed``) is never read or written. Random draws are made in numpy
from the Generator *before* a numba kernel runs, in a fixed order documented by each model, and passed to
the kernel as arrays; the same seed therefore gives bit-identical results.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["SeedLike", "make_generator", "spawn_generators", "check_seed", "generator_of_words"]

SeedLike = int | np.random.Generator

_MAX_SEED = 2**63 - 1


def check_seed(seed: object, name: str = "seed") -> SeedLike:
    """Return ``seed`` if it is an int in [0, 2**63-1] or a ``numpy.random.Generator``, else raise."""
    if isinstance(seed, np.random.Generator):
        return seed
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise ValueError(
            f"{name}={seed!r} is not allowed: must be an integer in [0, {_MAX_SEED}] "
            "or a numpy.random.Generator (global random state is never used)"
        )
    if not 0 <= int(seed) <= _MAX_SEED:
        raise ValueError(f"{name}={seed!r} is out of range: must be an integer in [0, {_MAX_SEED}]")
    return int(seed)


def make_generator(seed: SeedLike, name: str = "seed") -> np.random.Generator:
    """Return a ``numpy.random.Generator`` for ``seed`` (a Generator is returned as is, not copied)."""
    seed = check_seed(seed, name)
    if isinstance(seed, np.random.Generator):
        return seed
    return np.random.Generator(np.random.PCG64(seed))


def spawn_generators(seed: SeedLike, n: int, name: str = "seed") -> list[np.random.Generator]:
    """Return ``n`` statistically independent Generators derived from ``seed`` (one per stream or link)."""
    gen = make_generator(seed, name)
    return list(gen.spawn(int(n)))


def _entropy_words(values: np.ndarray) -> np.ndarray:
    """Return the 32-bit words numpy's ``SeedSequence`` makes of an array of uint64 seeds: each value's
    little-endian words, as few as it needs (one below 2**32), value after value."""
    v = np.asarray(values, np.uint64).reshape(-1)
    words = np.empty((v.size, 2), np.uint32)
    words[:, 0] = v & np.uint64(0xFFFFFFFF)
    words[:, 1] = v >> np.uint64(32)
    keep = np.ones((v.size, 2), bool)
    keep[:, 1] = words[:, 1] != 0
    return words[keep]


def _words_agree() -> bool:
    """Whether this numpy seeds from ``_entropy_words`` exactly as from the uint64 values (checked once)."""
    probe = np.array([0, 1, 2**32 - 1, 2**32, 2**63 + 12345, 0x9E3779B97F4A7C15, 7], np.uint64)
    return bool(np.array_equal(np.random.SeedSequence(probe).pool,
                               np.random.SeedSequence(_entropy_words(probe)).pool))


_WORDS_AGREE = _words_agree()


def generator_of_words(values: np.ndarray) -> np.random.Generator:
    """Return ``numpy.random.default_rng(values)`` for an array of uint64 seeds, the same generator bit for bit.

    numpy turns such an array into 32-bit words one value at a time in Python (~1.5 us a value: 3 ms for the
    ~2,000 link seeds of chapter 2's run); the words are made here in one go. If this numpy made other words
    (checked once, at import), the values go to ``default_rng`` as they are."""
    if not _WORDS_AGREE:
        return np.random.default_rng(values)
    return np.random.default_rng(_entropy_words(values))
