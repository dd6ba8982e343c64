"""Chapter 2's static figures (the paper's figures 4-7) drawn from the stored sweep, and their registration
for ``python -m simcore figures satellite``.

Every figure reads ``data/satellite_sweep.csv`` / ``data/satellite_figure4.csv`` (written by
``simcore.chapters.satellite_sweep``); if a file is missing, ``python -m simcore figures satellite`` runs
the sweep first (about 1.5 minutes on two cores) and stores it.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from simcore.figures import register_figures
from simcore.plotting import color_for, new_figure
from simcore.satellite import SatelliteParams
from simcore.satellite.figure4 import full_segment_plateau, window_limit_bps

from .satellite import CURVES, curve_label
from .satellite_sweep import FIGURE4_PATH, SWEEP_PATH, load_figure4, load_sweep, write_figure4, write_sweep

__all__ = ["CURVE_ORDER", "curves", "figure4", "figure5a", "figure5b", "figure6", "figure7", "all_figures",
           "PAPER_SLOPE", "E3_BPS"]

CURVE_ORDER = tuple(curve_label(a, n) for a, n in CURVES)
PAPER_SLOPE = 1.09  # sec. 5.1
E3_BPS = 34.368e6
_PALETTE = ("#222222", "#d62728", "#ff7f0e", "#bcbd22", "#2ca02c", "#1f77b4", "#9467bd")
CURVE_COLOR = dict(zip(CURVE_ORDER, _PALETTE, strict=True))
PAPER_COLOR = color_for("paper")


def curves(rows: list[dict] | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Return, per curve label (in the paper's order), the stored sweep's columns as arrays sorted by
    presented load."""
    rows = load_sweep() if rows is None else rows
    out: dict[str, dict[str, np.ndarray]] = {}
    for label in CURVE_ORDER:
        mine = sorted((r for r in rows if r["curve"] == label), key=lambda r: r["presented_load_bps"])
        if mine:
            out[label] = {k: np.array([r[k] for r in mine]) for k in mine[0] if k not in ("curve", "architecture",
                                                                                          "source")}
    return out


def _display(label: str) -> str:
    """Return a curve's label as a legend shows it ("1 connection", not the stored key "1 connections")."""
    return "1 connection" if label == "1 connections" else label


# Legends of the static figures go under the plot: above it, two rows of entries ran into the title.
_LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.15, x=0)
_LEGEND_BELOW_GRID = dict(orientation="h", yanchor="top", y=-0.13, x=0)  # 2 x 2 grids: under the x titles


def _lines(fig, data, y_key, scale=1.0, row=None, col=None, showlegend=True):
    for label, c in data.items():
        kw = dict(row=row, col=col) if row else {}
        fig.add_trace(go.Scatter(x=c["presented_load_bps"] / 1e6, y=c[y_key] * scale, mode="lines+markers",
                                 name=_display(label), legendgroup=label, showlegend=showlegend,
                                 line=dict(color=CURVE_COLOR[label], width=2), marker=dict(size=5)), **kw)


def figure4(rows: list[dict] | None = None) -> go.Figure:
    """Return figure 4: the NZ-bound link use of ONE inter-proxy connection against presented load, with
    the paper's closed form (410 kbit/s), the full-segment plateau by hand and the paper's 415 kbit/s."""
    rows = load_figure4() if rows is None else rows
    p = SatelliteParams()
    x = np.array([r["presented_load_bps"] for r in rows]) / 1e6
    y = np.array([r["carried_nz_bound_bps"] for r in rows]) / 1e3
    order = np.argsort(x)
    fig = new_figure(title="Figure 4: link use of a single TCP connection (32767-byte window, 640 ms RTT)",
                     xaxis_title="presented NZ-bound load (Mbit/s)", yaxis_title="carried NZ-bound load (kbit/s)")
    fig.add_trace(go.Scatter(x=x[order], y=y[order], mode="lines+markers", name="simulated (on the wire)",
                             line=dict(color=CURVE_COLOR["1 connections"])))
    xmax = float(x.max()) * 1.05
    for val, name, dash, colr in ((window_limit_bps(p) / 1e3, "closed form 32767·8/0.64 = 409.6", "dash", "#555"),
                                  (full_segment_plateau(p).wire_bps / 1e3, "22 full segments per cycle, on the wire",
                                   "dot", "#555"),
                                  (415.0, "paper's simulated plateau (415)", "dashdot", PAPER_COLOR)):
        fig.add_trace(go.Scatter(x=[0, xmax], y=[val, val], mode="lines", name=name,
                                 line=dict(dash=dash, color=colr, width=1.5)))
    fig.add_trace(go.Scatter(x=[0, 0.45], y=[0, 450], mode="lines", name="carried = presented",
                             line=dict(color="#bbb", width=1)))
    fig.update_yaxes(range=[0, 480])
    fig.update_layout(legend=_LEGEND_BELOW, margin=dict(b=120), height=480)
    return fig


