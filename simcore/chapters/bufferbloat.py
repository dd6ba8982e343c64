"""Bufferbloat: how long packets wait at a bottleneck, and what the flows get, as its buffer grows, under drop-tail,
CoDel (RFC 8289) and FQ-CoDel (RFC 8290). For the TCP primer's "bufferbloat" part (issue 26 item 6).

- ``BufferbloatSetting``: the dumbbell (flows, rate, delay), the buffer sizes, the congestion control, the run.
- ``sweep(setting)``: one run per discipline and buffer size; per run the median and 95th percentile of the
  bottleneck's queueing delay (each packet's wait from entering the buffer to the start of its transmission, from
  ``measure_from_s`` on) and the flows' total goodput. A ``BufferbloatResult``.
- ``figure(result)``: two panels against the buffer size (log axis): the queueing delay (median, and the 95th
  percentile dotted) and the goodput, one colour per discipline.
- The TCP primer's bufferbloat part: ``timeline(TimelineSetting())`` runs one flow (CUBIC by default) through a
  1,000-packet buffer under drop-tail and under CoDel and gives the queueing delay over time; ``make_panel`` draws
  it live (congestion control, buffer size); ``predictions()`` is its one question (the median wait under
  drop-tail), answered by ``cubic_median_wait_s``, a closed form from RFC 9438's window function.

What a student should see: drop-tail's delay grows in proportion to its buffer (a full buffer of B packets waits
B packet times: 1.2 ms each at 10 Mbit/s) while the goodput stops growing once the buffer holds a bandwidth-delay
product; CoDel and FQ-CoDel keep the median near their 5 ms target whatever the buffer, at nearly the same goodput.
"""

from __future__ import annotations

import functools
import math
import zipfile
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from simcore._validate import check_choice, check_int, check_real, check_sequence, store_python_numbers
from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.plotting import LivePanel, color_for

__all__ = ["BufferbloatSetting", "BufferbloatResult", "sweep", "figure", "QUEUES", "QUEUE_LABELS", "TimelineSetting",
           "Timeline", "timeline", "compute_timeline", "write_stored_default", "STORED_DEFAULT", "cubic_median_wait_s",
           "predictions", "make_panel"]

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


# ---- the primer's bufferbloat part: queueing delay over time, drop-tail against CoDel, one prediction ----

TIMELINE_QUEUES = ("droptail", "codel")
TIMELINE_CC = (("CUBIC (Linux's default)", "cubic"), ("Reno", "reno"), ("BBR v1 (paced, model-based)", "bbr"))
BIN_S = 0.1  # the plot's time bins
PACKET_BYTES = 1500
PAYLOAD_BYTES = 1460
DELAY_FLOOR_S = 1e-4  # bins whose packets did not wait are drawn here (a log axis has no 0)
CUBIC_C = 0.4  # RFC 9438 sec. 5.1, segments / s^3
CUBIC_BETA = 0.7  # RFC 9438 sec. 4.6


@dataclass(frozen=True)
class TimelineSetting:
    """One run of each discipline for the delay-over-time plot.

    - ``congestion_control``: 'cubic', 'reno' or 'bbr' (SACK recovery, initial window 10, a 16 MB receive window).
    - ``buffer_packets``: the bottleneck's buffer, in [10, 2000] packets.
    - ``flows``: bulk flows, in [1, 4], started 0.1 s apart.
    - ``rate_bps``, ``delay_s``: the bottleneck's rate and one-way delay (access links 1 Gbit/s, no delay).
    - ``duration_s``, ``measure_from_s``: the run, and when the medians start (after slow start's losses).
    - ``seed``: the runs' seed (nothing here is random: it is kept for the record).
    """

    congestion_control: str = "cubic"
    buffer_packets: int = 1000
    flows: int = 1
    rate_bps: float = 10e6
    delay_s: float = 0.02
    duration_s: float = 40.0
    measure_from_s: float = 20.0
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        check_choice("congestion_control", self.congestion_control, tuple(v for _, v in TIMELINE_CC))
        check_int("buffer_packets", self.buffer_packets, 10, 2000)
        check_int("flows", self.flows, 1, 4)
        check_real("rate_bps", self.rate_bps, 1e6, 20e6)
        check_real("delay_s", self.delay_s, 0.001, 0.1)
        check_real("duration_s", self.duration_s, 1.0, 60.0)
        check_real("measure_from_s", self.measure_from_s, 0.0, self.duration_s, hi_open=True)
        check_int("seed", self.seed, 0, 2**63 - 1)

    @property
    def packet_time_s(self) -> float:
        """Seconds to send one 1500-byte packet at the bottleneck."""
        return PACKET_BYTES * 8 / self.rate_bps

    @property
    def bdp_packets(self) -> float:
        """Bandwidth-delay product of the round trip, in 1500-byte packets."""
        return self.rate_bps * 2 * self.delay_s / (8 * PACKET_BYTES)


