"""Chapter 1's chronology chart (thesis figures 10-13 and 21-24): one bar per client, and the server's demand.

Bottom: one horizontal bar per client (arrival order), from its arrival to its last byte: waiting segments
in ``color_for("waiting")``, connected segments (a socket held) in ``color_for("connected")``, a dot at
every connection attempt (refused attempts in ``color_for("drop")``). Hovering a bar tells the client's
story. Top, on the same time axis: the demand on the server (the sum of the access rates of every client in
session, waiting or connected) against the demand it satisfied (the bytes/s it sends), with its capacity, on
a log axis labelled at decades: under overload the demand reaches 40 times the capacity, and on a linear
axis 'sent' and the capacity would lie flat along its bottom. Built for speed, so a live panel can redraw it on
every slider move: each kind of segment is drawn as ONE SVG path (a layout shape; a trace with gaps costs
one SVG element per segment, about 1,600 here, and took most of the redraw), thousands of attempts are ticks
in one image, and a trace that draws nothing (mode "none") through every segment's start, middle and end
carries the hover text. Legend entries are traces without points.
"""

from __future__ import annotations

import math

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from simcore.admission import OUTCOMES, AdmissionResult
from simcore.plotting import LiveFigure, color_for, downsample_indices, grid_float32, tick_image

__all__ = [
    "TRACE_NAMES",
    "chronology_segments",
    "client_stories",
    "empty_chronology_figure",
    "draw_chronology",
    "chronology_figure",
]

#: trace order of the chronology figure (names and styles are set once, when it is built); the
#: "waiting" and "connected" traces hold the legend entries, the two hover traces the segments' hover text
TRACE_NAMES = (
    "demand on the server",
    "demand satisfied (sent)",
    "server capacity",
    "waiting",
    "connected",
    "connection accepted",
    "connection refused",
    "waiting (hover)",
    "connected (hover)",
)
SEGMENT_WIDTH_PX = 2.5
# Each thing this figure shows in a hue family of its own, told apart also under simulated deuteranopia and
# protanopia (tests/chapters/test_admission_colours.py): bars yellow (waiting) and blue (connected), refused
# attempts vermillion, the capacity grey; the demand wine red and what is sent black, as the thesis's red and
# black; accepted attempts indigo (Tol's wine and indigo: Okabe-Ito's purple and green merge for deuteranopes)
DEMAND_COLOR = "#882255"
SENT_COLOR = "#000000"
ACCEPTED_COLOR = "#332288"
#: the demand plot's log axis starts this many times below the server's capacity (the first clients' demand)
DEMAND_DECADES_BELOW = 1.5


def chronology_segments(result: AdmissionResult) -> dict[str, np.ndarray]:
    """Return the chart's segments (times in s): ``connected`` and ``waiting`` as [k, 3] arrays of
    (client, start s, end s), sorted by client then time. Waiting = the session minus connected time."""
    if not result.params.record_chronology:
        raise ValueError("record_chronology=False: rerun with AdmissionParams(record_chronology=True)")
    n = result.arrival_s.size
    iv = result.interval_log
    iv = iv[np.lexsort((iv[:, 1], iv[:, 0]))] if iv.size else np.zeros((0, 3))
    client = iv[:, 0].astype(np.int64)
    first = np.ones(client.size, bool)
    first[1:] = client[1:] != client[:-1]
    prev_end = np.empty(client.size)
    prev_end[first] = result.arrival_s[client[first]]
    prev_end[~first] = iv[np.flatnonzero(~first) - 1, 2]
    gaps = np.column_stack([client, prev_end, iv[:, 1]])
    # a client that gave up waited from its arrival to its last attempt's answer
    end_of_session = np.where(result.completed, result.finish_s, np.nan)
    if result.attempt_log.size:
        last_try = np.full(n, -np.inf)
        np.maximum.at(last_try, result.attempt_log[:, 0].astype(np.int64), result.attempt_log[:, 1])
        end_of_session = np.where(result.completed, end_of_session, last_try + result.params.connect_s)
    last_end = np.full(n, -np.inf)
    if client.size:
        np.maximum.at(last_end, client, iv[:, 2])
    start_tail = np.where(np.isfinite(last_end), last_end, result.arrival_s)
    tail = np.column_stack([np.arange(n), start_tail, end_of_session])
    waiting = np.concatenate([gaps, tail])
    waiting = waiting[np.isfinite(waiting[:, 2]) & (waiting[:, 2] > waiting[:, 1] + 1e-9)]
    waiting = waiting[np.lexsort((waiting[:, 1], waiting[:, 0]))]
    return {"connected": iv, "waiting": waiting}


