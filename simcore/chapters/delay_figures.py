"""Figures of chapter 4 (the report's delay model): the Appendix-2 sweeps, the annotated space-time diagram.

- :func:`sweep_figure`: one Appendix-2 sweep; our closed form for every mode with the cache off (solid)
  and on (dashed), our model calibrated to the sizes the report's own data imply (dotted), and the
  report's measured points (per run) in the lab's "paper" colour, one marker shape per mode.
- :func:`space_time_panel_figure` / :func:`update_space_time_panel`: the model's space-time diagram
  (``simcore.delay.plots``) plus labels on the client's axis saying which object has just arrived and
  where each TCP connection opens, so a student can count handshakes and round trips.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from simcore.delay import appendix2_sweep, space_time_figure, update_space_time
from simcore.delay.params import MODE_NAMES, MODES, PACKET_KINDS, IdealResult
from simcore.delay.plots import KIND_COLORS
from simcore.plotting import color_for, new_figure

__all__ = ["SWEEP_TITLES", "MODE_SYMBOLS", "sweep_figure", "object_labels", "space_time_panel_figure",
           "update_space_time_panel"]

SWEEP_TITLES = {
    "transmission": ("Appendix 2: response time against transmission delay per byte "
                     "(100 ms propagation, 2 objects)",
                     "transmission delay per byte t_B (ms)"),
    "propagation": ("Appendix 2: response time against propagation delay (2 ms/byte, 2 objects)",
                    "propagation delay d_prop (ms)"),
    "objects": ("Appendix 2: response time against number of objects (2 parents, 0..9 children each)",
                "number of objects N = P(1 + C)"),
}
MODE_SYMBOLS = {"1.0": "circle", "1.1": "square", "1.2": "diamond"}
# the space-time diagram of simcore.delay.plots has 2 axis traces + 2 traces per packet kind (12 in all);
# the chapter adds one label trace after them
LABEL_TRACE = 12


def _mode_label(mode: str) -> str:
    return f"HTTP/{mode} {MODE_NAMES[mode]}"


def sweep_figure(sweep: str, *, records: list[dict] | None = None, widget: bool = False) -> go.Figure:
    """Return the figure of one Appendix-2 sweep (response times in ms against the swept variable).

    ``records`` defaults to ``appendix2_sweep(sweep, simulate=False)`` (closed form, cache off and on with
    every object answered 304, calibrated closed form, and the report's points).
    """
    recs = appendix2_sweep(sweep, simulate=False) if records is None else records
    title, x_title = SWEEP_TITLES[sweep]
    fig = new_figure(widget=widget, title=title, xaxis_title=x_title, yaxis_title="response time (ms)",
                     height=520)
    fig.update_layout(legend=dict(orientation="v", x=1.02, y=1.0, xanchor="left", yanchor="top",
                                  groupclick="toggleitem"),
                      margin=dict(t=60, r=20), title_font_size=14)
    for mode in MODES:
        col = color_for(MODE_NAMES[mode])
        group = dict(legendgroup=mode, legendgrouptitle_text=_mode_label(mode))

        def pick(source, cache, mode=mode):
            rows = [r for r in recs
                    if r["http_version"] == mode and r["cache"] == cache and r["source"] == source]
            return [r["x"] for r in rows], [r["response_time_ms"] for r in rows]

        for cache in (False, True):
            x, y = pick("closed form", cache)
            if x:
                fig.add_scatter(x=x, y=y, mode="lines", name="ours, cache on (all 304)" if cache else "ours",
                                line=dict(color=col, dash="dash" if cache else "solid", width=2), **group)
        for cache in (False, True):
            x, y = pick("report (per run)", cache)
            if not x:
                continue
            cx, cy = pick("calibrated closed form", cache)
            fig.add_scatter(x=cx, y=cy, mode="lines", line=dict(color=col, dash="dot", width=1),
                            name=f"ours calibrated to the report's sizes{', cache on' if cache else ''}",
                            **group)
            paper = color_for("paper")
            fig.add_scatter(x=x, y=y, mode="markers",
                            name=f"report, measured per run{', cached' if cache else ''}",
                            marker=dict(color="white" if cache else paper, size=9, symbol=MODE_SYMBOLS[mode],
                                        line=dict(color=paper, width=2)),
                            **group)
    return fig


def object_labels(result: IdealResult) -> tuple[np.ndarray, np.ndarray, list[str]]:
    """Return (y_ms, x, text) of labels on the client's axis: one per arriving object, one per new connection.

    Objects are named as in the report (parents A, B, ...; child 2 of parent A is A2). Times in ms.
    """
    tr = result.trace
    n_children = result.params.n_children
    events: dict[float, list[str]] = {}
    for i in np.flatnonzero(tr.from_server & (tr.kind >= 3)):
        parent, j = divmod(int(tr.object_id[i]), n_children + 1)
        name = _parent_name(parent) + (str(j) if j else "")
        kind = "304: use cached copy" if tr.kind[i] == 4 else "200"
        events.setdefault(float(tr.arrive_ms[i]), []).append(f"{name} arrives ({kind})")
    seen = set()
    for i in np.flatnonzero(~tr.from_server):
        c = int(tr.connection[i])
        if c not in seen:
            seen.add(c)
            opens = "opens: SYN" if tr.kind[i] == 0 else "starts (already open)"
            events.setdefault(float(tr.send_ms[i]), []).append(f"connection {c + 1} {opens}")
    times = sorted(events)
    y = np.asarray(times, dtype=np.float64)
    return y, np.zeros(y.shape[0]), [" · ".join(events[t]) for t in times]


def _parent_name(p: int) -> str:
    name = ""
    p += 1
    while p:
        p, r = divmod(p - 1, 26)
        name = chr(65 + r) + name
    return name


def space_time_panel_figure(result: IdealResult, *, widget: bool = False,
                            max_labels: int = 40, height: int = 620) -> go.Figure:
    """Return the annotated space-time diagram of ``result`` (client left, server right, time down, ms)."""
    fig = space_time_figure(result, widget=widget, height=height, max_labels=max_labels)
    fig.add_scatter(x=[], y=[], mode="text", text=[], textposition="middle left", name="events",
                    textfont=dict(size=10, color="#444"), showlegend=False, hoverinfo="skip")
    fig.update_xaxes(range=[-0.6, 1.1])
    fig.update_layout(margin=dict(t=80, l=60, r=20, b=40), title_font_size=14,
                      legend=dict(orientation="h", yanchor="bottom", y=1.0, x=0.3))
    update_space_time_panel(fig, result, max_labels=max_labels)
    return fig


def _restyle(fig: go.Figure) -> None:
    """Set every trace's name and style again (plotly's FigureWidget may drop what was set before display)."""
    for i, name in enumerate(("client", "server")):
        fig.data[i].update(name=name, mode="lines", line=dict(color="black", width=2), showlegend=False)
    for k, name in enumerate(PACKET_KINDS):
        col = KIND_COLORS[name]
        fig.data[2 + 2 * k].update(name=name, mode="lines", fill="toself", fillcolor=col, opacity=0.45,
                                   line=dict(color=col, width=1), legendgroup=name, showlegend=True)
        fig.data[3 + 2 * k].update(name=name, mode="text", textfont=dict(color="black", size=11),
                                   legendgroup=name, showlegend=False)
    fig.data[LABEL_TRACE].update(name="events", mode="text", textposition="middle left",
                                 textfont=dict(size=10, color="#444"), showlegend=False)


def update_space_time_panel(fig: go.Figure, result: IdealResult, *,
                            max_labels: int = 40) -> go.Figure:
    """Return ``fig`` (from :func:`space_time_panel_figure`) redrawn for ``result``'s packets and labels.

    The client-side labels are drawn only for pages of at most ``max_labels`` objects (too dense above).
    """
    update_space_time(fig, result.trace, max_labels=max_labels)
    _restyle(fig)
    p = result.params
    piped = ", pipelined" if p.pipelining and p.mode != "1.0" else ""
    fig.layout.title.text = (f"{_mode_label(p.mode)}{piped}: "
                             f"T = {result.response_time_ms:.6g} ms, {result.trace.n_packets} packets, "
                             f"{result.n_connections} connection{'s' if result.n_connections != 1 else ''}")
    label = fig.data[LABEL_TRACE]
    if p.n_objects <= max_labels:
        y, x, text = object_labels(result)
        label.update(x=x - 0.02, y=y, text=text, name="events")
    else:
        label.update(x=[], y=[], text=[], name="events")
    return fig
