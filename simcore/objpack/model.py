"""``simulate_objpack(params, seed)``: fetch a page of files from the hub testbed by one method.

The page (``workload.make_page``) is drawn from ``seed`` first; the packet level then runs with the
same ``seed`` (it draws only per-link loss seeds; the testbed has no random loss, so nothing else is
random). Response time is the paper's: from the client's first SYN (t = 0) to the arrival of the last
byte of the last file at the client.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_bool
from simcore.packet import PacketResult, simulate
from simcore.rng import SeedLike, check_seed

from .params import ObjpackParams
from .testbed import MEDIUM_LINK, build_scenario
from .wire import package_header_bytes
from .workload import Page, compressed_sizes, make_page

__all__ = ["ObjpackResult", "simulate_objpack", "response_plan"]

_DURATION_S = 3600.0


@dataclass(frozen=True)
class ObjpackResult:
    """One fetch of a page. Counts are what a monitor on the hub sees (both directions, every packet).

    ``bytes`` includes ``params.header_bytes`` per packet (TCP/IP + Ethernet header; the framing's
    preamble, FCS and gap are not counted, as a packet capture does not). ``file_done_s[k]``: when file
    k's last byte reached the client (for the package: when the whole package has, since the client
    unpacks it then). ``response_bytes``: the server's responses (headers included) as sent.
    """

    params: ObjpackParams
    page: Page
    response_time_s: float
    packets: int
    bytes: int
    n_connections: int
    response_bytes: np.ndarray
    file_done_s: np.ndarray
    server_busy_s: float  # sum of the server's per-file work (disk access, open, copy)
    retransmits: int
    packet: PacketResult

    @property
    def bytes_per_packet(self) -> float:
        """Mean packet size as the monitor counts it, bytes."""
        return self.bytes / self.packets


def response_plan(p: ObjpackParams, page: Page, content_seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Return (bytes of each response message, headers included; server work before each, s).

    The package is one response: the object information field and the data field (compressed as one
    zlib stream when ``p.compress``). HTTP responses carry one file each (compressed on its own). The
    server's work per response is one file access plus copying the bytes it sends (``compress``: the
    files are stored compressed, as a server with precompressed files would).
    """
    if p.compress:
        per_file, whole = compressed_sizes(page, content_seed)
    else:
        per_file, whole = page.sizes, page.total_bytes
    if p.method == "package":
        body = np.array([package_header_bytes(page.names) + whole], np.int64)
    else:
        body = np.asarray(per_file, np.int64)
    cost = p.server_file_s + p.server_copy_s_per_byte * body.astype(float)
    return body + p.response_header_bytes, cost


def simulate_objpack(params: ObjpackParams, seed: SeedLike = 0, trace: bool = False) -> ObjpackResult:
    """Return the ``ObjpackResult`` of fetching ``params.n_files`` files by ``params.method``.

    Deterministic: the same parameters and seed give bit-identical results. ``trace=True`` keeps the
    packet level's traces (for the space-time diagram and file-by-file arrival of a streamed package).
    """
    if not isinstance(params, ObjpackParams):
        raise ValueError(f"params={params!r} is not allowed: must be an ObjpackParams")
    check_seed(seed)
    check_bool("trace", trace)
    page = make_page(params, seed)
    resp, cost = response_plan(params, page)
    plan = build_scenario(params, resp, cost, _DURATION_S)
    r = simulate(plan.scenario, seed=seed, trace=trace)
    done = r.message_done_s[plan.response_messages]
    if np.isnan(done).any():
        raise ValueError(f"the fetch did not finish within {_DURATION_S:g} simulated seconds: "
                         "lower n_files or mean_file_bytes, or raise link_rate_bps")
    packets = int(r.link_packets[MEDIUM_LINK])
    nbytes = int(round(r.link_bytes[MEDIUM_LINK])) - params.framing_bytes * packets
    file_done = np.full(params.n_files, done[0]) if params.method == "package" else done.copy()
    return ObjpackResult(
        params=params, page=page, response_time_s=float(done.max()), packets=packets, bytes=nbytes,
        n_connections=plan.n_connections, response_bytes=resp, file_done_s=file_done,
        server_busy_s=float(cost.sum()), retransmits=int(r.retransmits.sum()), packet=r,
    )
