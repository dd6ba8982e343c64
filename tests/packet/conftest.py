"""Fixtures shared by the packet tests."""

import dataclasses
import os
import random
import shutil

import numpy as np
import pytest

from simcore.packet import PacketResult, build_cache, simulate


@pytest.fixture(scope="module")
def tshark() -> str:
    """Path of Debian's tshark; skipped where it is absent, a failure under CI (`make test` installs it)."""
    exe = shutil.which("tshark")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tshark is missing under CI: `make test` installs Debian's tshark")
        pytest.skip("tshark not installed (make tshark installs it on Debian/Ubuntu)")
    return exe


def _assert_same(a, b, where: str = "result") -> None:
    """Every field of the results ``a`` and ``b`` bit-identical (arrays: dtype, shape and bytes; the scenario: the
    same object), the fields read in a random order (so that a lazily assembled result meets them in any order)."""
    names = [f.name for f in dataclasses.fields(PacketResult)]
    random.Random(where).shuffle(names)
    for n in names:
        _same(getattr(a, n), getattr(b, n), f"{where}.{n}")


def _same(x, y, where):
    if dataclasses.is_dataclass(x):
        assert type(x) is type(y), where
        for f in dataclasses.fields(x):
            _same(getattr(x, f.name), getattr(y, f.name), f"{where}.{f.name}")
    elif isinstance(x, np.ndarray):
        assert isinstance(y, np.ndarray), where
        assert (x.dtype, x.shape) == (y.dtype, y.shape), where
        assert np.ascontiguousarray(x).tobytes() == np.ascontiguousarray(y).tobytes(), where
    elif where.endswith(".scenario"):
        assert x is y, where
    else:
        assert type(x) is type(y) and (x == y or (x != x and y != y)), (where, x, y)


def _eager(sc, seed):
    """``simulate(sc, seed)`` as every run went before ``build_cache``: built afresh, the result assembled at once
    (the cache's contents are put back afterwards)."""
    old = build_cache.MAX_STATE_BYTES, build_cache._cache.copy(), build_cache._roots.copy()
    build_cache.clear()
    build_cache.MAX_STATE_BYTES = 0
    try:
        res = simulate(sc, seed=seed)
    finally:
        build_cache.MAX_STATE_BYTES = old[0]
        build_cache._cache.update(old[1])
        build_cache._roots.update(old[2])
    assert type(res) is PacketResult
    return res


@pytest.fixture
def assert_same():
    """``assert_same(a, b, where)``: two ``PacketResult`` bit-identical, field by field."""
    return _assert_same


@pytest.fixture
def eager():
    """``eager(scenario, seed)``: the result of a fresh build, assembled at once (the reference)."""
    return _eager
