"""Chapter 1's live panel: all four admission policies and the HTTP-30 control re-run on every slider move.

Top figure: mean session time per policy (connected part in the policy's colour, waiting part on top),
the hard lower bound on the mean session time, and the thesis's own number where the sliders sit on one
of its scenarios. Bottom figure: the chronology chart of the selected policy (thesis figures 10-13,
21-24). A run takes a few ms, so five runs and both redraws fit well under a second.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass, fields

import numpy as np

from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.admission import (
    CLIENTS_PER_EXPERIMENT,
    LOADS,
    POLICIES,
    AdmissionParams,
    AdmissionResult,
    compare_to_control,
    simulate_admission,
    thesis_table_records,
)
from simcore.chapters.admission_chronology import draw_chronology, empty_chronology_figure
from simcore.chapters.admission_tables import TABLE_FIGURE
from simcore.plotting import LivePanel, color_for, dropdown, float_slider, int_slider, new_figure, same_value
from simcore.rng import check_seed

__all__ = ["PanelSetting", "EXPERIMENTS", "run_setting", "make_panel", "BAR_NAMES", "PANEL_MAX_EVENTS"]

EXPERIMENTS = (("Exp. 2: mostly small jobs", 2), ("Exp. 1: uniform file sizes", 1))
SHARING = ("max-min", "equal", "per-socket")
# The catalog's files are 1, 10, 100 and 1024 KB (FILE_CATALOG_KB), and a file is small if strictly below
# the threshold: only these four thresholds differ (a slider over 1-200 KB did nothing in most positions).
SMALL_FILE_OPTIONS = (("1 KB: no file is small", 1.0), ("5 KB: the 1 KB files", 5.0),
                      ("20 KB: 1 and 10 KB files (thesis)", 20.0),
                      ("200 KB: 1, 10, 100 KB (exp. 1 only has 100 KB)", 200.0))
# A run stops (and the panel says why) after this many events: ~0.3-0.5 s at 2-3 million events a second.
# The sliders' busiest legal settings take ~0.4 million (800 clients at 0.3 x required, retrying every
# second); a setting that never ends (Ticket whose tickets expire before their owners come back) stops here.
PANEL_MAX_EVENTS = 1_000_000
BAR_NAMES = (
    "connected (mean per client)",
    "waiting (mean per client)",
    "hard lower bound on the mean",
    "thesis's number",
    "thesis's number, above the axis (value written)",
)
#: the bar axis reaches this far above the highest of our bars and the bound; a thesis number more than
#: THESIS_CLIP times that is drawn at the top edge with its value written (the thesis's heavy-overload
#: sessions, up to 2,184 s, would otherwise squeeze bars of 150-350 s into the bottom quarter)
BAR_HEADROOM = 1.15
THESIS_CLIP = 2.0


@dataclass(frozen=True)
class PanelSetting:
    """The panel's sliders, validated with the sliders' ranges (AdmissionParams accepts all of them).

    bandwidth_fraction in [0.3, 1.5] (x required); experiment 1 or 2; extra_sockets in [0, 12];
    policy (the one drawn in the chronology); clients_pct in [10, 200] (% of the thesis's 200 / 400);
    retry_busy_s in [1, 60]; retry_later_s in [1, 120]; small_file_kb in [1, 200]; ready_list_size in
    [1, 40] (refill threshold = half of it, rounded up); ticket_ttl_s in [5, 600]; sharing; seed in [0, 99].
    """

    bandwidth_fraction: float = 0.5
    experiment: int = 2
    extra_sockets: int = 6
    policy: str = "HTTP"
    clients_pct: int = 100
    retry_busy_s: float = 15.0
    retry_later_s: float = 30.0
    small_file_kb: float = 20.0
    ready_list_size: int = 10
    ticket_ttl_s: float = 120.0
    sharing: str = "max-min"
    seed: int = 0

    def __post_init__(self):
        store_python_numbers(self)
        check_real("bandwidth_fraction", self.bandwidth_fraction, 0.3, 1.5)
        check_choice("experiment", self.experiment, (1, 2))
        check_int("extra_sockets", self.extra_sockets, 0, 12)
        check_choice("policy", self.policy, POLICIES)
        check_int("clients_pct", self.clients_pct, 10, 200)
        check_real("retry_busy_s", self.retry_busy_s, 1.0, 60.0)
        check_real("retry_later_s", self.retry_later_s, 1.0, 120.0)
        check_real("small_file_kb", self.small_file_kb, 1.0, 200.0)
        check_int("ready_list_size", self.ready_list_size, 1, 40)
        check_real("ticket_ttl_s", self.ticket_ttl_s, 5.0, 600.0)
        check_choice("sharing", self.sharing, SHARING)
        check_seed(self.seed)

    def params(self, policy: str, extra_sockets: int, record: bool = False) -> AdmissionParams:
        """Return the AdmissionParams of ``policy`` with ``extra_sockets`` under this setting. Knobs the
        policy never reads stay at their defaults (the Ticket knobs except for Ticket, 'retry after later'
        for HTTP and FTP, which never say 'come back later'), so that a run the panel made already is
        recognised as the same run (tests check that these knobs change nothing for those policies)."""
        ticket = policy == "Ticket"
        later = policy in ("Reserve", "Ticket")
        d = PanelSetting()
        ready = self.ready_list_size if ticket else d.ready_list_size
        return AdmissionParams(
            experiment=self.experiment,
            bandwidth_fraction=self.bandwidth_fraction,
            policy=policy,
            extra_sockets=extra_sockets,
            n_clients=self.n_clients,
            retry_busy_s=self.retry_busy_s,
            retry_later_s=self.retry_later_s if later else d.retry_later_s,
            small_file_kb=self.small_file_kb,
            ready_list_size=ready,
            ready_threshold=math.ceil(ready / 2),
            ticket_ttl_s=self.ticket_ttl_s if ticket else d.ticket_ttl_s,
            sharing=self.sharing,
            record_chronology=record,
            max_events=PANEL_MAX_EVENTS,
        )

    @property
    def n_clients(self) -> int:
        """Return the number of clients (clients_pct of the experiment's 200 or 400, at least 1)."""
        return max(1, round(CLIENTS_PER_EXPERIMENT[self.experiment] * self.clients_pct / 100))

    def thesis_load(self) -> str | None:
        """Return the thesis's load name if this setting is one of its scenarios' settings, else None."""
        # every other slider at the thesis's value; floats with a tolerance (a slider moved away and back
        # can read 19.999999999999996 for 20)
        varied = {"bandwidth_fraction", "experiment", "extra_sockets", "policy", "seed"}
        if any(not same_value(getattr(self, f.name), f.default) for f in fields(self) if f.name not in varied):
            return None
        if self.extra_sockets not in (0, 3, 6):
            return None
        return next((k for k, v in LOADS.items() if math.isclose(v, self.bandwidth_fraction)), None)


# The panel's last runs by (parameters, seed): a slider moves one parameter, and most parameters matter to
# only some of the five runs (the control ignores extra sockets and the policy menu; the Ticket knobs
# matter to Ticket alone), so a move re-runs only the runs it changes. Results are never modified. The
# cache holds at most 32 runs and RUN_CACHE_BYTES of their arrays (a run with the chronology at the
# sliders' busiest setting keeps 18 MB of logs: 32 of them were 0.6 GB), least recently used out first.
RUN_CACHE_BYTES = 128 << 20
_RUNS: OrderedDict = OrderedDict()


def _nbytes(r: AdmissionResult) -> int:
    return sum(v.nbytes for v in vars(r).values() if isinstance(v, np.ndarray))


def _simulate(params: AdmissionParams, seed: int) -> AdmissionResult:
    key = (params, seed)
    if key in _RUNS:
        _RUNS.move_to_end(key)
        return _RUNS[key][0]
    r = simulate_admission(params, seed)
    _RUNS[key] = (r, _nbytes(r))
    while len(_RUNS) > 32 or (len(_RUNS) > 1 and sum(n for _, n in _RUNS.values()) > RUN_CACHE_BYTES):
        _RUNS.popitem(last=False)
    return r


def run_setting(s: PanelSetting) -> dict:
    """Return the runs of one panel setting: 'control' (HTTP, 30 sockets) and one result per policy with
    the setting's extra sockets (the selected policy's with chronology), plus comparisons to control.
    Runs the panel made already (same parameters and seed) are reused, not re-run."""
    control = _simulate(s.params("HTTP", 0), s.seed)
    runs = {pol: _simulate(s.params(pol, s.extra_sockets, record=pol == s.policy), s.seed) for pol in POLICIES}
    return {
        "control": control,
        "runs": runs,
        "compare": {pol: compare_to_control(r, control) for pol, r in runs.items()},
    }


def _bar_labels(s: PanelSetting) -> list[str]:
    pct = round(100 * s.extra_sockets / 30)
    return ["HTTP-30 (control)"] + [f"{pol} +{pct}%" for pol in POLICIES]


def _thesis_values(s: PanelSetting) -> tuple[list, str]:
    load = s.thesis_load()
    if load is None:
        return [None] * 5, BAR_NAMES[3]
    cells = {
        (t["policy"], t["extra_sockets_pct"]): t["avg_client_time_s"]
        for t in thesis_table_records()
        if t["experiment"] == s.experiment and t["load"] == load
    }
    pct = round(100 * s.extra_sockets / 30)
    vals = [cells[("HTTP", 0)]] + [cells.get((pol, pct)) for pol in POLICIES]
    return vals, f"thesis's number (fig. {TABLE_FIGURE[(s.experiment, load)]})"


def bar_axis(ours: list[float], thesis: list) -> tuple[float, list, list]:
    """Return (top of the y axis in s, thesis values drawn as diamonds, thesis values above the axis).

    The axis shows our bars and the bound (``ours``) with some headroom; thesis numbers (None where the
    thesis has none) join the axis when they are within ``THESIS_CLIP`` times the highest of ours, else
    every one of them above the axis is marked at its top edge instead (a marked break, value written)."""
    high = max(ours)
    shown = [v for v in thesis if v is not None]
    if shown and max(shown) <= THESIS_CLIP * high:
        high = max(high, max(shown))
    top = BAR_HEADROOM * high
    inside = [v if v is not None and v <= top else None for v in thesis]
    above = [v if v is not None and v > top else None for v in thesis]
    return top, inside, above


def _bar_styles() -> list[dict]:
    """Return each bar-figure trace's style, set when the figure is built: connected and waiting in the
    chronology's colours (the policies are named on the axis), the bound grey and dashed, the thesis's
    numbers as diamonds, and those above the axis as a triangle at its top edge with the value written."""
    hover = "%{hovertext}<extra></extra>"
    paper = color_for("paper")
    return [
        dict(marker=dict(color=color_for("connected")), hovertemplate=hover),
        dict(marker=dict(color=color_for("waiting"), line=dict(color="#7f7a00", width=1)), hovertemplate=hover),
        dict(mode="lines", line=dict(color=color_for("bound"), dash="dash", width=3), hoverinfo="skip"),
        dict(mode="markers", marker=dict(color=paper, symbol="diamond", size=13, line_width=1),
             hovertemplate="%{x}: thesis %{y:,.0f} s<extra></extra>"),
        dict(mode="markers+text", marker=dict(color=paper, symbol="triangle-up", size=13, line_width=1),
             textposition="bottom center", textfont=dict(color=paper, size=12), cliponaxis=False,
             hovertemplate="%{x}: thesis %{customdata:,.0f} s, above this axis<extra></extra>"),
    ]


def _draw_bars(fig, s: PanelSetting, out: dict) -> None:
    results: list[AdmissionResult] = [out["control"]] + [out["runs"][p] for p in POLICIES]
    x = _bar_labels(s)
    connected = [float(np.nanmean(r.connected_s)) for r in results]
    waiting = [float(np.nanmean(r.waiting_s)) for r in results]
    hover = [
        f"{lab}: mean session {c + w:.1f} s = {c:.1f} connected + {w:.1f} waiting; "
        f"{r.attempts.mean():.1f} attempts per client"
        for lab, c, w, r in zip(x, connected, waiting, results, strict=True)
    ]
    bound = out["control"].lower_bound_mean_session_s
    thesis, thesis_name = _thesis_values(s)
    totals = [c + w for c, w in zip(connected, waiting, strict=True)]
    top, inside, above = bar_axis([*totals, bound], thesis)
    values = [
        dict(x=x, y=connected, hovertext=hover, name=BAR_NAMES[0]),
        dict(x=x, y=waiting, hovertext=hover, name=BAR_NAMES[1]),
        dict(x=[x[0], x[-1]], y=[bound, bound], name=f"{BAR_NAMES[2]} ({bound:.0f} s)"),
        dict(x=x, y=inside, name=thesis_name),
        dict(x=x, y=[0.97 * top if v is not None else None for v in above], customdata=above,
             text=[f"{v:,.0f} s" if v is not None else "" for v in above],
             name=BAR_NAMES[4], showlegend=any(v is not None for v in above)),
    ]
    for trace, v in zip(fig.data, values, strict=True):  # styles were set at creation
        trace.update(**v)
    fig.update_yaxes(range=[0, top])


def _empty_bars():
    fig = new_figure(widget=True, yaxis_title="mean session time (s)", height=380)
    styles = _bar_styles()
    fig.add_bar(name=BAR_NAMES[0], **styles[0])
    fig.add_bar(name=BAR_NAMES[1], **styles[1])
    for name, style in zip(BAR_NAMES[2:], styles[2:], strict=True):
        fig.add_scatter(name=name, **style)
    fig.update_layout(barmode="stack", legend_traceorder="normal")
    return fig


def _status(s: PanelSetting, out: dict) -> str:
    c = out["compare"][s.policy]
    r = out["runs"][s.policy]
    means = ", ".join(f"{p} {out['compare'][p].mean_session_s:.0f} s" for p in POLICIES)
    note = (
        " (no reserved sockets: Reserve is plain HTTP)"
        if s.extra_sockets == 0 and s.policy == "Reserve"
        else ""
    )
    ticket = out["runs"]["Ticket"]
    expired = (f" Ticket: {ticket.tickets_expired} of {ticket.tickets_issued} tickets expired"
               + (" (none: a longer time-to-live changes nothing)." if ticket.tickets_expired == 0 else "."))
    return (
        f"{s.n_clients} clients, server {r.capacity_Bps / 1024:.0f} KB/s = {s.bandwidth_fraction:.2f} x "
        f"required. Mean session: control {c.control_mean_session_s:.0f} s; {means}; bound "
        f"{r.lower_bound_mean_session_s:.0f} s.<br><b>{s.policy}</b>{note}: "
        f"{100 * c.time_improvement:+.0f} % "
        f"vs control, net {100 * c.net_faster_fraction:+.0f} % of clients significantly faster, "
        f"{r.attempts.mean():.1f} attempts per client.{expired}"
    )


def make_panel(setting: PanelSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live panel: load, experiment, sockets, policy, clients, retry delays, small-file
    threshold, ready list, ticket TTL, sharing rule and seed; bars for every policy + the chronology.
    gate: predictions (``admission_predict.panel_predictions()``) that hold the plots and the status line
    back until each is committed."""
    s = setting or PanelSetting()
    controls = {
        "bandwidth_fraction": float_slider(
            "server bandwidth (x required)", s.bandwidth_fraction, 0.3, 1.5, 0.05
        ),
        "experiment": dropdown("workload", EXPERIMENTS, s.experiment),
        "extra_sockets": int_slider("extra sockets (3 = +10 %)", s.extra_sockets, 0, 12),
        "policy": dropdown("chronology of", POLICIES, s.policy),
        "clients_pct": int_slider("clients (% of thesis's)", s.clients_pct, 10, 200, 10),
        "retry_busy_s": float_slider("retry after 'busy' (s)", s.retry_busy_s, 1, 60, 1),
        "retry_later_s": float_slider("retry after 'later' (s)", s.retry_later_s, 1, 120, 1),
        "small_file_kb": dropdown("small file below", SMALL_FILE_OPTIONS,
                                  min(SMALL_FILE_OPTIONS, key=lambda o: abs(o[1] - s.small_file_kb))[1]),
        "ready_list_size": int_slider("Ticket ready list", s.ready_list_size, 1, 40),
        # a ticket expires only if its owner stays away longer than this (at the defaults: never above
        # about 40 s; the status line counts expiries), so the track stops at 120 s, the longest 'later'
        # retry (it ran to 600 s and did nothing in most positions)
        "ticket_ttl_s": float_slider("ticket time-to-live (s)", min(s.ticket_ttl_s, 120.0), 5, 120, 5),
        "sharing": dropdown("bandwidth sharing", SHARING, s.sharing),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    bars = _empty_bars()
    chron = empty_chronology_figure(widget=True, height=650)

    def update(values: dict) -> str:
        now = PanelSetting(**values)
        out = run_setting(now)
        _draw_bars(bars, now, out)
        draw_chronology(chron, out["runs"][now.policy])
        return _status(now, out)

    return LivePanel(
        controls, update, [bars, chron], title="Admission control: every policy, live", columns=3, gate=gate
    )
