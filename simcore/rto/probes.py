"""Sample RTTs measured on simcore.packet: small probes crossing a bottleneck whose queue a bulk TCP flow fills.

A dumbbell (``simcore.packet.dumbbell``) with two host pairs: pair 1 runs one bulk TCP flow (RFC 5681 preset, SACK)
that opens at ``tcp_start_s`` and then keeps the bottleneck's drop-tail buffer filling and draining (its sawtooth);
pair 2 sends a small probe every ``probe_interval_ms`` (a ``CbrSource``, like ping). A probe's round-trip time is
its measured one-way delay (propagation, transmissions and the wait in the queue) plus the return path's delay,
taken as constant: the return direction's propagation and a 40-byte ACK's transmission times (the return
bottleneck carries only the TCP flow's ACKs, about 3 % of its rate, so their queue adds at most tens of
microseconds, left out). A probe dropped by the full buffer or lost at random has no RTT (NaN).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_int, check_real, store_python_numbers
from simcore.packet import CbrSource, LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.rng import check_seed

__all__ = ["ProbeSetting", "ProbeRun", "measure_probes", "ACK_BYTES", "PROBE_BYTES", "MAX_PROBES"]

PROBE_BYTES = 100  # IP bytes of a probe
ACK_BYTES = 40  # IP bytes of its answer on the return path
ACCESS_BPS = 1e9  # the dumbbell's access links (simcore.packet.dumbbell's default)
MAX_PROBES = 20_000
MAX_PACKET_TIMES = 300_000  # full-size packets the bottleneck can send in a run: an untraced run of about a second


@dataclass(frozen=True)
class ProbeSetting:
    """rtt_ms: round-trip propagation delay, in [1, 1000] ms. rate_mbps: bottleneck rate, in [0.5, 100] Mbit/s.
    buffer_packets: its drop-tail buffer, in [1, 2000] packets. tcp_start_s: when the bulk TCP flow opens, in
    [0, duration_s] s (at duration_s: never). loss_pct: random loss on the bottleneck (probes and data), in
    [0, 20] %. probe_interval_ms: time between probes, in [2, 1000] ms. duration_s: simulated time, in (0, 120] s;
    at most 20,000 probes and 300,000 bottleneck packet times. seed: int >= 0."""

    rtt_ms: float = 100.0
    rate_mbps: float = 5.0
    buffer_packets: int = 50
    tcp_start_s: float = 2.0
    loss_pct: float = 0.0
    probe_interval_ms: float = 20.0
    duration_s: float = 12.0
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rtt_ms", self.rtt_ms, 1.0, 1000.0)
        check_real("rate_mbps", self.rate_mbps, 0.5, 100.0)
        check_int("buffer_packets", self.buffer_packets, 1, 2000)
        check_real("duration_s", self.duration_s, 0.0, 120.0, lo_open=True)
        check_real("tcp_start_s", self.tcp_start_s, 0.0, self.duration_s)
        check_real("loss_pct", self.loss_pct, 0.0, 20.0)
        check_real("probe_interval_ms", self.probe_interval_ms, 2.0, 1000.0)
        check_seed(self.seed)
        packet_times = self.duration_s * self.rate_mbps * 1e6 / (8 * 1500)
        if packet_times > MAX_PACKET_TIMES:
            raise ValueError(f"duration_s={self.duration_s!r} is out of range at rate_mbps={self.rate_mbps!r}: "
                             f"{packet_times:,.0f} bottleneck packet times, more than {MAX_PACKET_TIMES:,} (about a "
                             f"second of simulation): must be at most "
                             f"{MAX_PACKET_TIMES / packet_times * self.duration_s:.3g} s at this rate")
        n = self.duration_s / (self.probe_interval_ms * 1e-3)
        if n > MAX_PROBES:
            raise ValueError(f"probe_interval_ms={self.probe_interval_ms!r} is out of range for duration_s="
                             f"{self.duration_s!r}: {n:,.0f} probes, more than {MAX_PROBES:,}: must be at least "
                             f"{1e3 * self.duration_s / MAX_PROBES:.3g} ms")

    @property
    def return_s(self) -> float:
        """The return path's delay: half the propagation RTT and a 40-byte ACK on the bottleneck and two access
        links, seconds."""
        return self.rtt_ms * 5e-4 + ACK_BYTES * 8.0 / (self.rate_mbps * 1e6) + 2 * ACK_BYTES * 8.0 / ACCESS_BPS

    @property
    def base_rtt_s(self) -> float:
        """A probe's RTT through an empty queue: propagation plus its and its ACK's transmissions, seconds."""
        out = self.rtt_ms * 5e-4 + PROBE_BYTES * 8.0 / (self.rate_mbps * 1e6) + 2 * PROBE_BYTES * 8.0 / ACCESS_BPS
        return out + self.return_s

    @property
    def max_queue_s(self) -> float:
        """The longest wait in the bottleneck's full buffer (buffer_packets of 1500 bytes), seconds."""
        return self.buffer_packets * 1500 * 8.0 / (self.rate_mbps * 1e6)


@dataclass(frozen=True)
class ProbeRun:
    """send_s: when each probe left, seconds. rtt_s: its round-trip time, seconds (NaN: lost). setting: the run."""

    setting: ProbeSetting
    send_s: np.ndarray
    rtt_s: np.ndarray

    @property
    def lost(self) -> int:
        """Probes lost in the run (dropped by the full buffer or at random)."""
        return int(np.count_nonzero(np.isnan(self.rtt_s)))


def measure_probes(setting: ProbeSetting) -> ProbeRun:
    """Run ``setting`` on simcore.packet and return each probe's send time and RTT (the probes sent early enough to
    arrive before the end even through a full buffer)."""
    s = setting
    link = LinkParams(rate_bps=s.rate_mbps * 1e6, delay_s=s.rtt_ms * 5e-4, queue_packets=s.buffer_packets,
                      loss_prob=s.loss_pct / 100.0)
    db = dumbbell(2, link)
    interval_s = s.probe_interval_ms * 1e-3
    probe = CbrSource(db.pairs[1][0], db.pairs[1][1], rates_bps=(PROBE_BYTES * 8.0 / interval_s,),
                      packet_bytes=PROBE_BYTES, start_s=0.0)
    tcp = TcpParams.preset("rfc5681", variant="sack", mss_bytes=1460, rwnd_bytes=1 << 22)
    pairs = db.pairs[:1] if s.tcp_start_s < s.duration_s else ()
    sc = bulk_scenario(db.network, pairs, tcp, duration_s=s.duration_s, start_times_s=(s.tcp_start_s,)[:len(pairs)],
                       cbr=(probe,))
    res = simulate(sc, seed=s.seed, trace=False)
    n = int(res.cbr_sent[0])
    send = np.arange(n) * interval_s
    rtt = np.full(n, np.nan)
    idx = np.rint(res.cbr_send_time_s / interval_s).astype(np.int64)
    keep = (idx >= 0) & (idx < n)
    rtt[idx[keep]] = res.cbr_delay_s[keep] + s.return_s
    send[idx[keep]] = res.cbr_send_time_s[keep]
    # a probe still on its way at the end is not lost: keep only probes that had time to arrive
    latest_s = s.duration_s - (s.base_rtt_s - s.return_s + s.max_queue_s)
    known = send <= latest_s
    return ProbeRun(s, send[known], rtt[known])