@dataclass(frozen=True)
class Timeline:
    """What ``timeline`` returns: per discipline (``TIMELINE_QUEUES`` order) the mean wait of the packets that
    began their transmission in each ``BIN_S`` bin (``delay_s``: (queues, bins), nan for a bin with none), and
    from ``measure_from_s`` on the median and 95th percentile wait and the flows' goodput (whole run)."""

    setting: TimelineSetting
    time_s: np.ndarray  # bin centres
    delay_s: np.ndarray
    median_s: np.ndarray
    p95_s: np.ndarray
    goodput_bps: np.ndarray
    drops: np.ndarray


def _timeline_run(s: TimelineSetting, queue: str) -> tuple[np.ndarray, float, float, float, int]:
    bn = LinkParams(rate_bps=s.rate_bps, delay_s=s.delay_s, queue_packets=s.buffer_packets, queue=queue)
    db = dumbbell(s.flows, bn)
    tcp = TcpParams(variant="sack", congestion_control=s.congestion_control, rwnd_bytes=1 << 24,
                    initial_window_segments=10)
    sc = bulk_scenario(db.network, db.pairs, tcp, s.duration_s, [0.1 * i for i in range(s.flows)])
    r = simulate(sc, seed=s.seed, trace=True)
    st = r.sojourn_trace
    mine = st.link == db.bottleneck_link
    t, wait = st.time_s[mine], st.sojourn_s[mine]
    n_bins = int(math.ceil(s.duration_s / BIN_S))
    b = np.minimum((t / BIN_S).astype(np.int64), n_bins - 1)
    total = np.bincount(b, weights=wait, minlength=n_bins)
    count = np.bincount(b, minlength=n_bins)
    mean = np.where(count > 0, total / np.maximum(count, 1), np.nan)
    later = wait[t >= s.measure_from_s]
    p50, p95 = (float(np.quantile(later, q)) for q in (0.5, 0.95)) if later.size else (np.nan, np.nan)
    return mean, p50, p95, float(r.goodput_bps[:, 0].sum()), int(r.link_drops_queue[db.bottleneck_link])


STORED_DEFAULT = Path(__file__).with_name("bufferbloat_default.npz")
"""``timeline(TimelineSetting())`` as computed, kept so that a chapter's Run All does not wait ~0.3 s for the
primer's panel's first frame (``tests/chapters/test_bufferbloat.py`` checks it is bit-identical to a fresh run;
``write_stored_default()`` writes it again after a change of the packet kernels moves it)."""
_STORED_FIELDS = ("time_s", "delay_s", "median_s", "p95_s", "goodput_bps", "drops")


@functools.lru_cache(maxsize=32)
def timeline(setting: TimelineSetting | None = None) -> Timeline:
    """Run ``setting`` (default ``TimelineSetting()``: CUBIC, 1,000 packets) over drop-tail and over CoDel.
    The default setting's result is read from ``STORED_DEFAULT`` (the same numbers, computed beforehand)."""
    s = setting or TimelineSetting()
    if s == TimelineSetting():
        stored = _read_stored(s)
        if stored is not None:
            return stored
    return compute_timeline(s)


def _read_stored(s: TimelineSetting) -> Timeline | None:
    """The stored default timeline, or None when the file is missing or not what ``write_stored_default`` writes
    (fields, shapes, dtypes): the caller then simulates it."""
    n_bins = int(math.ceil(s.duration_s / BIN_S))
    shapes = {"time_s": (n_bins,), "delay_s": (len(TIMELINE_QUEUES), n_bins)}
    try:
        with np.load(STORED_DEFAULT, allow_pickle=False) as z:
            arrays = [z[f] for f in _STORED_FIELDS]
    except (OSError, EOFError, KeyError, ValueError, zipfile.BadZipFile):
        return None
    for f, a in zip(_STORED_FIELDS, arrays, strict=True):
        want = shapes.get(f, (len(TIMELINE_QUEUES),))
        if a.shape != want or a.dtype.kind != ("i" if f == "drops" else "f"):
            return None
    return Timeline(s, *arrays)


