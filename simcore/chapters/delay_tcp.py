"""Chapter 4, Part 2: the textbook's view of a page download, with real TCP (``simcore.delay.tcp_view``).

The same page as Part 1 (a base file and its embedded objects), now over a link of rate R with real TCP:
MSS segments with headers, slow start from a small initial window, optional bursty cross traffic, a
browser's parallel connections, persistent connections with and without pipelining, a client cache.
This module wires it for the notebook: the live panel (simulated response time of every mode against
the textbook's simple and slow-start formulas, and the packet-level space-time diagram of the selected
mode), the reference table, an RTT sweep figure, ``figures()`` and ``warm()`` (the lead merges both into
the "delay" chapter).
"""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from simcore.chapters.capture_button import CaptureButton, attach
from simcore.delay.tcp_view import (
    TCP_MODES,
    TcpPageParams,
    TcpPageResult,
    compare_modes,
    simulate_page_tcp,
)
from simcore.packet.plots import space_time_figure
from simcore.plotting import LivePanel, color_for, dropdown, new_figure, slider_from_range
from simcore.warm import cold_notice

__all__ = ["UP_NAME", "DOWN_NAME", "SLIDER_RANGES", "REFERENCE", "REFERENCE_SEED", "panel_params",
           "make_panel", "capture_name", "merged_space_time", "reference_rows", "reference_text", "rtt_sweep_figure",
           "figures", "warm"]

# (min, max, step) of every numeric control; the tests sweep exactly these ranges.
SLIDER_RANGES = {
    "rtt_ms": (10.0, 1000.0, 10.0),
    "rate_mbps": (0.1, 20.0, 0.1),
    "object_kb": (1.0, 200.0, 1.0),
    "n_objects": (0, 20, 1),
    "parallel": (1, 6, 1),
    "initial_window": (1, 50, 1),
    "cross_load": (0.0, 0.9, 0.05),
    "hit_ratio": (0.0, 1.0, 0.05),
}
MODE_OPTIONS = [("non-persistent", "non-persistent"), ("persistent", "persistent"),
                ("persistent + pipelining", "pipelined")]
MODE_COLOR = {"non-persistent": "non-persistent", "persistent": "persistent", "pipelined": "pipelined"}
SIM_NAME = "simulation: simcore's packet-level TCP (bars)"
HANDSHAKE_OPTIONS = [("textbook: GET on the ACK", "textbook"), ("real stack: bare ACK, then GET", "real")]
LABEL_NAME = "SYN, SYN-ACK, handshake ACK, GET, FIN: labelled where they leave"
SIMPLE_NAME = "textbook: 2 RTT + O/R per object..."
SS_NAME = "textbook with slow start"
# The notebook's reference setting: 100 ms RTT, 1 Mbit/s, a 10 kB base and 5 embedded 10 kB objects.
REFERENCE = TcpPageParams(rtt_ms=100.0, link_rate_bps=1e6, object_size_bytes=10_000, n_objects=5)
REFERENCE_SEED = 1
_DIAGRAM_PACKETS = 600
# Above this many packets the diagram draws its lines without end markers: every marker is an SVG element
# of its own, and 300 packets a direction took the browser ~230 ms a redraw with markers, ~90 ms without
# (plotly.js 4.1 in headless Chromium on this 2-core machine). The reference page (about 110) keeps them.
_MARKERS_UP_TO = 150


def panel_params(values: dict) -> TcpPageParams:
    """Return the TcpPageParams of the panel's control values (rate in Mbit/s, object size in kB)."""
    return TcpPageParams(
        rtt_ms=float(values["rtt_ms"]), link_rate_bps=float(values["rate_mbps"]) * 1e6,
        object_size_bytes=int(round(float(values["object_kb"]) * 1000)), n_objects=int(values["n_objects"]),
        mode=values["mode"], parallel=int(values["parallel"]),
        initial_window_segments=int(values["initial_window"]), cross_load=float(values["cross_load"]),
        hit_ratio=float(values["hit_ratio"]), handshake=values.get("handshake", "textbook"),
    )


def _label(mode: str, p: TcpPageParams) -> str:
    if mode == "non-persistent":
        return f"non-persistent, {p.parallel} parallel" if p.parallel > 1 else "non-persistent"
    return "persistent + pipelining" if mode == "pipelined" else "persistent"


