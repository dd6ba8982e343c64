"""Two TCP flows sharing a bottleneck on simcore.packet: their rates in the phase plane of Chiu & Jain.

A dumbbell of two host pairs: flow 1 opens at 0, flow 2 at ``start2_s``. The bottleneck (``rate_mbps``, a
drop-tail buffer of ``buffer_packets``) has a one-way propagation delay of 2 ms; each flow's access links make up
the rest of its round-trip propagation time (``rtt1_ms``, ``rtt2_ms``). TCP: the RFC 5681 preset, SACK, MSS 1460
bytes, a receive window large enough never to limit. A flow's rate at time t is K&R's cwnd/RTT (sec. 3.7): its
congestion window over its smoothed RTT (RFC 6298's SRTT, which includes the queueing delay), sampled on a grid of
``sample_s``; the full-utilisation line is where the two add up to the bottleneck's payload rate.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_int, check_real, store_python_numbers
from simcore.aimd.chiu_jain import jain_index_pair
from simcore.packet import Link, LinkParams, Network, PacketResult, TcpParams, bulk_scenario, simulate

__all__ = ["TwoFlowSetting", "TwoFlowRun", "run_two_flows", "MSS_BYTES", "BOTTLENECK_DELAY_S"]

MSS_BYTES = 1460
PACKET_BYTES = MSS_BYTES + 40
BOTTLENECK_DELAY_S = 0.002
ACCESS_BPS = 1e9
MAX_PACKET_TIMES = 100_000  # full-size packets the bottleneck can send in a run: a traced run of about a second


@dataclass(frozen=True)
class TwoFlowSetting:
    """rate_mbps: bottleneck rate, in [1, 100] Mbit/s. buffer_packets: its drop-tail buffer, in [2, 2000] packets.
    rtt1_ms, rtt2_ms: each flow's round-trip propagation time, in [10, 500] ms. start2_s: when flow 2 opens, in
    [0, duration_s) s. duration_s: simulated time, in (0, 120] s; at most 100,000 bottleneck packet times in
    all (a traced run of about a second). loss_pct: random loss on the bottleneck, in [0, 5] %. seed: its draws.
    sample_s: the rate samples' spacing, in [0.001, 10] s."""

    rate_mbps: float = 10.0
    buffer_packets: int = 40
    rtt1_ms: float = 40.0
    rtt2_ms: float = 40.0
    start2_s: float = 5.0
    duration_s: float = 40.0
    loss_pct: float = 0.0
    seed: int = 1
    sample_s: float = 0.02

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rate_mbps", self.rate_mbps, 1.0, 100.0)
        check_int("buffer_packets", self.buffer_packets, 2, 2000)
        check_real("rtt1_ms", self.rtt1_ms, 10.0, 500.0)
        check_real("rtt2_ms", self.rtt2_ms, 10.0, 500.0)
        check_real("duration_s", self.duration_s, 0.0, 120.0, lo_open=True)
        check_real("start2_s", self.start2_s, 0.0, self.duration_s, hi_open=True)
        check_real("loss_pct", self.loss_pct, 0.0, 5.0)
        check_int("seed", self.seed, 0)
        check_real("sample_s", self.sample_s, 0.001, 10.0)
        if self.packet_times > MAX_PACKET_TIMES:
            raise ValueError(f"duration_s={self.duration_s!r} is out of range at rate_mbps={self.rate_mbps!r}: "
                             f"{self.packet_times:,.0f} bottleneck packet times, more than {MAX_PACKET_TIMES:,} (a "
                             f"traced run of about a second): must be at most "
                             f"{MAX_PACKET_TIMES / self.packet_times * self.duration_s:.3g} s at this rate")

    @property
    def packet_times(self) -> float:
        """Full-size packets the bottleneck can send in ``duration_s``."""
        return self.duration_s * self.rate_mbps * 1e6 / (8 * PACKET_BYTES)

    @property
    def payload_rate_bps(self) -> float:
        """The bottleneck's rate of TCP payload with full-size packets, bits/s (the full-utilisation line)."""
        return self.rate_mbps * 1e6 * MSS_BYTES / PACKET_BYTES


