"""Compile (and cache) every numba kernel once, so a student's first slider move does not wait.

Binder's postBuild runs ``python -m simcore warm``; each model adds a tiny run to ``WARMERS``. It also
compiles simcore's Python files to bytecode (``compile_bytecode``): an editable install (Binder's, ``make
install``'s) has none until a module is first imported, and a chapter's first Run All would otherwise compile
the modules no warmer imports (its predictions, its tables) on the way to the first plot.
"""

from __future__ import annotations

import compileall
import importlib
import sys
import time
from pathlib import Path

from simcore._cache_guard import kernel_cached

__all__ = ["WARMERS", "warm_all", "compile_bytecode", "progress_bar", "packet_kernels_cached", "cold_notice",
           "PACKET_COMPILE_S", "compiled_here"]

# "module:function" entries, each a no-argument function that runs its model once on a tiny input.
WARMERS: list[str] = [
    "simcore.warm:_warm_queue",
    "simcore.warm:_warm_fluid",
    "simcore.warm:_warm_admission",
    "simcore.warm:_warm_delay",
    "simcore.chapters.delay:warm",
    "simcore.chapters.admission:warm",
    "simcore.chapters.tcp_primer:warm",
    "simcore.chapters.reliable_transfer:warm",
    "simcore.chapters.reliable_transfer_rtt:warm",
    "simcore.chapters.reliable_transfer_aimd:warm",
    "simcore.chapters.delay_tcp:warm",
    "simcore.chapters.objpack:warm",
    "simcore.chapters.ftp_sctp:warm",
    "simcore._page_plotly:warm",  # not numba: the gzipped plotly.js the live figures send once per page
]


def _warm_queue() -> None:
    from simcore.queueing import QueueParams, simulate_queue
    from simcore.queueing.replications import estimate_mean_wait

    simulate_queue(QueueParams(n_customers=10, buffer_size=2), 0)
    simulate_queue(QueueParams(n_customers=10), 0)
    estimate_mean_wait(QueueParams(arrival_rate_per_s=0.5), 0)  # the waits recursion start-here's intervals use


def _warm_fluid() -> None:
    from simcore.fluid import FluidParams, simulate_fluid

    simulate_fluid(FluidParams(n_flows=20), 0)


def _warm_admission() -> None:
    from simcore.admission import AdmissionParams, simulate_admission

    for policy in ("HTTP", "FTP", "Reserve", "Ticket"):
        simulate_admission(AdmissionParams(policy=policy, n_clients=10), 0)


def _warm_delay() -> None:
    from simcore.delay import DelayParams, simulate_ideal

    for mode in ("1.0", "1.1", "1.2"):
        simulate_ideal(DelayParams(mode=mode))


# Cold compile of the packet kernels on the project's 2-core reference machine, as measured by
# benchmarks/bench_compile.py (rounded up, with margin; 2026-11-23, TCP and SCTP, S passed by reference:
# 26 s CPU / 27 s wall, beside 69-72 s CPU for the version before, on a busy machine; the CPU time is what a
# quiet machine's wall time comes to); shown to a student whose first run will compile them.
# With SCTP merged, after compile4's trims (2026-11-24): 31-35 s CPU beside main's 43-54 s in side-by-side runs
# on the busy machine (~ -20 %); 35 stays as the rounded-up figure.
# After compile5 (error_model="numpy", _numba.fixes, 2026-11-24): 22.9-30.7 s CPU beside main's 29.5-35.7 s in
# side-by-side runs on the busy machine (-15 % to -22 %; 22.9 s CPU / 26.1 s wall at load 2); 30 is the
# rounded-up figure. Merged with main's event lanes: 24.0-25.7 s CPU beside that main's 30.8-31.9 s (load 1-3).
# With congestion control behind its seam, CUBIC, BBR (pacing, delivery-rate samples) and the AQM disciplines
# (2026-11-28, e72d1a6, machine idle): 69.0 s wall / 69.0 s CPU, beside 35.6 s for 52919cf on the same run; the
# notice said 30 s while a student waited 70.
# With _numba.lazylink (2026-11-29, 882b64b): 36-40 s wall on this machine at its usual speed, 53-60 s in its slow
# spells (the same runs took 83-104 s before it); the notice says 45 s.
PACKET_COMPILE_S = 45


