"""The link-time fix (``simcore.packet._numba.lazylink``): under it, a kernel Python never calls is not turned into
machine code of its own nor cached, its caller's library holds its code once, results are those of numba's own
linking, the cache written works in a fresh process, and numba's methods are back on exit."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest
from numba import njit
from numba.core import caching, codegen

from simcore.packet._numba import lazylink as LL
from simcore.packet._numba import outline as O

pytestmark = pytest.mark.skipif(LL.LAZY_LINKING_OFF is not None, reason=str(LL.LAZY_LINKING_OFF))

_NUMBAS = {
    (codegen.CPUCodeLibrary, "finalize"), (codegen.CPUCodeLibrary, "add_linking_library"),
    (codegen.JITCodeLibrary, "get_pointer_to_function"), (codegen.JITCPUCodegen, "set_env"),
    (caching.Cache, "_save_overload"),
}


def _chain():
    """top (called from Python) -> mid (plain call) -> leaf (out-of-line call), and leaf again from top: leaf is
    reached twice, as the packet kernels reach ``qdisc.dispatch.enqueue`` from many callers."""
    internal = dict(no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False, error_model="numpy")

    @njit(**internal)
    def leaf(x, k):
        return x * k - 3.0 if x > k else k - x

    @njit(**internal)
    def mid(x):
        s = 0.0
        for k in range(5):
            s += O.outline(leaf, (x, float(k)))
        return s

    @njit(_nrt=False, error_model="numpy")
    def top(n):
        acc = 0.0
        for i in range(n):
            acc += mid(i * 0.5) - O.outline(leaf, (float(i), 2.0))
        return acc

    return top, mid, leaf


def _by_hand(n):
    def leaf(x, k):
        return x * k - 3.0 if x > k else k - x
    return sum(sum(leaf(i * 0.5, float(k)) for k in range(5)) - leaf(float(i), 2.0) for i in range(n))


def test_callees_compile_once_inside_their_callers_library_with_the_same_result():
    top, mid, leaf = _chain()
    with LL.lazy_linking():
        got = top(40)
    plain_top, _, _ = _chain()
    assert got == plain_top(40) == pytest.approx(_by_hand(40), rel=1e-12)
    (mid_res,) = mid.overloads.values()
    (leaf_res,) = leaf.overloads.values()
    (top_res,) = top.overloads.values()
    # neither callee was finalized (optimised and compiled to machine code) on its own ...
    assert not mid_res.library._finalized and not leaf_res.library._finalized
    # ... and the caller's library defines both, each once
    defined = [fn.name for fn in top_res.library.get_defined_functions()]
    assert defined.count(mid_res.fndesc.llvm_func_name) == 1
    assert defined.count(leaf_res.fndesc.llvm_func_name) == 1


def test_a_callee_left_unfinished_is_finalized_by_numbas_own_code_when_asked_later():
    top, mid, leaf = _chain()
    with LL.lazy_linking():
        top(3)

    @njit
    def later(x):  # compiled after the fix left: numba links mid the usual way, finalizing it then
        return mid(x)

    assert later(1.0) == pytest.approx(sum(1.0 * k - 3.0 if 1.0 > k else k - 1.0 for k in range(5)))
    assert next(iter(mid.overloads.values())).library._finalized


def test_numbas_methods_are_back_on_exit_even_after_an_error():
    before = {(cls, name): getattr(cls, name) for cls, name in _NUMBAS}
    with pytest.raises(RuntimeError), LL.lazy_linking():
        assert codegen.CPUCodeLibrary.finalize is LL.lazy_finalize
        raise RuntimeError
    assert {(cls, name): getattr(cls, name) for cls, name in _NUMBAS} == before


def test_switched_off_it_leaves_numba_as_it_is(monkeypatch):
    monkeypatch.setattr(LL, "LAZY_LINKING_OFF", "test")
    before = {(cls, name): getattr(cls, name) for cls, name in _NUMBAS}
    with LL.lazy_linking():
        assert {(cls, name): getattr(cls, name) for cls, name in _NUMBAS} == before


_MODULE = '''
from numba import njit
from simcore.packet._numba.outline import outline

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False, error_model="numpy")
def leaf(x):
    return x * 3.0 + 1.0

@njit(cache=True, no_cpython_wrapper=True, no_cfunc_wrapper=True, _nrt=False, error_model="numpy")
def mid(x):
    return outline(leaf, (x,)) - 2.0

@njit(cache=True, _nrt=False, error_model="numpy")
def top(n):
    s = 0.0
    for i in range(n):
        s += mid(float(i))
    return s
'''

_RUN = '''
import sys
sys.path.insert(0, {path!r})
from simcore.packet._numba.lazylink import lazy_linking
import lazy_cached as m
with lazy_linking():
    print(m.top(10), m.top.stats.cache_hits.get(m.top.signatures[0], 0) if m.top.signatures else -1)
'''


def test_only_the_entry_point_is_cached_and_a_fresh_process_runs_it_from_the_cache(tmp_path):
    """The entry point's cached library must hold everything it calls: a fresh process loads it alone (the callees
    were never cached) and computes the same."""
    (tmp_path / "lazy_cached.py").write_text(_MODULE)
    env_cache = tmp_path / "cache"
    run = textwrap.dedent(_RUN.format(path=str(tmp_path)))

    def fresh():
        out = subprocess.run([sys.executable, "-c", run], capture_output=True, text=True, check=True, timeout=300,
                             env={**os.environ, "NUMBA_CACHE_DIR": str(env_cache)})
        value, hits = out.stdout.split()
        return float(value), int(hits)

    by_hand = sum(i * 3.0 + 1.0 - 2.0 for i in range(10))
    assert fresh() == (by_hand, 0)  # compiled
    indexes = sorted(p.name.split("-")[0] for p in env_cache.rglob("*.nbi"))
    assert indexes == ["lazy_cached.top"]  # leaf and mid live inside top's cached library only
    assert fresh() == (by_hand, 1)  # loaded from the cache