def _bar_figure(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, yaxis_title="page response time (s)", height=340)
    fig.add_bar(x=[], y=[], name=SIM_NAME)
    fig.add_scatter(x=[], y=[], mode="markers", name=SIMPLE_NAME)
    fig.add_scatter(x=[], y=[], mode="markers", name=SS_NAME)
    fig.update_layout(margin=dict(t=30, b=40), bargap=0.45)
    return fig


def _draw_bars(fig: go.Figure, rows: list[dict], p: TcpPageParams) -> None:
    labels = [_label(r["mode"], p) for r in rows]
    sim = [r["simulated_s"] for r in rows]
    colors = [color_for(MODE_COLOR[r["mode"]]) for r in rows]
    opacity = [1.0 if r["mode"] == p.mode else 0.5 for r in rows]
    text = [f"{s:.3f} s" for s in sim]
    # styles are set on every update: FigureWidget may not sync what was set before display
    fig.data[0].update(x=labels, y=sim, name=SIM_NAME, text=text, textposition="outside", cliponaxis=False,
                       marker=dict(color=colors, opacity=opacity),
                       hovertemplate="%{x}<br>simulated %{y:.4f} s<extra></extra>")
    fig.data[1].update(x=labels, y=[r["simple_s"] for r in rows], name=SIMPLE_NAME, mode="markers",
                       marker=dict(color=color_for("bound"), symbol="line-ew-open", size=34,
                                   line=dict(width=3, color=color_for("bound"))),
                       hovertemplate="%{x}<br>simple formula %{y:.4f} s<extra></extra>")
    fig.data[2].update(x=labels, y=[r["slow_start_s"] for r in rows], name=SS_NAME, mode="markers",
                       marker=dict(color=color_for("closed form"), symbol="x", size=11),
                       hovertemplate="%{x}<br>with slow start %{y:.4f} s<extra></extra>")
    top = max([v for r in rows for v in (r["simulated_s"], r["simple_s"], r["slow_start_s"])
               if np.isfinite(v)] + [1e-3])
    fig.update_yaxes(range=[0, 1.2 * top])


UP_NAME = "client → server (SYN, GET, ACK)"
DOWN_NAME = "server → client (SYN-ACK, data, FIN)"


def _split_directions(fig: go.Figure) -> None:
    """Split the diagram's "delivered" trace (segments [x0, x1, None]) into one trace per direction."""
    tr = fig.data[2]
    x, y, text = np.asarray(tr.x, dtype=float), np.asarray(tr.y, dtype=float), np.asarray(tr.text, dtype=str)
    up = np.repeat(x[0::3] == 0.0, 3)[: x.size]  # each packet is three points: start, end, gap
    parts = {ok: (x[up == ok], y[up == ok], text[up == ok]) for ok in (True, False)}
    tr.update(x=parts[True][0], y=parts[True][1], text=parts[True][2], name=UP_NAME,
              line_color=color_for("closed form"), marker_color=color_for("closed form"))
    fig.add_scatter(x=parts[False][0], y=parts[False][1], text=parts[False][2], name=DOWN_NAME,
                    mode="lines+markers", hoverinfo="text+y", marker_size=4,
                    line_color=color_for("simulation"), marker_color=color_for("simulation"))


def _packet_names(pt) -> list[tuple[float, float, str]]:
    """(x, time, name) of the packets a student counts: SYN, SYN-ACK, the handshake's ACK (bare, or carrying
    the GET: "ACK + GET"), a GET on its own, FIN (with ACK); data segments and their ACKs stay unlabelled."""
    sent = np.flatnonzero((pt.kind == 0) & ((pt.flags & 8) == 0))[:_DIAGRAM_PACKETS]
    out, opened = [], set()
    for i in sent:
        f, d, c = int(pt.flags[i]), int(pt.direction[i]), int(pt.conn[i])
        data = int(pt.seqlen[i]) > 0 and not f & 5
        if f & 1:
            name = "SYN" if d == 0 else "SYN-ACK"
        elif f & 4:
            name = "FIN"
        elif d == 0 and c not in opened:  # the client's first packet after the SYN-ACK
            opened.add(c)
            name = "ACK + GET" if data else "ACK"
        elif d == 0 and data:
            name = "GET"
        else:
            continue
        if f & 16:
            name += " (again)"
        out.append((0.03 if d == 0 else 0.97, float(pt.time_s[i]), name))
    return out