def client_stories(result: AdmissionResult) -> list[str]:
    """Return one hover text per client (HTML): arrival, files, attempts, waiting, connected, session (s)."""
    n = result.arrival_s.size
    counts = np.zeros((n, len(OUTCOMES)), np.int64)
    if result.attempt_log.size:
        np.add.at(
            counts, (result.attempt_log[:, 0].astype(np.int64), result.attempt_log[:, 2].astype(np.int64)), 1
        )
    out = []
    for c in range(n):
        refusals = []
        if counts[c, 1]:
            refusals.append(f"{counts[c, 1]} busy")
        if counts[c, 2]:
            refusals.append(f"{counts[c, 2]} come back later")
        refused = f" ({', '.join(refusals)})" if refusals else ""
        if result.completed[c]:
            end = (
                f"waited {result.waiting_s[c]:.1f} s, connected {result.connected_s[c]:.1f} s<br>"
                f"<b>session {result.session_s[c]:.1f} s</b> "
                f"(its own bound {result.lower_bound_session_s[c]:.1f} s)"
            )
        else:
            end = "<b>gave up</b>"
        out.append(
            f"<b>client {c}</b>: arrived at {result.arrival_s[c]:.1f} s<br>"
            f"{result.n_files[c]} file(s), {result.requested_bytes[c] / 1024:.0f} KB at "
            f"{result.access_Bps[c] / 1024:.1f} KB/s<br>"
            f"{result.attempts[c]} connection attempt(s){refused}<br>{end}"
        )
    return out


CURVE_POINTS = 2000  # at most this many points per demand / sent line
# Above this many connection attempts they are drawn as short ticks in one image (``tick_image``), not as
# markers (6,000 markers took ~1.5 s to draw in Chromium; as one SVG path ~0.1 s and 120 KB a redraw; as
# an image a few ms and ~5 KB); hovering a client's bar still tells its attempts. Every marker is an SVG
# element (~0.1 ms each a redraw here): at 1,500 the panel's moves to high bandwidth or few clients (800-1,500
# attempts) drew markers; at 300 they draw the image (benchmarks/bench_browser.py, K = 8, load ~2: panel
# p50 166 -> 132 ms, max 484 -> 299 ms).
MAX_ATTEMPT_MARKERS = 300


def _segment_path(seg: np.ndarray) -> str:
    """Return one SVG path drawing every segment (client, start s, end s) as a horizontal line."""
    return "".join(f"M{a:.6g},{c}H{b:.6g}" for c, a, b in zip(seg[:, 0].astype(np.int64).tolist(),
                                                              seg[:, 1].tolist(), seg[:, 2].tolist(), strict=True))


