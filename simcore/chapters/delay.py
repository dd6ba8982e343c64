"""Chapter 4: a Kurose & Ross style delay model (Vu & Vu 2017, "Web Server and Client Simulator").

Part 1 is the report's own world (``simcore.delay``): every packet costs propagation delay plus size x
transmission delay per byte, the client waits for each answer before sending the next packet, and a page
is P parent files each embedding C children, fetched with HTTP/1.0 (a TCP handshake per object), 1.1
(one handshake per page) or the report's "1.2" (one connection for the parents, one per parent for its
children). This module wires it for the notebook: the live panel (response time of every mode + the
space-time diagram of the selected one), the correctness table, the Appendix-2 sweeps and the
closed forms. Part 2 (the textbook's view with real TCP on ``simcore.packet``) lives in
``simcore.chapters.delay_tcp``; its static figures are part of this chapter's ``figures()``.
"""

from __future__ import annotations

import textwrap
from dataclasses import replace

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from simcore.chapters.delay_figures import space_time_panel_figure, sweep_figure, update_space_time_panel
from simcore.delay import (
    DelayParams,
    appendix2_sweep,
    closed_form_ms,
    correctness_table,
    formula_latex,
    packet_counts,
    simulate_ideal,
)
from simcore.delay.compare import correctness_params
from simcore.delay.params import MODE_NAMES, MODES
from simcore.delay.report import inferred_sizes, load_correctness, report_sweep_fits
from simcore.figures import register_figures
from simcore.plotting import LivePanel, color_for, dropdown, new_figure, slider_from_range

__all__ = ["SLIDER_RANGES", "panel_params", "round_trips", "mode_summary", "make_panel", "formulas_markdown",
           "correctness_rows", "correctness_text", "sweep_fits_text", "sweep_agreement_rows",
           "sweep_agreement_text", "sweep_figures", "case_space_time",
           "figures", "warm"]

# (min, max, step) of every numeric control of the live panel; the tests sweep exactly these ranges.
SLIDER_RANGES = {
    "prop_delay_ms": (0.0, 500.0, 10.0),
    "trans_ms_per_byte": (0.0, 30.0, 0.5),
    "n_parents": (1, 10, 1),
    "n_children": (0, 10, 1),
    "data_size_bytes": (1.0, 2000.0, 1.0),
    "hit_ratio": (0.0, 1.0, 0.05),
}
MODE_OPTIONS = [(f"HTTP/{m} {MODE_NAMES[m]}", m) for m in MODES]
BAR_NAME = "closed form"
SIM_NAME = "simulation, packet by packet (bars: closed form)"


def panel_params(values: dict) -> DelayParams:
    """Return the DelayParams of the panel's control values (the report's 33-byte control packets)."""
    return DelayParams(
        prop_delay_ms=float(values["prop_delay_ms"]), trans_ms_per_byte=float(values["trans_ms_per_byte"]),
        n_parents=int(values["n_parents"]), n_children=int(values["n_children"]),
        data_size_bytes=float(values["data_size_bytes"]), mode=values["mode"], cache=bool(values["cache"]),
        hit_ratio=float(values["hit_ratio"]), pipelining=bool(values["pipelining"]),
    )


def round_trips(params: DelayParams) -> float:
    """Return the number of round trips (2 propagation delays each) on the page's critical path (a count).

    It is the response time with 1 ms propagation and no transmission delay, halved: K + N for the
    report's stop-and-wait client (K handshakes, N objects), fewer with pipelining.
    """
    return closed_form_ms(replace(params, prop_delay_ms=1.0, trans_ms_per_byte=0.0)) / 2.0


def mode_summary(params: DelayParams) -> list[dict]:
    """Return one record per mode at ``params``'s other values: closed form and simulated time (ms), counts.

    Fields: ``mode``, ``closed_form_ms``, ``simulated_ms``, ``n_handshakes``, ``n_packets``,
    ``n_ctrl_packets``, ``n_data_packets``, ``round_trips``, ``n_connections`` and ``result`` (the
    :class:`~simcore.delay.IdealResult` with its packet trace).
    """
    out = []
    for mode in MODES:
        p = replace(params, mode=mode)
        res = simulate_ideal(p)
        out.append({"mode": mode, "closed_form_ms": closed_form_ms(p), "simulated_ms": res.response_time_ms,
                    **packet_counts(p), "round_trips": round_trips(p), "n_connections": res.n_connections,
                    "result": res})
    return out


