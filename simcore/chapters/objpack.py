"""Chapter 5, object packaging: the live panel, its predictions, the reproduced tables, ``figures()`` and ``warm()``.

The panel fetches the same page by every method on the hub testbed (``simcore.objpack``) and redraws two
figures: the response time of each method (the selected one highlighted) and how many files are usable
over time (a package: all at once at the end). The predictions that hold its answers back live in
``objpack_predict``; static figures and printed tables in ``objpack_figures``.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from simcore.figures import register_figures
from simcore.objpack import METHOD_LABELS, METHODS, ObjpackParams, simulate_objpack
from simcore.objpack.paper import reduction_pct
from simcore.objpack.reproduce import REFERENCE, reproduce_tables, table_text
from simcore.plotting import LivePanel, dropdown, new_figure, slider_from_range

from .objpack_figures import (
    METHOD_COLORS,
    METHOD_DASH,
    SHORT,
    files_sweep_figure,
    methods_figure,
    one_file_space_time,
    reductions_figure,
)

__all__ = ["SLIDER_RANGES", "DISTRIBUTION_OPTIONS", "PANEL_SETTING", "panel_params", "run_all", "make_panel",
           "tables_text", "key_numbers", "figures", "warm"]

# (min, max, step) of every numeric control; the tests sweep exactly these ranges.
SLIDER_RANGES = {
    "n_files": (1, 200, 1),
    "mean_kb": (0.1, 50.0, 0.1),
    "rate_mbps": (1.0, 100.0, 1.0),
    "rtt_ms": (0.0, 50.0, 0.1),
    "file_ms": (0.0, 20.0, 0.05),
}
DISTRIBUTION_OPTIONS = [("all equal", "fixed"), ("uniform 0.5-1.5 x mean", "uniform"),
                        ("exponential", "exponential"), ("lognormal (heavy tail)", "lognormal")]
METHOD_OPTIONS = [(SHORT[m], m) for m in METHODS]
# the panel's controls at the reference testbed (100 files of 1000 B, the fitted server), the package selected
PANEL_SETTING = {"n_files": REFERENCE.n_files, "distribution": "fixed", "mean_kb": REFERENCE.mean_file_bytes / 1000,
                 "rate_mbps": REFERENCE.link_rate_bps / 1e6, "rtt_ms": REFERENCE.rtt_s * 1000,
                 "file_ms": round(REFERENCE.server_file_s * 1000, 2), "method": "package", "compress": "off"}


def panel_params(values: dict) -> ObjpackParams:
    """Return the ObjpackParams of the panel's control values (sizes in kB, rate in Mbit/s, times in ms)."""
    return replace(
        REFERENCE, n_files=int(values["n_files"]), mean_file_bytes=max(1, int(round(float(values["mean_kb"]) * 1000))),
        size_distribution=values["distribution"], method=values["method"],
        link_rate_bps=float(values["rate_mbps"]) * 1e6, rtt_s=float(values["rtt_ms"]) / 1000.0,
        server_file_s=float(values["file_ms"]) / 1000.0, compress=values["compress"] == "on")


def run_all(p: ObjpackParams, seed: int = 0) -> dict:
    """Return {method: ObjpackResult} for the page of ``p`` fetched by every method."""
    return {m: simulate_objpack(replace(p, method=m), seed) for m in METHODS}


def _bars(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, yaxis_title="response time (s)", height=330)
    fig.add_bar(x=[], y=[])
    fig.update_layout(margin=dict(t=20, b=40), showlegend=False)
    return fig


def _usable(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, xaxis_title="time since the first SYN (s)", yaxis_title="files usable",
                     height=330)
    for m in METHODS:
        fig.add_scatter(x=[], y=[], mode="lines", line_shape="hv", name=SHORT[m])
    fig.update_layout(margin=dict(t=30, b=40))
    return fig


def _draw(bars: go.Figure, usable: go.Figure, res: dict, p: ObjpackParams) -> None:
    t = [res[m].response_time_s for m in METHODS]
    bars.data[0].update(x=[SHORT[m] for m in METHODS], y=t, text=[f"{v:.3f} s" for v in t], textposition="outside",
                        cliponaxis=False, marker=dict(color=[METHOD_COLORS[m] for m in METHODS],
                                                      opacity=[1.0 if m == p.method else 0.55 for m in METHODS],
                                                      line=dict(color="#000000",
                                                                width=[2.5 if m == p.method else 0 for m in METHODS])),
                        hovertemplate="%{x}: %{y:.4f} s<extra></extra>")
    bars.update_yaxes(range=[0, 1.18 * max(t)])
    for tr, m in zip(usable.data, METHODS, strict=True):
        d = np.sort(res[m].file_done_s)
        x = np.concatenate(([0.0], d))
        y = np.arange(d.size + 1, dtype=float)
        tr.update(x=x, y=y, name=SHORT[m], line=dict(color=METHOD_COLORS[m], dash=METHOD_DASH[m],
                                                      width=4 if m == p.method else 2))
    usable.update_xaxes(range=[0, 1.02 * max(t)])
    usable.update_yaxes(range=[0, 1.05 * p.n_files])


