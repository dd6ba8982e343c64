"""Chapter 0b, "TCP primer": TCP congestion control on simcore's packet level, live.

One to four bulk TCP flows (or SCTP associations) cross a bottleneck in a dumbbell. The student sets the
round-trip time, bottleneck rate, buffer size and its queue discipline (drop-tail, CoDel, FQ-CoDel), random loss
rate, transport (TCP or SCTP), TCP's loss recovery (Reno, NewReno, SACK) and congestion control (Reno, CUBIC),
number of flows, receive window, duration and seed, and watches the congestion window,
the time-sequence plot and the bottleneck queue. Traces are downsampled here (``downsample_indices``: first,
last, minimum and maximum of every bucket) so the front end gets at most ``MAX_POINTS`` points per trace. The
checked numbers (window-limited throughput, Mathis, variants, fairness, buffer sizing) are in
``tcp_primer_numbers``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, replace

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.chapters.capture_button import CLIENT_HOST, CaptureButton, attach
from simcore.figures import register_figures
from simcore.packet import (
    CONGESTION_CONTROLS,
    VARIANTS,
    LinkParams,
    PacketResult,
    SctpParams,
    TcpParams,
    bulk_scenario,
    dumbbell,
    mathis_throughput_bps,
    sctp_chunk_bounds,
    simulate,
    window_limited_throughput_bps,
)
from simcore.plotting import (
    LivePanel,
    color_for,
    downsample_indices,
    dropdown,
    float_slider,
    int_slider,
    new_figure,
    tick_path,
)
from simcore.rng import check_seed
from simcore.warm import cold_notice

__all__ = ["PrimerSetting", "MAX_POINTS", "RWND_CHOICES", "downsample_indices", "run", "clip_window",
           "plot_data", "closed_forms", "predictions", "flows_prediction", "gated_flows_table", "make_panel",
           "capture_name", "figures", "warm"]

MSS_BYTES = 1460
SCTP_CHUNK_BYTES = 1452  # user data of a full DATA chunk in a 1500-byte packet (RFC 4960 sec. 3)
TRANSPORTS = (("TCP", "tcp"), ("SCTP (RFC 4960)", "sctp"))
PACKET_BYTES = MSS_BYTES + 40  # on-wire IP packet of a full segment
MAX_POINTS = 2000  # per plotted trace
MAX_FLOWS = 4
RWND_CHOICES = (("16 KB", 16384), ("32 KB", 32767), ("64 KB", 65535), ("256 KB", 262144), ("1 MB", 1 << 20))
FLOW_COLORS = ("#0072B2", "#E69F00", "#009E73", "#CC79A7")
_SSTHRESH_UNSET = 1e29
TS_WINDOW_S = (0.0, 4.0)  # default time span of the time-sequence plot
CC_CHOICES = (("Reno (RFC 5681)", "reno"), ("CUBIC (RFC 9438, Linux)", "cubic"))
QUEUE_CHOICES = (("drop-tail", "droptail"), ("CoDel (RFC 8289)", "codel"), ("FQ-CoDel (RFC 8290)", "fq_codel"))
QUEUE_NAMES = {"droptail": "drop-tail", "codel": "CoDel", "fq_codel": "FQ-CoDel"}


@dataclass(frozen=True)
class PrimerSetting:
    """One dumbbell experiment as the sliders give it.

    rtt_ms: two-way propagation delay of the path, in [1, 1000] ms (bottleneck delay = rtt/2 each way).
    rate_mbps: bottleneck rate, in [0.1, 100] Mbit/s (access links are 1 Gbit/s).
    buffer_packets: limit of the bottleneck buffer, in [1, 10000] packets.
    queue: the buffer's queue discipline, 'droptail', 'codel' (RFC 8289) or 'fq_codel' (RFC 8290), with their
        default parameters (``LinkParams.queue``).
    loss_pct: random loss of each packet on the bottleneck (data direction), in [0, 20] percent.
    variant: TCP's loss recovery, 'reno', 'newreno' or 'sack' (TCP only).
    congestion_control: TCP's window rule, 'reno' (RFC 5681) or 'cubic' (RFC 9438) (TCP only).
    transport: 'tcp' or 'sctp' (each flow an SCTP association, ``SctpParams()`` with the receive window).
    flows: bulk flows, all with the same RTT, in [1, 4].
    rwnd_bytes: receive window of every flow, in [1460, 2**30] bytes.
    duration_s: simulated seconds, in (0, 120].
    seed: int >= 0 (random losses).
    """

    rtt_ms: float = 100.0
    rate_mbps: float = 5.0
    buffer_packets: int = 40
    loss_pct: float = 0.0
    variant: str = "sack"
    transport: str = "tcp"
    flows: int = 1
    rwnd_bytes: int = 262144
    duration_s: float = 20.0
    seed: int = 1
    congestion_control: str = "reno"
    queue: str = "droptail"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rtt_ms", self.rtt_ms, 1.0, 1000.0)
        check_real("rate_mbps", self.rate_mbps, 0.1, 100.0)
        check_int("buffer_packets", self.buffer_packets, 1, 10_000)
        check_real("loss_pct", self.loss_pct, 0.0, 20.0)
        check_choice("variant", self.variant, VARIANTS)
        check_choice("congestion_control", self.congestion_control, CONGESTION_CONTROLS)
        check_choice("queue", self.queue, tuple(v for _, v in QUEUE_CHOICES))
        check_choice("transport", self.transport, tuple(v for _, v in TRANSPORTS))
        check_int("flows", self.flows, 1, MAX_FLOWS)
        check_int("rwnd_bytes", self.rwnd_bytes, MSS_BYTES, 2**30)
        check_real("duration_s", self.duration_s, 0.0, 120.0, lo_open=True)
        check_seed(self.seed)

    @property
    def segment_bytes(self) -> int:
        """User data of a full-size packet (the plots' unit): a TCP segment or a full SCTP DATA chunk."""
        return SCTP_CHUNK_BYTES if self.transport == "sctp" else MSS_BYTES

    @property
    def bdp_packets(self) -> float:
        """Bandwidth-delay product rate * RTT, in full-size packets."""
        return self.rate_mbps * 1e6 * self.rtt_ms * 1e-3 / (8 * PACKET_BYTES)

    @property
    def payload_rate_bps(self) -> float:
        """Largest possible goodput: bottleneck rate times the payload share of a full packet, bits/s."""
        return self.rate_mbps * 1e6 * self.segment_bytes / PACKET_BYTES


def run(setting: PrimerSetting, trace: bool = True) -> PacketResult:
    """Return the ``PacketResult`` (with traces if ``trace``) of ``setting``'s flows across the dumbbell."""
    link = LinkParams(rate_bps=setting.rate_mbps * 1e6, delay_s=setting.rtt_ms * 1e-3 / 2,
                      queue_packets=setting.buffer_packets, loss_prob=setting.loss_pct / 100.0, queue=setting.queue)
    db = dumbbell(setting.flows, link)
    tcp = TcpParams.preset("rfc5681", variant=setting.variant, congestion_control=setting.congestion_control,
                           mss_bytes=MSS_BYTES, rwnd_bytes=setting.rwnd_bytes)
    sc = bulk_scenario(db.network, db.pairs, tcp, duration_s=setting.duration_s)
    if setting.transport == "sctp":
        sp = SctpParams(rwnd_bytes=setting.rwnd_bytes)
        sc = replace(sc, connections=tuple(replace(c, tcp=TcpParams(), transport="sctp", sctp=sp)
                                           for c in sc.connections))
    return simulate(sc, seed=setting.seed, trace=trace)


def _thin(x: np.ndarray, y: np.ndarray, max_points: int = MAX_POINTS) -> tuple[np.ndarray, np.ndarray]:
    i = downsample_indices(y, max_points)
    return x[i], y[i]


def clip_window(window_s: tuple[float, float], duration_s: float) -> tuple[float, float]:
    """Return ``window_s`` = (start, end) in s clipped to [0, duration_s], keeping its span if it starts
    after the run has ended."""
    lo, hi = (float(v) for v in window_s)
    if not 0.0 <= lo <= hi:
        raise ValueError(f"window_s={window_s!r} is not allowed: must be (start, end) with 0 <= start <= end")
    span = max(hi - lo, 1e-3)
    hi = min(max(hi, lo + 1e-3), duration_s)
    return (lo if lo < hi else max(0.0, hi - span)), hi


def plot_data(res: PacketResult, setting: PrimerSetting, max_points: int = MAX_POINTS,
              ts_window_s: tuple[float, float] | None = None) -> dict:
    """Return the downsampled arrays of the three plots (time in s, windows and sequence numbers in segments
    (full DATA chunks for SCTP), queue in packets); each array has at most ``max_points`` points. The
    time-sequence arrays cover only ``ts_window_s`` (start, end) in s (default: the whole run), so a short
    window shows every packet."""
    tr, pt, qt = res.tcp_trace, res.packet_trace, res.queue_trace
    if tr is None or pt is None or qt is None:
        raise ValueError("plot_data needs a result of run(setting, trace=True)")
    out: dict = {"cwnd": [], "ssthresh": None}
    unit = setting.segment_bytes
    for c in range(setting.flows):
        sel = (tr.conn == c) & (tr.direction == 0)
        t, cw = tr.time_s[sel], tr.cwnd_bytes[sel] / unit
        out["cwnd"].append(_thin(t, cw, max_points))
        if c == 0:
            raw = tr.ssthresh_bytes[sel]
            ss = np.where(raw > _SSTHRESH_UNSET, np.nan, raw / unit)
            out["ssthresh"] = _thin(t, ss, max_points)
            to = tr.event[sel] == 2
            out["timeouts"] = (t[to][:max_points], cw[to][:max_points])
    lo, hi = clip_window(ts_window_s or (0.0, setting.duration_s), setting.duration_s)
    mine = (pt.conn == 0) & ((pt.flags & 8) == 0) & (pt.time_s >= lo) & (pt.time_s <= hi)
    data = mine & (pt.direction == 0) & (pt.seqlen > 0)
    sent = data & (pt.kind == 0)
    retx = sent & ((pt.flags & 16) != 0)
    acks = mine & (pt.direction == 1) & (pt.kind == 1) & ((pt.flags & 2) != 0)
    acked = pt.ack
    if setting.transport == "sctp":  # a SACK's cumulative TSN ack, drawn at the end of that chunk's bytes
        _, ends = sctp_chunk_bounds(res, 0, 0)
        acked = np.ones_like(pt.ack)
        if ends.size:
            acked = np.where(pt.ack >= 0, ends[np.clip(pt.ack, 0, ends.size - 1)], 1)
    for name, sel, col in (("sent", sent & ~retx, pt.seq), ("retx", retx, pt.seq),
                           ("dropped", data & (pt.kind == 2), pt.seq),
                           ("lost", data & (pt.kind == 3), pt.seq), ("acked", acks, acked)):
        out[name] = _thin(pt.time_s[sel], col[sel] / unit, max_points)
    q = qt.link == 0  # the bottleneck, left -> right
    out["queue"] = _thin(qt.time_s[q], qt.packets[q].astype(float), max_points)
    return out


def closed_forms(setting: PrimerSetting) -> dict[str, float]:
    """Return the closed forms for ``setting`` in bits/s (summed over flows): the bottleneck's payload
    rate, the window limit flows * rwnd / RTT and Mathis flows * (MSS/RTT) sqrt(3/(2p)) (nan if p = 0),
    all with the propagation RTT; and the BDP in packets."""
    rtt_s = setting.rtt_ms * 1e-3
    p = setting.loss_pct / 100.0
    return {
        "link_bps": setting.payload_rate_bps,
        "window_bps": setting.flows * window_limited_throughput_bps(setting.rwnd_bytes, rtt_s),
        "mathis_bps": setting.flows * mathis_throughput_bps(setting.segment_bytes, rtt_s, p) if p > 0 else float("nan"),
        "bdp_packets": setting.bdp_packets,
    }


def _status(res: PacketResult, setting: PrimerSetting) -> str:
    pred = closed_forms(setting)
    good = res.goodput_total_bps()
    parts = [f"goodput <b>{good / 1e6:.2f} Mbit/s</b> = {100 * good / pred['link_bps']:.0f}% of what the "
             f"bottleneck can carry ({pred['link_bps'] / 1e6:.2f} Mbit/s of payload)"]
    if pred["window_bps"] < 2 * pred["link_bps"]:
        parts.append(f"window limit flows&middot;W/RTT = {pred['window_bps'] / 1e6:.2f} Mbit/s")
    if np.isfinite(pred["mathis_bps"]):
        parts.append(f"Mathis = {pred['mathis_bps'] / 1e6:.2f} Mbit/s")
    discipline = "" if setting.queue == "droptail" else f" ({QUEUE_NAMES[setting.queue]})"
    parts.append(f"BDP = {pred['bdp_packets']:.0f} packets, buffer {setting.buffer_packets}{discipline}")
    aqm = ""
    if setting.queue != "droptail" and res.link_drops_aqm is not None:
        aqm = f" ({int(res.link_drops_aqm[0])} by {QUEUE_NAMES[setting.queue]}'s rule)"
    counts = (f"timeouts {int(res.timeouts[:, 0].sum())}, "
              f"fast retransmits {int(res.fast_retransmits[:, 0].sum())}, "
              f"buffer drops {int(res.link_drops_queue[0])}{aqm}, random losses {int(res.link_drops_loss[0])}")
    return "; ".join(parts) + ".<br>" + counts + "."


def _empty_figures(widget: bool) -> tuple[go.Figure, go.Figure, go.Figure]:
    cw = new_figure(widget=widget, title="Congestion window", xaxis_title="time (s)",
                    yaxis_title="segments", height=340)
    for c in range(MAX_FLOWS):
        cw.add_scatter(mode="lines", line=dict(color=FLOW_COLORS[c], shape="hv", width=1.5))
    cw.add_scatter(mode="lines", line=dict(color=color_for("bound"), shape="hv", dash="dash"))
    cw.add_scatter(mode="markers", marker=dict(color=color_for("closed form"), symbol="x", size=10))
    ts = new_figure(widget=widget, title="Time-sequence plot, flow 1", xaxis_title="time (s)",
                    yaxis_title="sequence number (segments)", height=340)
    # sent segments are up to MAX_POINTS points: drawn as dashes in one SVG path (a layout shape, see
    # _draw; markers cost one SVG element each and were most of the redraw); their trace is an invisible
    # line that carries the hover, and a point-less trace holds the legend entry. Retransmissions, drops
    # and losses (the events to find) stay markers; ACKs are a step line.
    ts.add_scatter(mode="lines", name="sent", line=dict(color="rgba(0,0,0,0)"), showlegend=False,
                   hovertemplate="segment %{y} sent at %{x:.4f} s<extra></extra>")
    ts.add_scatter(mode="markers", marker=dict(color=color_for("SACK"), symbol="circle-open", size=8))
    ts.add_scatter(mode="markers", marker=dict(color=color_for("drop"), symbol="x", size=9))
    ts.add_scatter(mode="markers", marker=dict(color=color_for("Ticket"), symbol="diamond-open", size=9))
    ts.add_scatter(mode="lines", line=dict(color=color_for("bound"), shape="hv", width=1))
    ts.add_scatter(x=[None], y=[None], mode="lines", name="sent", line=dict(color=FLOW_COLORS[0], width=1.5))
    qf = new_figure(widget=widget, title="Bottleneck queue", xaxis_title="time (s)",
                    yaxis_title="packets in buffer", height=300)
    qf.add_scatter(mode="lines", line=dict(color=color_for("packet"), width=1))
    qf.add_scatter(mode="lines", line=dict(color=color_for("drop"), dash="dash", width=1))
    for f in (cw, ts, qf):
        f.update_layout(margin=dict(t=80), legend=dict(y=1.0, yanchor="bottom"), title=dict(y=0.97))
    return cw, ts, qf


def _draw(figs: tuple[go.Figure, go.Figure, go.Figure], setting: PrimerSetting,
          ts_window_s: tuple[float, float] = TS_WINDOW_S, res: PacketResult | None = None) -> PacketResult:
    res = run(setting, trace=True) if res is None else res
    lo, hi = clip_window(ts_window_s, setting.duration_s)
    d = plot_data(res, setting, ts_window_s=(lo, hi))
    cw, ts, qf = figs
    T = setting.duration_s
    for c in range(MAX_FLOWS):
        x, y = d["cwnd"][c] if c < setting.flows else ([], [])
        cw.data[c].update(x=x, y=y, name=f"cwnd flow {c + 1}", visible=c < setting.flows,
                          line=dict(color=FLOW_COLORS[c], shape="hv", width=1.5))
    cw.data[MAX_FLOWS].update(x=d["ssthresh"][0], y=d["ssthresh"][1], name="ssthresh flow 1",
                              line=dict(color=color_for("bound"), shape="hv", dash="dash"))
    cw.data[MAX_FLOWS + 1].update(x=d["timeouts"][0], y=d["timeouts"][1], name="timeout",
                                  marker=dict(color=color_for("closed form"), symbol="x", size=10))
    for i, (key, name) in enumerate((("sent", "sent"), ("retx", "retransmitted"),
                                     ("dropped", "dropped (buffer full)" if setting.queue == "droptail" else
                                      f"dropped by {QUEUE_NAMES[setting.queue]}"), ("lost", "lost at random"),
                                     ("acked", "ACK received"))):
        ts.data[i].update(x=d[key][0], y=d[key][1], name=name)
    qf.data[0].update(x=d["queue"][0], y=d["queue"][1], name="bottleneck buffer",
                      line=dict(color=color_for("packet"), width=1))
    qf.data[1].update(x=[0, T], y=[setting.buffer_packets] * 2, name="buffer limit",
                      line=dict(color=color_for("drop"), dash="dash", width=1))
    shade = [dict(type="rect", xref="x", yref="paper", x0=lo, x1=hi, y0=0, y1=1, line_width=0,
                  fillcolor=color_for("bound"), opacity=0.12, layer="below")]
    # the laws' windows as labelled reference lines (not curves: they carry no data)
    per_flow = " per flow" if setting.flows > 1 else ""
    levels = ((setting.bdp_packets / setting.flows, "dot", f"BDP{per_flow}"),
              ((setting.bdp_packets + setting.buffer_packets) / setting.flows, "dashdot", f"BDP + buffer{per_flow}"))
    cw.layout.shapes = shade + [dict(type="line", xref="paper", yref="y", x0=0, x1=1, y0=y, y1=y, layer="below",
                                     line=dict(color=color_for("closed form"), dash=dash, width=1))
                                for y, dash, _ in levels]
    cw.layout.annotations = [dict(xref="paper", yref="y", x=1, y=y, text=f"{label} {y:.0f}", showarrow=False,
                                  xanchor="right", yanchor="bottom", font=dict(size=11))
                             for y, _, label in levels]
    for f in (cw, qf):
        f.update_xaxes(range=[0, T])
    qf.layout.shapes = shade
    ts.update_xaxes(range=[lo, hi])
    sent_x, sent_y = d["sent"]  # a dash 6 px wide on a plot about 1000 px wide, as the old marker
    ts.layout.shapes = [dict(type="path", xref="x", yref="y", layer="above",
                             line=dict(color=FLOW_COLORS[0], width=1.5),
                             path=tick_path(sent_x, sent_y, half_width=3e-3 * (hi - lo), decimals=5))
                        ] if len(sent_x) else []
    ts.layout.title = f"Time-sequence plot, flow 1, {lo:g} to {hi:g} s (shaded on the other plots)"
    return res


def predictions() -> list:
    """Return the questions that hold the live panel back (``tcp_primer_predictions.predictions``)."""
    from .tcp_primer_predictions import predictions as ask

    return ask()


def flows_prediction():
    """Return Q3, one flow or four through a 5-packet buffer (``tcp_primer_predictions.flows_prediction``)."""
    from .tcp_primer_predictions import flows_prediction as ask

    return ask()


def gated_flows_table(prediction):
    """Return the utilization table of one flow and four (``tcp_primer_predictions.flows_table``), held back
    until ``prediction`` is committed."""
    from simcore.predict import gated_output

    from .tcp_primer_predictions import flows_table

    return gated_output(lambda: print(flows_table()), prediction)


def make_panel(setting: PrimerSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live dumbbell panel: RTT (first), rate, buffer and its queue discipline, loss, TCP variant
    (loss recovery) and congestion control, transport, flows, receive window, duration and seed, drawing cwnd,
    the time-sequence plot and the bottleneck queue; under it a button saves the run as a pcapng capture
    (``panel.capture``). gate: predictions (``predictions()``) that hold the plots and the status line back
    until committed."""
    s = setting or PrimerSetting()
    controls = {
        "rtt_ms": float_slider("round-trip time (ms)", s.rtt_ms, 10, 640, 10),
        "rate_mbps": float_slider("bottleneck rate (Mbit/s)", s.rate_mbps, 1, 50, 1),
        "buffer_packets": int_slider("buffer (packets)", s.buffer_packets, 2, 400),
        "queue": dropdown("queue discipline", QUEUE_CHOICES, s.queue),
        "loss_pct": float_slider("random loss (%)", s.loss_pct, 0, 5, 0.1),
        "variant": dropdown("TCP variant", VARIANTS, s.variant),
        "congestion_control": dropdown("congestion control", CC_CHOICES, s.congestion_control),
        "transport": dropdown("transport", TRANSPORTS, s.transport),
        "flows": int_slider("flows", s.flows, 1, MAX_FLOWS),
        "rwnd_bytes": dropdown("receive window", RWND_CHOICES, s.rwnd_bytes),
        "duration_s": float_slider("duration (s)", s.duration_s, 2, 30, 1),
        "seed": int_slider("seed", s.seed, 0, 99),
        "ts_window_s": widgets.FloatRangeSlider(
            value=TS_WINDOW_S, min=0, max=30, step=0.5, description="time-sequence plot (s)",
            continuous_update=False, readout_format=".1f", style={"description_width": "initial"},
            layout=widgets.Layout(width="340px")),
    }
    figs = _empty_figures(widget=True)
    last: dict = {}  # the previous run: moving only the time-sequence window does not re-simulate

    def update(values: dict) -> str:
        values = dict(values)
        window = values.pop("ts_window_s")
        setting_now = PrimerSetting(**values)
        if last.get("setting") != setting_now:
            last.clear()
            last["res"] = run(setting_now, trace=True)
            last["setting"] = setting_now
        return _status(_draw(figs, setting_now, window, last["res"]), setting_now)

    def idle(values: dict) -> dict[str, str]:
        out = {}
        if values["loss_pct"] == 0:
            out["seed"] = "with no random loss nothing in this run is random, so the seed changes nothing"
        if values["transport"] == "sctp":
            out["variant"] = "SCTP has one loss recovery of its own (SACK gap blocks, RFC 4960): no variants"
            out["congestion_control"] = "SCTP has its own congestion control (RFC 4960 sec. 7, Reno-like)"
        return out

    panel = LivePanel(controls, update, list(figs), title="Bulk TCP flows through a bottleneck",
                      columns=3, idle=idle, compile_notice=functools.partial(cold_notice, "packet"), gate=gate)
    attach(panel, CaptureButton(lambda: last.get("res"), lambda: capture_name(last["setting"]), CAPTURE_POINTS))
    return panel


# Where the panel's capture button can listen: the dumbbell's bottleneck is link 0 (left -> right).
CAPTURE_POINTS = (CLIENT_HOST, ("bottleneck, before its buffer (sees the drops)", (0, "sender")),
                  ("bottleneck, after it (drops missing)", (0, "receiver")))


def capture_name(setting: PrimerSetting) -> str:
    """Return the capture file's stem for ``setting`` (the settings that shape the run)."""
    s = setting
    proto = s.variant if s.transport == "tcp" else "sctp"
    if s.transport == "tcp" and s.congestion_control != "reno":
        proto += f"_{s.congestion_control}"
    if s.queue != "droptail":
        proto += f"_{s.queue}"
    return (f"tcp_primer_{proto}_{s.flows}flows_rtt{s.rtt_ms:g}ms_{s.rate_mbps:g}Mbps_buf{s.buffer_packets}"
            f"_loss{s.loss_pct:g}pct_rwnd{s.rwnd_bytes}_{s.duration_s:g}s_seed{s.seed}")


REFERENCE = PrimerSetting()


@register_figures("tcp_primer")
def figures() -> dict[str, go.Figure]:
    """Return cwnd, time-sequence and queue figures of the reference run (the panel's defaults: one SACK
    flow, 5 Mbit/s, 100 ms, a 40-packet buffer of about one BDP, 20 s)."""
    cw, ts, qf = _empty_figures(widget=False)
    _draw((cw, ts, qf), REFERENCE)
    return {"cwnd": cw, "time_sequence": ts, "queue": qf}


def warm() -> None:
    """Run the packet kernel once per TCP variant and once on SCTP on a tiny traced dumbbell (compiles and
    caches it)."""
    for variant in VARIANTS:
        run(PrimerSetting(rtt_ms=20.0, rate_mbps=1.0, buffer_packets=5, loss_pct=1.0, variant=variant,
                          flows=2, duration_s=0.5))
    run(PrimerSetting(rtt_ms=20.0, rate_mbps=1.0, buffer_packets=5, loss_pct=1.0, transport="sctp", flows=2,
                      duration_s=0.5))