def _segment_hover(seg: np.ndarray, stories: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return x, y, hover text of the points (start, middle, end of each segment) that carry the hover."""
    x = np.column_stack([seg[:, 1], 0.5 * (seg[:, 1] + seg[:, 2]), seg[:, 2]]).ravel()
    y = np.repeat(seg[:, 0], 3).astype(float)
    story = np.asarray(stories, object)[seg[:, 0].astype(np.int64)] if seg.shape[0] else np.zeros(0, object)
    return x, y, np.repeat(story, 3)


def _styles() -> list[dict]:
    """Return each trace's style (TRACE_NAMES order), set when the figure is built."""
    return [
        dict(mode="lines", line=dict(shape="hv", width=1.5, color=DEMAND_COLOR), hoverinfo="skip"),
        dict(mode="lines", line=dict(shape="hv", width=1.5, color=SENT_COLOR), hoverinfo="skip"),
        dict(mode="lines", line=dict(color=color_for("bound"), dash="dash", width=2), hoverinfo="skip"),
        dict(mode="lines", line=dict(color=color_for("waiting"), width=SEGMENT_WIDTH_PX), hoverinfo="skip"),
        dict(mode="lines", line=dict(color=color_for("connected"), width=SEGMENT_WIDTH_PX), hoverinfo="skip"),
        dict(mode="markers", marker=dict(color=ACCEPTED_COLOR, size=7, symbol="line-ns-open", line_width=1.5),
             hovertemplate="client %{y}: attempt at %{x:.1f} s, accepted<extra></extra>"),
        dict(mode="markers", marker=dict(color=color_for("drop"), size=7, symbol="line-ns-open", line_width=1.5),
             hovertemplate="client %{y}: attempt at %{x:.1f} s, %{hovertext}<extra></extra>"),
        # mode "none": nothing drawn (an invisible line still cost the browser its SVG path), hover kept
        dict(mode="none", showlegend=False, hovertemplate="%{hovertext}<extra>waiting</extra>"),
        dict(mode="none", showlegend=False, hovertemplate="%{hovertext}<extra>connected</extra>"),
    ]  # fmt: skip


def empty_chronology_figure(*, widget: bool = False, height: int = 720) -> go.Figure:
    """Return the empty two-panel chronology figure (demand on top, client bars below), traces in
    TRACE_NAMES order."""
    base = make_subplots(rows=2, cols=1, shared_xaxes=True, row_heights=[0.25, 0.75], vertical_spacing=0.04)
    fig = LiveFigure(base) if widget else go.Figure(base)
    fig.update_layout(
        template="plotly_white",
        height=height,
        margin=dict(l=60, r=20, t=70, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        hovermode="closest",
    )
    for i, (name, style) in enumerate(zip(TRACE_NAMES, _styles(), strict=True)):
        fig.add_scatter(name=name, **style, row=1 if i < 3 else 2, col=1, x=[None] if i in (3, 4) else None,
                        y=[None] if i in (3, 4) else None)
    # log axis, labelled at decades only (1, 10, 100, 1,000 KB/s), minor ticks between
    fig.update_yaxes(title_text="KB/s (log)", type="log", dtick=1, exponentformat="none", separatethousands=True,
                     minor=dict(ticks="inside", ticklen=3, showgrid=False), row=1, col=1)
    fig.update_yaxes(title_text="client (arrival order)", row=2, col=1)
    fig.update_xaxes(title_text="time since the window opened (s)", row=2, col=1)
    return fig


def draw_chronology(fig: go.Figure, result: AdmissionResult) -> dict[str, float]:
    """Redraw ``fig`` (from ``empty_chronology_figure``) for ``result``; return summary numbers (s, KB/s)."""
    seg = chronology_segments(result)
    stories = client_stories(result)
    tr = result.trace_log
    t = np.concatenate([[0.0], tr[:, 0]]) if tr.size else np.zeros(1)
    demand = np.concatenate([[0.0], tr[:, 3]]) / 1024 if tr.size else np.zeros(1)
    served = np.concatenate([[0.0], tr[:, 2]]) / 1024 if tr.size else np.zeros(1)
    end = float(max(t[-1], np.nanmax(result.finish_s) if result.completed.any() else 0.0))
    att = result.attempt_log
    ok = att[:, 2] == 0 if att.size else np.zeros(0, bool)
    # demand and sent: thousands of steps; the plot is ~1000 px wide, so keep each of 500 buckets' first,
    # last, lowest and highest step (every peak and trough stays; at most 2000 points per line)
    keep_d, keep_s = downsample_indices(demand, CURVE_POINTS), downsample_indices(served, CURVE_POINTS)
    # float32 on a grid of 1/4000 of the axis (a fraction of a pixel; hover shows no time): half the bytes
    # of float64, and a deflated update half as large again; the log axis's lowest value sets the grid
    cap = result.capacity_Bps / 1024
    top = float(max(demand.max(), served.max(), cap))
    low = cap / 10**DEMAND_DECADES_BELOW
    data = [dict(x=grid_float32(t[keep_d], end), y=grid_float32(demand[keep_d], low)),
            dict(x=grid_float32(t[keep_s], end), y=grid_float32(served[keep_s], low)),
            dict(x=[0.0, end], y=[cap] * 2)]
    data += [dict(x=[None], y=[None]), dict(x=[None], y=[None])]  # legend entries only
    shapes = [dict(type="path", path=_segment_path(seg[kind]), xref="x2", yref="y2", layer="between",
                   line=dict(color=color_for(kind), width=SEGMENT_WIDTH_PX)) for kind in ("waiting", "connected")]
    ticks = int(att.shape[0]) > MAX_ATTEMPT_MARKERS if att.size else False
    images = []
    if ticks:  # every attempt stays, drawn as a tick in one image (markers cost one SVG element each)
        images.append(tick_image([(att[sel, 1], att[sel, 0], _styles()[i]["marker"]["color"])
                                  for i, sel in ((5, ok), (6, ~ok))],
                                 n_rows=int(result.arrival_s.size), x_end=end, xref="x2", yref="y2"))
    for sel in (ok, ~ok):
        data.append(dict(x=[None], y=[None]) if ticks else dict(x=att[sel, 1], y=att[sel, 0].astype(np.int64)))
    data[-1]["hovertext"] = [OUTCOMES[int(o)] for o in att[~ok, 2]] if not ticks and att.size else None
    for kind in ("waiting", "connected"):
        x, y, text = _segment_hover(seg[kind], stories)
        data.append(dict(x=grid_float32(x, end), y=y.astype(np.int32), hovertext=text))
    for trace, values in zip(fig.data, data, strict=True):  # names and styles were set at creation
        trace.update(**values)
    fig.layout.shapes = shapes
    fig.layout.images = images
    fig.update_yaxes(range=[result.arrival_s.size - 0.5, -0.5], row=2, col=1)
    fig.update_yaxes(range=[math.log10(low), math.log10(1.6 * top)], row=1, col=1)
    fig.update_xaxes(range=[0.0, end * 1.01 + 1e-9])
    return {
        "clients": float(result.arrival_s.size),
        "end_s": end,
        "peak_demand_KBps": float(demand.max()),
        "capacity_KBps": result.capacity_Bps / 1024,
    }


def chronology_figure(result: AdmissionResult, title: str = "") -> go.Figure:
    """Return a static chronology figure of ``result`` (a run with ``record_chronology=True``)."""
    fig = empty_chronology_figure()
    draw_chronology(fig, result)
    if title:
        fig.update_layout(title=title, margin=dict(t=120))
    return fig
