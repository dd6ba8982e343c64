"""The paper's testbed (its Figure 3) on ``simcore.packet``: a server and a client on a 10 Mbit/s hub.

A hub repeats every frame to every port: its stations share one half-duplex medium, so the client's
requests and ACKs and the server's responses take turns on the same wire. ``simcore.packet`` has
point-to-point links only, so the hub is modelled as ONE link that both directions queue on::

    client (0) --NIC--> hub (2) ==== medium, link MEDIUM_LINK ====> hub out (3) --> client (0)
    server (1) --stack--> hub (2)                                               --> server (1)

Every packet of either direction crosses the medium link once, in first-come first-served order: an
ideal carrier-sense MAC without collisions (CSMA/CD's collisions and back-off are not modelled; the
packets' framing overhead -- preamble, FCS, inter-frame gap -- is). The server's link to the hub is its
protocol stack: per packet ``server_packet_s`` plus 8 / ``server_stack_rate_bps`` per byte (carried as
a link-layer header of ``server_packet_s`` x rate / 8 bytes on that link only, which the monitor never
sees). The client is fast. The monitor counts packets and bytes on the medium.

Messages: file k is request 2k and response 2k + 1 (the package: request 0, response 1).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.packet import Connection, Link, LinkParams, Message, Network, Scenario, TcpParams

from .params import ObjpackParams

__all__ = ["CLIENT", "SERVER", "MEDIUM_LINK", "SERVER_STACK_LINK", "hub_network", "Plan", "build_scenario"]

CLIENT, SERVER, HUB_IN, HUB_OUT = 0, 1, 2, 3
CLIENT_NIC_LINK, SERVER_STACK_LINK, MEDIUM_LINK = 0, 1, 2
_FAST_BPS = 1e11
_QUEUE = 10_000


def hub_network(p: ObjpackParams) -> Network:
    """Return the hub testbed (nodes and links as drawn in the module docstring)."""
    fast = LinkParams(rate_bps=_FAST_BPS, delay_s=0.0, queue_packets=_QUEUE)
    stack_hdr = int(round(p.server_packet_s * p.server_stack_rate_bps / 8.0))
    stack = LinkParams(rate_bps=p.server_stack_rate_bps, delay_s=0.0, queue_packets=_QUEUE, header_bytes=stack_hdr)
    medium = LinkParams(rate_bps=p.link_rate_bps, delay_s=p.rtt_s / 2.0, queue_packets=_QUEUE,
                        header_bytes=p.ethernet_header_bytes + p.framing_bytes)
    return Network(4, (Link(CLIENT, HUB_IN, fast), Link(SERVER, HUB_IN, stack), Link(HUB_IN, HUB_OUT, medium),
                       Link(HUB_OUT, CLIENT, fast), Link(HUB_OUT, SERVER, fast)))


@dataclass(frozen=True)
class Plan:
    """A scenario, the indices of its response messages (in order) and its number of connections."""

    scenario: Scenario
    response_messages: np.ndarray
    n_connections: int


def _tcp(p: ObjpackParams, sack: bool = False) -> TcpParams:
    # no era preset is the paper's (unnamed) stack: RFC 5681 NewReno with delayed ACKs (every second
    # segment or 200 ms; Table 2's packet counts need them), the parameters' window and IW, and the
    # handshake as real stacks send it: connect() returns on the SYN-ACK, the kernel sends a bare ACK and
    # the GET leaves as a segment of its own (not the textbook's request on the third segment)
    return TcpParams.preset("rfc5681", variant="sack" if sack else "newreno", mss_bytes=p.mss_bytes,
                            rwnd_bytes=p.rwnd_bytes, initial_window_segments=p.initial_window_segments,
                            delayed_ack=True, request_on_handshake_ack=False)


def _serial_server_delays(cost_s: np.ndarray, request_gap_s: float) -> np.ndarray:
    """Delay of each response after its own request arrives, for a server that handles the requests of
    one connection one at a time, in order, when they arrive ``request_gap_s`` apart (back to back):
    response k is written at arrival_0 + sum(cost[:k+1]), or cost[k] after request k if that is later."""
    k = np.arange(cost_s.size)
    return np.maximum(cost_s, np.cumsum(cost_s) - k * request_gap_s)


def build_scenario(p: ObjpackParams, response_bytes: np.ndarray, cost_s: np.ndarray,
                   duration_s: float = 600.0) -> Plan:
    """Return the ``Plan`` fetching responses of ``response_bytes`` (headers included) by ``p.method``;
    ``cost_s[k]`` is the server's work before response k is written (its file's access and copy)."""
    n = int(response_bytes.size)
    req = p.request_bytes
    conns: list[Connection] = []
    msgs: list[Message] = []
    tcp = _tcp(p)
    m = p.method
    if m in ("http10", "package"):  # one connection per response, each opened when the previous is done
        for k in range(n):
            prev = 2 * k - 1 if k else -1
            conns.append(Connection(CLIENT, SERVER, tcp, open_after_message=prev, closer="server"))
            msgs.append(Message(k, req, "client", after_message=prev))
            msgs.append(Message(k, int(response_bytes[k]), "server", after_message=2 * k,
                                delay_after_s=float(cost_s[k])))
    elif m in ("keepalive", "parallel"):
        slots = 1 if m == "keepalive" else min(p.parallel_connections, n)
        conns = [Connection(CLIENT, SERVER, tcp, closer="client") for _ in range(slots)]
        for k in range(n):
            prev = 2 * (k - slots) + 1 if k >= slots else -1  # the slot's previous response
            msgs.append(Message(k % slots, req, "client", after_message=prev))
            msgs.append(Message(k % slots, int(response_bytes[k]), "server", after_message=2 * k,
                                delay_after_s=float(cost_s[k])))
    else:  # pipelined or multistream: every request at once on one connection
        multi = m == "multistream"
        conns = [Connection(CLIENT, SERVER, _tcp(p, sack=multi), closer="client",
                            transport="tcp_streams" if multi else "tcp")]
        gap = (req + p.header_bytes + p.framing_bytes) * 8.0 / p.link_rate_bps
        delays = _serial_server_delays(np.asarray(cost_s, float), gap)
        for k in range(n):
            s = k if multi else 0
            msgs.append(Message(0, req, "client", stream=s))
            msgs.append(Message(0, int(response_bytes[k]), "server", after_message=2 * k,
                                delay_after_s=float(delays[k]), stream=s))
    sc = Scenario(hub_network(p), tuple(conns), tuple(msgs), (), duration_s, p.tcpip_header_bytes)
    return Plan(sc, np.arange(n, dtype=np.int64) * 2 + 1, len(conns))