@dataclass(frozen=True)
class TwoFlowRun:
    """time_s: the sample grid. rate1_bps, rate2_bps: cwnd/RTT of each flow there (0 before it opens or before its
    first RTT sample). jain: Jain's index of the two (NaN before flow 2 opens). result: simcore.packet's."""

    setting: TwoFlowSetting
    time_s: np.ndarray
    rate1_bps: np.ndarray
    rate2_bps: np.ndarray
    jain: np.ndarray
    result: PacketResult

    def mean_rates_bps(self, after_s: float) -> tuple[float, float]:
        """Return each flow's delivered bits per second from ``after_s`` to the end (bytes acknowledged, measured
        from the packet trace, not from cwnd)."""
        t0 = check_real("after_s", after_s, 0.0, self.setting.duration_s, hi_open=True)
        tr = self.result.tcp_trace
        out = []
        for c in (0, 1):
            m = (tr.conn == c) & (tr.direction == 0)
            t, una = tr.time_s[m], tr.snd_una[m].astype(float)
            if t.size == 0:
                out.append(0.0)
                continue
            i0 = np.searchsorted(t, t0, side="right") - 1
            start = una[i0] if i0 >= 0 else 0.0
            out.append(8.0 * (una[-1] - start) / (self.setting.duration_s - t0))
        return out[0], out[1]


def _network(s: TwoFlowSetting) -> tuple[Network, tuple[tuple[int, int], ...]]:
    bottleneck = LinkParams(rate_bps=s.rate_mbps * 1e6, delay_s=BOTTLENECK_DELAY_S, queue_packets=s.buffer_packets,
                            loss_prob=s.loss_pct / 100.0)
    reverse = LinkParams(rate_bps=s.rate_mbps * 1e6, delay_s=BOTTLENECK_DELAY_S, queue_packets=s.buffer_packets)
    links = [Link(0, 1, bottleneck), Link(1, 0, reverse)]
    pairs = []
    for i, rtt_ms in enumerate((s.rtt1_ms, s.rtt2_ms)):
        # the round trip crosses each access link twice (host -> router, router -> host on both sides)
        access = LinkParams(rate_bps=ACCESS_BPS, delay_s=(rtt_ms * 1e-3 / 2 - BOTTLENECK_DELAY_S) / 2,
                            queue_packets=10_000)
        a, b = 2 + i, 4 + i
        links += [Link(a, 0, access), Link(0, a, access), Link(1, b, access), Link(b, 1, access)]
        pairs.append((a, b))
    return Network(6, tuple(links)), tuple(pairs)


def _queue_delay_s(res: PacketResult, s: TwoFlowSetting, grid: np.ndarray) -> np.ndarray:
    """The bottleneck queue's delay (bytes waiting * 8 / rate) at each time of ``grid``, seconds."""
    qt = res.queue_trace
    m = qt.link == 0
    t, b = qt.time_s[m], qt.bytes[m].astype(float)
    i = np.searchsorted(t, grid, side="right") - 1
    out = np.zeros(grid.size)
    ok = i >= 0
    out[ok] = b[i[ok]] * 8.0 / (s.rate_mbps * 1e6)
    return out


def _sampled(tr, conn: int, grid: np.ndarray, rtt_s: np.ndarray) -> np.ndarray:
    m = (tr.conn == conn) & (tr.direction == 0)
    t, cwnd, srtt = tr.time_s[m], tr.cwnd_bytes[m], tr.srtt_s[m]
    out = np.zeros(grid.size)
    if t.size == 0:
        return out
    i = np.searchsorted(t, grid, side="right") - 1
    j = np.maximum(i, 0)
    ok = (i >= 0) & np.isfinite(srtt[j])  # open, with a first RTT sample (after the handshake)
    out[ok] = 8.0 * cwnd[j[ok]] / rtt_s[ok]
    return out


def run_two_flows(setting: TwoFlowSetting) -> TwoFlowRun:
    """Run ``setting`` on simcore.packet (traced) and return the flows' rates on the sample grid."""
    s = setting
    net, pairs = _network(s)
    tcp = TcpParams.preset("rfc5681", variant="sack", mss_bytes=MSS_BYTES, rwnd_bytes=1 << 26)
    sc = bulk_scenario(net, pairs, tcp, duration_s=s.duration_s, start_times_s=(0.0, s.start2_s))
    res = simulate(sc, seed=s.seed, trace=True)
    grid = np.arange(0.0, s.duration_s, s.sample_s)
    q = _queue_delay_s(res, s, grid)
    r1 = _sampled(res.tcp_trace, 0, grid, s.rtt1_ms * 1e-3 + q)
    r2 = _sampled(res.tcp_trace, 1, grid, s.rtt2_ms * 1e-3 + q)
    jain = np.where(grid >= s.start2_s, jain_index_pair(r1, r2), np.nan)
    return TwoFlowRun(s, grid, r1, r2, jain, res)