def figure5a(data: dict | None = None) -> go.Figure:
    """Return figure 5a: carried against presented NZ-bound load, every curve, with the paper's slope."""
    data = curves() if data is None else data
    fig = new_figure(title="Figure 5a: load carried to NZ against load presented",
                     xaxis_title="presented NZ-bound load (Mbit/s)", yaxis_title="carried NZ-bound load (Mbit/s)",
                     height=460)
    _lines(fig, data, "carried_nz_bound_bps", 1e-6)
    fig.update_layout(legend=_LEGEND_BELOW, margin=dict(b=110))
    xmax = max(float(c["presented_load_bps"].max()) for c in data.values()) / 1e6
    fig.add_trace(go.Scatter(x=[0, E3_BPS / 1e6 / PAPER_SLOPE], y=[0, E3_BPS / 1e6], mode="lines",
                             name="paper's slope 1.09", line=dict(dash="dash", color=PAPER_COLOR)))
    fig.add_trace(go.Scatter(x=[0, xmax], y=[E3_BPS / 1e6] * 2, mode="lines", name="E3 capacity 34.368",
                             line=dict(dash="dot", color="#555")))
    return fig


def figure5b(data: dict | None = None) -> go.Figure:
    """Return figure 5b: mean sample-page latency against presented load (log scale: overload is ~100 s)."""
    data = curves() if data is None else data
    fig = new_figure(title="Figure 5b: mean latency of the sample pages",
                     xaxis_title="presented NZ-bound load (Mbit/s)",
                     yaxis_title="mean sample-page latency (s)", height=460)
    _lines(fig, data, "sample_latency_mean_s")
    fig.update_layout(legend=_LEGEND_BELOW, margin=dict(b=110))
    fig.update_yaxes(type="log")
    return fig


def figure6(data: dict | None = None) -> go.Figure:
    """Return figures 6a-d: mean and peak occupancy of the buffers feeding each end of the satellite."""
    data = curves() if data is None else data
    titles = ("6a mean, US end (feeds NZ-bound)", "6b peak, US end", "6c mean, NZ end (feeds US-bound)",
              "6d peak, NZ end")
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.1, vertical_spacing=0.14)
    keys = ("buffer_mean_bytes_us_end", "buffer_peak_bytes_us_end", "buffer_mean_bytes_nz_end",
            "buffer_peak_bytes_nz_end")
    for i, k in enumerate(keys):
        _lines(fig, data, k, 1 / 1024, row=i // 2 + 1, col=i % 2 + 1, showlegend=i == 0)
    fig.update_layout(template="plotly_white", height=640, title="Figure 6: router buffer use (KB; 512 KB each)",
                      legend=_LEGEND_BELOW_GRID, margin=dict(b=130))
    fig.update_xaxes(title_text="presented load (Mbit/s)", row=2)
    return fig


def figure7(data: dict | None = None) -> go.Figure:
    """Return figures 7a-d: US connections, request completion times, NZ -> US load, the in:out ratio."""
    data = curves() if data is None else data
    titles = ("7a mean concurrent US connections", "7b mean request completion time (s)",
              "7c carried NZ-to-US load (Mbit/s)", "7d NZ-bound : US-bound bytes")
    fig = make_subplots(rows=2, cols=2, subplot_titles=titles, horizontal_spacing=0.1, vertical_spacing=0.14)
    for i, (k, s) in enumerate((("us_connections_mean", 1.0), ("request_time_mean_s", 1.0),
                                ("carried_us_bound_bps", 1e-6), ("inbound_outbound_ratio", 1.0))):
        _lines(fig, data, k, s, row=i // 2 + 1, col=i % 2 + 1, showlegend=i == 0)
    xmax = max(float(c["presented_load_bps"].max()) for c in data.values()) / 1e6
    fig.add_trace(go.Scatter(x=[0, xmax], y=[19, 19], mode="lines", name="paper: 1:19",
                             line=dict(dash="dash", color=PAPER_COLOR)), row=2, col=2)
    fig.update_yaxes(type="log", row=1, col=2)
    fig.update_yaxes(type="log", row=1, col=1)
    fig.update_layout(template="plotly_white", height=640, title="Figure 7", legend=_LEGEND_BELOW_GRID,
                      margin=dict(b=130))
    fig.update_xaxes(title_text="presented load (Mbit/s)", row=2)
    return fig


def all_figures() -> dict[str, go.Figure]:
    """Return every static figure of the chapter by name."""
    data = curves()
    return {"figure4": figure4(), "figure5a": figure5a(data), "figure5b": figure5b(data), "figure6": figure6(data),
            "figure7": figure7(data)}


@register_figures("satellite")
def _figures() -> dict[str, go.Figure]:
    if not FIGURE4_PATH.exists():
        write_figure4()
    if not SWEEP_PATH.exists():
        write_sweep()
    return all_figures()
