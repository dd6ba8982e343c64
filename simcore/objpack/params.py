"""Parameters of the object-packaging testbed (the paper's Figure 3) and of its page of files.

Defaults are the paper's testbed where it says (10 Mbit/s hub, about 100 files per test, HTTP/1.0 one
connection per file) and calibrated or standard values where it does not; ``simcore/objpack/ASSUMPTIONS.md``
gives the reason for each. Sizes are bytes, rates bits/s, times seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_bool, check_choice, check_int, check_order, check_real, store_python_numbers

__all__ = ["METHODS", "METHOD_LABELS", "PAPER_METHODS", "DISTRIBUTIONS", "ObjpackParams",
           "MAX_SERVER_PACKET_S"]

# How the client fetches the files.
METHODS = ("http10", "package", "keepalive", "parallel", "pipelined", "multistream")
METHOD_LABELS = {
    "http10": "HTTP/1.0, one connection per file (the paper's existing method)",
    "package": "object package (one request, one file)",
    "keepalive": "HTTP/1.1 keep-alive, one connection, one request at a time",
    "parallel": "keep-alive over parallel connections (a browser's six)",
    "pipelined": "HTTP/1.1 pipelining, all requests at once",
    "multistream": "multiplexed streams (HTTP/2-style, one stream per file)",
}
PAPER_METHODS = ("http10", "package")
DISTRIBUTIONS = ("fixed", "uniform", "exponential", "lognormal")
# The per-packet cost is carried by a link-layer header on the server's stage link, which the packet
# level bounds to 10**4 bytes: per-packet cost <= 10**4 bytes at the stack's byte rate.
MAX_SERVER_PACKET_S = 2e-3


@dataclass(frozen=True)
class ObjpackParams:
    """One page of ``n_files`` files fetched from the paper's testbed by one ``method``.

    Files: ``n_files`` of mean ``mean_file_bytes``, sizes drawn from ``size_distribution`` ('fixed': all
    equal; 'uniform' on [0.5, 1.5] x mean; 'exponential'; 'lognormal' with sigma 1, heavy-tailed like web
    files), each at least 1 byte; a share ``text_fraction`` are text (compressible), the rest binary.

    Network: client and server on a hub of ``link_rate_bps``, one half-duplex medium both directions
    share (a single FIFO link, see ``testbed``); ``rtt_s`` is the round-trip propagation plus host
    latency. Every packet carries ``tcpip_header_bytes`` + ``ethernet_header_bytes`` (what a monitor on
    the hub counts) and occupies the medium ``framing_bytes`` longer (preamble, FCS, inter-frame gap).

    Server: per file ``server_file_s`` (disk access, open) and ``server_copy_s_per_byte`` x size (reading
    and copying the file) before the response is written: both least-squares fitted to Table 3's six
    response times (``calibrate.fit_server_costs``); per packet ``server_packet_s`` plus
    ``8 / server_stack_rate_bps`` per byte (protocol processing, checksum: 80 ns per byte at 100 Mbit/s),
    pipelined with the medium (assumed, not fitted).

    HTTP: ``request_bytes`` per GET, ``response_header_bytes`` per response. ``parallel_connections`` is
    used by method 'parallel'. ``compress``: zlib on the generated content (per file, or the whole
    package).
    """

    n_files: int = 100
    mean_file_bytes: int = 1000
    size_distribution: str = "fixed"
    method: str = "http10"
    link_rate_bps: float = 10e6
    rtt_s: float = 1e-4
    server_file_s: float = 4.45e-3  # least-squares fit to Table 3 (calibrate.fit_server_costs), rounded
    server_copy_s_per_byte: float = 162e-9  # the same fit
    server_packet_s: float = 50e-6
    server_stack_rate_bps: float = 100e6
    request_bytes: int = 220
    response_header_bytes: int = 180
    parallel_connections: int = 6
    mss_bytes: int = 1460
    rwnd_bytes: int = 17520
    initial_window_segments: int = 2
    tcpip_header_bytes: int = 40
    ethernet_header_bytes: int = 14
    framing_bytes: int = 24
    text_fraction: float = 0.5
    compress: bool = False

    def __post_init__(self):
        store_python_numbers(self)
        check_int("n_files", self.n_files, 1, 2000)
        check_int("mean_file_bytes", self.mean_file_bytes, 1, 10**7)
        check_choice("size_distribution", self.size_distribution, DISTRIBUTIONS)
        check_choice("method", self.method, METHODS)
        check_real("link_rate_bps", self.link_rate_bps, 1e4, 1e10)
        check_real("rtt_s", self.rtt_s, 0.0, 10.0)
        check_real("server_file_s", self.server_file_s, 0.0, 10.0)
        check_real("server_copy_s_per_byte", self.server_copy_s_per_byte, 0.0, 1e-5)
        check_real("server_stack_rate_bps", self.server_stack_rate_bps, 1e6, 1e11)
        hi = min(MAX_SERVER_PACKET_S, 10**4 * 8.0 / self.server_stack_rate_bps)
        check_real("server_packet_s", self.server_packet_s, 0.0, hi)
        check_int("request_bytes", self.request_bytes, 1, 10**5)
        check_int("response_header_bytes", self.response_header_bytes, 0, 10**5)
        check_int("parallel_connections", self.parallel_connections, 1, 32)
        check_int("mss_bytes", self.mss_bytes, 100, 9000)
        check_int("rwnd_bytes", self.rwnd_bytes, 100, 2**30)
        check_order("mss_bytes", self.mss_bytes, "rwnd_bytes", self.rwnd_bytes)
        check_int("initial_window_segments", self.initial_window_segments, 1, 100)
        check_int("tcpip_header_bytes", self.tcpip_header_bytes, 0, 1000)
        check_int("ethernet_header_bytes", self.ethernet_header_bytes, 0, 1000)
        check_int("framing_bytes", self.framing_bytes, 0, 1000)
        check_real("text_fraction", self.text_fraction, 0.0, 1.0)
        check_bool("compress", self.compress)

    @property
    def header_bytes(self) -> int:
        """Bytes a monitor on the hub counts per packet beyond its TCP payload (TCP/IP + Ethernet)."""
        return self.tcpip_header_bytes + self.ethernet_header_bytes
