"""The code that relies on numba's internals (simcore.packet._numba: the compile-time fixes, ``outline``,
``one_signature``) applies to the numba installed or says why not (a skip naming the cause), switches itself off on
a numba it was not validated on, and computes the same on or off; the fixes return what numba's own code returns
and are gone once the packet kernels are compiled."""

from __future__ import annotations

import pytest
from numba import njit
from numba.core import inline_closurecall, targetconfig
from numba.core.compiler import Flags

from simcore.packet._numba import fixes as F
from simcore.packet._numba import lazylink as LL
from simcore.packet._numba import outline as O
from simcore.packet._numba import selfcheck as SC

_STATE = {"outline": O.OUTLINE_OFF, "one_signature": O.ONE_SIGNATURE_OFF, "typing_fix": F.TYPING_OFF,
          "inlining_fix": F.INLINING_OFF, "lazy_linking": LL.LAZY_LINKING_OFF}


def _flag_sets():
    yield Flags()
    f = Flags()
    f.nrt = True
    f.error_model = "numpy"
    f.boundscheck = False
    f.no_cpython_wrapper = True
    yield f
    yield Flags(copy_from=f)


@pytest.mark.parametrize("flags", list(_flag_sets()))
def test_fast_values_is_numbas_values(flags):
    ours = F.fast_values(flags)
    theirs = F._ORIGINAL_VALUES(flags)  # numba's: one property read per option
    assert ours == theirs
    assert list(ours) == list(theirs)  # same options, same order
    assert ours["nrt"] == flags.nrt and ours["error_model"] == flags.error_model


def test_fast_hash_and_eq_are_numbas():
    flags = list(_flag_sets())
    other = Flags()
    other.error_model = "python"  # numba's default, set explicitly: equal to Flags(), with a different _values
    flags.append(other)
    for a in flags:
        assert F.fast_hash(a) == F._ORIGINAL_HASH(a)
        for b in flags:
            assert F.fast_eq(a, b) == F._ORIGINAL_EQ(a, b)
    assert F.fast_eq(Flags(), other) and not F.fast_eq(flags[0], flags[1])
    assert F.fast_eq(Flags(), 3) is NotImplemented


def test_flags_hash_and_equality_unchanged_under_the_fix():
    a, b = Flags(), Flags()
    b.error_model = "numpy"
    before = (hash(a), a == Flags(), a == b)
    with F.compile_fixes():
        assert targetconfig.TargetConfig.values is F.fast_values
        during = (hash(a), a == Flags(), a == b)
    assert during == before == (hash(a), True, False)


@pytest.mark.parametrize("piece", sorted(SC.RELIES_ON))
def test_each_piece_applies_to_this_numba(piece):
    # A cause means the installed numba is not of a validated series, or numba's source under the piece reads
    # differently: the piece is off and the cold compile slower, never different. A numba release must not turn
    # a clean clone's CI red for that, so it is a skip that names the cause (pytest -rs lists it), not a failure;
    # CONTRIBUTING.md ("Upgrading numba") says what to do.
    assert _STATE[piece] == SC.cause(piece)
    if _STATE[piece] is not None:
        pytest.skip(_STATE[piece])
    if piece == "inlining_fix":
        assert callable(F.FAST_INLINE_IR)
    if piece == "outline":
        assert O.outline is O.outline_call


def test_a_numba_of_another_series_switches_every_piece_off():
    for piece in SC.RELIES_ON:
        why = SC.cause(piece, version="0.69.0", environ={})
        assert why and "0.69.0" in why and piece in why and "off" in why
        assert SC.cause(piece, version=SC.TESTED_SERIES[0] + ".7", environ={}) == _STATE[piece]  # a patch release


def test_a_changed_numba_source_switches_the_piece_off_and_names_the_function():
    name = "numba.core.callconv:CPUCallConv.call_function"
    recorded = {name: "0" * 64}
    why = SC.cause("outline", version=SC.TESTED_SERIES[0] + ".0", recorded=recorded, environ={})
    assert why and name in why and "reads differently" in why
    gone = {"numba.core.callconv:CPUCallConv.no_such_method": SC.digest(name)}
    why = SC.cause("outline", version=SC.TESTED_SERIES[0] + ".0", recorded=gone, environ={})
    assert why and "cannot be read" in why


def test_the_environment_switch_turns_every_piece_off():
    for value in ("off", "OFF", " off "):
        assert all("off" in SC.cause(p, environ={SC.ENV_SWITCH: value}) for p in SC.RELIES_ON)
    assert SC.cause("typing_fix", environ={SC.ENV_SWITCH: "on"}) == _STATE["typing_fix"]


def test_digest_is_of_the_dedented_source():
    import hashlib
    import inspect
    import textwrap

    from numba.core import callconv

    src = textwrap.dedent(inspect.getsource(callconv.CPUCallConv.call_function))
    assert src.startswith("def call_function(")
    assert SC.digest("numba.core.callconv:CPUCallConv.call_function") == hashlib.sha256(src.encode()).hexdigest()


