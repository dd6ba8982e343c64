"""Result and trace dataclasses returned by ``simulate`` (frozen; units in field names or comments)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from .params import Scenario

__all__ = ["PacketResult", "TcpTrace", "PacketTrace", "QueueTrace", "HopTrace", "SojournTrace"]


@dataclass(frozen=True)
class TcpTrace:
    """Sender state after every ACK / timeout: arrays of equal length, one row per sample."""

    time_s: np.ndarray
    conn: np.ndarray
    direction: np.ndarray  # 0 client->server data, 1 server->client
    cwnd_bytes: np.ndarray
    ssthresh_bytes: np.ndarray  # 1e30 = not yet set
    srtt_s: np.ndarray  # nan before the first sample
    rto_s: np.ndarray
    snd_una: np.ndarray
    snd_nxt: np.ndarray
    event: np.ndarray  # 0 new ACK, 1 duplicate ACK, 2 timeout, 3 SYN sent, 4 cwnd reduced for ECN-Echo (RFC 3168)


@dataclass(frozen=True)
class PacketTrace:
    """Per-packet events: kind 0 = sent by its source host, 1 = received by its destination host,
    2 = dropped by a full queue, 3 = lost at random. ``link`` is the link concerned (for 0: the first)."""

    time_s: np.ndarray
    kind: np.ndarray
    uid: np.ndarray
    conn: np.ndarray  # connection, or CBR source index for CBR packets (flags & 8)
    direction: np.ndarray
    seq: np.ndarray
    seqlen: np.ndarray
    ack: np.ndarray
    flags: np.ndarray  # 1 SYN, 2 ACK, 4 FIN, 8 CBR, 16 retransmission
    link: np.ndarray
    # (n, k, 2) blocks [lo, hi) carried, lo = -1 unused: TCP's SACK blocks (at most 3, most recent first), SCTP's
    # gap ack blocks as TSN ranges (lowest first); k = 3, or more when an SCTP SACK of the run reports more
    sack: np.ndarray | None = None
    dup_tsn: np.ndarray | None = None  # (n,) SCTP: the duplicate TSN a SACK reports (RFC 4960 sec. 6.2), -1 none


@dataclass(frozen=True)
class HopTrace:
    """Packets handed on by a router: at ``time_s`` packet ``uid`` (its fields: its send event in the
    ``PacketTrace``) reached the far end of one link of its path and was offered to the next, ``link``."""

    time_s: np.ndarray
    uid: np.ndarray
    link: np.ndarray


@dataclass(frozen=True)
class QueueTrace:
    """Buffer occupancy of a link just before and just after every packet arrival to it."""

    time_s: np.ndarray
    link: np.ndarray
    packets: np.ndarray
    bytes: np.ndarray  # fluid backlog included


@dataclass(frozen=True)
class SojournTrace:
    """Every packet's wait in every link's buffer: one row per packet and link, when its transmission on that link
    began (``time_s``), the link, the packet (``uid``: its fields in the ``PacketTrace``), how long it waited
    (``sojourn_s``: from entering the buffer to the start of its transmission, the delay CoDel measures) and
    whether the link's AQM marked it CE. Rows of one link are in time order."""

    time_s: np.ndarray
    link: np.ndarray
    uid: np.ndarray
    sojourn_s: np.ndarray
    ce: np.ndarray  # bool


