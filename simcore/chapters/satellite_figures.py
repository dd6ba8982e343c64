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

__all__ = ["CURVE_ORDER", "CURVE_COLOR", "CURVE_SYMBOL", "SPREAD", "curves", "figure4", "figure5a", "figure5b",
           "figure6", "figure7", "all_figures",
           "PAPER_SLOPE", "E3_BPS"]

CURVE_ORDER = tuple(curve_label(a, n) for a, n in CURVES)
PAPER_SLOPE = 1.09  # sec. 5.1
E3_BPS = 34.368e6
# Seven curves in seven hue families (CIELAB hue angles >= 35 degrees apart, one achromatic), at least 23
# apart in CIELAB also under simulated deuteranopia and protanopia (tests/chapters/test_satellite_colours.py);
# the paper's colour (vermillion) stays for the paper's numbers. Each curve also has its own marker.
_PALETTE = ("#000000", "#882255", "#999933", "#2898A0", "#009E73", "#56B4E9", "#332288")
CURVE_COLOR = dict(zip(CURVE_ORDER, _PALETTE, strict=True))
CURVE_SYMBOL = dict(zip(CURVE_ORDER, ("circle", "square", "diamond", "triangle-up", "cross", "triangle-down", "x"),
                        strict=True))
PAPER_COLOR = color_for("paper")


SPREAD = ("presented_load_bps", "carried_nz_bound_bps", "sample_latency_mean_s", "request_time_mean_s")


def curves(rows: list[dict] | None = None, seed: int | None = None) -> dict[str, dict[str, np.ndarray]]:
    """Return, per curve label (in the paper's order), the stored sweep's columns as arrays, one entry per
    load (day-traces), sorted by presented load: the mean over the stored seeds (or only ``seed``'s run),
    with ``<column>_min`` / ``<column>_max`` over the seeds for the columns of ``SPREAD``, ``n_seeds``, and
    ``sample_unfinished`` / ``requests_unfinished`` as the largest over the seeds (> 0: that point's mean
    latency is a lower bound, see ``SatelliteResult``)."""
    rows = load_sweep() if rows is None else rows
    if seed is not None:
        rows = [r for r in rows if r["seed"] == seed]
    out: dict[str, dict[str, np.ndarray]] = {}
    for label in CURVE_ORDER:
        mine = [r for r in rows if r["curve"] == label]
        if not mine:
            continue
        by_load: dict[int, list[dict]] = {}
        for r in mine:
            by_load.setdefault(r["n_traces"], []).append(r)
        groups = list(by_load.values())
        cols = [k for k in mine[0] if k not in ("curve", "architecture", "source")]
        c = {k: np.array([np.mean([r[k] for r in g]) for g in groups]) for k in cols}
        for k in ("sample_unfinished", "requests_unfinished"):
            c[k] = np.array([max(r[k] for r in g) for g in groups])
        for k in SPREAD:
            c[k + "_min"] = np.array([min(r[k] for r in g) for g in groups])
            c[k + "_max"] = np.array([max(r[k] for r in g) for g in groups])
        c["n_seeds"] = np.array([len(g) for g in groups])
        order = np.argsort(c["presented_load_bps"], kind="stable")
        out[label] = {k: v[order] for k, v in c.items()}
    return out


def _display(label: str) -> str:
    """Return a curve's label as a legend shows it ("1 connection", not the stored key "1 connections")."""
    return "1 connection" if label == "1 connections" else label


# Legends of the static figures go under the plot: above it, two rows of entries ran into the title.
_LEGEND_BELOW = dict(orientation="h", yanchor="top", y=-0.15, x=0)
_LEGEND_BELOW_GRID = dict(orientation="h", yanchor="top", y=-0.13, x=0)  # 2 x 2 grids: under the x titles


def _lines(fig, data, y_key, scale=1.0, row=None, col=None, showlegend=True, spread=False):
    """Draw every curve of ``data`` (``curves``): the mean over seeds; ``spread``: error bars from the
    smallest to the largest seed's value (both axes), and open markers where a seed left sample pages
    unfinished (the mean is then a lower bound)."""
    for label, c in data.items():
        kw = dict(row=row, col=col) if row else {}
        x, y = c["presented_load_bps"] / 1e6, c[y_key] * scale
        extra = {}
        if spread and y_key + "_min" in c:
            color = CURVE_COLOR[label]
            extra = dict(error_y=dict(type="data", symmetric=False, array=(c[y_key + "_max"] * scale - y).tolist(),
                                      arrayminus=(y - c[y_key + "_min"] * scale).tolist(), thickness=1, width=3,
                                      color=color),
                         error_x=dict(type="data", symmetric=False,
                                      array=(c["presented_load_bps_max"] / 1e6 - x).tolist(),
                                      arrayminus=(x - c["presented_load_bps_min"] / 1e6).tolist(), thickness=1,
                                      width=0, color=color))
        bound = c.get("sample_unfinished", np.zeros(len(x))) > 0 if y_key == "sample_latency_mean_s" else \
            np.zeros(len(x), bool)
        symbols = [CURVE_SYMBOL[label] + "-open" if b else CURVE_SYMBOL[label] for b in bound]
        fig.add_trace(go.Scatter(x=x, y=y, mode="lines+markers", name=_display(label), legendgroup=label,
                                 showlegend=showlegend, line=dict(color=CURVE_COLOR[label], width=2),
                                 marker=dict(size=[9 if b else 5 for b in bound], symbol=symbols), **extra), **kw)


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
    _lines(fig, data, "carried_nz_bound_bps", 1e-6, spread=True)
    fig.update_layout(legend=_LEGEND_BELOW, margin=dict(b=110))
    xmax = max(float(c["presented_load_bps"].max()) for c in data.values()) / 1e6
    fig.add_trace(go.Scatter(x=[0, E3_BPS / 1e6 / PAPER_SLOPE], y=[0, E3_BPS / 1e6], mode="lines",
                             name="paper's slope 1.09", line=dict(dash="dash", color=PAPER_COLOR)))
    fig.add_trace(go.Scatter(x=[0, xmax], y=[E3_BPS / 1e6] * 2, mode="lines", name="E3 capacity 34.368",
                             line=dict(dash="dot", color="#555")))
    return fig


def figure5b(data: dict | None = None) -> go.Figure:
    """Return figure 5b: mean sample-page latency against presented load, the mean over the stored seeds
    with bars from the smallest to the largest seed (log scale: overload is ~100 s); open markers: some
    sample pages unfinished at the end of a run, the mean is a lower bound."""
    data = curves() if data is None else data
    n = int(max(int(c["n_seeds"].max()) for c in data.values()))
    fig = new_figure(title=f"Figure 5b: mean latency of the sample pages (mean of {n} seeds, bars: their range)",
                     xaxis_title="presented NZ-bound load (Mbit/s)",
                     yaxis_title="mean sample-page latency (s)", height=460)
    _lines(fig, data, "sample_latency_mean_s", spread=True)
    fig.update_layout(legend=_LEGEND_BELOW, margin=dict(b=110))
    fig.update_yaxes(type="log", dtick=1)  # label the decades only
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
