"""``SctpParams``: SCTP of one association (both directions), validated like every public parameter.

Sizes are bytes, times seconds. The two RFC generations are presets (``SctpParams.preset("rfc4960")``,
``SctpParams.preset("rfc2960")``; see ``simcore.packet.sctp_presets`` and ``docs/sctp_presets.md``).
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_bool, check_choice, check_int, check_order, check_real, store_python_numbers

from .sctp.wire import COMMON_HEADER_BYTES, IPV4_HEADER_BYTES, max_data_payload_bytes

__all__ = ["SctpParams", "MAX_BURST_RULES", "MIN_MTU_BYTES"]

MAX_BURST_RULES = ("cwnd", "packets")
MIN_MTU_BYTES = 68  # the smallest MTU an IPv4 path may have (RFC 791)
# A sending half's scoreboard ring holds two windows of segments (32-byte records) and its receiver's
# out-of-order list half as many (24-byte records): about 88 bytes per segment of window, per direction.
# A window of at most 2**21 segments keeps one direction's rows under 176 MiB (TCP's rwnd_bytes=2**30 with a
# 1-byte MSS asked for 94 GB); with real MSSs the 2**30-byte limit binds first.
MAX_WINDOW_SEGMENTS = 2**21
WINDOW_WHY = (f"a window of at most {MAX_WINDOW_SEGMENTS:,} full segments: the scoreboard keeps two windows "
              "of segments, about 88 bytes per segment of window per direction")


@dataclass(frozen=True)
class SctpParams:
    """SCTP of one association (RFC 4960 by default; ``preset("rfc2960")`` for the 2002 generation).

    mtu_bytes: the path MTU (IP packet size, IPv4 header included): a packet is at most this large.
        A DATA chunk carries at most ``max_payload_bytes`` = MTU - 20 (IPv4) - 12 (common header) - 16
        (DATA chunk header), rounded down to a multiple of 4 so that its padding fits (1452 for 1500).
    rwnd_bytes: the receiver's buffer, advertised as a_rwnd in INIT / INIT-ACK and in every SACK less
        the data it holds for ordered delivery (RFC 4960 sec. 6.2).
    initial_cwnd_mtus: cwnd before data is sent, in MTUs; None: min(4 MTU, max(2 MTU, 4380 bytes))
        (RFC 4960 sec. 7.2.1). RFC 2960 sec. 7.2.1: at most 2 MTU.
    rto_initial_s / rto_min_s / rto_max_s: RTO.Initial, RTO.Min, RTO.Max (RFC 4960 sec. 15: 3, 1, 60 s),
        also the T1-init timer's start; each expiry doubles the timer up to RTO.Max (sec. 6.3.3 E2).
    max_init_retransmits: Max.Init.Retransmits (8): INIT or COOKIE-ECHO sent this often again, then the
        association attempt is given up at the next expiry (RFC 4960 sec. 5.1 A / C): the client sends
        nothing more and ``PacketResult.aborted_s`` gives the time.
    max_retransmits: Association.Max.Retrans (RFC 4960 sec. 8.1 and 15: 10): when T3-rtx expires this many
        times more in a row without an outstanding TSN acknowledged, the peer is taken as unreachable and
        the association is given up (``PacketResult.aborted_s``); None: never (the default). Heartbeats,
        which would also count, are not simulated.
    max_burst: Max.Burst (4; 0 = no limit), applied before new data is sent (RFC 4960 sec. 6.1 D) by
        ``max_burst_rule``: 'cwnd' lowers cwnd to flightsize + max_burst * MTU when it is larger (the
        implementers' guide's rule that the FTP study blames), 'packets' sends at most max_burst
        packets per sending opportunity and leaves cwnd alone.
    delayed_sack: SACK at least every ``sack_every_packets``-th packet carrying DATA, and at most
        ``sack_timeout_s`` after the first unacknowledged DATA chunk (RFC 4960 sec. 6.2: 2 and 200 ms);
        immediately when a gap appears or is filled, or on a duplicate (sec. 6.7, 6.2). False: a SACK
        for every packet carrying DATA.
    miss_indications: the miss indication on which a TSN is fast-retransmitted (RFC 4960 sec. 7.2.4: 3;
        RFC 2960: 4). A TSN is fast-retransmitted at most once.
    htna: count miss indications by the HTNA rule (RFC 4960 sec. 7.2.4): only TSNs below the highest
        TSN newly acknowledged by a SACK gain one (outside Fast Recovery). False: every TSN reported
        missing gains one (RFC 2960).
    fast_recovery: RFC 4960's Fast Recovery: cwnd is cut once per loss episode, not per fast retransmit.
    ssthresh_min_mtus: floor of ssthresh on fast retransmit and T3-rtx: ssthresh = max(cwnd/2, k MTU)
        (RFC 4960 sec. 7.2.3: 4; RFC 2960: 2); after T3-rtx cwnd = 1 MTU.
    idle_decay / idle_cwnd_min_mtus: when no data was sent for an RTO, cwnd = max(cwnd/2, k MTU), once
        per RTO idle (RFC 4960 sec. 7.2.1: 4; RFC 2960: 2).
    cookie_bytes: size of the state cookie in INIT-ACK and COOKIE-ECHO (implementation-defined; see
        ``simcore.packet.sctp_presets``).
    cookie_echo_data: the client's first DATA chunk rides behind its COOKIE-ECHO (RFC 4960 sec. 5.1 D
        allows it), a round trip earlier than after the COOKIE-ACK; nothing more leaves until the COOKIE-ACK.
        Off by default: neither generation requires it (modern Linux and FreeBSD do it; KAME 2002 not checked).
    n_streams: outbound streams per direction, asked for in INIT / INIT-ACK; ``Message.stream`` must be
        below it.
    unordered: send DATA with the U bit: a message is delivered as soon as it is complete, whatever the
        SSN order (RFC 4960 sec. 6.6).
    """

    mtu_bytes: int = 1500
    rwnd_bytes: int = 65536
    initial_cwnd_mtus: int | None = None
    rto_initial_s: float = 3.0
    rto_min_s: float = 1.0
    rto_max_s: float = 60.0
    max_init_retransmits: int = 8
    max_retransmits: int | None = None
    max_burst: int = 4
    max_burst_rule: str = "cwnd"
    delayed_sack: bool = True
    sack_timeout_s: float = 0.2
    sack_every_packets: int = 2
    miss_indications: int = 3
    htna: bool = True
    fast_recovery: bool = True
    ssthresh_min_mtus: int = 4
    idle_decay: bool = True
    idle_cwnd_min_mtus: int = 4
    cookie_bytes: int = 200
    cookie_echo_data: bool = False
    n_streams: int = 10
    unordered: bool = False

    def __post_init__(self):
        store_python_numbers(self)
        check_int("mtu_bytes", self.mtu_bytes, MIN_MTU_BYTES, 65535)
        check_int("rwnd_bytes", self.rwnd_bytes, 1, 2**31 - 1)
        if self.rwnd_bytes < self.max_payload_bytes:
            raise ValueError(f"rwnd_bytes={self.rwnd_bytes!r} is out of range: must be at least one full DATA "
                             f"chunk ({self.max_payload_bytes} bytes at mtu_bytes={self.mtu_bytes})")
        most = min(2**31 - 1, MAX_WINDOW_SEGMENTS * self.max_payload_bytes)
        check_int("rwnd_bytes", self.rwnd_bytes, 1, most, why=f"{WINDOW_WHY}, here DATA chunks of "
                  f"{self.max_payload_bytes} bytes")
        if self.initial_cwnd_mtus is not None:
            check_int("initial_cwnd_mtus", self.initial_cwnd_mtus, 1, 1000)
        check_real("rto_min_s", self.rto_min_s, 0.0, 3600.0, lo_open=True)
        check_real("rto_max_s", self.rto_max_s, 0.0, 3600.0, lo_open=True)
        check_real("rto_initial_s", self.rto_initial_s, 0.0, 3600.0, lo_open=True)
        check_order("rto_min_s", self.rto_min_s, "rto_max_s", self.rto_max_s)
        check_order("rto_min_s", self.rto_min_s, "rto_initial_s", self.rto_initial_s)
        check_order("rto_initial_s", self.rto_initial_s, "rto_max_s", self.rto_max_s)
        check_int("max_init_retransmits", self.max_init_retransmits, 0, 100)
        if self.max_retransmits is not None:
            check_int("max_retransmits", self.max_retransmits, 0, 1000)
        check_int("max_burst", self.max_burst, 0, 1000)
        check_choice("max_burst_rule", self.max_burst_rule, MAX_BURST_RULES)
        check_bool("delayed_sack", self.delayed_sack)
        check_real("sack_timeout_s", self.sack_timeout_s, 0.0, 0.5, lo_open=True)  # RFC 4960 6.2: <= 500 ms
        check_int("sack_every_packets", self.sack_every_packets, 1, 100)
        check_int("miss_indications", self.miss_indications, 1, 100)
        check_bool("htna", self.htna)
        check_bool("fast_recovery", self.fast_recovery)
        check_int("ssthresh_min_mtus", self.ssthresh_min_mtus, 1, 1000)
        check_bool("idle_decay", self.idle_decay)
        check_int("idle_cwnd_min_mtus", self.idle_cwnd_min_mtus, 1, 1000)
        # INIT-ACK = IP + common header + 20-byte INIT-ACK + 4-byte cookie parameter header + cookie: one packet
        cookie_max = self.mtu_bytes - IPV4_HEADER_BYTES - COMMON_HEADER_BYTES - 20 - 4
        check_int("cookie_bytes", self.cookie_bytes, 1, max(1, cookie_max))
        check_bool("cookie_echo_data", self.cookie_echo_data)
        check_int("n_streams", self.n_streams, 1, 65535)
        check_bool("unordered", self.unordered)

    @classmethod
    def preset(cls, name: str, **overrides) -> SctpParams:
        """Return the SctpParams of preset ``name`` ('rfc4960', 'rfc2960') with any field replaced by
        ``overrides``. Every value and its RFC section: ``simcore.packet.sctp_presets``."""
        from .sctp_presets import sctp_preset_fields

        return cls(**{**sctp_preset_fields(name), **overrides})

    @property
    def max_payload_bytes(self) -> int:
        """User data in a full DATA chunk: the MTU less 48 bytes of headers, down to a multiple of 4."""
        return max_data_payload_bytes(self.mtu_bytes)

    @property
    def initial_cwnd_bytes(self) -> int:
        """cwnd before any data is sent (RFC 4960 sec. 7.2.1, or ``initial_cwnd_mtus`` MTUs)."""
        m = self.mtu_bytes
        if self.initial_cwnd_mtus is None:
            return min(4 * m, max(2 * m, 4380))
        return self.initial_cwnd_mtus * m

