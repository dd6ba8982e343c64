"""Chapter 2's live panel: presented load, architecture, inter-proxy connections, proxy window, satellite
delay, router buffer, TCP and the workload's seed; figures 5a and 5b with "your setting" marked.

A move answers from one of three places, and the status line says which:
- the stored sweep (full packet runs, ``data/satellite_sweep.csv``) at the paper's settings, interpolated
  between its two nearest loads, for the selected seed;
- the hybrid fast mode (``simulate_hybrid``: the same requests over the same 600 simulated seconds as a
  full run) at any other setting where ``hybrid.validated``: the range where
  ``data/satellite_hybrid_check.csv`` shows it agreeing with full runs;
- nothing, beyond that range: the status says how loaded the bottleneck is and offers the full run.
The "run in full" button re-runs the packet-level simulation of the setting (every request's packets) with
a progress bar, and marks it beside the answer.
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
from simcore.rng import make_generator
from simcore.satellite import SatelliteParams, build_satellite
from simcore.satellite.hybrid import (
    VALIDATED_TOLERANCE,
    VALIDATED_TOLERANCE_S,
    VALIDATED_UTILISATION,
    capacity,
    simulate_hybrid,
    utilisation,
    validated,
)
from simcore.satellite.model import _requests, _result

from .satellite import traces_for_load
from .satellite_figures import CURVE_COLOR, E3_BPS, PAPER_COLOR, PAPER_SLOPE, _display, curves
from .satellite_sweep import SWEEP_SEEDS

__all__ = ["make_panel", "panel_params", "answer", "WINDOWS", "CONNECTIONS", "FULL_DURATION_S", "SEEDS"]

WINDOWS = (8192, 16384, 32767, 65535, 262144, 4194304)  # above 65535: RFC 1323 window scaling
CONNECTIONS = (1, 10, 50, 100, 150, 200)
FULL_DURATION_S = 600.0  # every answer is of a 600 s run, as the stored sweep's: comparable with its curves
SEEDS = SWEEP_SEEDS
ARCH_OPTIONS = (("base: NZ proxy only", "base"), ("US proxy", "us_proxy"))
TCP_OPTIONS = (("4.4BSD-Lite (paper)", "bsd44lite"), ("Linux today", "linux"))
YOUR_COLOR = "#000000"
FULL_COLOR = PAPER_COLOR  # not a curve's colour: the full run's cross stands out from every curve


def panel_params(values: dict, duration_s: float = FULL_DURATION_S) -> SatelliteParams:
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
    """Return the answer at these control values: ``kind`` ('stored', 'fast' or 'outside'), presented and
    carried load (bits/s), latency (s; NaN when outside), unfinished sample pages, the bottleneck's
    utilisation and name, and a one-line ``source``. ``data``: seed -> ``curves(seed=...)``."""
    p = panel_params(values)
    seed = check_choice("seed", values.get("seed", SEEDS[0]), SEEDS)
    data = {s: curves(seed=s) for s in SEEDS} if data is None else data
    load = float(values["load_mbps"]) * 1e6
    cap_bps, bottleneck = capacity(p)
    out = dict(capacity_bps=cap_bps, bottleneck=bottleneck, seed=seed, n_requests=round(p.n_traces * 421 * p.duration_s
                                                                                        / 600))
    c = data[seed].get(_label(p)) if _is_paper_setting(p) else None
    if c is not None and c["presented_load_bps"][0] <= load <= c["presented_load_bps"][-1]:
        x = c["presented_load_bps"]
        lat = np.interp(load, x, np.log(c["sample_latency_mean_s"]))  # latency grows ~exponentially near the knee
        i = int(np.searchsorted(x, load))
        carried = float(np.interp(load, x, c["carried_nz_bound_bps"]))
        # utilisation of the stored runs: what they carried (on the wire) over the capacity, or in overload what
        # was presented (on the wire: carried / presented at the lightest load of the curve)
        wire = float(c["carried_nz_bound_bps"][0] / c["presented_load_bps"][0])
        return dict(out, kind="stored", presented_bps=load, carried_bps=carried, utilisation=max(carried, wire * load)
                    / cap_bps, latency_s=float(np.exp(lat)),
                    unfinished=int(c["sample_unfinished"][max(i - 1, 0):i + 1].max()),
                    source=f"the stored full runs (seed {seed}), interpolated between the two nearest loads")
    w, is_sample = _requests(p, make_generator(seed))
    util, _, _ = utilisation(p, w.take(~is_sample))
    out = dict(out, utilisation=util, n_requests=len(w))
    ok, why = validated(p, util)
    if not ok:
        return dict(out, kind="outside", why=why, presented_bps=float(w.reply_bytes.sum()) * 8.0 / p.duration_s,
                    carried_bps=math.nan, latency_s=math.nan, unfinished=0, source="no fast answer")
    h = simulate_hybrid(p, seed, requests=(w, is_sample))
    return dict(out, kind="fast", presented_bps=h.presented_load_bps, carried_bps=h.carried_nz_bound_bps,
                latency_s=h.sample_latency_mean_s, unfinished=h.sample_unfinished,
                source=f"the fast mode (hybrid, seed {seed}, {h.elapsed_s:.1f} s)")


def status_html(label: str, a: dict) -> str:
    """Return the status line of an answer (``answer``): what was computed, from where, and how far to trust it."""
    u = f"{a['bottleneck']} {100 * a['utilisation']:.0f} % loaded"
    tol = f"within {100 * VALIDATED_TOLERANCE:.0f} % or {VALIDATED_TOLERANCE_S:g} s"
    if a["kind"] == "outside":
        over = a["utilisation"] > 1.0
        load = (f"<b>overloaded</b>: {a['bottleneck']} can carry {a['capacity_bps'] / 1e6:.1f} Mbit/s on the wire and "
                f"this load asks {100 * a['utilisation']:.0f} % of it, so the backlog (and every latency) grows for "
                f"as long as the run lasts" if over else u)
        return (f"<b>{_display(label)}</b>, presented {a['presented_bps'] / 1e6:.1f} Mbit/s: {load}. No fast answer: "
                f"{a['why']}. Press <b>run in full</b> for the packet-level answer "
                f"({a['n_requests']:,} requests: seconds to a minute).")
    unf = f", {a['unfinished']} sample pages unfinished (a lower bound)" if a["unfinished"] else ""
    checked = (f"; checked against full runs ({tol}) up to {100 * VALIDATED_UTILISATION:.0f} %"
               if a["kind"] == "fast" else "")
    over = " (overloaded: the latency grows with the run's length)" if a["utilisation"] > 1.0 else ""
    return (f"<b>{_display(label)}</b>: presented {a['presented_bps'] / 1e6:.1f} Mbit/s, carried "
            f"{a['carried_bps'] / 1e6:.1f} Mbit/s, sample latency {a['latency_s']:.2f} s{unf}; {u}{over}. "
            f"<i>From {a['source']}{checked}.</i>")


def _figures(data: dict) -> tuple[go.Figure, go.Figure]:
    fa = new_figure(widget=True, title="Figure 5a live: carried vs presented", xaxis_title="presented (Mbit/s)",
                    yaxis_title="carried NZ-bound (Mbit/s)", height=380)
    fb = new_figure(widget=True, title="Figure 5b live: sample-page latency", xaxis_title="presented (Mbit/s)",
                    yaxis_title="mean latency (s)", height=380)
    for label, c in data.items():
        x = (c["presented_load_bps"] / 1e6).tolist()
        for fig, y in ((fa, c["carried_nz_bound_bps"] / 1e6), (fb, c["sample_latency_mean_s"])):
            fig.add_trace(go.Scatter(x=x, y=y.tolist(), mode="lines", name=_display(label), legendgroup=label,
                                     line=dict(color=CURVE_COLOR[label], width=1.5), opacity=0.6))
    fa.add_trace(go.Scatter(x=[0, E3_BPS / 1e6 / PAPER_SLOPE], y=[0, E3_BPS / 1e6], mode="lines",
                            name="paper's slope 1.09", line=dict(dash="dash", color=PAPER_COLOR, width=1)))
    for fig in (fa, fb):
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="your setting",
                                 marker=dict(size=14, symbol="diamond", color=YOUR_COLOR)))
        fig.add_trace(go.Scatter(x=[None], y=[None], mode="markers", name="run in full",
                                 marker=dict(size=14, symbol="x", color=FULL_COLOR)))
    fb.update_yaxes(type="log", dtick=1)  # decades only
    for fig in (fa, fb):
        fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), margin=dict(b=120), height=440)
    return fa, fb


def make_panel(data: dict | None = None, *, gate=None) -> LivePanel:
    """Return the live panel (see the module docstring); ``data``: seed -> ``curves(seed=...)``; ``gate``:
    predictions (``satellite_predictions``) that hold its plots and numbers back until committed."""
    data = {s: curves(seed=s) for s in SEEDS} if data is None else data
    labels = list(data[SEEDS[0]])
    n_curves = len(labels)
    controls = {
        "load_mbps": float_slider("presented load (Mbit/s)", 10.0, 0.7, 40.0, 0.1, readout_format=".1f"),
        "n_conn": dropdown("inter-proxy connections", CONNECTIONS, 100),
        "architecture": dropdown("architecture", ARCH_OPTIONS, "us_proxy"),
        "window": dropdown("proxy window (bytes)", WINDOWS, 32767),
        "delay_ms": float_slider("satellite delay (ms, one way)", 320.0, 20.0, 320.0, 10.0, readout_format=".0f"),
        "buffer_kb": int_slider("router buffer (KB)", 512, 64, 2048, 64),
        "tcp": dropdown("TCP", TCP_OPTIONS, "bsd44lite"),
        "seed": dropdown("workload seed", SEEDS, SEEDS[0]),
    }
    fa, fb = _figures(data[SEEDS[0]])
    shown = {"seed": SEEDS[0]}

    def update(values: dict) -> str:
        a = answer(values, data)
        p = panel_params(values)
        label = _label(p)
        seed = a["seed"]
        for fig, key in ((fa, "carried_nz_bound_bps"), (fb, "sample_latency_mean_s")):
            for i, name in enumerate(labels):
                tr = fig.data[i]
                if shown["seed"] != seed:
                    c = data[seed][name]
                    tr.x = (c["presented_load_bps"] / 1e6).tolist()
                    tr.y = (c[key] / (1e6 if key == "carried_nz_bound_bps" else 1.0)).tolist()
                tr.line.width = 4 if name == label else 1.5
                tr.opacity = 1.0 if name == label else 0.6
        shown["seed"] = seed
        ia, ib = n_curves + 1, n_curves  # "your setting" in 5a (after the paper's slope) and in 5b
        if a["kind"] == "outside":
            x, ya, yb = [None], [None], [None]
        else:
            x, ya, yb = [a["presented_bps"] / 1e6], [a["carried_bps"] / 1e6], [a["latency_s"]]
        name = {"stored": "your setting (stored full runs)", "fast": "your setting (fast mode)",
                "outside": "your setting (no fast answer)"}[a["kind"]]
        for fig, i, y in ((fa, ia, ya), (fb, ib, yb)):
            fig.data[i].x, fig.data[i].y, fig.data[i].name = x, y, name
            fig.data[i + 1].x, fig.data[i + 1].y = [None], [None]  # the last full run belonged to another setting
        return status_html(label, a)

    def idle(values: dict) -> dict:
        return {"n_conn": "the base case has no inter-proxy connections"} if values["architecture"] == "base" else {}

    panel = LivePanel(controls, update, [fa, fb], title="HTTP over the NZ-US satellite: try a setting", idle=idle,
                      gate=gate)
    _attach_full_run(panel, fa, fb, n_curves)
    return panel


def _attach_full_run(panel: LivePanel, fa, fb, n_curves: int) -> None:
    button = widgets.Button(description="run in full", tooltip="the packet-level simulation of this setting",
                            button_style="warning")
    bar = widgets.IntProgress(value=0, min=0, max=4, description="", layout=widgets.Layout(width="200px"))
    note = widgets.HTML("")

    def run(_=None) -> None:
        try:
            values = panel.values()
            p = replace(panel_params(values, FULL_DURATION_S), measure_buffers=False)
            seed = values.get("seed", SEEDS[0])
            bar.value = 1
            note.value = f"building {p.n_traces} day-traces ({p.n_traces * 421 * p.duration_s / 600:.0f} requests)..."
            t0 = time.perf_counter()
            sc, plan = build_satellite(p, seed)
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
            unf = f", {r.sample_unfinished} sample pages unfinished (a lower bound)" if r.sample_unfinished else ""
            note.value = (f"full run (seed {seed}, {p.duration_s:g} s simulated, {r.requests} requests, {r.events} "
                          f"events) in {time.perf_counter() - t0:.1f} s: carried {r.carried_nz_bound_bps / 1e6:.2f} "
                          f"Mbit/s, latency {r.sample_latency_mean_s:.2f} s{unf}")
        except Exception as exc:  # never raise from a button
            note.value = f"<span style='color:#b00020'>cannot run: {exc}</span>"

    button.on_click(run)
    panel.full_run, panel.full_note, panel.full_bar = run, note, bar
    panel.widget.children = (*panel.widget.children, widgets.HBox([button, bar, note]))