def _callers():
    @njit(no_cpython_wrapper=True, no_cfunc_wrapper=True)
    def f(a, b, c):
        return a * b - c if a > 0 else c - b

    @njit
    def by_outline(n):
        s = 0.0
        for i in range(-n, n):
            s += O.outline_call(f, (float(i), 1.5, i))
        return s

    @njit
    def by_plain_call(n):
        s = 0.0
        for i in range(-n, n):
            s += O.plain_call(f, (float(i), 1.5, i))
        return s

    return by_outline, by_plain_call


def test_outline_off_is_a_plain_call_that_computes_the_same():
    by_outline, by_plain_call = _callers()
    by_hand = sum(i * 1.5 - i if i > 0 else i - 1.5 for i in range(-9, 9))
    assert by_outline(9) == by_plain_call(9) == by_hand
    sig = by_outline.signatures[0]
    ir_outline = by_outline.inspect_llvm(sig)
    assert "noinline" in ir_outline  # the call site carries the attribute that keeps LLVM from inlining f


def test_callers_of_the_plain_call_stay_cacheable(tmp_path, monkeypatch):
    """Off, ``outline`` must not cost the kernels their cache (a kernel taking a function as an argument calls it
    through a pointer, and numba refuses to cache it: every process would compile the kernels again)."""
    import importlib
    import sys
    import warnings

    (tmp_path / "plain_caller.py").write_text(
        "from numba import njit\n"
        "from simcore.packet._numba.outline import plain_call\n"
        "@njit(cache=True, no_cpython_wrapper=True)\n"
        "def f(a, b):\n    return a * 2 + b\n"
        "@njit(cache=True)\n"
        "def g(x):\n    return plain_call(f, (x, 3.0))\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    mod = importlib.import_module("plain_caller")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # numba's "Cannot cache compiled function ..." is a warning
            assert mod.g(2.0) == 7.0
        # its index was written where numba keeps this module's cache (beside it, or under NUMBA_CACHE_DIR as
        # `make test` sets it)
        from pathlib import Path
        assert list(Path(mod.g._cache._cache_path).glob("plain_caller.g-*.nbi"))
    finally:
        sys.modules.pop("plain_caller", None)


def test_switched_off_pieces_leave_numba_as_it_is(monkeypatch):
    monkeypatch.setattr(O, "ONE_SIGNATURE_OFF", "test")
    d = njit(lambda x: x)
    before = d.get_call_template
    assert O.one_signature(d) is d and d.get_call_template == before
    monkeypatch.setattr(F, "TYPING_OFF", "test")
    monkeypatch.setattr(F, "INLINING_OFF", "test")
    with F.compile_fixes():
        assert targetconfig.TargetConfig.values is F._ORIGINAL_VALUES
        assert targetconfig.TargetConfig.__hash__ is F._ORIGINAL_HASH
        assert inline_closurecall.InlineWorker.inline_ir is F._ORIGINAL_INLINE_IR


def test_one_signature_compiles_once_for_literal_arguments():
    @njit
    def k(x, kind):
        return x + kind

    one = O.one_signature(njit(lambda x, kind: x + kind))

    @njit
    def callers(x):
        return k(x, 1) + k(x, 2) + one(x, 1) + one(x, 2)

    assert callers(1) == 2 + 3 + 2 + 3
    if O.ONE_SIGNATURE_OFF is None:
        assert len(one.signatures) == 1  # one compile for (int64, int64), whatever the literals
        assert len(k.signatures) == 2  # numba's own: a copy per literal value


def test_fixes_are_undone_on_exit_even_after_an_error():
    with pytest.raises(RuntimeError), F.compile_fixes():
        assert inline_closurecall.InlineWorker.inline_ir is F.FAST_INLINE_IR
        raise RuntimeError
    assert targetconfig.TargetConfig.values is F._ORIGINAL_VALUES
    assert targetconfig.TargetConfig.__hash__ is F._ORIGINAL_HASH
    assert targetconfig.TargetConfig.__eq__ is F._ORIGINAL_EQ
    assert inline_closurecall.InlineWorker.inline_ir is F._ORIGINAL_INLINE_IR


def test_nested_inlining_compiles_the_same_function_under_the_fix():
    def make():
        @njit(inline="always")
        def leaf(x, k):
            if x > k:
                return x - k
            return k - x

        @njit(inline="always")
        def mid(x):
            s = 0
            for k in range(4):
                s += leaf(x, k) * (k + 1)
            return s

        @njit
        def top(n):
            acc = 0
            for i in range(n):
                acc += mid(i) if i % 2 else -mid(i + 1)
            return acc

        return top

    plain = make()
    expected = [plain(n) for n in range(7)]
    fixed = make()
    with F.compile_fixes():
        got = [fixed(n) for n in range(7)]
    by_hand = []
    for n in range(7):  # the same sums in Python
        acc = 0
        for i in range(n):
            x = i if i % 2 else i + 1
            m = sum(abs(x - k) * (k + 1) for k in range(4))
            acc += m if i % 2 else -m
        by_hand.append(acc)
    assert got == expected == by_hand