def _bar_figure(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, xaxis_title="", yaxis_title="response time T (ms)", height=330)
    fig.add_bar(x=[], y=[], name=BAR_NAME, textposition="outside", cliponaxis=False, showlegend=False,
                hovertemplate="%{x}<br>%{y:.6g} ms<extra></extra>")
    fig.add_scatter(x=[], y=[], mode="markers", name=SIM_NAME,
                    marker=dict(color=color_for("simulation"), symbol="diamond", size=12,
                                line=dict(color="white", width=1)))
    fig.update_layout(margin=dict(t=30, b=40), bargap=0.45)
    return fig


def _draw_bars(fig: go.Figure, summary: list[dict], selected: str) -> None:
    labels = [f"HTTP/{r['mode']} {MODE_NAMES[r['mode']]}" for r in summary]
    y = [r["closed_form_ms"] for r in summary]
    text = [f"{r['closed_form_ms']:.6g} ms<br>{r['n_packets']} packets, {r['round_trips']:g} RTT"
            for r in summary]
    colors = [color_for(MODE_NAMES[r["mode"]]) for r in summary]
    opacity = [1.0 if r["mode"] == selected else 0.45 for r in summary]
    widths = [3 if r["mode"] == selected else 0 for r in summary]
    fig.data[0].update(x=labels, y=y, text=text, name=BAR_NAME, textposition="outside", cliponaxis=False,
                       showlegend=False,
                       hovertemplate="%{x}<br>%{y:.6g} ms<extra></extra>",
                       marker=dict(color=colors, opacity=opacity, line=dict(color="black", width=widths)))
    # styles are set on every update too: FigureWidget may not sync what was set before display
    fig.data[1].update(x=labels, y=[r["simulated_ms"] for r in summary], name=SIM_NAME, mode="markers",
                       marker=dict(color=color_for("simulation"), symbol="diamond", size=12,
                                   line=dict(color="white", width=1)))
    top = max(y) if max(y) > 0 else 1.0
    fig.update_yaxes(range=[0, 1.25 * top])


def _status(params: DelayParams, summary: list[dict]) -> str:
    row = next(r for r in summary if r["mode"] == params.mode)
    cf, sim = row["closed_form_ms"], row["simulated_ms"]
    same = "=" if sim == cf else ("&asymp;" if abs(sim - cf) <= 1e-9 * max(cf, 1.0) else "&ne;")
    t_min = min(r["closed_form_ms"] for r in summary)
    best = [f"HTTP/{r['mode']}" for r in summary if r["closed_form_ms"] == t_min]
    fastest = ("all modes take the same time" if len(best) == len(summary)
               else f"fastest here: {' and '.join(best)} ({t_min:.6g} ms)")
    note = ""
    if params.pipelining and params.mode == "1.0":
        note = " (pipelining changes nothing for 1.0: one object per connection)"
    return (f"<b>HTTP/{params.mode} {params.mode_name}</b>: N = {params.n_objects} objects, "
            f"K = {row['n_handshakes']} handshake{'s' if row['n_handshakes'] != 1 else ''}, "
            f"{row['n_packets']} packets ({row['n_ctrl_packets']} control + {row['n_data_packets']} data), "
            f"{row['round_trips']:g} round trips. T = {cf:.6g} ms (closed form) {same} {sim:.6g} ms "
            f"(simulation).{note} Of the three modes, {fastest}.")


def _controls(p: DelayParams) -> dict:
    # redraw on release, not while dragging: every intermediate value queued a full run and redraw in the
    # kernel, so the value the student let go of was drawn last, after the backlog (~330 ms in Chromium)
    def slider(name, label, value, fmt=".3g"):
        return slider_from_range(SLIDER_RANGES, name, label, value, readout_format=fmt)

    return {
        "prop_delay_ms": slider("prop_delay_ms", "d_prop (ms)", p.prop_delay_ms),
        "trans_ms_per_byte": slider("trans_ms_per_byte", "t_B (ms/byte)", p.trans_ms_per_byte),
        "n_parents": slider("n_parents", "parents P", p.n_parents),
        "n_children": slider("n_children", "children C", p.n_children),
        "data_size_bytes": slider("data_size_bytes", "object (bytes)", p.data_size_bytes, ".0f"),
        "mode": dropdown("diagram", MODE_OPTIONS, p.mode),
        "cache": dropdown("client cache", [("off", False), ("on: conditional GETs", True)], p.cache),
        "hit_ratio": slider("hit_ratio", "304 fraction h", p.hit_ratio, ".2f"),
        "pipelining": widgets.Checkbox(value=p.pipelining, description="pipelining (our extension)",
                                       indent=False, layout=widgets.Layout(width="340px")),
    }