def _add_labels(fig: go.Figure, pt) -> None:
    """Add the labels of ``_packet_names`` as one text trace (the connection column ``conn`` must be the real
    one: the diagram's own copy has every packet on connection 0)."""
    names = _packet_names(pt)
    fig.add_scatter(x=[n[0] for n in names], y=[n[1] for n in names], text=[n[2] for n in names], mode="text",
                    name=LABEL_NAME, textposition=["bottom right" if n[0] < 0.5 else "bottom left" for n in names],
                    textfont=dict(size=9, color="#333333"), hoverinfo="text+y")


def _diagram_traces(result: TcpPageResult) -> go.Figure:
    """Return the diagram's traces and shapes (no layout styling: a slider move copies only these)."""
    pr = result.packet
    if pr.packet_trace is None:
        raise ValueError("result has no packet trace: run simulate_page_tcp(..., trace=True)")
    pt = replace(pr.packet_trace, conn=np.zeros_like(pr.packet_trace.conn))
    fig = space_time_figure(replace(pr, packet_trace=pt), conn=0, max_packets=_DIAGRAM_PACKETS)
    _split_directions(fig)
    _add_labels(fig, pr.packet_trace)
    directions = [tr for tr in fig.data if tr.name in (UP_NAME, DOWN_NAME)]
    packets = sum(len(tr.x) for tr in directions) // 3  # three points a packet: start, end, gap
    for tr in directions:
        tr.mode = "lines+markers" if packets <= _MARKERS_UP_TO else "lines"
    return fig


def _diagram_title(result: TcpPageResult) -> str:
    p = result.params
    return (f"{_label(p.mode, p)} ({p.handshake} handshake): every packet, {result.n_connections} connection"
            f"{'s' if result.n_connections != 1 else ''}; page done at {result.response_time_s:.3f} s")


def merged_space_time(result: TcpPageResult, widget: bool = False) -> go.Figure:
    """Return the packet-level space-time diagram of a page download, every connection drawn between the
    client (x = 0) and the server (x = 1), time (s) downwards (the first 600 packets)."""
    fig = _diagram_traces(result)
    fig.update_layout(title=_diagram_title(result), height=520, template="plotly_white",
                      margin=dict(l=60, r=20, t=60, b=50),
                      legend=dict(orientation="h", yanchor="top", y=-0.08, x=0))
    if widget:
        out = new_figure(widget=True, height=520)
        out.add_traces(list(fig.data))
        out.update_layout(fig.layout)
        return out
    return fig


def _update_diagram(widget: go.Figure, result: TcpPageResult) -> None:
    """Copy a new run's points, modes (markers or not), shapes and title into the live diagram. Names and
    styles are the same for every run (set once in ``merged_space_time``); the layout's template is not
    rebuilt either (validating plotly_white again cost ~30 ms a move, a third of the Python side)."""
    fig = _diagram_traces(result)
    for target, src in zip(widget.data, fig.data, strict=True):
        target.update(x=src.x, y=src.y, text=src.text, mode=src.mode)
    widget.layout.shapes = fig.layout.shapes
    widget.layout.title.text = _diagram_title(result)


def _status(p: TcpPageParams, rows: list[dict]) -> str:
    row = next(r for r in rows if r["mode"] == p.mode)
    sim, simple, ss = row["simulated_s"], row["simple_s"], row["slow_start_s"]
    e_simple, e_ss = 100 * (simple - sim) / sim + 0.0, 100 * (ss - sim) / sim + 0.0
    best = min(rows, key=lambda r: r["simulated_s"] if np.isfinite(r["simulated_s"]) else np.inf)
    loss = ""
    if row["retransmits"] or row["timeouts"]:
        loss = (f" <b>{row['retransmits']} retransmissions, {row['timeouts']} timeouts</b>: a queue "
                "overflowed, no formula covers that.")
    hits = int(p.hits().sum())
    return (f"<b>{_label(p.mode, p)}</b>: base + {p.n_objects} objects ({hits} answered 304), "
            f"{row['n_connections']} TCP connection{'s' if row['n_connections'] != 1 else ''}. "
            f"Simulated {sim:.3f} s; simple formula {simple:.3f} s ({e_simple:+.1f} %), "
            f"with slow start {ss:.3f} s ({e_ss:+.1f} %).{loss} "
            f"Fastest mode here: {_label(best['mode'], p)}.")