def compute_timeline(s: TimelineSetting) -> Timeline:
    """Return ``timeline(s)`` simulated (never read from ``STORED_DEFAULT``); times in seconds, goodput in bit/s."""
    if not isinstance(s, TimelineSetting):
        raise ValueError(f"s={s!r} is not allowed: must be a TimelineSetting")
    runs = [_timeline_run(s, q) for q in TIMELINE_QUEUES]
    n_bins = runs[0][0].size
    return Timeline(s, (np.arange(n_bins) + 0.5) * BIN_S, np.array([r[0] for r in runs]),
                    np.array([r[1] for r in runs]), np.array([r[2] for r in runs]), np.array([r[3] for r in runs]),
                    np.array([r[4] for r in runs]))


def write_stored_default(path: Path = STORED_DEFAULT) -> None:
    """Simulate the default timeline and write it to ``path`` (an ``.npz`` file; default ``STORED_DEFAULT``);
    returns None."""
    tl = compute_timeline(TimelineSetting())
    np.savez(path, **{f: getattr(tl, f) for f in _STORED_FIELDS})


def cubic_median_wait_s(setting: TimelineSetting) -> float:
    """Return the closed form of one CUBIC flow's median wait in a drop-tail buffer, seconds (RFC 9438).

    A loss comes when the window exceeds what the pipe and the buffer hold, W_max = BDP + B packets; CUBIC then
    sets the window to beta W_max and regrows it as W(t) = C (t - K)^3 + W_max with K = cbrt(W_max (1 - beta)
    / C) (t in seconds: the window function runs on real time, whatever the RTT), reaching W_max again at t = K,
    where the next loss comes. W(t) rises over the cycle, so half of the cycle the window is above W(K/2) =
    W_max - C K^3 / 8 = W_max (1 - (1 - beta) / 8): the median window, independent of C. The queue holds the
    window less the BDP, and each packet in it is one transmission time of wait:
    median wait = (W_max (1 - (1 - beta) / 8) - BDP) L / R. Left out: the round trip a recovery takes, the
    overshoot past W_max while a loss is being detected, and fast convergence (sec. 4.7), which makes
    alternate cycles shorter; the run's median comes out a little lower."""
    w_max = setting.bdp_packets + setting.buffer_packets
    median_window = w_max * (1 - (1 - CUBIC_BETA) / 8)
    return max(median_window - setting.bdp_packets, 0.0) * setting.packet_time_s


def predictions() -> list:
    """Return the bufferbloat part's one question: one CUBIC flow through a 1,000-packet drop-tail buffer, the
    median wait in the buffer (answer: ``cubic_median_wait_s``, a closed form)."""
    from simcore.predict import NumberPrediction

    s = TimelineSetting()
    answer_ms = cubic_median_wait_s(s) * 1e3
    full_ms = s.buffer_packets * s.packet_time_s * 1e3

    def why(_setting) -> str:
        tl = timeline(s)
        (tail, codel), (tail_gp, codel_gp) = tl.median_s * 1e3, tl.goodput_bps / 1e6
        return (f"A full buffer of {s.buffer_packets:,} packets is {s.buffer_packets:,} transmissions of "
                f"{s.packet_time_s * 1e3:.1f} ms: {full_ms:,.0f} ms. Drop-tail drops only when it is full, and CUBIC "
                "cuts its window to 70 % (not half) and then climbs back quickly and **flattens out near the window "
                f"of its last loss** ($W_{{max}}$ = BDP + buffer = {s.bdp_packets + s.buffer_packets:,.0f} packets): "
                "the window is above $W_{max}(1 - 0.3/8)$ half of the time, so the buffer "
                f"stays nearly full: {answer_ms:,.0f} ms by RFC 9438's formula. The run's median from "
                f"{s.measure_from_s:g} s on is {tail:,.0f} ms (lower: the formula leaves out the round trip each "
                f"recovery takes and fast convergence). CoDel, on the same buffer, drops as soon as packets have "
                f"waited over 5 ms for 100 ms: median {codel:.1f} ms, with goodput {codel_gp:.2f} Mbit/s against "
                f"drop-tail's {tail_gp:.2f} (whole runs). A big buffer buys no throughput, only delay: "
                "**bufferbloat**.")

    setting = {"congestion_control": s.congestion_control, "buffer_packets": s.buffer_packets}
    return [NumberPrediction(
        f"One CUBIC flow, {s.rate_bps / 1e6:g} Mbit/s, {2 * s.delay_s * 1e3:g} ms round trip, through a "
        f"{s.buffer_packets:,}-packet drop-tail buffer: once slow start's losses are over, how long does a packet "
        "typically wait in the buffer (the median), in ms?",
        answer=lambda _s: answer_ms, unit="ms", rel_tol=0.25, bounds=(0, 1e7), setting=setting, explanation=why)]


