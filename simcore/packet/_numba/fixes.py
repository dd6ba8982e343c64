"""Numba: fixes of numba's own compile-time waste, in force only while the packet kernels compile.

``compile_fixes()`` is a context manager; ``simulate.run_to_end`` enters it while the event loop
``kernel.loop.run`` is not compiled yet in this process (its first call compiles every packet kernel, or loads
them from the cache), and numba's own functions are back in place when it leaves. Each fix returns exactly
what the function it replaces returns (``tests/packet/test_numba_fixes.py`` compares them), so the compiled
code, hence every result, is the same; it only takes less time (together about 4 s of the cold compile).
A third, ``lazylink.lazy_linking`` (its own module), turns each kernel into machine code once, inside the event
loop's library, instead of once per library that calls it (the cold compile about halves).

- **IR inlining** (``inline="always"``): numba's ``InlineWorker.inline_ir`` deep-copies the callee's IR
  twice per call site, each time one block at a time, and every block's copy deep-copies the function's
  whole scope (all its variables) again: a copy costs blocks x variables, and nested inlining (``run``
  inlines ``on_arrival``, which inlined ``tcp_arrive`` ...) pays it at every level. The second copy is
  an "unmutated original" that both of numba's callers discard (numba issues #8989 and #9204; numba-cuda
  PR #689 makes the same change). Fixed: one deep copy of all blocks together (the scope copied once,
  shared by the copied blocks as it is by the original ones), and the unmutated input returned as the
  original. Applied by rewriting those lines of numba's source of ``inline_ir``; if they are not there
  word for word, this fix is skipped: the compile is slower, never different.
- **Typing**: every ``a[i]`` tries the ~7 ``@overload`` templates of ``getitem`` (strings, lists,
  dicts ...) before the array's own; each looks up its cache with a key holding the compiler flags, whose
  hash and equality call ``TargetConfig.values()``, a dict of ~40 options built through one Python
  property each: some 200,000 calls, ~3 s, for the packet kernels. Fixed: the same dict, made from the
  class's defaults updated with the options set; the hash (of the option names only) computed once per
  class; equality true at once when both set the same options to the same values.

Each fix checks itself on import (``selfcheck``: a numba series it was validated on, and numba's source under it
as recorded); ``TYPING_OFF`` and ``INLINING_OFF`` say why a fix is off (None when on), and ``compile_fixes``
applies only the fixes that are on.
"""

from __future__ import annotations

import contextlib
import inspect
import textwrap
import threading

from numba.core import inline_closurecall, targetconfig

from .lazylink import lazy_linking
from .selfcheck import cause

_LOCK = threading.Lock()

_DEFAULTS: dict = {}  # TargetConfig subclass -> {option: default}


def fast_values(self) -> dict:
    """``TargetConfig.values`` (every option's value, defaults included) without a property call each."""
    cls = type(self)
    d = _DEFAULTS.get(cls)
    if d is None:
        d = _DEFAULTS[cls] = {k: opt.default for k, opt in cls.options.items()}
    out = d.copy()
    out.update(self._values)
    if len(out) != len(d):  # a value of an option this class does not have: numba's own answer
        return _ORIGINAL_VALUES(self)
    return out


_HASHES: dict = {}  # TargetConfig subclass -> the hash of each of its instances


def fast_hash(self) -> int:
    """``TargetConfig.__hash__``: numba hashes the sorted keys of ``values()``, i.e. the class's option names."""
    cls = type(self)
    h = _HASHES.get(cls)
    if h is None:
        h = _HASHES[cls] = hash(tuple(sorted(fast_values(self))))
    return h


def fast_eq(self, other):
    """``TargetConfig.__eq__`` (equal ``values()``), at once when both set the same options alike."""
    if not isinstance(other, targetconfig.TargetConfig):
        return NotImplemented
    if type(self) is type(other) and self._values == other._values:
        return True
    return fast_values(self) == fast_values(other)


_ORIGINAL_VALUES = targetconfig.TargetConfig.values
_ORIGINAL_HASH = targetconfig.TargetConfig.__hash__
_ORIGINAL_EQ = targetconfig.TargetConfig.__eq__
_ORIGINAL_INLINE_IR = inline_closurecall.InlineWorker.inline_ir

# (numba's line, ours) in the source of InlineWorker.inline_ir, dedented
_INLINE_IR_EDITS = (
    ("""        kernel_copy.blocks = {}
        for block_label, block in the_ir.blocks.items():
            new_block = copy.deepcopy(the_ir.blocks[block_label])
            kernel_copy.blocks[block_label] = new_block
""", """        kernel_copy.blocks = copy.deepcopy(the_ir.blocks)
"""),
    ("    callee_ir = copy_ir(callee_ir)\n", "    callee_ir_input = callee_ir\n    callee_ir = copy_ir(callee_ir)\n"),
    ("    callee_ir_original = copy_ir(callee_ir)\n", "    callee_ir_original = callee_ir_input\n"),
)


def _build_inline_ir():
    """Return numba's ``inline_ir`` with the edits above, or None if its source is not as expected."""
    try:
        src = textwrap.dedent(inspect.getsource(_ORIGINAL_INLINE_IR))
    except (OSError, TypeError):
        return None
    for old, new in _INLINE_IR_EDITS:
        if src.count(old) != 1:
            return None
        src = src.replace(old, new)
    namespace: dict = {}
    exec(compile(src, inline_closurecall.__file__, "exec"), vars(inline_closurecall), namespace)  # noqa: S102
    return namespace[_ORIGINAL_INLINE_IR.__name__]


TYPING_OFF = cause("typing_fix")
INLINING_OFF = cause("inlining_fix")
FAST_INLINE_IR = _build_inline_ir() if INLINING_OFF is None else None
if INLINING_OFF is None and FAST_INLINE_IR is None:
    INLINING_OFF = "numba's InlineWorker.inline_ir does not read as the fix's edits expect: inlining_fix is off"


@contextlib.contextmanager
def compile_fixes():
    """Within: numba uses the fixes of this module's doc and ``lazy_linking`` (process-wide, restored on exit)."""
    with _LOCK:
        if TYPING_OFF is None:
            targetconfig.TargetConfig.values = fast_values
            targetconfig.TargetConfig.__hash__ = fast_hash
            targetconfig.TargetConfig.__eq__ = fast_eq
        if INLINING_OFF is None and FAST_INLINE_IR is not None:
            inline_closurecall.InlineWorker.inline_ir = FAST_INLINE_IR
        try:
            with lazy_linking():
                yield
        finally:
            targetconfig.TargetConfig.values = _ORIGINAL_VALUES
            targetconfig.TargetConfig.__hash__ = _ORIGINAL_HASH
            targetconfig.TargetConfig.__eq__ = _ORIGINAL_EQ
            inline_closurecall.InlineWorker.inline_ir = _ORIGINAL_INLINE_IR
