"""Figures of the delay model: the space-time diagram of one page download, and the Appendix-2 sweeps.

The space-time diagram has two vertical time axes, the client (left) and the server (right), time
running downwards. A packet is a band from its sender's axis (while its bits leave, ``send_ms`` to
``tx_end_ms``) to the receiver's axis (``prop_delay`` later), labelled SYN / ACK / GET / data / 304.
The figure's traces are fixed (one band trace and one label trace per packet kind), so a live panel can
rebuild it once and call :func:`update_space_time` on every slider change.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from simcore.delay.params import MODE_NAMES, PACKET_KINDS, IdealResult, PacketTrace
from simcore.plotting import color_for, new_figure

__all__ = ["KIND_COLORS", "space_time_figure", "update_space_time", "sweep_figure", "build_delay_figures"]

KIND_COLORS = {"SYN": "#E69F00", "ACK": "#CC79A7", "GET": "#0072B2", "data": "#009E73", "304": "#D55E00"}
CLIENT_X = 0.0
SERVER_X = 1.0


def _as_trace(obj) -> PacketTrace:
    if isinstance(obj, IdealResult):
        return obj.trace
    if isinstance(obj, PacketTrace):
        return obj
    raise ValueError(f"trace={obj!r} is not allowed: must be a PacketTrace or an IdealResult")


def _kind_arrays(tr: PacketTrace, k: int, max_labels: int, max_hover: int):
    """Return (band_x, band_y, label_x, label_y, label_text, hover) for packets of kind ``k``.

    Bands are numpy arrays, one polygon per packet separated by NaN (a gap for plotly).
    """
    idx = np.flatnonzero(tr.kind == k)
    m = idx.shape[0]
    if m == 0:
        empty = np.empty(0)
        return empty, empty, empty, empty, [], []
    x0 = np.where(tr.from_server[idx], SERVER_X, CLIENT_X)
    x1 = 1.0 - x0
    s, e, a = tr.send_ms[idx], tr.tx_end_ms[idx], tr.arrive_ms[idx]
    prop = a - e
    # polygon: sender start -> receiver first bit -> receiver last bit -> sender end -> close, then None
    bx = np.stack([x0, x1, x1, x0, x0, np.full(m, np.nan)], axis=1).ravel()
    by = np.stack([s, s + prop, a, e, s, np.full(m, np.nan)], axis=1).ravel()
    lx = (x0 + x1) / 2.0
    ly = (s + a) / 2.0
    name = PACKET_KINDS[k]
    text = [name if m <= max_labels else ""] * m
    if m > max_hover:
        return bx, by, lx, ly, text, [name] * m
    obj = tr.object_id[idx]
    hover = [
        f"{name} {'server→client' if fs else 'client→server'}<br>object {o if o >= 0 else '-'}, "
        f"connection {c}<br>{sz:g} bytes<br>sent {si:.6g} ms, arrived {ai:.6g} ms"
        for fs, o, c, sz, si, ai in zip(tr.from_server[idx].tolist(), obj.tolist(),
                                        tr.connection[idx].tolist(), tr.size_bytes[idx].tolist(),
                                        s.tolist(), a.tolist(), strict=True)
    ]
    return bx, by, lx, ly, text, hover


def space_time_figure(trace, *, title: str = "", widget: bool = False, max_labels: int = 80,
                      height: int = 600) -> go.Figure:
    """Return a plotly space-time diagram (client and server time axes, one band per packet).

    ``trace`` is a :class:`PacketTrace` or an :class:`IdealResult`. Labels are drawn when there are at
    most ``max_labels`` packets of a kind (hover text is always there).
    """
    fig = new_figure(widget=widget, title=title, yaxis_title="time (ms)", height=height)
    for name in ("client", "server"):
        x = CLIENT_X if name == "client" else SERVER_X
        fig.add_scatter(x=[x, x], y=[0.0, 1.0], mode="lines", line=dict(color="black", width=2),
                        name=name, showlegend=False, hoverinfo="skip")
    for name in PACKET_KINDS:
        col = KIND_COLORS[name]
        fig.add_scatter(x=[], y=[], mode="lines", fill="toself", fillcolor=col, opacity=0.45,
                        line=dict(color=col, width=1), name=name, legendgroup=name, hoverinfo="skip")
        fig.add_scatter(x=[], y=[], mode="text", text=[], textfont=dict(color="black", size=11),
                        name=name, legendgroup=name, showlegend=False,
                        hovertemplate="%{hovertext}<extra></extra>")
    fig.update_xaxes(range=[-0.15, 1.15], tickvals=[CLIENT_X, SERVER_X], ticktext=["client", "server"],
                     showgrid=False, zeroline=False)
    fig.update_yaxes(autorange="reversed")
    update_space_time(fig, trace, max_labels=max_labels)
    return fig


def update_space_time(fig: go.Figure, trace, *, max_labels: int = 80, max_hover: int = 2000) -> go.Figure:
    """Return ``fig`` (built by :func:`space_time_figure`) with its traces replaced by ``trace``'s packets.

    Hover text is detailed for kinds with at most ``max_hover`` packets (just the kind above that).
    """
    tr = _as_trace(trace)
    end = float(tr.arrive_ms.max()) if tr.n_packets else 1.0
    fig.data[0].y = [0.0, end]
    fig.data[1].y = [0.0, end]
    for k in range(len(PACKET_KINDS)):
        bx, by, lx, ly, text, hover = _kind_arrays(tr, k, max_labels, max_hover)
        band, label = fig.data[2 + 2 * k], fig.data[3 + 2 * k]
        band.x, band.y = bx, by
        label.x, label.y, label.text, label.hovertext = lx, ly, text, hover
    return fig


def sweep_figure(records: list[dict], *, cache: bool | None = None, per_run: bool = True,
                 title: str = "", widget: bool = False) -> go.Figure:
    """Return a figure of one Appendix-2 sweep from :func:`simcore.delay.compare.appendix2_sweep` records.

    Our closed form as lines (solid cache off, dashed cache on; dotted: calibrated to the report's
    sizes), the report's points as markers (per-run times if ``per_run``, else as printed).
    ``cache`` restricts to one cache setting.
    """
    if not records:
        raise ValueError("records=[] is not allowed: pass the output of appendix2_sweep")
    x_name = records[0]["x_name"]
    fig = new_figure(widget=widget, title=title, xaxis_title=x_name, yaxis_title="response time (ms)")
    fig.update_layout(legend=dict(orientation="v", x=1.02, y=1.0, xanchor="left", yanchor="top"),
                      margin=dict(r=20))
    report_src = "report (per run)" if per_run else "report (as printed)"
    keys = sorted({(r["http_version"], r["cache"]) for r in records})
    for mode, c in keys:
        if cache is not None and c != cache:
            continue
        col = color_for(MODE_NAMES[mode])
        label = f"HTTP/{mode} {MODE_NAMES[mode]}{' cached' if c else ''}"
        series = [r for r in records if r["http_version"] == mode and r["cache"] == c]
        cf = [r for r in series if r["source"] == "closed form"]
        fig.add_scatter(x=[r["x"] for r in cf], y=[r["response_time_ms"] for r in cf], mode="lines",
                        line=dict(color=col, dash="dash" if c else "solid"), name=f"{label} (closed form)")
        cal = [r for r in series if r["source"] == "calibrated closed form"]
        if cal:
            fig.add_scatter(x=[r["x"] for r in cal], y=[r["response_time_ms"] for r in cal], mode="lines",
                            line=dict(color=col, dash="dot", width=1), name=f"{label} (calibrated)")
        rp = [r for r in series if r["source"] == report_src]
        if rp:
            fig.add_scatter(x=[r["x"] for r in rp], y=[r["response_time_ms"] for r in rp], mode="markers",
                            marker=dict(color=col, symbol="circle-open" if c else "circle", size=8),
                            name=f"{label} ({report_src})")
    return fig


def build_delay_figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures by name: space-time diagrams of the four modes and the sweeps."""
    from simcore.delay.compare import appendix2_sweep
    from simcore.delay.ideal import simulate_ideal
    from simcore.delay.params import DelayParams

    figs = {}
    for mode in ("1.0", "1.1", "1.2"):
        res = simulate_ideal(DelayParams(mode=mode))
        figs[f"space_time_http{mode.replace('.', '')}"] = space_time_figure(
            res, title=f"HTTP/{mode} ({MODE_NAMES[mode]}): {res.response_time_ms:g} ms")
    res = simulate_ideal(DelayParams(mode="1.0", cache=True))
    figs["space_time_http10_cached"] = space_time_figure(
        res, title=f"HTTP/1.0 cached: {res.response_time_ms:g} ms")
    for sweep in ("transmission", "propagation", "objects"):
        figs[f"sweep_{sweep}"] = sweep_figure(
            appendix2_sweep(sweep, simulate=False), cache=None if sweep == "transmission" else False,
            title=f"Appendix 2, {sweep} sweep: ours vs the report (per run)")
    return figs
