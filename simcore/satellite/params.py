"""Parameters and result of the satellite-proxy model (Pearson & McGregor; see ASSUMPTIONS.md)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore._validate import (
    check_bool,
    check_choice,
    check_int,
    check_order,
    check_real,
    most_within_memory,
    store_python_numbers,
)

from .tcp import TCP_PRESETS
from .workload import WorkloadParams

__all__ = ["ARCHITECTURES", "HTTP_VERSIONS", "RELAYS", "SatelliteParams", "SatelliteResult"]

ARCHITECTURES = ("base", "us_proxy")
RELAYS = ("store_and_forward", "cut_through")
HTTP_VERSIONS = ("1.0", "1.1")


# Bytes a full run keeps per request of the merged traces (measured: 1.7 KB at 170,000 requests, base and
# US proxy alike): the workload's columns and their merged copies, the connections' and messages' rows
# and the packet kernel's per-connection records: 2 KB with margin.
BYTES_PER_REQUEST = 2048
MAX_REQUESTS, _REQUESTS_WHY = most_within_memory(BYTES_PER_REQUEST, "request")


@dataclass(frozen=True)
class SatelliteParams:
    """One run of the study. Defaults are the paper's Table 1 (sizes in bytes, rates bits/s, times s).

    architecture: 'base' (NZ proxy, a router in the US, one TCP connection across the satellite per
        request, HTTP/1.0) or 'us_proxy' (``n_proxy_connections`` persistent inter-proxy connections; the
        US proxy opens a new connection to the server per request).
    n_traces: the load, in day-traces merged as the paper did (sec. 3; ~421 requests per 10 min each).
    duration_s: simulated time; requests of the first ``duration_s`` of the merged interval are made.
    router_buffer_bytes: the buffer feeding each end of the satellite (512 KB); its packet limit is set
        so the byte limit binds unless queued packets average under 512 bytes.
    proxy_window_bytes / proxy_mss_bytes: the proxies' TCP buffers (32767) and the inter-proxy MSS (1460).
    mux_overhead_bytes: multiplexing overhead per reply segment received from a server (20).
    relay: how the US proxy forwards a reply: 'store_and_forward' (once it has all arrived; default) or
        'cut_through' (byte by byte as it arrives). See ASSUMPTIONS.md for why the default.
    n_rate_classes / n_delay_classes: the servers' release rates and US delays are quantized to this many
        log-spaced classes (one slot link per class and concurrent request).
    slot_slack: a server slot is reused ``slot_slack`` times its request's nominal duration later.
    sample_window_fraction: the sample pages are requested evenly over this fraction of the run, and
        latencies are timed for the requests made in it (``measured_until_s``); the rest of the run is
        their drain (requests keep arriving, so the load does not change).
    measure_buffers: report the satellite buffers' mean and peak occupancy (the engine keeps them without
        traces, so this costs nothing; False reports NaN).
    tcp_preset: every connection's TCP, 'bsd44lite' (the paper's 4.4BSD-Lite; default) or 'linux'
        (beyond the paper: today's TCP). A ``proxy_window_bytes`` above 65535 stands for RFC 1323
        window scaling (the engine's windows are not limited to 16 bits).
    http_version: '1.0' (the paper: a new connection per request) or '1.1' (beyond the paper, base only:
        persistent connections from the NZ proxy to servers drawn from a Zipf-like popularity over
        ``n_servers`` servers with exponent ``server_zipf_alpha``; ``simcore/satellite/persistent.py``).
    """

    architecture: str = "base"
    n_proxy_connections: int = 100
    n_traces: int = 1
    duration_s: float = 600.0
    satellite_rate_bps: float = 34.368e6
    satellite_delay_s: float = 0.320
    router_buffer_bytes: int = 512 * 1024
    proxy_window_bytes: int = 32767
    proxy_mss_bytes: int = 1460
    mux_overhead_bytes: int = 20
    relay: str = "store_and_forward"
    n_rate_classes: int = 32
    n_delay_classes: int = 8
    slot_slack: float = 3.0
    sample_window_fraction: float = 0.75
    measure_buffers: bool = True
    tcp_preset: str = "bsd44lite"
    http_version: str = "1.0"
    n_servers: int = 5000
    server_zipf_alpha: float = 0.8
    workload: WorkloadParams = field(default_factory=WorkloadParams)

    def __post_init__(self):
        store_python_numbers(self)
        check_choice("architecture", self.architecture, ARCHITECTURES)
        check_int("n_proxy_connections", self.n_proxy_connections, 1, 10_000)
        check_int("n_traces", self.n_traces, 1, 100_000)
        if not isinstance(self.workload, WorkloadParams):
            raise ValueError(f"workload={self.workload!r} is not allowed: must be a WorkloadParams")
        most = int(MAX_REQUESTS // self.workload.requests_per_interval)
        check_int("n_traces", self.n_traces, 1, max(most, 1),
                  why=f"{self.workload.requests_per_interval:g} requests each, {_REQUESTS_WHY}")
        check_real("duration_s", self.duration_s, 0.0, self.workload.interval_s, lo_open=True)
        check_real("satellite_rate_bps", self.satellite_rate_bps, 1e3, 1e11)
        check_real("satellite_delay_s", self.satellite_delay_s, 0.0, 2.0)
        check_int("router_buffer_bytes", self.router_buffer_bytes, 1500, 2**30)
        check_int("proxy_mss_bytes", self.proxy_mss_bytes, 64, 65495)
        check_int("proxy_window_bytes", self.proxy_window_bytes, 64, 2**30)
        check_order("proxy_mss_bytes", self.proxy_mss_bytes, "proxy_window_bytes", self.proxy_window_bytes)
        check_int("mux_overhead_bytes", self.mux_overhead_bytes, 0, 1000)
        check_choice("relay", self.relay, RELAYS)
        check_int("n_rate_classes", self.n_rate_classes, 1, 1000)
        check_int("n_delay_classes", self.n_delay_classes, 1, 1000)
        check_real("slot_slack", self.slot_slack, 1.0, 100.0)
        check_real("sample_window_fraction", self.sample_window_fraction, 0.0, 1.0, lo_open=True)
        check_bool("measure_buffers", self.measure_buffers)
        check_choice("tcp_preset", self.tcp_preset, TCP_PRESETS)
        check_choice("http_version", self.http_version, HTTP_VERSIONS)
        check_int("n_servers", self.n_servers, 1, 10**7)
        check_real("server_zipf_alpha", self.server_zipf_alpha, 0.0, 3.0)
        if self.http_version == "1.1" and self.architecture != "base":
            raise ValueError(f"http_version='1.1' is not allowed with architecture={self.architecture!r}: "
                             "persistent connections from the NZ proxy are modelled for 'base' only")

    @property
    def measured_until_s(self) -> float:
        """Return the end of the timed part of the run: requests made before it are timed (s)."""
        return self.duration_s * self.sample_window_fraction

    @property
    def router_queue_packets(self) -> int:
        """Return the packet limit of the satellite buffers: ceil(router_buffer_bytes / 512), at least 64."""
        return max(64, -(-self.router_buffer_bytes // 512))


@dataclass(frozen=True)
class SatelliteResult:
    """What ``simulate_satellite`` returns (the paper's figures 5-7 quantities; units in names).

    NZ-bound = US -> NZ (replies), US-bound = NZ -> US (requests, ACKs). Loads are on-wire bits/s over
    ``duration_s`` (TCP/IP headers included); ``presented_load_bps`` is the reply bytes of the requests
    made in the run (the paper's "NZ bound traffic presented to the US proxy or router").
    ``inbound_outbound_ratio`` = NZ-bound / US-bound on-wire bytes (the paper's figure 7d, ~19).
    Request times run from the request to the last reply byte at the NZ proxy (NaN if not finished).
    The means (``sample_latency_mean_s``, ``request_time_mean_s``) are over the requests made before
    ``measured_until_s`` (the sample pages all are; the rest of the run is their drain); a request still
    unfinished at the end counts with its age then, so with ``*_unfinished`` > 0 the mean is a lower bound.
    Buffer use is what packets arriving at a satellite buffer find in it (the engine samples occupancy
    at arrivals), NaN unless ``measure_buffers``. US connections: the per-request TCP connections to the
    US servers (from the NZ proxy in the base case, the US proxy otherwise), mean and peak over the run.
    ``slot_overlaps``: requests whose server slot was still in use by an earlier request (they then
    share its release rate); should be ~0, else raise ``slot_slack``.
    """

    architecture: str
    n_proxy_connections: int
    n_traces: int
    duration_s: float
    requests: int
    presented_load_bps: float
    carried_nz_bound_bps: float
    carried_us_bound_bps: float
    inbound_outbound_ratio: float
    sample_latency_mean_s: float
    sample_unfinished: int
    request_time_mean_s: float
    requests_unfinished: int
    buffer_mean_bytes_us_end: float
    buffer_peak_bytes_us_end: float
    buffer_mean_bytes_nz_end: float
    buffer_peak_bytes_nz_end: float
    us_connections_mean: float
    us_connections_peak: int
    drops_us_end: int
    drops_nz_end: int
    retransmits: int
    timeouts: int
    slots: int
    slot_overlaps: int
    events: int
    build_s: float
    simulate_s: float
    sample_latency_s: np.ndarray = field(repr=False)  # per sample page
    request_time_s: np.ndarray = field(repr=False)  # per request (workload requests, then sample pages)
    request_made_s: np.ndarray = field(repr=False)  # when each request was made