def _status(res: dict, p: ObjpackParams) -> str:
    r, h = res[p.method], res["http10"]
    red = (f" Against HTTP/1.0: time {reduction_pct(h.response_time_s, r.response_time_s):+.1f} %, packets "
           f"{reduction_pct(h.packets, r.packets):+.1f} %, bytes {reduction_pct(h.bytes, r.bytes):+.1f} % saved."
           if p.method != "http10" else "")
    same = ""
    if res["pipelined"].response_time_s == res["multistream"].response_time_s:
        same = " Pipelined and multistream coincide here (no loss: no head-of-line blocking to avoid)."
    return (f"<b>{METHOD_LABELS[p.method]}</b>: {p.n_files} files, {r.response_time_s:.3f} s, "
            f"{r.packets} packets, {r.bytes} bytes on the hub, {r.n_connections} connection"
            f"{'s' if r.n_connections != 1 else ''}.{red}{same}")


def make_panel(params: ObjpackParams | None = None, seed: int = 0, *, gate=None) -> LivePanel:
    """Return the live panel: sliders (files, size distribution and mean, link rate, RTT, server per-file
    cost, method, compression), the response time of every method, and files usable over time. ``gate``:
    predictions that veil it until committed (``objpack_predict.panel_predictions``)."""
    p = params or REFERENCE

    def slider(name, label, value, fmt=".3g"):
        return slider_from_range(SLIDER_RANGES, name, label, value, readout_format=fmt)

    controls = {
        "n_files": slider("n_files", "number of files", p.n_files),
        "distribution": dropdown("file sizes", DISTRIBUTION_OPTIONS, p.size_distribution),
        "mean_kb": slider("mean_kb", "mean file size (kB)", p.mean_file_bytes / 1000, ".1f"),
        "rate_mbps": slider("rate_mbps", "hub rate (Mbit/s)", p.link_rate_bps / 1e6, ".0f"),
        "rtt_ms": slider("rtt_ms", "RTT (ms)", p.rtt_s * 1000, ".1f"),
        "file_ms": slider("file_ms", "server per-file cost (ms)", p.server_file_s * 1000, ".2f"),
        "method": dropdown("method", METHOD_OPTIONS, p.method),
        "compress": dropdown("zlib compression", ["off", "on"], "on" if p.compress else "off"),
    }
    bars, usable = _bars(True), _usable(True)
    last: dict = {}  # every method runs on every move: choosing another method only re-highlights

    def update(values: dict) -> str:
        now = panel_params(values)
        key = replace(now, method=METHODS[0])
        if last.get("key") != key:
            last["key"], last["res"] = key, run_all(now, seed)
        _draw(bars, usable, last["res"], now)
        return _status(last["res"], now)

    return LivePanel(controls, update, [bars, usable], title="Object packaging on a 10 Mbit/s hub, live", gate=gate)


def tables_text(seed: int = 0) -> str:
    """Return Tables 1-3 re-run beside the paper's (fixed-width text)."""
    return table_text(reproduce_tables(REFERENCE, seed))


def key_numbers(seed: int = 0) -> dict:
    """Return the reproduced reductions (%) at 1K, 4K, 10K, rounded to 0.1, for the notebook's checks."""
    return {(r["quantity"], r["size"]): round(r["ours_reduction_pct"], 1) for r in reproduce_tables(REFERENCE, seed)}


def _panel_figure() -> go.Figure:
    p = replace(REFERENCE, method="package")
    res = run_all(p)
    bars, usable = _bars(False), _usable(False)
    _draw(bars, usable, res, p)
    return usable.update_layout(title="Files usable over time, 100 files of 1000 B (the panel's second plot)")


@register_figures("packaging")
def figures() -> dict[str, go.Figure]:
    """Return chapter 5's static figures by name."""
    return {
        "figure4_reductions": reductions_figure(),
        "figure5_files_sweep": files_sweep_figure(replace(REFERENCE, mean_file_bytes=10000)),
        "methods_1k": methods_figure(),
        "files_usable_1k": _panel_figure(),
        "space_time_one_file": one_file_space_time(),
    }


def warm() -> None:
    """Run every method once on a tiny page (and a traced run) so numba's cache is filled."""
    run_all(ObjpackParams(n_files=2, mean_file_bytes=2000))
    simulate_objpack(ObjpackParams(n_files=1), trace=True)
