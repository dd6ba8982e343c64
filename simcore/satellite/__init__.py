"""Chapter 2's model: HTTP over a symmetric E3 satellite link, with and without TCP-terminating proxies
(Pearson & McGregor). ``simulate_satellite(SatelliteParams(...), seed)`` runs the packet-level study;
``workload`` builds the synthetic stand-in for the NZIX trace. Assumptions: ``ASSUMPTIONS.md``.
"""

from .model import Plan, build_satellite, run_requests, simulate_satellite
from .params import ARCHITECTURES, RELAYS, SatelliteParams, SatelliteResult
from .tcp import era_tcp
from .workload import (
    Workload,
    WorkloadParams,
    day_traces,
    make_workload,
    merge_traces,
    reply_mean_bytes,
    reply_quantile_bytes,
    request_mean_bytes,
    sample_pages,
)

__all__ = [
    "ARCHITECTURES",
    "RELAYS",
    "Plan",
    "SatelliteParams",
    "SatelliteResult",
    "Workload",
    "WorkloadParams",
    "build_satellite",
    "day_traces",
    "era_tcp",
    "make_workload",
    "merge_traces",
    "reply_mean_bytes",
    "reply_quantile_bytes",
    "request_mean_bytes",
    "run_requests",
    "sample_pages",
    "simulate_satellite",
]