def _delay_ticks() -> dict:
    vals = [1e-4, 1e-3, 1e-2, 1e-1, 1.0]
    return dict(type="log", tickvals=vals, ticktext=["0.1 ms", "1 ms", "10 ms", "100 ms", "1 s"],
                range=[math.log10(DELAY_FLOOR_S) - 0.05, math.log10(3.0)])


def _timeline_figure(widget: bool) -> go.Figure:
    from simcore.plotting import new_figure

    fig = new_figure(widget=widget, title="Queueing delay at the bottleneck (mean of each 0.1 s)",
                     xaxis_title="time (s)", yaxis_title="wait in the buffer", height=360)
    for q in TIMELINE_QUEUES:
        fig.add_scatter(mode="lines", name=QUEUE_LABELS[q], line=dict(color=color_for(QUEUE_LABELS[q]), width=1.5))
    fig.update_yaxes(**_delay_ticks())
    fig.update_layout(margin=dict(t=80), legend=dict(y=1.0, yanchor="bottom"), title=dict(y=0.97))
    return fig


def _draw_timeline(fig: go.Figure, tl: Timeline) -> str:
    s = tl.setting
    for i in range(len(TIMELINE_QUEUES)):
        y = np.where(np.isnan(tl.delay_s[i]), np.nan, np.maximum(tl.delay_s[i], DELAY_FLOOR_S))
        fig.data[i].update(x=tl.time_s, y=y)
    full_s = s.buffer_packets * s.packet_time_s
    fig.update_xaxes(range=[0, s.duration_s])
    fig.layout.shapes = [
        dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=full_s, y1=full_s, layer="below",
             line=dict(color=color_for("bound"), dash="dash", width=1)),
        dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=0.005, y1=0.005, layer="below",
             line=dict(color=color_for("closed form"), dash="dot", width=1)),
        dict(type="rect", xref="x", yref="paper", x0=s.measure_from_s, x1=s.duration_s, y0=0, y1=1, line_width=0,
             fillcolor=color_for("bound"), opacity=0.12, layer="below"),
    ]
    fig.layout.annotations = [
        dict(xref="paper", yref="y", x=1, y=math.log10(full_s), text=f"full buffer: {full_s * 1e3:,.0f} ms",
             showarrow=False, xanchor="right", yanchor="bottom", font=dict(size=11)),
        dict(xref="paper", yref="y", x=1, y=math.log10(0.005), text="CoDel's target: 5 ms", showarrow=False,
             xanchor="right", yanchor="bottom", font=dict(size=11)),
        dict(xref="x", yref="paper", x=s.measure_from_s, y=1, text="medians over the shaded span", showarrow=False,
             xanchor="left", yanchor="top", font=dict(size=11)),
    ]
    best = s.rate_bps * PAYLOAD_BYTES / PACKET_BYTES
    parts = [f"{QUEUE_LABELS[q]}: median wait <b>{_ms(tl.median_s[i])}</b>, 95th percentile {_ms(tl.p95_s[i])}, "
             f"goodput {tl.goodput_bps[i] / 1e6:.2f} Mbit/s, {int(tl.drops[i])} drops"
             for i, q in enumerate(TIMELINE_QUEUES)]
    return ("; ".join(parts) + f".<br>Medians from {s.measure_from_s:g} s on; the link carries at most "
            f"{best / 1e6:.2f} Mbit/s of payload; BDP {s.bdp_packets:.0f} packets.")


def _ms(x: float) -> str:
    return "n/a" if not np.isfinite(x) else (f"{x * 1e3:,.0f} ms" if x >= 0.0995 else f"{x * 1e3:.1f} ms")


def make_panel(*, gate=None) -> LivePanel:
    """Return the bufferbloat panel: congestion control (CUBIC, Reno, BBR) and buffer size of one flow; the queueing
    delay over time under drop-tail and under CoDel (one 40 s run each, with traces: about 0.5 s a move), medians in
    the status line. gate: the prediction(s) that hold it back (``predictions()``)."""
    from simcore.plotting import dropdown, int_slider
    from simcore.warm import cold_notice

    s = TimelineSetting()
    controls = {
        "congestion_control": dropdown("congestion control", TIMELINE_CC, s.congestion_control),
        "buffer_packets": int_slider("buffer (packets)", s.buffer_packets, 100, 1000, 100),
    }
    fig = _timeline_figure(widget=True)

    def update(values: dict) -> str:
        return _draw_timeline(fig, timeline(TimelineSetting(**values)))

    return LivePanel(controls, update, [fig], title="Bufferbloat: one big buffer, drop-tail against CoDel",
                     columns=2, compile_notice=functools.partial(cold_notice, "packet"), gate=gate)
