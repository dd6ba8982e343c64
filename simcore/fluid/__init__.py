"""The fluid (flow-level) model: flows share capacity max-min fairly; exact event-driven completions.

Units throughout: bytes, bytes per second (suffix ``_Bps``), seconds. Public API: ``simulate_flows`` (arrays
in), ``simulate_fluid(FluidParams, seed)``, ``poisson_flows``, ``fluid_summary`` (for ``simcore.sweep``),
``ps_mean_sojourn_s`` (closed form), ``FluidResult``. Kernels other models reuse
(``@njit(cache=True)``, importable from ``simcore.fluid._kernel`` or from here): ``max_min_rates``,
``max_min_rates_scratch``, ``water_level``, ``advance_remaining``, ``next_completion``.
"""

from simcore.fluid._kernel import (
    advance_remaining,
    max_min_rates,
    max_min_rates_scratch,
    next_completion,
    water_level,
)
from simcore.fluid.bottleneck import (
    FluidParams,
    FluidResult,
    fluid_summary,
    poisson_flows,
    ps_mean_sojourn_s,
    simulate_flows,
    simulate_fluid,
)

__all__ = [
    "FluidParams",
    "FluidResult",
    "simulate_flows",
    "simulate_fluid",
    "poisson_flows",
    "ps_mean_sojourn_s",
    "fluid_summary",
    "max_min_rates",
    "max_min_rates_scratch",
    "water_level",
    "advance_remaining",
    "next_completion",
]
