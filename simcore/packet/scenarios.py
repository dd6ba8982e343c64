"""Scenario builders for common experiments: bulk flows over a network, request/response exchanges."""

from __future__ import annotations

from collections.abc import Sequence

from simcore._validate import check_bool, check_int, check_real, check_sequence

from .params import CbrSource, Connection, Message, Network, Scenario, TcpParams

__all__ = ["bulk_scenario", "request_response_scenario"]


def bulk_scenario(
    network: Network,
    pairs: Sequence[tuple[int, int]],
    tcp: TcpParams | None = None,
    duration_s: float = 10.0,
    start_times_s: Sequence[float] | None = None,
    cbr: Sequence[CbrSource] = (),
    tcpip_header_bytes: int = 40,
) -> Scenario:
    """Return a ``Scenario`` with one endless (bulk) TCP sender per (source, destination) pair.

    Connection i opens at ``start_times_s[i]`` (default 0) and its source writes an endless message.
    """
    tcp = TcpParams() if tcp is None else tcp
    pairs = check_sequence("pairs", pairs, "(client, server) node pairs")
    starts = (check_sequence("start_times_s", start_times_s, "times in seconds") if start_times_s is not None
              else (0.0,) * len(pairs))
    cbr = check_sequence("cbr", cbr, "CbrSource")
    if len(starts) != len(pairs):
        raise ValueError(f"start_times_s has {len(starts)} entries: must have one per pair ({len(pairs)})")
    conns = tuple(Connection(a, b, tcp, open_time_s=check_real("start_times_s", s, 0.0))
                  for (a, b), s in zip(pairs, starts, strict=True))
    msgs = tuple(Message(i, None, "client", start_time_s=s) for i, s in enumerate(starts))
    return Scenario(network, conns, msgs, tuple(cbr), duration_s, tcpip_header_bytes)


def request_response_scenario(
    network: Network,
    client: int,
    server: int,
    request_bytes: int,
    response_bytes: Sequence[int],
    tcp: TcpParams | None = None,
    persistent: bool = True,
    pipelined: bool = False,
    duration_s: float = 60.0,
    tcpip_header_bytes: int = 40,
) -> Scenario:
    """Return a ``Scenario`` fetching one object per entry of ``response_bytes`` (HTTP-like).

    ``persistent``: all objects on one connection (else one connection per object, each opened when the
    previous object has arrived, closed by the server). ``pipelined`` (persistent only): all requests
    are written at once instead of each after the previous response. Messages 2k and 2k+1 are the k-th
    request and response.
    """
    tcp = TcpParams() if tcp is None else tcp
    check_int("request_bytes", request_bytes, 1)
    check_bool("persistent", persistent)
    check_bool("pipelined", pipelined)
    sizes = tuple(check_int(f"response_bytes[{i}]", r, 1)
                  for i, r in enumerate(check_sequence("response_bytes", response_bytes, "sizes in bytes")))
    if len(sizes) == 0:
        raise ValueError("response_bytes must name at least one object")
    msgs: list[Message] = []
    conns: list[Connection] = []
    for k, size in enumerate(sizes):
        if persistent:
            if k == 0:
                conns.append(Connection(client, server, tcp, closer="client"))
            after = -1 if (k == 0 or pipelined) else 2 * k - 1
            msgs.append(Message(0, request_bytes, "client", after_message=after))
            msgs.append(Message(0, size, "server", after_message=2 * k))
        else:
            conns.append(Connection(client, server, tcp, open_after_message=2 * k - 1 if k else -1,
                                    closer="server"))
            msgs.append(Message(k, request_bytes, "client", after_message=2 * k - 1 if k else -1))
            msgs.append(Message(k, size, "server", after_message=2 * k))
    return Scenario(network, tuple(conns), tuple(msgs), (), duration_s, tcpip_header_bytes)
