"""Chapter 1, admission control for busy file servers (Holmes à Court 1997): what the notebook calls.

The thesis ran 11 scenarios (HTTP, FTP, Reserve, Ticket with 30, 33 or 36 sockets, figure 6) at three
server loads (100 %, 75 %, 50 % of the required bandwidth) in two experiments (figures 7-9 and 17-19),
each compared with 'HTTP' on 30 sockets at the same load on the same clients. The grid's sweep and the
tables beside the thesis's numbers are in ``admission_tables`` (as text: ``admission_text``), the live panel
in ``admission_panel``, its predictions in ``admission_predict``, the chronology chart in
``admission_chronology`` (all re-exported here). This module adds the Erlang-B / ciw cross-check, the static
figures and the warmer.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import plotly.graph_objects as go
from plotly.subplots import make_subplots

from simcore import theory
from simcore.admission import LOADS, POLICIES, AdmissionParams, Workload, simulate_admission
from simcore.chapters.admission_chronology import chronology_figure
from simcore.chapters.admission_panel import PanelSetting, make_panel
from simcore.chapters.admission_predict import bound_prediction, panel_predictions
from simcore.chapters.admission_tables import (
    BAR_FIGURES,
    LOAD_LABELS,
    TABLE_FIGURE,
    bound_table,
    findings,
    relative_times,
    reproduction_table,
    run_thesis_sweep,
    scenario_record,
    sweep_grid,
    thesis_share_check,
)
from simcore.chapters.admission_text import (
    format_bounds,
    format_findings,
    format_headline,
    format_relative_times,
    format_reproduction,
)
from simcore.figures import register_figures
from simcore.plotting import color_for
from simcore.queueing import QueueParams, draw_workload
from simcore.stats import batch_means_ci

__all__ = [
    "LOAD_LABELS",
    "TABLE_FIGURE",
    "BAR_FIGURES",
    "PanelSetting",
    "sweep_grid",
    "scenario_record",
    "run_thesis_sweep",
    "reproduction_table",
    "format_reproduction",
    "format_headline",
    "bound_table",
    "format_bounds",
    "relative_times",
    "format_relative_times",
    "findings",
    "thesis_share_check",
    "format_findings",
    "erlang_cross_check",
    "format_erlang_check",
    "chronology_figure",
    "thesis_chronology",
    "table_bar_figure",
    "bound_figure",
    "make_panel",
    "panel_predictions",
    "bound_prediction",
    "figures",
    "warm",
]


def erlang_cross_check(
    seed: int = 3,
    n_clients: int = 10_000,
    sockets: int = 10,
    offered_erlangs: float = 7.0,
    warmup_clients: int = 500,
) -> dict[str, float]:
    """Return first-attempt refusal rates (fractions) of 'HTTP' as a loss system, three ways, same draws.

    Clients arrive as a Poisson stream (1 per s), want one file each whose transfer takes an exponential
    time of mean ``offered_erlangs`` s (the server's bandwidth never binds), bind_s = 0, and give up when
    refused (``max_attempts=1``): sockets are servers, refused clients are lost, so the refusal rate is
    Erlang B(sockets, offered). ciw replays the same arrivals and holding times with no waiting room.
    """
    qp = QueueParams(
        arrival_rate_per_s=1.0,
        mean_service_s=offered_erlangs,
        servers=sockets,
        buffer_size=0,
        n_customers=n_clients,
    )
    arrival_s, hold_s = draw_workload(qp, seed)
    rate_Bps = 10_000.0
    wl = Workload(
        arrival_s,
        np.full(n_clients, rate_Bps),
        np.arange(n_clients + 1, dtype=np.int64),
        hold_s * rate_Bps,
        1,
    )
    p = AdmissionParams(policy="HTTP", sockets=sockets, max_attempts=1, bind_s=0.0)
    r = simulate_admission(p, seed, workload=wl, capacity_Bps=1e12)
    ours = r.gave_up.astype(bool)
    from simcore.queueing.ciw_oracle import ciw_replay  # ciw (and networkx) only here: ~0.6 s of import

    ciw = ciw_replay(qp, seed).blocked
    mean, half = batch_means_ci(ours[warmup_clients:].astype(float), 20)
    return {
        "erlang_b": theory.erlang_b(sockets, offered_erlangs),
        "simcore": mean,
        "simcore_ci95": half,
        "ciw": float(ciw[warmup_clients:].mean()),
        "same_fate_fraction": float(np.mean(ours == ciw)),
        "n_clients": n_clients,
        "sockets": sockets,
        "offered_erlangs": offered_erlangs,
    }


def format_erlang_check(d: dict[str, float]) -> str:
    """Return the Erlang-B cross-check of ``erlang_cross_check`` as text (refusal rates in %, rounded)."""
    return "\n".join(
        [
            f"{d['n_clients']} Poisson clients, {d['sockets']} sockets, offered load "
            f"{d['offered_erlangs']:.1f} erlangs, refused clients give up",
            f"first-attempt refusal rate: Erlang B {100 * d['erlang_b']:.2f} %, "
            f"simcore {100 * d['simcore']:.2f} +/- {100 * d['simcore_ci95']:.2f} % (95% CI), "
            f"ciw {100 * d['ciw']:.2f} %",
            f"clients with the same fate in simcore and ciw: {100 * d['same_fate_fraction']:.2f} %",
        ]
    )


def _bars(
    table: list[dict], experiment: int, metric: str, thesis_key: str, title: str, figure: int
) -> go.Figure:
    fig = make_subplots(
        rows=3,
        cols=1,
        shared_xaxes=True,
        subplot_titles=[LOAD_LABELS[k] for k in LOADS],
        vertical_spacing=0.08,
    )
    for i, load in enumerate(LOADS, start=1):
        rows = [
            r
            for r in table
            if r["experiment"] == experiment
            and r["load"] == load
            and not (r["policy"] == "HTTP" and r["extra_sockets"] == 0)
        ]
        x = [r["scenario"] for r in rows]
        fig.add_bar(
            x=x,
            y=[r[thesis_key] for r in rows],
            name=f"thesis (figure {figure})",
            marker_color=color_for("paper"),
            showlegend=i == 1,
            row=i,
            col=1,
        )
        fig.add_bar(
            x=x,
            y=[r[metric] for r in rows],
            name=f"simcore, mean of {rows[0]['n_seeds']} seeds (sd)",
            marker_color=color_for("simcore"),
            showlegend=i == 1,
            row=i,
            col=1,
            error_y=dict(type="data", array=[r[f"{metric}_sd"] for r in rows]),
        )
        fig.update_yaxes(title_text="%", row=i, col=1)
    fig.update_layout(
        template="plotly_white",
        title=title,
        height=800,
        barmode="group",
        legend=dict(orientation="h", yanchor="bottom", y=1.04, x=0),
        margin=dict(t=110),
    )
    return fig


def _bound_figure(rel: list[dict]) -> go.Figure:
    fig = make_subplots(rows=1, cols=3, shared_yaxes=True, subplot_titles=[LOAD_LABELS[k] for k in LOADS])
    for i, load in enumerate(LOADS, start=1):
        rows = [r for r in rel if r["load"] == load]
        x = [r["scenario"] for r in rows]
        fig.add_bar(
            x=x,
            y=[r["thesis_pct"] for r in rows],
            name="thesis (fig. 20)",
            showlegend=i == 1,
            marker_color=color_for("paper"),
            row=1,
            col=i,
        )
        fig.add_bar(
            x=x,
            y=[r["ours_pct"] for r in rows],
            name="simcore (10 seeds)",
            showlegend=i == 1,
            marker_color=color_for("simcore"),
            row=1,
            col=i,
        )
        fig.add_scatter(
            x=x,
            y=[r["ideal_pct"] for r in rows],
            mode="lines",
            name="thesis's 'ideal'",
            line=dict(color=color_for("closed form"), dash="dot"),
            showlegend=i == 1,
            row=1,
            col=i,
        )
        fig.add_scatter(
            x=x,
            y=[r["bound_pct"] for r in rows],
            mode="lines",
            name="hard lower bound",
            line=dict(color=color_for("bound"), dash="dash", width=3),
            showlegend=i == 1,
            row=1,
            col=i,
        )
    # log axis labelled at decades only (the thesis's 1,842 % beside ideals of 100-200 %), minor ticks between
    fig.update_yaxes(type="log", range=[np.log10(40), np.log10(2500)], dtick=1, exponentformat="none",
                     separatethousands=True, minor=dict(ticks="outside", ticklen=4, showgrid=True))
    fig.update_yaxes(title_text="% of HTTP-30 at sufficient load", row=1, col=1)
    fig.update_layout(
        template="plotly_white",
        barmode="group",
        height=500,
        title="Experiment 2: session times relative to the control at sufficient load (log scale)",
        legend=dict(orientation="h", yanchor="bottom", y=1.08, x=0),
        margin=dict(t=110),
    )
    return fig


def table_bar_figure(table: list[dict], experiment: int, measure: str) -> go.Figure:
    """Return the thesis's bar chart (figures 14-15, 25-26) of ``measure`` ('improvement' or 'net_faster',
    in %) for ``experiment``, one panel per load: the thesis's bars beside ours (mean and sd over seeds)."""
    f_imp, f_net = BAR_FIGURES[experiment]
    if measure == "improvement":
        return _bars(
            table,
            experiment,
            "time_improvement_pct",
            "thesis_time_improvement_pct",
            f"Experiment {experiment}: mean session time improvement over HTTP-30, %",
            f_imp,
        )
    if measure == "net_faster":
        return _bars(
            table,
            experiment,
            "net_faster_pct",
            "thesis_net_faster_pct",
            f"Experiment {experiment}: net share of clients significantly faster than HTTP-30, % of clients",
            f_net,
        )
    raise ValueError(f"measure={measure!r} is not allowed: must be one of ['improvement', 'net_faster']")


