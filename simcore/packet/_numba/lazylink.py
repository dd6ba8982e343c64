"""Numba: link-time fix, in force only while the packet kernels compile: a library that Python never calls is
turned into machine code once, inside the event loop's library, instead of once per library that calls it.

Why: numba turns every compiled function into a library of its own and *finalizes* each at once: links a copy of
every callee's finalized library into it, optimises the whole (LLVM's O3) and emits machine code. A callee
reached from many places is optimised and compiled again in each caller's library, and each caller's library
again in its own callers' (``qdisc.dispatch.enqueue`` lived in 17 libraries; the cached libraries of the packet
kernels took ~320 MB for a 23 MB event loop). Yet only the event loop ``kernel.loop.run`` (and the few kernels
with a Python wrapper) is ever called from Python: the kernels compiled with ``no_cpython_wrapper`` are only
ever linked into it, so their own machine code is never used.

The fix, while ``compile_fixes`` is in force:

- a library is finalized only when something needs its machine code: a function of it is asked for by name
  (``get_pointer_to_function``; numba asks for the Python wrapper, so a kernel without one is never finalized),
  or numba needs it as finished (caching, ``has_dynamic_globals``);
- linking a library into another does not finalize it; a library that is finalized links its callees'
  *unfinished* libraries' own code, each once, walking through them to everything they call (a finished
  library brings its code and its callees' as numba's linking does), then optimises and compiles the whole
  once, as numba does for any library;
- a library that was never finalized is not written to numba's cache (nothing loads it: the event loop's
  cached library holds all its code) and its environment pointer (unused by these kernels: no Python objects,
  no NRT) is not set.

Every function is compiled from the same IR by the same LLVM passes; what changes is that the optimiser sees
the whole event loop at once instead of pre-optimised pieces. The golden check (every scenario's every array)
is bit-identical with and without it. A library left unfinished when the fix leaves is finalized by numba's own
code if anything later asks for it (linking it elsewhere, a call): slower then, never different.

Relies on numba's ``CPUCodeLibrary`` (finalize, linking, the cache's save) and checks itself on import
(``selfcheck``, piece ``lazy_linking``): off on a numba it was not validated on.
"""

from __future__ import annotations

import contextlib

import llvmlite.binding as ll
from numba.core import caching, codegen
from numba.core.compiler_lock import require_global_compiler_lock

from .selfcheck import cause

LAZY_LINKING_OFF = cause("lazy_linking")

_ORIGINAL = {
    "finalize": codegen.CPUCodeLibrary.finalize,
    "add_linking_library": codegen.CPUCodeLibrary.add_linking_library,
    "get_pointer_to_function": codegen.JITCodeLibrary.get_pointer_to_function,
    "set_env": codegen.JITCPUCodegen.set_env,
    "_save_overload": caching.Cache._save_overload,
}


def _defines(module, name: str) -> bool:
    """Whether the LLVM ``module`` defines (not only declares) the function ``name``."""
    try:
        return not module.get_function(name).is_declaration
    except NameError:
        return False


def _own_module_for_linking(library):
    """An unfinished ``library``'s own code, its exported functions made ``linkonce_odr`` as numba's
    ``_get_module_for_linking`` makes them (so that copies from several callers merge into one)."""
    mod = library._final_module.clone()
    for fn in mod.functions:
        if not fn.is_declaration and fn.linkage == ll.Linkage.external:
            fn.linkage = "linkonce_odr"
    return mod


def lazy_finalize(self):
    """``CPUCodeLibrary.finalize``, linking each unfinished library reached from this one once (see module doc)."""
    require_global_compiler_lock()
    self._codegen._check_llvm_bugs()
    self._raise_if_finalized()
    seen = {id(self)}
    stack = list(reversed(self._linking_libraries))
    while stack:
        library = stack.pop()
        if id(library) in seen:
            continue
        seen.add(id(library))
        self._reload_init.update(library._reload_init)
        if library._finalized:
            self._final_module.link_in(library._get_module_for_linking(), preserve=True)
        else:
            self._final_module.link_in(_own_module_for_linking(library))
            stack.extend(reversed(library._linking_libraries))
    self._optimize_final_module()
    self._final_module.verify()
    self._finalize_final_module()


def lazy_add_linking_library(self, library):
    """``add_linking_library`` without finalizing ``library`` first."""
    self._linking_libraries.append(library)


def lazy_get_pointer_to_function(self, name):
    """0 for a function an unfinished library does not define (numba asks for the Python wrapper of every kernel,
    which those compiled without one lack) without finalizing it; numba's answer otherwise."""
    if not self._finalized and not _defines(self._final_module, name):
        return 0
    return _ORIGINAL["get_pointer_to_function"](self, name)


def lazy_set_env(self, env_name, env):
    """Set a function's environment pointer only when its library is in the execution engine."""
    if self._engine.is_symbol_defined(env_name):
        _ORIGINAL["set_env"](self, env_name, env)


def lazy_save_overload(self, sig, data):
    """Skip caching a kernel whose library was never finalized (its code lives in its callers' libraries)."""
    library = getattr(data, "library", None)
    if library is not None and not library._finalized:
        return
    _ORIGINAL["_save_overload"](self, sig, data)


_PATCHES = (
    (codegen.CPUCodeLibrary, "finalize", lazy_finalize),
    (codegen.CPUCodeLibrary, "add_linking_library", lazy_add_linking_library),
    (codegen.JITCodeLibrary, "get_pointer_to_function", lazy_get_pointer_to_function),
    (codegen.JITCPUCodegen, "set_env", lazy_set_env),
    (caching.Cache, "_save_overload", lazy_save_overload),
)


@contextlib.contextmanager
def lazy_linking():
    """Within: numba links and compiles libraries as the module's doc says (process-wide; restored on exit).
    A no-op when ``LAZY_LINKING_OFF``. Not reentrant: ``compile_fixes`` enters it under its lock."""
    if LAZY_LINKING_OFF is not None:
        yield
        return
    saved = [(cls, name, getattr(cls, name)) for cls, name, _ in _PATCHES]
    for cls, name, fn in _PATCHES:
        setattr(cls, name, fn)
    try:
        yield
    finally:
        for cls, name, fn in saved:
            setattr(cls, name, fn)
