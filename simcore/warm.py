"""Compile (and cache) every numba kernel once, so a student's first slider move does not wait.

Binder's postBuild runs ``python -m simcore warm``; each model adds a tiny run to ``WARMERS``.
"""

from __future__ import annotations

import importlib
import time

__all__ = ["WARMERS", "warm_all"]

# "module:function" entries, each a no-argument function that runs its model once on a tiny input.
WARMERS: list[str] = [
    "simcore.warm:_warm_queue",
    "simcore.warm:_warm_fluid",
    "simcore.warm:_warm_admission",
    "simcore.warm:_warm_delay",
    "simcore.chapters.delay:warm",
    "simcore.chapters.admission:warm",
    "simcore.chapters.tcp_primer:warm",
    "simcore.chapters.delay_tcp:warm",
    "simcore.livefigure:warm",  # not numba: the gzipped plotly.js the live figures send once per page
]


def _warm_queue() -> None:
    from simcore.queueing import QueueParams, simulate_queue

    simulate_queue(QueueParams(n_customers=10, buffer_size=2), 0)
    simulate_queue(QueueParams(n_customers=10), 0)


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


def warm_all(verbose: bool = True) -> float:
    """Run every warmer; return the total wall time in seconds."""
    start = time.perf_counter()
    for entry in WARMERS:
        module, func = entry.split(":")
        t0 = time.perf_counter()
        getattr(importlib.import_module(module), func)()
        if verbose:
            print(f"warmed {entry} in {time.perf_counter() - t0:.1f} s")
    return time.perf_counter() - start