def make_panel(params: DelayParams | None = None, gate=None) -> LivePanel:
    """Return the live panel: sliders for the report's world, response time of all modes as bars (closed
    form, simulation as diamonds) and the space-time diagram of the selected mode drawn from the
    simulator's packet trace. The first slider is the propagation delay. ``gate``: predictions that veil the
    panel until committed (``simcore.predict``)."""
    p = params or DelayParams()
    controls = _controls(p)
    bars = _bar_figure(widget=True)
    diagram = space_time_panel_figure(simulate_ideal(p), widget=True)

    def update(values: dict) -> str:
        params_now = panel_params(values)
        summary = mode_summary(params_now)
        _draw_bars(bars, summary, params_now.mode)
        selected = next(r for r in summary if r["mode"] == params_now.mode)["result"]
        update_space_time_panel(diagram, selected)
        return _status(params_now, summary)

    def idle(values: dict) -> dict[str, str]:
        return {} if values["cache"] else {"hit_ratio": "the client cache is off, so no GET is conditional"}

    return LivePanel(controls, update, [bars, diagram], title="The report's world: one page download",
                     idle=idle, gate=gate)


def formulas_markdown(params: DelayParams | None = None) -> str:
    """Return markdown with LaTeX: the closed form of every mode (and 1.0 cached) at ``params``, in ms."""
    p = params or DelayParams()
    blocks = [formula_latex(replace(p, mode=m, cache=False)) for m in MODES]
    blocks.append(formula_latex(replace(p, mode="1.0", cache=True, hit_ratio=1.0)))
    return "\n\n".join(blocks)


def correctness_rows() -> list[dict]:
    """Return the correctness table (section III.1): one record per case, times in ms (see
    :func:`simcore.delay.correctness_table` for the fields)."""
    return correctness_table()


def correctness_text(width: int = 104) -> str:
    """Return the correctness table as fixed-width text (times rounded to 1 ms) and each row's explanation."""
    head = (f"{'case':<22}{'mode':>5}{'hand calc':>11}{'redone':>8}{'measured':>10}"
            f"{'closed form':>13}{'simulation':>12}{'meas.-ours':>12}{'repriced':>10}")
    lines = [head, "-" * len(head)]
    rows = correctness_rows()
    for r in rows:
        lines.append(f"{r['case']:<22}{r['http_version']:>5}{r['report_hand_ms']:>11.0f}"
                     f"{r['report_hand_recomputed_ms']:>8.0f}{r['report_measured_ms']:>10.0f}"
                     f"{r['closed_form_ms']:>13.0f}{r['simulated_ms']:>12.0f}{r['measured_minus_ours_ms']:>+12.0f}"
                     f"{r['adjusted_model_ms']:>10.0f}")
    lines.append("(all in ms. hand calc: the report's, as printed; redone: its packet counts x 266/738 ms; "
                 "repriced: ours")
    lines.append(" with the packet sizes and connection reuse the report's Appendix-2 data imply)")
    equal = all(r["closed_form_ms"] == r["simulated_ms"] for r in rows)
    lines.append(f"closed form == simulation in every case: {equal}")
    for r in rows:
        lines.append("")
        lines.extend(textwrap.wrap(f"{r['case']}: {r['explanation']}", width=width))
    return "\n".join(lines)


def sweep_fits_text() -> str:
    """Return what the report's Appendix-2 numbers reveal, as text: packets and bytes per run, sizes."""
    fits = {(f["sweep"], f["http_version"], f["cache"]): f for f in report_sweep_fits()}
    lines = ["propagation sweep, per run: slope = packets that paid propagation (ours for P=2, C=0 in "
             "brackets)"]
    base = DelayParams(n_parents=2, n_children=0)
    for mode in MODES:
        ours = packet_counts(replace(base, mode=mode))["n_packets"]
        warm = (packet_counts(replace(base, mode=mode, warm_connection=True))["n_packets"] if mode == "1.1"
                else None)
        extra = f", {warm} if the connection stayed open" if warm is not None else ""
        lines.append(f"  HTTP/{mode}: {fits[('propagation', mode, False)]['slope']:5.2f} packets per run "
                     f"(ours: {ours}{extra})")
    lines.append("transmission sweep, per run: slope = bytes transmitted per run")
    for mode, cache in (("1.0", False), ("1.0", True), ("1.1", False), ("1.2", False)):
        f = fits[("transmission", mode, cache)]
        lines.append(f"  HTTP/{mode}{' cached' if cache else ''}: {f['slope']:6.1f} bytes per run")
    s = inferred_sizes()
    lines.append("sizes consistent with these slopes (our inference): "
                 f"SYN + ACK {s['syn_plus_ack_bytes']:.1f} bytes, GET + 200 "
                 f"{s['get_plus_data_bytes']:.0f} bytes, conditional GET + 304 "
                 f"{s['cond_get_plus_304_bytes']:.0f} bytes,")
    lines.append(f"  Close-after-this header {s['mux_header_bytes']:.0f} bytes per GET, "
                 f"processing {s['overhead_ms_per_packet']:.1f} ms per packet")
    return "\n".join(lines)