def bound_figure(sweep) -> go.Figure:
    """Return figure 20 (experiment 2, % of HTTP-30 at sufficient load, log scale): the thesis's bars, ours,
    its 'ideal' and our hard lower bound."""
    return _bound_figure(relative_times(sweep))


def thesis_chronology(policy: str, experiment: int = 2, seed: int = 0) -> go.Figure:
    """Return the chronology chart of ``policy`` at heavy overload with 36 sockets, as in thesis figures
    10-13 (experiment 1) and 21-24 (experiment 2)."""
    p = AdmissionParams(
        experiment=experiment, bandwidth_fraction=0.5, policy=policy, extra_sockets=6, record_chronology=True
    )
    number = (10 if experiment == 1 else 21) + POLICIES.index(policy)
    return chronology_figure(
        simulate_admission(p, seed),
        f"Experiment {experiment}, heavy overload, {policy} with 36 sockets (cf. thesis figure {number}), "
        f"seed {seed}",
    )


@register_figures("admission")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: improvement and net-faster bars vs the thesis for both
    experiments (figures 14-15, 25-26), one chronology chart (figure 24) and bound vs 'ideal' (figure 20)."""
    with ThreadPoolExecutor(max_workers=1) as pool:
        sweep = run_thesis_sweep(range(10), executor=pool, progress=False)
    table = reproduction_table(sweep)
    out = {}
    for exp in (1, 2):
        out[f"exp{exp}_time_improvement"] = table_bar_figure(table, exp, "improvement")
        out[f"exp{exp}_net_faster"] = table_bar_figure(table, exp, "net_faster")
    out["chronology_exp2_heavy_ticket"] = thesis_chronology("Ticket", 2)
    out["bound_vs_ideal"] = bound_figure(sweep)
    return out


def warm() -> None:
    """Run every admission kernel once on a tiny input (each policy, each sharing rule, with chronology)."""
    for policy in POLICIES:
        simulate_admission(
            AdmissionParams(n_clients=6, policy=policy, extra_sockets=1, record_chronology=True), 0
        )
    for sharing in ("equal", "per-socket"):
        simulate_admission(AdmissionParams(n_clients=6, sharing=sharing), 0)
