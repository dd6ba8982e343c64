"""Parameters of one reliable-data-transfer run (Kurose & Ross sec. 3.4): stop-and-wait, Go-Back-N, Selective Repeat."""

from __future__ import annotations

import math
from dataclasses import dataclass

from simcore._validate import check_choice, check_int, check_real, store_python_numbers

__all__ = ["RdtParams", "PROTOCOLS", "TIMER_RESTARTS", "MAX_TRANSMISSIONS", "MAX_WINDOW"]

# 'saw' is rdt3.0 (alternating bit): a window of one packet, the same sender and receiver as GBN with N = 1.
PROTOCOLS = ("saw", "gbn", "sr")
# When Go-Back-N's single timer restarts: on an ACK that acknowledges new packets (as TCP's RFC 6298 rule
# 5.3 does), or on every ACK, duplicates included (Kurose & Ross fig. 3.20 as printed). See ASSUMPTIONS.md.
TIMER_RESTARTS = ("new_ack", "every_ack")
# Transmissions one run may start: the link sends at most one packet per packet time, so a run of
# duration_s holds at most duration_s / (L/R) + 2 of them (one more for rounding). 2e6 runs in about a second and
# its records take about 100 MB; more is refused.
MAX_TRANSMISSIONS = 2_000_000
MAX_WINDOW = 4096


@dataclass(frozen=True)
class RdtParams:
    """A sender and a receiver joined by one link in each direction (data out, ACKs back).

    protocol: 'saw' (stop-and-wait, rdt3.0), 'gbn' (Go-Back-N) or 'sr' (Selective Repeat).
    window: sender window N, packets, in [1, 4096]; 'saw' needs 1.
    packet_bytes: data packet size L, bytes, in [1, 10**6].
    ack_bytes: ACK size, bytes, in [0, packet_bytes] (0: ACK transmission time ignored, as K&R 3.4.2 does).
    rate_bps: link rate R in each direction, bits/s, in [1e3, 1e12].
    rtt_s: round-trip propagation delay (twice the one-way delay), seconds, in [0, 100].
    timeout_s: retransmission timeout, seconds, in (0, 1000]; measured from the start of a packet's
        transmission (SR: each packet's own timer; GBN and saw: one timer for the oldest unacknowledged).
    loss_data, loss_ack: probability that a data packet / an ACK is lost, independently, in [0, 0.9].
    duration_s: simulated time, seconds, in (0, 1e6]; refused if it holds more than 2e6 packet times.
    n_packets: packets the application has to send (0: an endless supply), in [0, 10**7].
    drop_data, drop_ack: transmissions lost for sure, by their number in sending order from 0 (data packets,
        retransmissions included / ACKs), e.g. ``drop_data=(2,)`` loses the third data packet sent (K&R fig. 3.22).
    timer_restart: Go-Back-N's timer restarts on 'new_ack' (default) or on 'every_ack'.
    max_sends: end the run when it would start its ``max_sends``-th data transmission, in [0, 2e6] (0: run to
        ``duration_s``); bounds the work of a run whose sender floods the link (premature timeouts).
    """

    protocol: str = "gbn"
    window: int = 4
    packet_bytes: int = 1000
    ack_bytes: int = 0
    rate_bps: float = 1e6
    rtt_s: float = 0.040
    timeout_s: float = 0.060
    loss_data: float = 0.0
    loss_ack: float = 0.0
    duration_s: float = 10.0
    n_packets: int = 0
    drop_data: tuple[int, ...] = ()
    drop_ack: tuple[int, ...] = ()
    timer_restart: str = "new_ack"
    max_sends: int = 0

    def __post_init__(self):
        store_python_numbers(self)
        check_choice("protocol", self.protocol, PROTOCOLS)
        check_int("window", self.window, 1, MAX_WINDOW)
        if self.protocol == "saw" and self.window != 1:
            raise ValueError(f"window={self.window!r} is not allowed with protocol='saw': stop-and-wait has a "
                             "window of 1 packet")
        check_int("packet_bytes", self.packet_bytes, 1, 10**6)
        check_int("ack_bytes", self.ack_bytes, 0, self.packet_bytes)
        check_real("rate_bps", self.rate_bps, 1e3, 1e12)
        check_real("rtt_s", self.rtt_s, 0.0, 100.0)
        check_real("timeout_s", self.timeout_s, 0.0, 1000.0, lo_open=True)
        check_real("loss_data", self.loss_data, 0.0, 0.9)
        check_real("loss_ack", self.loss_ack, 0.0, 0.9)
        check_real("duration_s", self.duration_s, 0.0, 1e6, lo_open=True)
        check_int("n_packets", self.n_packets, 0, 10**7)
        for name in ("drop_data", "drop_ack"):
            value = getattr(self, name)
            if not isinstance(value, (tuple, list)):
                raise ValueError(f"{name}={value!r} is not allowed: must be a tuple of transmission numbers >= 0")
            object.__setattr__(self, name, tuple(check_int(f"{name}[{i}]", v, 0) for i, v in enumerate(value)))
        check_choice("timer_restart", self.timer_restart, TIMER_RESTARTS)
        check_int("max_sends", self.max_sends, 0, MAX_TRANSMISSIONS)
        if self.max_transmissions > MAX_TRANSMISSIONS:
            raise ValueError(
                f"duration_s={self.duration_s!r} is out of range: at {self.packet_time_s:.3g} s per packet it "
                f"holds {self.max_transmissions:,} packet times, more than the {MAX_TRANSMISSIONS:,} that run in "
                f"about a second: must be at most {MAX_TRANSMISSIONS * self.packet_time_s:.4g} s here")

    @property
    def packet_time_s(self) -> float:
        """Transmission time L/R of a data packet, seconds."""
        return 8.0 * self.packet_bytes / self.rate_bps

    @property
    def ack_time_s(self) -> float:
        """Transmission time of an ACK, seconds."""
        return 8.0 * self.ack_bytes / self.rate_bps

    @property
    def ack_return_s(self) -> float:
        """Time from the start of a data packet's transmission to its ACK's arrival if neither is lost and the
        ACK leaves at once: L/R + RTT + ACK/R, seconds (the shortest timeout that is never premature)."""
        return self.packet_time_s + self.rtt_s + self.ack_time_s

    @property
    def max_transmissions(self) -> int:
        """Upper bound on the data transmissions a run can start (one per packet time)."""
        return int(math.floor(self.duration_s / self.packet_time_s)) + 2