def _pct(x: float) -> float:
    return round(float(x), 1) + 0.0  # + 0.0 turns -0.0 into 0.0


def sweep_agreement_rows() -> list[dict]:
    """Return, per Appendix-2 series of the report, our relative error against its per-run times (%, 0.1).

    Fields: ``sweep``, ``http_version``, ``cache``, ``stated_min_pct`` / ``stated_max_pct`` (closed form
    with the report's stated sizes, runs 2..10), ``calibrated_min_pct`` / ``calibrated_max_pct`` (closed
    form calibrated to the sizes the transmission sweep implies, runs 2..10) and ``calibrated_run1_pct``.
    """
    out = []
    for sweep in ("transmission", "propagation", "objects"):
        recs = appendix2_sweep(sweep, simulate=False)
        keys = sorted({(r["http_version"], r["cache"]) for r in recs if r["source"] == "report (per run)"})
        for mode, cache in keys:
            def pick(src, mode=mode, cache=cache, recs=recs):
                return np.array([r["response_time_ms"] for r in recs
                                 if r["http_version"] == mode and r["cache"] == cache and r["source"] == src])
            rep = pick("report (per run)")
            stated = 100.0 * (pick("closed form") - rep) / rep
            cal = 100.0 * (pick("calibrated closed form") - rep) / rep
            out.append({"sweep": sweep, "http_version": mode, "cache": cache,
                        "stated_min_pct": _pct(stated[1:].min()), "stated_max_pct": _pct(stated[1:].max()),
                        "calibrated_min_pct": _pct(cal[1:].min()), "calibrated_max_pct": _pct(cal[1:].max()),
                        "calibrated_run1_pct": _pct(cal[0])})
    return out


def sweep_agreement_text() -> str:
    """Return :func:`sweep_agreement_rows` as fixed-width text (percent, rounded to 0.1)."""
    lines = [f"{'sweep':<13}{'series':<16}{'stated sizes, runs 2-10':>26}{'calibrated, runs 2-10':>24}"
             f"{'calibrated, run 1':>19}"]
    for r in sweep_agreement_rows():
        series = f"HTTP/{r['http_version']}{' cached' if r['cache'] else ''}"
        lines.append(f"{r['sweep']:<13}{series:<16}"
                     f"{r['stated_min_pct']:>+12.1f}% .. {r['stated_max_pct']:>+5.1f}%"
                     f"{r['calibrated_min_pct']:>+10.1f}% .. {r['calibrated_max_pct']:>+5.1f}%"
                     f"{r['calibrated_run1_pct']:>+18.1f}%")
    return "\n".join(lines)


def sweep_figures(widget: bool = False) -> dict[str, go.Figure]:
    """Return the three Appendix-2 sweeps by name (transmission, propagation, objects), report points on."""
    return {s: sweep_figure(s, widget=widget) for s in ("transmission", "propagation", "objects")}


def case_space_time(case: str = "non-persistent") -> go.Figure:
    """Return the annotated space-time diagram of one correctness case of the report (times in ms)."""
    cases = {c["case"]: c for c in load_correctness()}
    if case not in cases:
        raise ValueError(f"case={case!r} is not allowed: must be one of {sorted(cases)}")
    res = simulate_ideal(correctness_params(cases[case]))
    fig = space_time_panel_figure(res)
    fig.layout.title.text = f"Report case '{case}' (III.1): {fig.layout.title.text}"
    return fig


@register_figures("delay")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: the three Appendix-2 sweeps with the report's points, the
    space-time diagram of the report's HTTP/1.0 correctness case, and Part 2's real-TCP figures."""
    from simcore.chapters import delay_tcp

    out = {f"sweep_{name}": fig for name, fig in sweep_figures().items()}
    out["space_time_report_case_http10"] = case_space_time("non-persistent")
    out.update(delay_tcp.figures())
    return out


def warm() -> None:
    """Run the chapter's numba kernel once on a tiny page (stop-and-wait and pipelined)."""
    simulate_ideal(DelayParams(n_parents=1, n_children=1))
    simulate_ideal(DelayParams(n_parents=1, n_children=1, pipelining=True))
