"""The random-number policy of the lab.

Every model takes an explicit ``seed``: a non-negative int or a ``numpy.random.Generator``. Global random
state (``numpy.random.seed``, ``random.seed``) is never read or written. Random draws are made in numpy
from the Generator *before* a numba kernel runs, in a fixed order documented by each model, and passed to
the kernel as arrays; the same seed therefore gives bit-identical results.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["SeedLike", "make_generator", "spawn_generators", "check_seed"]

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
