"""Figure 4 of the paper: one TCP connection with a 32767-byte window over the 640 ms satellite round trip.

Three numbers, from coarse to fine (all in bits/s):
- ``window_limit_bps``: the paper's closed form S * 8 / (2 * Dsat) = 32767 * 8 / 0.64 = 409,587.5.
- ``full_segment_plateau_bps``: a sender that sends only full segments keeps floor(S / MSS) = 22 segments
  of 1460 bytes (32,120 bytes, 647 short of the window) in flight; with ACKs for every second segment the
  cycle is one round trip plus the transmission of two segments and one ACK on the E3:
  T = 0.64 + 2 * 1500 * 8 / C + 40 * 8 / C. Goodput = 22 * 1460 * 8 / T (~401.1 kbit/s); on the wire,
  headers included, 22 * 1500 * 8 / T (~412.0 kbit/s), which is what a link monitor (the paper's figure,
  ~415) shows.
- the simulated plateau: ``simulate_single_connection`` (a bulk transfer on the model's network and TCP).
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_real
from simcore.packet import Connection, LinkParams, Message, Scenario, TcpParams, simulate

from .network import NZ, US, star_network
from .params import SatelliteParams
from .tcp import era_tcp

__all__ = ["Plateau", "window_limit_bps", "full_segment_plateau", "simulate_single_connection"]


@dataclass(frozen=True)
class Plateau:
    """A steady-state rate of one connection: application bytes and on-wire bytes (headers), bits/s."""

    goodput_bps: float
    wire_bps: float


def window_limit_bps(p: SatelliteParams) -> float:
    """Return the paper's closed form: window * 8 / round trip, bits/s."""
    return p.proxy_window_bytes * 8.0 / (2.0 * p.satellite_delay_s)


def full_segment_plateau(p: SatelliteParams, header_bytes: int = 40, ack_bytes: int = 40) -> Plateau:
    """Return the plateau of a sender of full segments only (see the module docstring), bits/s."""
    segs = p.proxy_window_bytes // p.proxy_mss_bytes
    c = p.satellite_rate_bps
    cycle = 2.0 * p.satellite_delay_s + 2 * (p.proxy_mss_bytes + header_bytes) * 8.0 / c + ack_bytes * 8.0 / c
    return Plateau(segs * p.proxy_mss_bytes * 8.0 / cycle, segs * (p.proxy_mss_bytes + header_bytes) * 8.0 / cycle)


def simulate_single_connection(p: SatelliteParams, start_s: float = 300.0, end_s: float = 3300.0,
                               tcp: TcpParams | None = None) -> Plateau:
    """Return the simulated plateau of one bulk inter-proxy connection (US -> NZ), measured between
    ``start_s`` and ``end_s`` as the difference of two runs of the same scenario (the same run up to
    ``start_s``: deterministic).

    ``tcp``: the connection's TCP (default: the study's, ``era_tcp``). No packet is lost (one connection
    cannot fill the buffer); slow start and congestion avoidance open the window within the first minute.
    With ACKs on every second segment and no delayed-ACK timer the plateau is ``full_segment_plateau``
    (tests/satellite/test_model.py). 4.4BSD-Lite's delayed ACK leaves on the 200 ms fast-timer tick: when
    a tick falls between the two segments of a pair, the first is acknowledged alone, the receiver then
    pairs segments across the sender's pairs, and the last segment of each window waits for a tick; the
    cycle is longer until another tick restores the pairing. The two phases alternate over hundreds of
    seconds (goodput in 40 s windows: 392-405 kbit/s; 300-600 s: 401.5, all in step), so only a long
    window gives the steady state: 300-3300 s gives 395.3 kbit/s of data, 406.2 on the wire, 1.4 % below
    ``full_segment_plateau`` (300-12000 s: 395.8)."""
    check_real("start_s", start_s, 0.0, lo_open=True)
    check_real("end_s", end_s, start_s, lo_open=True)
    sat = LinkParams(rate_bps=p.satellite_rate_bps, delay_s=p.satellite_delay_s,
                     queue_packets=p.router_queue_packets, queue_bytes=p.router_buffer_bytes)
    net = star_network(sat, sat, [])
    if tcp is None:
        tcp = era_tcp(p.proxy_mss_bytes, p.proxy_window_bytes, p.tcp_preset)
    elif not isinstance(tcp, TcpParams):
        raise ValueError(f"tcp={tcp!r} is not allowed: must be a TcpParams or None")
    conn = Connection(NZ, US, tcp)
    runs = [simulate(Scenario(net, (conn,), (Message(0, None, "server"),), duration_s=d)) for d in (start_s, end_s)]
    span = end_s - start_s
    good = (runs[1].delivered_bytes[0, 1] - runs[0].delivered_bytes[0, 1]) * 8.0 / span
    wire = (runs[1].link_bytes[1] - runs[0].link_bytes[1]) * 8.0 / span
    return Plateau(float(good), float(wire))