@dataclass(frozen=True)
class PacketResult:
    """What ``simulate`` returns. Arrays of shape (n_conn, 2) are indexed [conn, direction] where
    direction 0 carries data client -> server and 1 server -> client."""

    duration_s: float
    events: int
    delivered_bytes: np.ndarray  # (n_conn, 2) application bytes received in order
    goodput_bps: np.ndarray  # (n_conn, 2) delivered_bytes * 8 / duration_s
    segments_sent: np.ndarray  # (n_conn, 2) including retransmissions
    retransmits: np.ndarray  # (n_conn, 2)
    timeouts: np.ndarray  # (n_conn, 2)
    fast_retransmits: np.ndarray  # (n_conn, 2) recovery episodes entered by three dupacks
    cwnd_bytes: np.ndarray  # (n_conn, 2) at the end
    ssthresh_bytes: np.ndarray  # (n_conn, 2) at the end
    srtt_s: np.ndarray  # (n_conn, 2) at the end, nan if never sampled
    rto_s: np.ndarray  # (n_conn, 2) at the end
    established_s: np.ndarray  # (n_conn,) when the client got the SYN-ACK (nan if never)
    timewait_s: np.ndarray  # (n_conn,) when the closer entered TIME-WAIT (nan if never)
    closed_s: np.ndarray  # (n_conn,) when the last FIN was acknowledged (nan if never)
    # (n_conn,) when a transport gave the connection up (nan never): TCP's connection-establishment timer or
    # retransmission limit (TcpParams.connect_timeout_s, max_retransmits), SCTP's Max.Init.Retransmits or
    # Association.Max.Retrans
    aborted_s: np.ndarray
    message_write_s: np.ndarray  # (n_msg,) when the application wrote it (nan if never)
    message_done_s: np.ndarray  # (n_msg,) when its last byte reached the receiving application
    message_latency_s: np.ndarray  # (n_msg,) done - write
    message_conn: np.ndarray  # (n_msg,) connection it went on (a pooled one: chosen when written, else -1)
    link_packets: np.ndarray  # (n_link,) packets accepted into the buffer
    link_bytes: np.ndarray  # (n_link,) bytes accepted (on-wire size)
    link_drops_queue: np.ndarray  # (n_link,) dropped by the buffer: full, or its queue discipline's decision
    link_drops_loss: np.ndarray  # (n_link,)
    link_utilization: np.ndarray  # (n_link,) packet bytes / (capacity * duration), fluid excluded
    fluid_offered_bytes: np.ndarray  # (n_link,)
    fluid_dropped_bytes: np.ndarray  # (n_link,)
    cbr_sent: np.ndarray  # (n_cbr,)
    cbr_received: np.ndarray  # (n_cbr,)
    cbr_source: np.ndarray  # per received CBR packet
    cbr_send_time_s: np.ndarray  # per received CBR packet
    cbr_delay_s: np.ndarray  # per received CBR packet, one-way
    packets_created: int
    packets_delivered: int
    packets_dropped_queue: int
    packets_dropped_loss: int
    packets_in_flight: int  # still in a buffer or on a wire at the end
    # (n_link,) buffer occupancy at the samples a QueueTrace holds (just before and just after each packet
    # arrival), kept without tracing: how many, their mean and largest bytes (fluid backlog included)
    link_queue_samples: np.ndarray | None = None
    link_queue_mean_bytes: np.ndarray | None = None
    link_queue_peak_bytes: np.ndarray | None = None
    tcp_trace: TcpTrace | None = None
    packet_trace: PacketTrace | None = None
    queue_trace: QueueTrace | None = None
    hop_trace: HopTrace | None = None
    scenario: Scenario | None = None  # the scenario run (hosts, routes and TCP options of captures)
    tcp_isn: np.ndarray | None = None  # (n_conn, 2) initial sequence numbers shown in captures (uint32)
    tcp_ts_offset: np.ndarray | None = None  # (n_nodes,) offsets of the hosts' RFC 7323 timestamp clocks, ms
    message_ssn: np.ndarray | None = None  # (n_msg,) SCTP: stream sequence number given when written (-1 none)
    # queue disciplines (``LinkParams.queue``), per link: packets the discipline dropped by its own rule (early,
    # or at dequeue; also in link_drops_queue), packets it marked CE instead (ECN); and the sojourn of the packets
    # that began their transmission (the time from entering the buffer to then): how many, mean and largest (s)
    link_drops_aqm: np.ndarray | None = None
    link_marks: np.ndarray | None = None
    link_sojourn_packets: np.ndarray | None = None
    link_sojourn_mean_s: np.ndarray | None = None
    link_sojourn_max_s: np.ndarray | None = None
    ecn_reductions: np.ndarray | None = None  # (n_conn, 2) cwnd reductions for ECN-Echo (RFC 3168), once a window
    sojourn_trace: SojournTrace | None = None

    def to_pcap(self, path, *, link: int | None = None, capture_point: str = "sender", snaplen: int = 128,
                format: str = "pcap") -> Path:
        """Write this traced run as a capture file that Wireshark and tshark read; return its path.

        The capture is what a packet sniffer on one link would record: at its ``capture_point`` end,
        'sender' (the link's source node: its packets as offered to its buffer, so drops on it are seen)
        or 'receiver' (its far end: its packets as they arrive), with the packets of the reverse
        direction as that node sees them. ``link=None``: the first link of connection 0's client, i.e.
        the client host's own interface. ``format``: 'pcap' or 'pcapng'; ``snaplen``: bytes kept of each
        frame, in [94, 262144] (headers are never cut; payloads are zero bytes). See
        ``simcore.packet.capture`` for the headers written.
        """
        from .capture.export import write_capture

        return write_capture(self, path, link=link, capture_point=capture_point, snaplen=snaplen, format=format)

    def goodput_total_bps(self, direction: int = 0) -> float:
        """Return the summed goodput of all connections in ``direction``, bits/s."""
        return float(self.goodput_bps[:, direction].sum())
