"""Chapter 2's live panel: presented load, architecture, inter-proxy connections, proxy window, satellite
delay, router buffer and TCP; figures 5a and 5b with "your setting" marked.

A move answers from the stored sweep (the paper's settings: interpolated between its loads) or from the
hybrid fast mode (any other setting: ``simulate_hybrid``, ``HYBRID_DURATION_S`` simulated seconds). The
"run in full" button re-runs the packet-level simulation of the setting (every request's packets) with a
progress bar, and marks it beside the fast answer.
"""

from __future__ import annotations

import math
import time
from dataclasses import replace

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_choice, check_int, check_real
from simcore.packet import simulate
from simcore.plotting import LivePanel, dropdown, float_slider, int_slider, new_figure
from simcore.satellite import SatelliteParams, build_satellite
from simcore.satellite.hybrid import simulate_hybrid
from simcore.satellite.model import _result

from .satellite import presented_bps_per_trace, traces_for_load
from .satellite_figures import CURVE_COLOR, E3_BPS, PAPER_COLOR, PAPER_SLOPE, curves

__all__ = ["make_panel", "panel_params", "answer", "WINDOWS", "CONNECTIONS", "HYBRID_DURATION_S", "FULL_DURATION_S"]

WINDOWS = (8192, 16384, 32767, 65535, 262144, 4194304)  # above 65535: RFC 1323 window scaling
CONNECTIONS = (1, 10, 50, 100, 150, 200)
HYBRID_DURATION_S = 40.0
FULL_DURATION_S = 600.0  # as the stored sweep: the red cross is comparable with its curves
PANEL_SEED = 1
PANEL_PACKET_BUDGET = 600  # requests kept at packet level by the hybrid (US proxy): ~0.2 s a move
ARCH_OPTIONS = (("base: NZ proxy only", "base"), ("US proxy", "us_proxy"))
TCP_OPTIONS = (("4.4BSD-Lite (paper)", "bsd44lite"), ("Linux today", "linux"))


def panel_params(values: dict, duration_s: float = HYBRID_DURATION_S) -> SatelliteParams:
    """Return the ``SatelliteParams`` of the panel's control values (validated, named errors)."""
    load = check_real("load_mbps", values["load_mbps"], 0.01, 100.0)
    arch = check_choice("architecture", values["architecture"], ("base", "us_proxy"))
    n = check_int("n_conn", values["n_conn"], 1, 10_000)
    win = check_int("window", values["window"], 1460, 2**30)
    delay = check_real("delay_ms", values["delay_ms"], 1.0, 2000.0)
    buf = check_int("buffer_kb", values["buffer_kb"], 2, 2**20)
    return SatelliteParams(architecture=arch, n_proxy_connections=n, n_traces=traces_for_load(load * 1e6),
                           duration_s=duration_s, proxy_window_bytes=win, satellite_delay_s=delay / 1e3,
                           router_buffer_bytes=buf * 1024, tcp_preset=values["tcp"], measure_buffers=False)


def _is_paper_setting(p: SatelliteParams) -> bool:
    d = SatelliteParams()
    return (p.proxy_window_bytes == d.proxy_window_bytes and math.isclose(p.satellite_delay_s, d.satellite_delay_s)
            and p.router_buffer_bytes == d.router_buffer_bytes and p.tcp_preset == d.tcp_preset)


def _label(p: SatelliteParams) -> str:
    return "base" if p.architecture == "base" else f"{p.n_proxy_connections} connections"


def answer(values: dict, data: dict | None = None) -> dict:
    """Return the fast answer at these control values: presented, carried (bits/s), latency (s), source."""
    p = panel_params(values)
    data = curves() if data is None else data
    load = float(values["load_mbps"]) * 1e6
    c = data[_label(p)] if _is_paper_setting(p) else None
    if c is not None and c["presented_load_bps"][0] <= load <= c["presented_load_bps"][-1]:
        x = c["presented_load_bps"]
        lat = np.interp(load, x, np.log(c["sample_latency_mean_s"]))  # latency grows ~exponentially near the knee
        return dict(presented_bps=load, carried_bps=float(np.interp(load, x, c["carried_nz_bound_bps"])),
                    latency_s=float(np.exp(lat)), source="stored sweep (interpolated)", unfinished=0)
    h = simulate_hybrid(p, PANEL_SEED, packet_budget=PANEL_PACKET_BUDGET)
    return dict(presented_bps=h.presented_load_bps, carried_bps=h.carried_nz_bound_bps,
                latency_s=h.sample_latency_mean_s, source=f"hybrid, {p.duration_s:g} s simulated",
                unfinished=h.sample_unfinished)


def _figures(data: dict) -> tuple[go.Figure, go.Figure]:
    fa = new_figure(widget=True, title="Figure 5a live: carried vs presented", xaxis_title="presented (Mbit/s)",
                    yaxis_title="carried NZ-bound (Mbit/s)", height=380)
    fb = new_figure(widget=True, title="Figure 5b live: sample-page latency", xaxis_title="presented (Mbit/s)",
                    yaxis_title="mean latency (s)", height=380)
    for label, c in data.items():
        x = (c["presented_load_bps"] / 1e6).tolist()
        for fig, y in ((fa, c["carried_nz_bound_bps"] / 1e6), (fb, c["sample_latency_mean_s"])):
            fig.add_trace(go.Scatter(x=x, y=y.tolist(), mode="lines", name=label, legendgroup=label,
                                     line=dict(color=CURVE_COLOR[label], width=1), opacity=0.35))
    fa.add_trace(go.Scatter(x=[0, E3_BPS / 1e6 / PAPER_SLOPE], y=[0, E3_BPS / 1e6], mode="lines",
                            name="paper's slope 1.09", line=dict(dash="dash", color=PAPER_COLOR, width=1)))
    for fig in (fa, fb):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="your setting (fast)",
                                 marker=dict(size=14, symbol="diamond", color="#000")))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="run in full",
                                 marker=dict(size=14, symbol="x", color="#d62728")))
    fb.update_yaxes(type="log")
    for fig in (fa, fb):
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), margin=dict(b=120), height=440)
    return fa, fb