def _controls(p: TcpPageParams) -> dict:
    def slider(name, label, value, fmt=".3g"):
        return slider_from_range(SLIDER_RANGES, name, label, value, readout_format=fmt)

    return {
        "rtt_ms": slider("rtt_ms", "RTT (ms)", p.rtt_ms, ".0f"),
        "rate_mbps": slider("rate_mbps", "link rate R (Mbit/s)", p.link_rate_bps / 1e6, ".1f"),
        "object_kb": slider("object_kb", "object size O (kB)", p.object_size_bytes / 1000, ".0f"),
        "n_objects": slider("n_objects", "embedded objects N", p.n_objects),
        "mode": dropdown("diagram", MODE_OPTIONS, p.mode),
        "parallel": slider("parallel", "parallel connections", p.parallel),
        "initial_window": slider("initial_window", "initial window (MSS)", p.initial_window_segments),
        "cross_load": slider("cross_load", "cross-traffic load", p.cross_load, ".2f"),
        "hit_ratio": slider("hit_ratio", "cache hit ratio", p.hit_ratio, ".2f"),
        "handshake": dropdown("handshake", HANDSHAKE_OPTIONS, p.handshake),
    }


def make_panel(params: TcpPageParams | None = None, seed: int = REFERENCE_SEED, gate=None) -> LivePanel:
    """Return the live panel: sliders (RTT first), the simulated page time of every mode as bars with the
    textbook's simple (grey dash) and slow-start (black x) formulas, and the space-time diagram of the
    selected mode from the packet simulator's trace. ``seed`` fixes the cross traffic; ``gate``: predictions
    that veil the panel until committed (``simcore.predict``)."""
    p = params or REFERENCE
    controls = _controls(p)
    bars = _bar_figure(widget=True)
    diagram = merged_space_time(simulate_page_tcp(p, seed, trace=True), widget=True)

    last: dict = {}  # the traced run of the diagram's mode, for the capture button

    def update(values: dict) -> str:
        now = panel_params(values)
        rows = compare_modes(now, seed=seed, trace_mode=now.mode)
        _draw_bars(bars, rows, now)
        last["result"], last["params"] = next(r for r in rows if r["mode"] == now.mode)["result"], now
        _update_diagram(diagram, last["result"])
        return _status(now, rows)

    panel = LivePanel(controls, update, [bars, diagram],
                      title="Part 2: the same page over simcore's packet-level TCP",
                      compile_notice=functools.partial(cold_notice, "packet"), gate=gate)
    attach(panel, CaptureButton(lambda: last["result"].packet if last else None,
                                lambda: capture_name(last["params"], seed),
                                ((CAPTURE_CLIENT, (None, "sender")),)))
    return panel


CAPTURE_CLIENT = "at the browser's host (its own interface)"


def capture_name(p: TcpPageParams, seed: int) -> str:
    """Return the capture file's stem of the page download ``p`` (its diagram's mode) with ``seed``."""
    return (f"page_{p.mode}_{p.parallel}par_rtt{p.rtt_ms:g}ms_{p.link_rate_bps / 1e6:g}Mbps"
            f"_{p.n_objects}x{p.object_size_bytes}B_iw{p.initial_window_segments}_cross{p.cross_load:g}"
            f"_hit{p.hit_ratio:g}_seed{seed}")


def reference_rows(params: TcpPageParams = REFERENCE, seed: int = REFERENCE_SEED) -> list[dict]:
    """Return, for initial windows of 1 and 1000 segments at ``params``, one record per mode: simulated,
    simple-formula and slow-start-formula page times (s) and their errors (%)."""
    out = []
    for iw in (1, 1000):
        for r in compare_modes(replace(params, initial_window_segments=iw), seed=seed):
            sim = r["simulated_s"]
            out.append({"initial_window": iw, "mode": r["mode"], "simulated_s": sim,
                        "simple_s": r["simple_s"], "slow_start_s": r["slow_start_s"],
                        "simple_err_pct": 100.0 * (r["simple_s"] - sim) / sim,
                        "slow_start_err_pct": 100.0 * (r["slow_start_s"] - sim) / sim})
    return out


