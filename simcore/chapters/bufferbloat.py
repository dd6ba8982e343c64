"""Bufferbloat: how long packets wait at a bottleneck, and what the flows get, as its buffer grows, under drop-tail,
CoDel (RFC 8289) and FQ-CoDel (RFC 8290). For the TCP primer's "bufferbloat" part (issue 26 item 6).

- ``BufferbloatSetting``: the dumbbell (flows, rate, delay), the buffer sizes, the congestion control, the run.
- ``sweep(setting)``: one run per discipline and buffer size; per run the median and 95th percentile of the
  bottleneck's queueing delay (each packet's wait from entering the buffer to the start of its transmission, from
  ``measure_from_s`` on) and the flows' total goodput. A ``BufferbloatResult``.
- ``figure(result)``: two panels against the buffer size (log axis): the queueing delay (median, and the 95th
  percentile dotted) and the goodput, one colour per discipline.

What a student should see: drop-tail's delay grows in proportion to its buffer (a full buffer of B packets waits
B packet times: 1.2 ms each at 10 Mbit/s) while the goodput stops growing once the buffer holds a bandwidth-delay
product; CoDel and FQ-CoDel keep the median near their 5 ms target whatever the buffer, at nearly the same goodput.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from simcore._validate import check_choice, check_int, check_real, check_sequence, store_python_numbers
from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.plotting import color_for

__all__ = ["BufferbloatSetting", "BufferbloatResult", "sweep", "figure", "QUEUES", "QUEUE_LABELS"]

QUEUES = ("droptail", "codel", "fq_codel")
QUEUE_LABELS = {"droptail": "drop-tail", "codel": "CoDel", "fq_codel": "FQ-CoDel"}
MAX_RUN_PACKETS = 2_000_000  # packets a sweep may simulate in all (about a second of simulation per 0.5 million)


@dataclass(frozen=True)
class BufferbloatSetting:
    """One bufferbloat sweep.

    - ``buffers_packets``: the bottleneck buffer sizes (packets), increasing.
    - ``queues``: the disciplines compared (names of ``LinkParams.queue``).
    - ``n_flows``: bulk TCP flows, started 0.1 s apart; ``congestion_control``: theirs ('reno' or 'cubic').
    - ``rate_bps``, ``delay_s``: the bottleneck (one-way delay; access links 1 Gbit/s, no delay).
    - ``duration_s``, ``measure_from_s``: the run and when the measurement starts (after slow start).
    - ``seed``: the runs' seed.
    """

    buffers_packets: tuple[int, ...] = (25, 50, 100, 200, 400, 800)
    queues: tuple[str, ...] = QUEUES
    n_flows: int = 2
    congestion_control: str = "reno"
    rate_bps: float = 10e6
    delay_s: float = 0.02
    duration_s: float = 10.0
    measure_from_s: float = 3.0
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        buffers = check_sequence("buffers_packets", self.buffers_packets, "buffer sizes (packets)")
        if not buffers:
            raise ValueError("buffers_packets=() is not allowed: give at least one buffer size")
        for b in buffers:
            check_int("buffers_packets", b, 1, 100_000)
        if any(b <= a for a, b in zip(buffers[:-1], buffers[1:], strict=True)):
            raise ValueError(f"buffers_packets={buffers!r} is not allowed: must be strictly increasing")
        object.__setattr__(self, "buffers_packets", tuple(buffers))
        queues = check_sequence("queues", self.queues, "queue disciplines")
        if not queues:
            raise ValueError("queues=() is not allowed: give at least one of " + ", ".join(map(repr, QUEUES)))
        for q in queues:
            check_choice("queues", q, QUEUES)
        object.__setattr__(self, "queues", tuple(queues))
        check_int("n_flows", self.n_flows, 1, 64)
        check_choice("congestion_control", self.congestion_control, ("reno", "cubic"))
        check_real("rate_bps", self.rate_bps, 1e5, 1e9)
        check_real("delay_s", self.delay_s, 0.0, 1.0)
        check_real("duration_s", self.duration_s, 0.0, 600.0, lo_open=True)
        check_real("measure_from_s", self.measure_from_s, 0.0, self.duration_s, hi_open=True)
        check_int("seed", self.seed, 0, 2**63 - 1)
        packets = len(self.queues) * len(self.buffers_packets) * self.rate_bps * self.duration_s / 12_000
        if packets > MAX_RUN_PACKETS:
            raise ValueError(f"duration_s={self.duration_s!r} with rate_bps={self.rate_bps!r} over "
                             f"{len(self.queues) * len(self.buffers_packets)} runs would simulate about "
                             f"{packets:,.0f} packets, more than {MAX_RUN_PACKETS:,} (a few seconds): shorten the "
                             "run, lower the rate or give fewer buffer sizes")


@dataclass(frozen=True)
class BufferbloatResult:
    """What ``sweep`` returns: arrays of shape (len(queues), len(buffers_packets))."""

    setting: BufferbloatSetting
    delay_p50_s: np.ndarray
    delay_p95_s: np.ndarray
    goodput_bps: np.ndarray
    drops: np.ndarray  # packets the bottleneck dropped (full buffer or its discipline), whole run


def _run(s: BufferbloatSetting, queue: str, buffer_packets: int) -> tuple[float, float, float, int]:
    bn = LinkParams(rate_bps=s.rate_bps, delay_s=s.delay_s, queue_packets=buffer_packets, queue=queue)
    db = dumbbell(s.n_flows, bn)
    tcp = TcpParams(variant="sack", congestion_control=s.congestion_control, rwnd_bytes=1 << 24,
                    initial_window_segments=10)
    sc = bulk_scenario(db.network, db.pairs, tcp, s.duration_s, [0.1 * i for i in range(s.n_flows)])
    r = simulate(sc, seed=s.seed, trace=True)
    st = r.sojourn_trace
    b = db.bottleneck_link
    wait = st.sojourn_s[(st.link == b) & (st.time_s >= s.measure_from_s)]
    if wait.size == 0:
        return np.nan, np.nan, float(r.goodput_bps[:, 0].sum()), int(r.link_drops_queue[b])
    return (float(np.quantile(wait, 0.5)), float(np.quantile(wait, 0.95)), float(r.goodput_bps[:, 0].sum()),
            int(r.link_drops_queue[b]))


def sweep(setting: BufferbloatSetting | None = None) -> BufferbloatResult:
    """Run ``setting`` (default ``BufferbloatSetting()``): every discipline at every buffer size."""
    s = setting or BufferbloatSetting()
    shape = (len(s.queues), len(s.buffers_packets))
    p50, p95, gp, drops = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape, np.int64)
    for i, q in enumerate(s.queues):
        for j, b in enumerate(s.buffers_packets):
            p50[i, j], p95[i, j], gp[i, j], drops[i, j] = _run(s, q, b)
    return BufferbloatResult(s, p50, p95, gp, drops)


def figure(result: BufferbloatResult) -> go.Figure:
    """Return the two panels: queueing delay (ms; median solid, 95th percentile dotted) and goodput (Mbit/s)
    against the buffer size (packets, log axis), one colour per discipline."""
    s = result.setting
    fig = make_subplots(rows=1, cols=2, horizontal_spacing=0.12,
                        subplot_titles=("Queueing delay at the bottleneck", "Goodput of all flows"))
    x = np.array(s.buffers_packets)
    for i, q in enumerate(s.queues):
        label = QUEUE_LABELS[q]
        c = color_for(label)
        fig.add_trace(go.Scatter(x=x, y=result.delay_p50_s[i] * 1e3, mode="lines+markers", name=f"{label}: median",
                                 line=dict(color=c), legendgroup=q), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=result.delay_p95_s[i] * 1e3, mode="lines", name=f"{label}: 95th percentile",
                                 line=dict(color=c, dash="dot"), legendgroup=q), row=1, col=1)
        fig.add_trace(go.Scatter(x=x, y=result.goodput_bps[i] / 1e6, mode="lines+markers", name=label,
                                 line=dict(color=c), legendgroup=q, showlegend=False), row=1, col=2)
    bdp = s.rate_bps * 2 * s.delay_s / 12_000
    for col in (1, 2):
        fig.add_vline(x=bdp, line=dict(color=color_for("bound"), dash="dash"), row=1, col=col)
        fig.update_xaxes(type="log", title_text="buffer (packets; dashed: one bandwidth-delay product)", row=1,
                         col=col)
    fig.update_yaxes(title_text="delay in the buffer (ms)", rangemode="tozero", row=1, col=1)
    fig.update_yaxes(title_text="goodput (Mbit/s)", range=[0, s.rate_bps / 1e6 * 1.05], row=1, col=2)
    fig.update_layout(template="plotly_white", height=420, margin=dict(l=60, r=20, t=50, b=50),
                      legend=dict(orientation="h", yanchor="top", y=-0.2, x=0))
    return fig
