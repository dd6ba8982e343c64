"""Numba: the check that code relying on numba's internals runs on import: switch off, never miscompile.

Three pieces of this folder lean on numba's internals rather than its extension API: ``outline`` (a call
through numba's calling convention with a ``noinline`` attribute), ``one_signature`` (it wraps a dispatcher's
``get_call_template``) and the two compile-time fixes of ``fixes`` (typing: ``TargetConfig``'s values, hash and
equality; inlining: an edited copy of ``InlineWorker.inline_ir``). Each was validated on the numba series in
``TESTED_SERIES`` (the golden check bit-identical, ``tests/packet/test_numba_fixes.py``, ``bench_compile``), and each
records here the SHA-256 of the dedented source of the numba functions it relies on (``RELIES_ON``). On import,
``cause(piece)`` is None when the installed numba is of a tested series and every one of those sources reads
as recorded; otherwise it names what differs, and the piece switches itself off: ``outline`` becomes a plain
call, ``one_signature`` leaves the dispatcher as it is, a fix is not applied. Off is slower to compile, never
different: every piece only changes how numba compiles, not what the code computes.

``SIMCORE_NUMBA_INTERNALS=off`` in the environment switches every piece off (to validate a numba upgrade
against the plain path: the golden check must stay identical; ``simcore._cache_guard`` drops the kernels'
cache when this setting changes, so cached kernels of the other setting are never loaded).
``python -m simcore.packet._numba`` prints the installed numba's version and, per piece, the recorded and
the found digest of each function (CONTRIBUTING.md, "Upgrading numba", says what to do with them).
"""

from __future__ import annotations

import hashlib
import importlib
import inspect
import os
import textwrap

import numba

__all__ = ["TESTED_SERIES", "RELIES_ON", "ENV_SWITCH", "cause", "digest", "numba_series"]

# numba series (major.minor) these pieces were validated on; pyproject.toml bounds numba to them.
TESTED_SERIES = ("0.68",)

ENV_SWITCH = "SIMCORE_NUMBA_INTERNALS"

# piece -> {numba function (module:qualname): SHA-256 of its dedented source, as 0.68.0 and 0.68.1 read it}
RELIES_ON: dict[str, dict[str, str]] = {
    "outline": {
        "numba.core.callconv:CPUCallConv.call_function":
            "0934ca70463acdb33ef6641312e12cfc58b5228d2ca845b04d2bf9334946c707",
        "numba.core.callconv:CPUCallConv.return_status_propagate":
            "e0cb7c14018b44825af325e5a6c776e2f7c81ef80781fc9183b362901514d924",
        "numba.core.base:BaseContext.declare_function":
            "5500974b5ab67e41f08c92fb355231e593b52f2076462d22ae34f8d8052e624f",
        "numba.core.base:BaseContext.add_linking_libs":
            "1b3e234729c38ab80ae0b2a815f5c11b5c952fc81b986adc58b1056f10d4bb70",
        "numba.core.typing.context:BaseContext.resolve_function_type":
            "93a3fa6dc3fcd96ad76fcf369d50badedd0c638577ca37194c73c36d0957f545",
    },
    "one_signature": {
        "numba.core.dispatcher:Dispatcher.get_call_template":
            "18c6c425c76156df7cdee274fef14e2f13c1c35f4c524c514b5e2340e6d195b9",
    },
    "typing_fix": {
        "numba.core.targetconfig:": "4ce1f40855345e488fba1128551ad74cf4cf9d38bd142482fb7c18bab563075f",
    },
    "lazy_linking": {
        "numba.core.codegen:CPUCodeLibrary.finalize":
            "751235266d09e80743e8e5bdcb4354da02b05e024b3c4143a3d9b1f5839694e5",
        "numba.core.codegen:CPUCodeLibrary.add_linking_library":
            "eebaedba03afd4487f008a3619edcdad6c87520793ce58b70fb572e4349603b5",
        "numba.core.codegen:CPUCodeLibrary._get_module_for_linking":
            "83975b285fa4bf77b4208c68e52c88655a0ac4b3f30dc50e4c5b46b9e5f28245",
        "numba.core.codegen:CPUCodeLibrary._finalize_final_module":
            "4b3b968a4354224db4d0e7cd35ce14569f249d6fb0c8f7b5b468799cc965234b",
        "numba.core.codegen:JITCodeLibrary.get_pointer_to_function":
            "ac86a1a4f8396c8309db26215554e9e6cfee68f285ff858deaebcc5b384a5d35",
        "numba.core.codegen:JITCPUCodegen.set_env":
            "449bd644bf995a49c1db99695c0ac3295431e56332c2552405c63fcd13ab242b",
        "numba.core.caching:Cache._save_overload":
            "0e6d6788e0dd753543dd3d012a16292303b244c23e8a785c91df66355ecc95b5",
        "numba.core.cpu:CPUContext.get_executable":
            "60a478a733c31515b758fd9ba5fce12e1d0901def9deb16a7f0d7d08b6c48381",
        "numba.core.typed_passes:NativeLowering.run_pass":
            "bb587189337a1cbef6f24ff8e8f5bedc076801b1c380433e20019def446b7d2e",
    },
    "inlining_fix": {
        "numba.core.inline_closurecall:InlineWorker.inline_ir":
            "a16b53c6f9e858e6acbd54f71eaad377dbe552fab09acc9124f558d07f86567a",
    },
}


def numba_series(version: str | None = None) -> str:
    """``'0.68'`` for numba 0.68.1 (the installed numba's when ``version`` is None)."""
    return ".".join((version or numba.__version__).split(".")[:2])


def digest(name: str) -> str | None:
    """SHA-256 of the dedented source of ``module:qualname`` (the whole module when qualname is empty), or None
    when it cannot be found or read."""
    mod_name, _, qualname = name.partition(":")
    try:
        obj = importlib.import_module(mod_name)
        for part in qualname.split(".") if qualname else ():
            obj = inspect.getattr_static(obj, part)
        src = textwrap.dedent(inspect.getsource(obj))
    except (ImportError, AttributeError, OSError, TypeError):
        return None
    return hashlib.sha256(src.encode()).hexdigest()


def cause(piece: str, *, version: str | None = None, recorded: dict[str, str] | None = None,
          environ=None) -> str | None:
    """None if ``piece`` may be used with the installed numba; else why it is off (one sentence naming it).

    ``version``, ``recorded`` and ``environ`` default to the installed numba's version, ``RELIES_ON[piece]`` and
    ``os.environ`` (the tests pass others)."""
    env = os.environ if environ is None else environ
    if env.get(ENV_SWITCH, "").strip().lower() == "off":
        return f"{ENV_SWITCH}=off switches numba-internals code off"
    series = numba_series(version)
    if series not in TESTED_SERIES:
        return (f"numba {version or numba.__version__} is not of a series {piece} was validated on "
                f"({', '.join(TESTED_SERIES)}): {piece} is off")
    for name, want in (RELIES_ON[piece] if recorded is None else recorded).items():
        got = digest(name)
        if got != want:
            what = "cannot be read" if got is None else "reads differently from the validated one"
            return f"numba's {name} {what}: {piece} is off"
    return None


def _main() -> None:  # python -m simcore.packet._numba
    print(f"numba {numba.__version__} (series {numba_series()}; tested: {', '.join(TESTED_SERIES)})")
    for piece, names in RELIES_ON.items():
        print(f"{piece}: {cause(piece) or 'on'}")
        for name, want in names.items():
            got = digest(name)
            print(f"  {name}\n    recorded {want}\n    found    {got}{'' if got == want else '   <- differs'}")
