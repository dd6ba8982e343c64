"""simcore.packet: a packet-by-packet network simulator in numba (TCP over drop-tail links).

Build a ``Scenario`` and call ``simulate``::

    from simcore.packet import LinkParams, TcpParams, dumbbell, bulk_scenario, simulate
    db = dumbbell(10, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="newreno"), duration_s=60)
    res = simulate(sc, seed=1, trace=False)        # -> PacketResult
    res.goodput_bps[:, 0]                           # per connection, client -> server, bits/s

Pieces:

- ``LinkParams`` (rate, delay, drop-tail limit in packets and optionally bytes, Bernoulli loss, link
  header, optional ``FluidBackground``), ``Link``, ``Network`` (fewest-hop static routes),
  ``dumbbell``/``chain`` topologies.
- ``TcpParams`` (reno | newreno | sack, MSS, receive window, initial window, RTO bounds, delayed ACK,
  restart after idle), ``Connection`` (client, server, open time or "after message k", closer).
- ``Message`` (conn, size or None for bulk, sender client|server, start time or "after message k"):
  request/response sequences, persistent or not, pipelined or not; per-message latency is measured.
- ``CbrSource``: constant-bit-rate packet traffic (e.g. the packet twin of a fluid background).
- ``BulkScenario``: the same for 10^5 TCP connections and more, as numpy columns (``simcore.packet.bulk``).
- ``simulate_many(scenario, seeds)``: the runs of many seeds (or scenarios), bit-identical to separate ``simulate``
  calls, those of a small scenario back to back in one call of the event loop (``simcore.packet.batch``).
- ``simulate(scenario, seed=0, trace=False) -> PacketResult``; with ``trace=True`` the result carries
  ``tcp_trace`` (cwnd, ssthresh, srtt, seq over time), ``packet_trace`` (send/receive/drop events)
  and ``queue_trace`` (buffer occupancy). ``simcore.packet.plots`` draws them; ``result.to_pcap(path)``
  writes the run as a pcap/pcapng capture for Wireshark (``simcore.packet.capture``).
- ``SctpParams`` (RFC 4960 or, ``SctpParams.preset("rfc2960")``, RFC 2960 + the implementers' guide;
  ``docs/sctp_presets.md``) and ``sctp_message_wire_bytes(n, mtu)``: SCTP's parameters and sizes on the wire;
  ``sctp_chunk_bounds(result, conn, direction)``: the bytes of each DATA chunk sent, in TSN order (to draw a
  SACK's cumulative TSN ack in bytes). ``Connection(transport="sctp", sctp=SctpParams(...))``: an SCTP
  association (INIT / INIT-ACK / COOKIE-ECHO / COOKIE-ACK with T1, DATA chunks per message and stream, SACK
  with gap blocks, delayed SACK, byte-based cwnd with Max.Burst and idle decay, fast retransmit on the N-th
  miss indication, T3-rtx, the peer's a_rwnd, SHUTDOWN / SHUTDOWN-ACK / SHUTDOWN-COMPLETE), small DATA chunks
  bundled into one packet, unordered delivery (``SctpParams.unordered``), Max.Init.Retransmits
  (``PacketResult.aborted_s``).
- ``metrics``: ``jain_index``, ``mathis_throughput_bps``, ``padhye_throughput_bps`` (PFTK, with timeouts),
  ``window_limited_throughput_bps``.
- ``ware_bbr_share`` (``bbr_share``): BBR v1's share of a bottleneck shared with loss-based flows, Ware et al.'s
  steady-state model (IMC 2019); ``benchmarks/bench_bbr_share.py`` runs simcore's BBR against it.
- ``Connection(transport="tcp_streams")`` + ``Message(stream=k)``: TCP with per-stream delivery (not
  SCTP: TCP's handshake and congestion control, no head-of-line blocking across streams at the
  receiver); ``Connection(header_bytes=...)`` sets its per-packet header size.
- ``Message(relay_of=k)``: a proxy relays message k's bytes cut-through onto another connection
  (split-TCP performance-enhancing proxies, application gateways).
- ``ConnectionPool(conns, rule)`` in ``Scenario.pools`` + ``Message(None, ..., pool=k)``: a proxy
  multiplexing messages over N persistent connections, each message on the connection the rule picks
  when it is written ('fewest_outstanding' bytes unacknowledged, or 'round_robin');
  ``PacketResult.message_conn`` records the choice.
- ``LinkParams(drop_sequence=...)`` loses chosen packets for sure (textbook loss patterns).
- ``LinkParams(loss_where='arrival')`` applies random and chosen losses before the queue, as Dummynet and
  netem do (default 'after_transmission'); ``dumbbell(..., symmetric_loss=True)`` loses on both directions.
- ``LinkParams(queue=...)``: the buffer's queue discipline, 'droptail' (default), 'red', 'codel', 'fq_codel'
  or their parameters ``RedParams``, ``CoDelParams``, ``FqCoDelParams`` (``docs/aqm.md``); ``TcpParams(ecn=True)``
  for ECN (RFC 3168). ``PacketResult.link_sojourn_mean_s``, ``link_drops_aqm``, ``link_marks``, and with
  ``trace=True`` the ``sojourn_trace`` (every packet's wait in every buffer; ``plots.queue_delay_figure``).
"""

from .batch import simulate_many
from .bbr_share import BbrShare, ware_bbr_share
from .bulk import BulkScenario
from .capture.sctp_packets import chunk_bounds as sctp_chunk_bounds
from .kernel.qdisc.codel import CoDelParams
from .kernel.qdisc.fq_codel import FqCoDelParams
from .kernel.qdisc.red import RedParams
from .metrics import jain_index, mathis_throughput_bps, padhye_throughput_bps, window_limited_throughput_bps
from .params import (
    CONGESTION_CONTROLS,
    LOSS_WHERE,
    POOL_RULES,
    RECOVERIES,
    VARIANTS,
    CbrSource,
    Connection,
    ConnectionPool,
    FluidBackground,
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
)
from .scenarios import bulk_scenario, request_response_scenario
from .sctp.wire import message_wire_bytes as sctp_message_wire_bytes
from .sctp_params import SctpParams
from .simulate import HopTrace, PacketResult, PacketTrace, QueueTrace, SojournTrace, TcpTrace, simulate
from .topology import Dumbbell, chain, dumbbell

__all__ = [
    "BbrShare",
    "CONGESTION_CONTROLS",
    "LOSS_WHERE",
    "POOL_RULES",
    "RECOVERIES",
    "VARIANTS",
    "BulkScenario",
    "CbrSource",
    "CoDelParams",
    "Connection",
    "ConnectionPool",
    "Dumbbell",
    "FluidBackground",
    "FqCoDelParams",
    "HopTrace",
    "Link",
    "LinkParams",
    "Message",
    "Network",
    "PacketResult",
    "PacketTrace",
    "QueueTrace",
    "RedParams",
    "Scenario",
    "SctpParams",
    "SojournTrace",
    "TcpParams",
    "TcpTrace",
    "bulk_scenario",
    "chain",
    "dumbbell",
    "jain_index",
    "mathis_throughput_bps",
    "padhye_throughput_bps",
    "request_response_scenario",
    "sctp_chunk_bounds",
    "sctp_message_wire_bytes",
    "simulate",
    "simulate_many",
    "ware_bbr_share",
    "window_limited_throughput_bps",
]