def reference_text(params: TcpPageParams = REFERENCE, seed: int = REFERENCE_SEED) -> str:
    """Return :func:`reference_rows` as fixed-width text (times in ms, errors in % rounded to 0.1)."""
    head = f"{'IW':>5}  {'mode':<16}{'simulated':>10}{'simple':>9}{'error':>8}{'slow start':>12}{'error':>8}"
    lines = [head, "-" * len(head)]
    for r in reference_rows(params, seed):
        lines.append(f"{r['initial_window']:>5}  {r['mode']:<16}{1000 * r['simulated_s']:>10.0f}"
                     f"{1000 * r['simple_s']:>9.0f}{r['simple_err_pct'] + 0.0:>+7.1f}%"
                     f"{1000 * r['slow_start_s']:>12.0f}{r['slow_start_err_pct'] + 0.0:>+7.1f}%")
    lines.append("(times in ms; error = formula - simulation, in % of the simulation)")
    return "\n".join(lines)


def rtt_sweep_figure(params: TcpPageParams = REFERENCE, rtts_ms=(10, 25, 50, 100, 200, 400, 800),
                     seed: int = REFERENCE_SEED) -> go.Figure:
    """Return page time (s) against RTT (ms) for every mode: simulation (markers), simple formula
    (dashed) and slow-start formula (dotted)."""
    fig = new_figure(title=f"Page time against RTT: {params.n_objects} objects of {params.object_size_bytes} "
                           f"bytes, {params.link_rate_bps / 1e6:g} Mbit/s, initial window "
                           f"{params.initial_window_segments} MSS",
                     xaxis_title="RTT (ms)", yaxis_title="page response time (s)", height=460)
    data = {m: {"sim": [], "simple": [], "ss": []} for m in TCP_MODES}
    for rtt in rtts_ms:
        for r in compare_modes(replace(params, rtt_ms=float(rtt)), seed=seed):
            d = data[r["mode"]]
            d["sim"].append(r["simulated_s"])
            d["simple"].append(r["simple_s"])
            d["ss"].append(r["slow_start_s"])
    x = list(rtts_ms)
    for m in TCP_MODES:
        col = color_for(MODE_COLOR[m])
        lab = _label(m, params)
        fig.add_scatter(x=x, y=data[m]["sim"], mode="markers", name=f"{lab}: simulation",
                        marker=dict(color=col, size=9), legendgroup=m)
        fig.add_scatter(x=x, y=data[m]["simple"], mode="lines", name=f"{lab}: simple formula",
                        line=dict(color=col, dash="dash"), legendgroup=m)
        fig.add_scatter(x=x, y=data[m]["ss"], mode="lines", name=f"{lab}: with slow start",
                        line=dict(color=col, dash="dot"), legendgroup=m)
    fig.update_layout(legend=dict(orientation="v", x=1.02, y=1.0, xanchor="left"), margin=dict(r=20))
    return fig


def _modes_figure(params: TcpPageParams, seed: int) -> go.Figure:
    fig = _bar_figure(widget=False)
    _draw_bars(fig, compare_modes(params, seed=seed), params)
    fig.update_layout(title=f"Simulated page time vs the textbook's formulas (RTT {params.rtt_ms:g} ms, "
                            f"{params.link_rate_bps / 1e6:g} Mbit/s, base + {params.n_objects} x "
                            f"{params.object_size_bytes} bytes, IW {params.initial_window_segments})",
                      margin=dict(t=60))
    return fig


def figures() -> dict[str, go.Figure]:
    """Return Part 2's static figures by name: modes vs formulas at the reference setting, the RTT sweep,
    and the space-time diagram of persistent HTTP with pipelining (to merge into chapter "delay")."""
    return {
        "tcp_modes_vs_formulas": _modes_figure(REFERENCE, REFERENCE_SEED),
        "tcp_rtt_sweep": rtt_sweep_figure(),
        "tcp_space_time_pipelined": merged_space_time(
            simulate_page_tcp(replace(REFERENCE, mode="pipelined"), REFERENCE_SEED, trace=True)),
    }


def warm() -> None:
    """Run the packet kernel once per mode on a tiny page (with cross traffic and a trace)."""
    tiny = TcpPageParams(object_size_bytes=2000, n_objects=2, parallel=2, cross_load=0.2)
    compare_modes(tiny, seed=0, trace_mode="persistent")
