"""Where a cold compile of the packet kernels spends its time, per function and per stage (used by
``bench_compile.py --breakdown``; numba internals are wrapped here only, never in ``simcore``).

Stages, each timed exclusive of the others (a callee's compile nested in its caller's type inference is
the callee's): numba's passes by name (``nopython_type_inference``, ``native_lowering`` ...), and inside
them LLVM's work on the function's library: ``llvm:func`` (function passes on the freshly lowered IR),
``llvm:link`` (linking the callees' libraries in), ``llvm:opt`` (module passes over the linked module),
``llvm:codegen`` (machine code), plus ``cache:save`` (writing the cache files). ``ir_lines`` is the size of
the library's final module (its own code and every callee linked in and not inlined away): code that
appears in many libraries is optimised and turned into machine code once per library.
"""

from __future__ import annotations

import time
from collections import defaultdict

from numba.core import caching, codegen, event

_stack: list[list] = []  # frames: [func, stage, start, child_seconds]
_acc: dict = defaultdict(float)  # (func, stage) -> exclusive seconds
_libs: dict = {}  # func -> library
_disp: dict = {}  # func -> dispatcher


def _func() -> str:
    for f in reversed(_stack):
        if f[1] == "compile":
            return f[0]
    return "?"


def _push(func: str, stage: str) -> None:
    _stack.append([func, stage, time.perf_counter(), 0.0])


def _pop() -> None:
    func, stage, t0, child = _stack.pop()
    dur = time.perf_counter() - t0
    _acc[(func, stage)] += dur - child
    if _stack:
        _stack[-1][3] += dur


class _Compile(event.Listener):
    def on_start(self, ev):
        d = ev.data["dispatcher"]
        name = f"{d.py_func.__module__.rsplit('.', 1)[-1]}.{d.py_func.__name__}"
        _disp[name] = d
        _push(name, "compile")

    def on_end(self, ev):
        _pop()


class _Pass(event.Listener):
    def on_start(self, ev):
        _push(_func(), ev.data["name"].split(" [")[0])

    def on_end(self, ev):
        _pop()


def _wrap(cls, meth: str, stage: str) -> None:
    orig = getattr(cls, meth)

    def wrapper(self, *a, **k):
        _push(_func(), stage)
        try:
            return orig(self, *a, **k)
        finally:
            _pop()
            if stage == "llvm:opt":
                _libs.setdefault(_func(), self)

    setattr(cls, meth, wrapper)


def install() -> None:
    """Start recording (call before the first compile)."""
    event.register("numba:compile", _Compile())
    event.register("numba:run_pass", _Pass())
    _wrap(codegen.CPUCodeLibrary, "_optimize_functions", "llvm:func")
    _wrap(codegen.CPUCodeLibrary, "_optimize_final_module", "llvm:opt")
    _wrap(codegen.JITCodeLibrary, "_finalize_specific", "llvm:codegen")
    _wrap(caching.Cache, "save_overload", "cache:save")
    orig_finalize = codegen.CPUCodeLibrary.finalize

    def finalize(self):  # linking = finalize minus what the other wrappers time
        _push(_func(), "llvm:link")
        try:
            return orig_finalize(self)
        finally:
            _pop()

    codegen.CPUCodeLibrary.finalize = finalize


def _ir_lines(lib) -> int:
    try:
        return str(lib._final_module).count("\n")
    except Exception:  # noqa: BLE001 - inspection may be disabled for a library
        return -1


def report(top: int = 100) -> None:
    """Print the stages' totals, then the functions by exclusive compile time."""
    stages: dict = defaultdict(float)
    funcs: dict = defaultdict(lambda: defaultdict(float))
    for (func, stage), s in _acc.items():
        group = stage if stage.startswith(("llvm:", "cache:")) else (
            "typing" if "type" in stage else "lowering" if "lowering" in stage else "numba:other")
        stages[group] += s
        funcs[func][group] += s
    passes: dict = defaultdict(float)
    for (_f, stage), s in _acc.items():
        passes[stage] += s
    total = sum(stages.values())
    print(f"\nbreakdown of the compile ({len(funcs)} functions compiled, {total:.2f} s in all):")
    for g, s in sorted(stages.items(), key=lambda x: -x[1]):
        print(f"  {g:<14} {s:7.2f} s  {100 * s / total:5.1f} %")
    print("  by pass: " + ", ".join(f"{k} {v:.2f}" for k, v in sorted(passes.items(), key=lambda x: -x[1])[:14]))
    cols = ["typing", "lowering", "numba:other", "llvm:func", "llvm:link", "llvm:opt", "llvm:codegen",
            "cache:save"]
    print(f"\n{'function':<36}{'total':>7}" + "".join(f"{c.split(':')[-1][:8]:>9}" for c in cols)
          + f"{'ir_lines':>9}{'sigs':>5}")
    rows = sorted(funcs.items(), key=lambda x: -sum(x[1].values()))
    for func, g in rows[:top]:
        lib = _libs.get(func)
        d = _disp.get(func)
        print(f"{func[:35]:<36}{sum(g.values()):7.2f}" + "".join(f"{g.get(c, 0.0):9.2f}" for c in cols)
              + f"{_ir_lines(lib) if lib is not None else 0:9d}{len(d.signatures) if d is not None else 0:5d}")
    lines = sum(max(_ir_lines(lib), 0) for lib in _libs.values())
    print(f"\nLLVM IR lines over all libraries: {lines} (the entry point's library alone: "
          f"{max((_ir_lines(lib) for lib in _libs.values()), default=0)})")
    print(f"dispatchers compiled: {len(_disp)}; with more than one signature:")
    for f, d in _disp.items():
        if len(d.signatures) > 1:
            print(f"  {f}: " + "; ".join(", ".join(str(a) for a in sig[1:]) for sig in d.signatures))