def packet_kernels_cached() -> bool:
    """Return True if numba's cache holds a compiled packet event loop (``simcore.packet.kernel.loop.run``)
    for the current sources, i.e. a first ``simulate`` will load it instead of compiling (for about
    ``PACKET_COMPILE_S`` seconds). Never raises: when numba's cache cannot be read (absent, stale or
    damaged: ``simcore._cache_guard.kernel_cached``), returns False."""
    try:
        from simcore.packet.kernel.loop import run
    except Exception:  # cannot even import: say "cold" rather than fail a panel
        return False
    return kernel_cached(run)  # compiled here already, or index and data readable (a damaged entry: False)


def cold_notice(kernels: str = "packet") -> str | None:
    """Return the notice a panel shows before its first run when ``kernels`` are not compiled yet on this
    machine ("compiling, first run on this machine, about N s"), or None when they are cached."""
    check = {"packet": (packet_kernels_cached, PACKET_COMPILE_S)}
    if kernels not in check:
        raise ValueError(f"kernels={kernels!r} is not allowed: must be one of {sorted(check)}")
    cached, seconds = check[kernels]
    if cached():
        return None
    return f"Compiling the simulator, first run on this machine, about {seconds} s (later runs start at once)."


def progress_bar(done: int, total: int, width: int = 24) -> str:
    """Return a text progress bar such as ``[#########---------------]  3/8``."""
    filled = width * done // total if total else width
    return f"[{'#' * filled}{'-' * (width - filled)}] {done:>2}/{total}"


def compile_bytecode() -> bool:
    """Write the bytecode (``__pycache__/*.pyc``) of every simcore module that lacks a current one; return
    False if some could not be written (a read-only install, where pip wrote them at install time)."""
    try:
        return bool(compileall.compile_dir(Path(__file__).parent, quiet=2, workers=1))
    except OSError:
        return False


def warm_all(verbose: bool = True) -> float:
    """Run every warmer (after ``compile_bytecode``); return the total wall time in seconds. With
    ``verbose``, say first that a cold cache means compiling (minutes on a first run, seconds after) and show
    a progress bar per warmer."""
    start = time.perf_counter()
    compile_bytecode()
    n = len(WARMERS)
    if verbose:
        print("Preparing simcore's numba kernels: on the first run on this machine they compile "
              "(a few minutes); later runs load them from the cache in seconds.", flush=True)
    for i, entry in enumerate(WARMERS):
        module, func = entry.split(":")
        if verbose:
            print(f"\r{progress_bar(i, n)} {entry:<40}", end="", flush=True, file=sys.stdout)
        t0 = time.perf_counter()
        getattr(importlib.import_module(module), func)()
        if verbose:
            print(f"\r{progress_bar(i + 1, n)} {entry:<40} {time.perf_counter() - t0:6.1f} s", flush=True)
    return time.perf_counter() - start


def compiled_here() -> list[str]:
    """Return the simcore numba functions (``module.name``) that this process compiled because numba's cache
    had no usable copy (a cache miss), not loaded. After ``warm_all()`` on a course server whose shared cache
    was warmed at build time this must be empty: ``python -m simcore warm --check`` fails otherwise."""
    from numba.core.dispatcher import Dispatcher

    out = []
    for name, module in sorted(sys.modules.items()):
        if not (name == "simcore" or name.startswith("simcore.")) or module is None:
            continue
        for attr, obj in sorted(vars(module).items()):
            if isinstance(obj, Dispatcher) and obj.__module__ == name and sum(obj.stats.cache_misses.values()):
                out.append(f"{name}.{attr}")
    return out