def make_panel(data: dict | None = None) -> LivePanel:
    """Return the live panel (see the module docstring)."""
    data = curves() if data is None else data
    n_curves = len(data)
    controls = {
        "load_mbps": float_slider("presented load (Mbit/s)", 10.0, 0.7, 40.0, 0.1, readout_format=".1f"),
        "n_conn": dropdown("inter-proxy connections", CONNECTIONS, 100),
        "architecture": dropdown("architecture", ARCH_OPTIONS, "us_proxy"),
        "window": dropdown("proxy window (bytes)", WINDOWS, 32767),
        "delay_ms": float_slider("satellite delay (ms, one way)", 320.0, 20.0, 320.0, 10.0, readout_format=".0f"),
        "buffer_kb": int_slider("router buffer (KB)", 512, 64, 2048, 64),
        "tcp": dropdown("TCP", TCP_OPTIONS, "bsd44lite"),
    }
    fa, fb = _figures(data)

    def update(values: dict) -> str:
        a = answer(values, data)
        p = panel_params(values)
        label = _label(p)
        for fig in (fa, fb):
            for i, name in enumerate(data):
                fig.data[i].line.width = 4 if name == label else 1
                fig.data[i].opacity = 1.0 if name == label else 0.35
        x = [a["presented_bps"] / 1e6]
        fa.data[n_curves + 1].x, fa.data[n_curves + 1].y = x, [a["carried_bps"] / 1e6]
        fb.data[n_curves].x, fb.data[n_curves].y = x, [a["latency_s"]]
        for fig in (fa, fb):
            k = n_curves + 2 if fig is fa else n_curves + 1
            fig.data[k].x, fig.data[k].y = [None], [None]
        unf = f", {a['unfinished']} sample pages unfinished" if a["unfinished"] else ""
        return (f"<b>{label}</b>: presented {a['presented_bps'] / 1e6:.1f} Mbit/s, carried "
                f"{a['carried_bps'] / 1e6:.1f} Mbit/s, sample latency {a['latency_s']:.2f} s{unf} "
                f"<i>({a['source']})</i>")

    def idle(values: dict) -> dict:
        return {"n_conn": "the base case has no inter-proxy connections"} if values["architecture"] == "base" else {}

    panel = LivePanel(controls, update, [fa, fb], title="HTTP over the NZ-US satellite: try a setting", idle=idle)
    _attach_full_run(panel, fa, fb, n_curves)
    return panel


def _attach_full_run(panel: LivePanel, fa, fb, n_curves: int) -> None:
    button = widgets.Button(description="run in full", tooltip="the packet-level simulation of this setting",
                            button_style="warning")
    bar = widgets.IntProgress(value=0, min=0, max=4, description="", layout=widgets.Layout(width="200px"))
    note = widgets.HTML("")

    def run(_=None) -> None:
        try:
            p = replace(panel_params(panel.values(), FULL_DURATION_S), measure_buffers=False)
            bar.value = 1
            note.value = f"building {p.n_traces} day-traces ({p.n_traces * 421 * p.duration_s / 600:.0f} requests)..."
            t0 = time.perf_counter()
            sc, plan = build_satellite(p, PANEL_SEED)
            bar.value = 2
            note.value = "simulating every packet..."
            t1 = time.perf_counter()
            res = simulate(sc, seed=0, trace=False)
            bar.value = 3
            r = _result(p, sc, plan, res, t1 - t0, time.perf_counter() - t1)
            with fa.batch_update(), fb.batch_update():
                x = [r.presented_load_bps / 1e6]
                fa.data[n_curves + 2].x, fa.data[n_curves + 2].y = x, [r.carried_nz_bound_bps / 1e6]
                fb.data[n_curves + 1].x, fb.data[n_curves + 1].y = x, [r.sample_latency_mean_s]
            bar.value = 4
            note.value = (f"full run ({p.duration_s:g} s simulated, {r.requests} requests, {r.events} events) in "
                          f"{time.perf_counter() - t0:.1f} s: carried {r.carried_nz_bound_bps / 1e6:.2f} Mbit/s, "
                          f"latency {r.sample_latency_mean_s:.2f} s")
        except Exception as exc:  # never raise from a button
            note.value = f"<span style='color:#b00020'>cannot run: {exc}</span>"

    button.on_click(run)
    panel.full_run, panel.full_note, panel.full_bar = run, note, bar
    panel.widget.children = (*panel.widget.children, widgets.HBox([button, bar, note]))


def presented_per_trace_mbps() -> float:
    """Return one day-trace's mean presented load (Mbit/s) (the load slider's unit)."""
    return presented_bps_per_trace() / 1e6
