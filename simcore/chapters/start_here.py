"""Chapter 0, "Start here": queueing delay against traffic intensity at one router (the La/R curve).

A router's output port sends packets of L bits on ``servers`` links of R bit/s each; packets arrive as a
Poisson stream of ``a`` packets/s. The traffic intensity is La/(cR). simcore simulates the FIFO queue and
plots its mean queueing delay against the closed form (M/M/1 or M/M/c via Erlang C for exponential
service; M/D/1 by Pollaczek-Khinchine, M/D/c by the Allen-Cunneen approximation for deterministic
service) and against ciw, an independent simulator (stored runs, ``data/start_here_ciw.csv``).

Every simulated mean comes with a 95 % confidence interval that covers: independent replications, each
started empty with its warm-up dropped and run for many times the queue's memory
(``simcore.queueing.replications``; ``benchmarks/bench_coverage.py`` measures the coverage).
"""

from __future__ import annotations

import csv
import functools
import math
from dataclasses import dataclass
from pathlib import Path

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go

from simcore import theory
from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.figures import register_figures
from simcore.plotting import LivePanel, color_for, dropdown, float_slider, int_slider, new_figure
from simcore.predict import ChoicePrediction, NumberPrediction, gated_output
from simcore.queueing import QueueParams, simulate_queue
from simcore.queueing.replications import MAX_TOTAL_CUSTOMERS, WaitEstimate, estimate_mean_wait, plan_runs
from simcore.rng import check_seed

__all__ = ["RouterSetting", "delay_curve", "operating_point", "ciw_reference", "make_panel", "predictions",
           "pooling_prediction", "key_numbers", "key_numbers_table", "gated_key_numbers", "cross_checks", "figures",
           "PACKETS_SHOWN"]

PACKET_SIZE_BYTES = 1500
LINK_RATE_BPS = 10e6
MEAN_SERVICE_S = PACKET_SIZE_BYTES * 8 / LINK_RATE_BPS  # L/R = 1.2 ms
RHO_GRID = np.round(np.arange(0.05, 0.951, 0.05), 2)
SERVICES = ("exponential", "deterministic")
CIW_CSV = Path(__file__).resolve().parents[2] / "data" / "start_here_ciw.csv"
# Trace names are set on every redraw too: plotly's FigureWidget may not sync names set before display.
SIM_NAME = "simcore, 10 runs a load (95% CI)"
POINT_NAME = "simcore at your arrival rate (95% CI)"
CIW_NAME = "ciw, stored runs (95% CI)"
# What a plan may cost: the dot at your arrival rate up to the whole budget (MAX_TOTAL_CUSTOMERS, 2 million
# packets); a curve point below La/(cR) = 0.9 up to CURVE_LIGHT_PACKETS (there only rare waits make a plan long:
# many links at light load, where the delay is nearly 0). A plan that needs more runs CAPPED_PACKETS packets
# and is drawn without an interval. A whole curve then costs about 2.4 million packets (~0.05 s).
CURVE_LIGHT_PACKETS = 300_000
CAPPED_PACKETS = 20_000
UNSTABLE_PACKETS = 5_000  # at La/(cR) >= 1 there is no mean to estimate: one run shows the queue growing
# The packets behind an interval on one 10 Mbit/s link with exponential transmission times (the text quotes them)
PACKETS_SHOWN = {rho: plan_runs(QueueParams(arrival_rate_per_s=rho, mean_service_s=1.0)).total_customers
                 for rho in (0.5, 0.95)}


@dataclass(frozen=True)
class RouterSetting:
    """One router setting as the sliders give it.

    arrival_rate_pps: packets per second arriving, in (0, 20000].
    service: 'exponential' or 'deterministic' transmission times with mean L/R.
    servers: parallel output links c, in [1, 8].
    seed: int >= 0 (replication r of seed s uses random streams (s, r, 0) and (s, r, 1)).
    link_rate_mbps: rate R of each output link, in [0.5, 100] Mbit/s (L/R = 1.2 ms at 10 Mbit/s).
    """

    arrival_rate_pps: float = 600.0
    service: str = "exponential"
    servers: int = 1
    seed: int = 1
    link_rate_mbps: float = LINK_RATE_BPS / 1e6

    def __post_init__(self):
        store_python_numbers(self)
        check_real("arrival_rate_pps", self.arrival_rate_pps, 0.0, 20_000.0, lo_open=True)
        check_choice("service", self.service, SERVICES)
        check_int("servers", self.servers, 1, 8)
        check_seed(self.seed)
        check_real("link_rate_mbps", self.link_rate_mbps, 0.5, 100.0)

    @property
    def mean_service_s(self) -> float:
        """Transmission time L/R of one packet on one link, in seconds."""
        return PACKET_SIZE_BYTES * 8 / (self.link_rate_mbps * 1e6)

    @property
    def intensity(self) -> float:
        """Traffic intensity La/(cR), dimensionless."""
        return self.arrival_rate_pps * self.mean_service_s / self.servers

    def queue_params(self, arrival_rate_pps: float | None = None) -> QueueParams:
        """Return the QueueParams of this setting (optionally at another arrival rate, packets/s)."""
        rate = self.arrival_rate_pps if arrival_rate_pps is None else arrival_rate_pps
        return QueueParams(arrival_rate_per_s=rate, mean_service_s=self.mean_service_s, servers=self.servers,
                           service=self.service)


def _closed_form_s(setting: RouterSetting, rate: float) -> float:
    return theory.mean_wait_s(rate, setting.mean_service_s, setting.servers, setting.service)


def delay_curve(setting: RouterSetting) -> dict[str, np.ndarray]:
    """Return the La/R curve over RHO_GRID: intensity, simulated mean queueing delay and its 95 % half-width
    (NaN where waits are too rare for an interval in the budget), the closed form (ms), and the packets run.
    Replication r of every point uses the same random streams (common random numbers), so the curve is
    smooth and differences between settings are not noise."""
    sim_ms, half_ms, theory_ms, packets = (np.empty(RHO_GRID.size) for _ in range(4))
    for i, rho in enumerate(RHO_GRID):
        rate = rho * setting.servers / setting.mean_service_s
        params = setting.queue_params(rate)
        budget = MAX_TOTAL_CUSTOMERS if rho >= 0.9 else CURVE_LIGHT_PACKETS
        plan = plan_runs(params, max_total_customers=budget, capped_total_customers=CAPPED_PACKETS)
        est = estimate_mean_wait(params, setting.seed, plan)
        sim_ms[i], half_ms[i] = 1e3 * est.mean_wait_s, 1e3 * est.half_width_s
        theory_ms[i] = 1e3 * _closed_form_s(setting, rate)
        packets[i] = est.plan.total_customers
    return {"intensity": RHO_GRID.copy(), "sim_ms": sim_ms, "sim_half_ms": half_ms, "theory_ms": theory_ms,
            "packets": packets}


def operating_point(setting: RouterSetting) -> dict:
    """Return the mean queueing delay at the setting's own arrival rate (ms): simcore's estimate with its
    95 % half-width (NaN without an interval), the closed form (inf at La/(cR) >= 1), the packets simulated,
    and ``no_interval``: why there is no interval ("" if there is one)."""
    stable = setting.intensity < 1.0
    if stable:
        params = setting.queue_params()
        est: WaitEstimate = estimate_mean_wait(params, setting.seed,
                                               plan_runs(params, capped_total_customers=CAPPED_PACKETS))
        sim_ms, half_ms, packets, why = 1e3 * est.mean_wait_s, 1e3 * est.half_width_s, \
            est.plan.total_customers, est.plan.reason
        runs = est.plan.replications
    else:
        p = QueueParams(arrival_rate_per_s=setting.arrival_rate_pps, mean_service_s=setting.mean_service_s,
                        servers=setting.servers, service=setting.service, n_customers=UNSTABLE_PACKETS)
        sim_ms, half_ms, packets, runs = 1e3 * simulate_queue(p, setting.seed).mean_wait_s, float("nan"), \
            UNSTABLE_PACKETS, 1
        why = "the queue never settles, so there is no mean to estimate"
    closed = 1e3 * _closed_form_s(setting, setting.arrival_rate_pps) if stable else float("inf")
    return {"intensity": setting.intensity, "sim_ms": sim_ms, "sim_half_ms": half_ms, "theory_ms": closed,
            "packets": int(packets), "runs": runs, "no_interval": why}


@functools.lru_cache(maxsize=1)
def _ciw_rows() -> tuple[dict, ...]:
    with CIW_CSV.open(newline="") as f:
        return tuple(csv.DictReader(f))


def ciw_reference(service: str, servers: int) -> dict[str, np.ndarray]:
    """Return ciw's stored estimates (data/start_here_ciw.csv) for ``service`` and ``servers``: intensity,
    mean wait and 95 % half-width in transmission times L/R (multiply by L/R for seconds)."""
    check_choice("service", service, SERVICES)
    check_int("servers", servers, 1, 8)
    rows = [r for r in _ciw_rows() if r["service"] == service and int(r["servers"]) == servers]
    return {"intensity": np.array([float(r["intensity"]) for r in rows]),
            "mean": np.array([float(r["mean_wait_service_times"]) for r in rows]),
            "half": np.array([float(r["half_width_service_times"]) for r in rows])}


def _theory_line(setting: RouterSetting) -> tuple[np.ndarray, np.ndarray]:
    rho = np.linspace(0.01, 0.97, 200)
    rates = rho * setting.servers / setting.mean_service_s
    y = [1e3 * theory.mean_wait_s(r, setting.mean_service_s, setting.servers, setting.service) for r in rates]
    return rho, np.asarray(y)


def _theory_name(setting: RouterSetting) -> str:
    kind = "M/M" if setting.service == "exponential" else "M/D"
    if setting.servers == 1:
        law = "" if setting.service == "exponential" else ", Pollaczek-Khinchine"
        return f"closed form ({kind}/1{law})"
    law = "Erlang C" if setting.service == "exponential" else "Allen-Cunneen approx."
    return f"closed form ({kind}/{setting.servers}, {law})"


@functools.lru_cache(maxsize=64)
def _cached_curve(service: str, servers: int, seed: int) -> dict[str, np.ndarray]:
    return delay_curve(RouterSetting(service=service, servers=servers, seed=seed))


def _curve(setting: RouterSetting) -> dict[str, np.ndarray]:
    """Return ``delay_curve(setting)`` from the cached curve at 10 Mbit/s: at a fixed intensity every
    interarrival and transmission time is the same random draw times L/R, so every delay scales with L/R
    (to rounding, ~1e-12; a test checks it against a fresh run)."""
    curve = _cached_curve(setting.service, setting.servers, setting.seed)
    k = setting.mean_service_s / MEAN_SERVICE_S
    return {**curve, "sim_ms": k * curve["sim_ms"], "sim_half_ms": k * curve["sim_half_ms"],
            "theory_ms": k * curve["theory_ms"]}


def _bars(half: np.ndarray) -> dict:
    return dict(type="data", array=np.nan_to_num(half, nan=0.0), visible=True, thickness=1.5, width=4)


def _draw(fig: go.Figure, setting: RouterSetting) -> dict:
    curve = _curve(setting)
    point = operating_point(setting)
    ref = ciw_reference(setting.service, setting.servers)
    lr_ms = 1e3 * setting.mean_service_s
    rho_line, theory_line = _theory_line(setting)
    fig.data[0].update(x=rho_line, y=theory_line, name=_theory_name(setting))
    fig.data[1].update(x=curve["intensity"], y=curve["sim_ms"], name=SIM_NAME, error_y=_bars(curve["sim_half_ms"]))
    # ciw's crosses sit a hair to the right of simcore's dots so both intervals stay visible
    fig.data[2].update(x=ref["intensity"] + 0.012, y=lr_ms * ref["mean"], name=CIW_NAME,
                       error_y=_bars(lr_ms * ref["half"]))
    shown = min(point["intensity"], 1.2)
    fig.data[3].update(x=[shown], y=[point["sim_ms"]], name=POINT_NAME,
                       error_y=_bars(np.array([point["sim_half_ms"]])))
    tops = curve["sim_ms"] + np.nan_to_num(curve["sim_half_ms"])
    top = max(5 * lr_ms, float(np.nanmax(tops)) * 1.05)
    point_top = point["sim_ms"] + (0.0 if math.isnan(point["sim_half_ms"]) else point["sim_half_ms"])
    fig.update_yaxes(range=[0, max(top, min(point_top * 1.05, 4 * top))])
    return point


def _empty_figure(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, xaxis_title="traffic intensity La/(cR)",
                     yaxis_title="mean queueing delay (ms)")
    fig.add_scatter(mode="lines", name="closed form", line=dict(color=color_for("closed form")))
    fig.add_scatter(mode="markers", name=SIM_NAME, marker=dict(color=color_for("simcore"), size=7))
    fig.add_scatter(mode="markers", name=CIW_NAME, marker=dict(color=color_for("ciw"), size=9, symbol="x"))
    fig.add_scatter(mode="markers", name=POINT_NAME,
                    marker=dict(color=color_for("simcore"), size=16, symbol="diamond-open", line_width=3))
    fig.update_xaxes(range=[0, 1.25])
    return fig


def _ms(x: float) -> str:
    return f"{x:.3g}" if x < 100 else f"{x:,.0f}"


def _status(point: dict) -> str:
    if point["intensity"] >= 1.0:
        return (f"<b>La/(cR) = {point['intensity']:.2f} &ge; 1: the queue is unstable.</b> The simulated delay "
                f"({point['sim_ms']:.1f} ms over {point['packets']:,} packets) only reflects how long we ran; "
                "run longer and it grows.")
    head = f"La/(cR) = {point['intensity']:.2f}: simcore {_ms(point['sim_ms'])}"
    if point["no_interval"]:
        sim = (f"{head} ms from {point['packets']:,} packets, without an interval: {point['no_interval']}")
    else:
        sim = (f"{head} &plusmn; {_ms(point['sim_half_ms'])} ms (95% CI: {point['runs']} runs, "
               f"{point['packets']:,} packets)")
    return f"{sim}; closed form {_ms(point['theory_ms'])} ms."


def predictions() -> list[NumberPrediction]:
    """Return the chapter's "predict, then check" questions: the mean queueing delay at La/R = 0.5 and 0.9
    on one 10 Mbit/s link with exponential transmission times, in transmission times L/R. The answers are
    the M/M/1 closed form, rho / (1 - rho); committing one sets the panel to its load."""
    def ask(rho: float) -> NumberPrediction:
        rate = round(rho / MEAN_SERVICE_S, 6)
        setting = {"arrival_rate_pps": rate, "service": "exponential", "servers": 1,
                   "link_rate_mbps": LINK_RATE_BPS / 1e6}
        closed = theory.mean_wait_s(rate, MEAN_SERVICE_S, 1, "exponential") / MEAN_SERVICE_S
        times = "one transmission time" if round(closed, 6) == 1 else f"{closed:.0f} transmission times"
        return NumberPrediction(
            f"At $La/R$ = {rho} ({rate:.0f} packets/s, one link, exponential transmission times), how many "
            "transmission times $L/R$ does a packet wait in the queue on average?",
            answer=lambda _setting: closed, unit=("transmission time", "transmission times"), rel_tol=0.2,
            bounds=(0, 1e6), setting=setting,
            explanation=(f"M/M/1: $W_q = \\dfrac{{\\rho}}{{1-\\rho}}\\,\\dfrac{{L}}{{R}}$, so at $\\rho$ = {rho} "
                         f"a packet waits {times} on average ({closed * MEAN_SERVICE_S * 1e3:.1f} ms). From "
                         "0.5 to 0.9 the load grows by less than a factor of 2 but the wait by 9: it grows as "
                         "$1/(1-\\rho)$, so the last tenth of the link's capacity costs the most."))
    return [ask(0.5), ask(0.9)]


POOLING_CHOICES = (
    "four slow links: a packet waits less, so it is through sooner",
    "one fast link: a packet waits longer in the queue, and is also slower in total",
    "four slow links queue less, but one fast link is faster in total",
    "the same: the capacity 4 x 2.5 = 10 Mbit/s is the same",
)


def pooling_prediction() -> ChoicePrediction:
    """Return Q3 as a prediction: one 10 Mbit/s link against four of 2.5 Mbit/s, 600 packets/s, exponential
    transmission times. The answer and the numbers in its explanation are closed forms (M/M/1, Erlang C)."""
    one = RouterSetting(arrival_rate_pps=600.0, servers=1, link_rate_mbps=10.0)
    four = RouterSetting(arrival_rate_pps=600.0, servers=4, link_rate_mbps=2.5)
    wq1, wq4 = (1e3 * _closed_form_s(x, 600.0) for x in (one, four))
    t1, t4 = wq1 + 1e3 * one.mean_service_s, wq4 + 1e3 * four.mean_service_s
    numbers = (f"Closed forms: one link waits {wq1:.2f} ms and transmits in 1.2 ms, {t1:.1f} ms in all; four "
               f"links wait {wq4:.2f} ms (Erlang C) but transmit in 4.8 ms, {t4:.1f} ms in all.")
    return ChoicePrediction(
        "Same arrivals (600 packets/s), same total capacity: **one link of 10 Mbit/s** or **four links of "
        "2.5 Mbit/s**. Which is true of a packet's time through the router?",
        choices=list(POOLING_CHOICES), answer=POOLING_CHOICES[2],
        feedback={
            POOLING_CHOICES[0]: "It does wait less (it waits only when all four are busy), but each "
                                "transmission takes four times as long, and that outweighs the saving.",
            POOLING_CHOICES[1]: "The intensity per link is the same (0.72), and with four links a packet "
                                "waits only when all four are busy, so the queueing delay is smaller there.",
            POOLING_CHOICES[3]: "Same capacity, but not the same service: one packet cannot use four links at "
                                "once, so it is sent at 2.5 Mbit/s, four times slower.",
        },
        explanation=(f"{numbers} Pooling into one fast server beats several slow ones: the fast link is "
                     "never idle while packets wait, and it sends each packet four times faster. Check it "
                     "on the panel: 1 link at 10 Mbit/s, then 4 links at 2.5 Mbit/s."))


def make_panel(setting: RouterSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live La/R panel: sliders for arrival rate, service distribution, servers, link rate and seed.
    gate: predictions (``predictions()``) that hold the plot and its numbers back until committed."""
    s = setting or RouterSetting()
    controls = {
        "arrival_rate_pps": float_slider("arrival rate a (packets/s)", s.arrival_rate_pps, 50, 6000, 10),
        "service": dropdown("transmission time", SERVICES, s.service),
        "servers": int_slider("output links c", s.servers, 1, 8),
        "link_rate_mbps": float_slider("rate of each link R (Mbit/s)", s.link_rate_mbps, 0.5, 100, 0.5),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    fig = _empty_figure(widget=True)

    def update(values: dict) -> str:
        return _status(_draw(fig, RouterSetting(**values)))

    panel = LivePanel(controls, update, [fig], title="Queueing delay at one router", gate=gate)
    # a long track (596 values) across the whole grid: a layout of its own (the others share the kernel's)
    controls["arrival_rate_pps"].layout = widgets.Layout(width="auto", min_width="0", grid_column="1 / -1")
    return panel


def key_numbers(seed: int = 1) -> list[dict]:
    """Return, for M/M/1 and M/D/1 at intensities 0.5 and 0.9 on one 10 Mbit/s link: the closed form,
    simcore's estimate and ciw's stored one, each mean with its 95 % half-width, in ms."""
    rows = []
    for service in SERVICES:
        ref = ciw_reference(service, 1)
        for rho in (0.5, 0.9):
            setting = RouterSetting(arrival_rate_pps=rho / MEAN_SERVICE_S, service=service, seed=seed)
            est = estimate_mean_wait(setting.queue_params(), seed)
            at = int(np.argmin(np.abs(ref["intensity"] - rho)))
            rows.append({"service": service, "intensity": rho,
                         "closed_form_ms": 1e3 * _closed_form_s(setting, setting.arrival_rate_pps),
                         "simcore_ms": 1e3 * est.mean_wait_s, "simcore_half_ms": 1e3 * est.half_width_s,
                         "ciw_ms": 1e3 * MEAN_SERVICE_S * ref["mean"][at],
                         "ciw_half_ms": 1e3 * MEAN_SERVICE_S * ref["half"][at]})
    return rows


def key_numbers_table(seed: int = 1) -> str:
    """Return ``key_numbers(seed)`` as a printable table, each simulation's interval marked "covers" or
    "misses" the closed form."""
    lines = ["service        La/R  closed form  simcore (95% CI)            ciw (95% CI)"]
    for r in key_numbers(seed):
        cells = []
        for who in ("simcore", "ciw"):
            mean, half = r[f"{who}_ms"], r[f"{who}_half_ms"]
            verdict = "covers" if abs(mean - r["closed_form_ms"]) <= half else "misses"
            cells.append(f"{mean:6.2f} ± {half:4.2f} ms {verdict}")
        lines.append(f"{r['service']:<13}  {r['intensity']:.1f}  {r['closed_form_ms']:8.2f} ms  "
                     f"{cells[0]:<26}  {cells[1]}")
    return "\n".join(lines)


def gated_key_numbers(predictions_: list) -> object:
    """Return the key-numbers table held back until ``predictions_`` are committed (it prints their answers);
    nbval compares its text."""
    return gated_output(lambda: print(key_numbers_table()), *predictions_, check=True)


def cross_checks(seed: int = 7) -> str:
    """Return a printable report: Little's law on an M/M/3 run with a 10-packet buffer, and the largest
    per-packet difference between simcore's and ciw's waits when ciw replays simcore's packets (ms)."""
    params = QueueParams(arrival_rate_per_s=2200.0, mean_service_s=MEAN_SERVICE_S, servers=3,
                         buffer_size=10, n_customers=5000)
    from simcore.queueing.ciw_oracle import ciw_replay  # ciw (with networkx) takes 0.1 s to import: only here

    res = simulate_queue(params, seed)
    replay = ciw_replay(params, seed)
    same_fate = bool(np.array_equal(replay.blocked, res.blocked))
    diff_ms = 1e3 * float(np.nanmax(np.abs(replay.wait_s - res.wait_s)))
    return "\n".join([
        f"M/M/3 with 10 waiting places, {params.n_customers} packets, La/(cR) = {params.utilisation:.2f}",
        f"Little's law: L = {res.time_average_in_system:.4f} packets, "
        f"X*W = {res.throughput_per_s * res.whole_run_mean_sojourn_s:.4f} packets",
        f"dropped at a full buffer: simcore {int(res.blocked.sum())}, ciw {int(replay.blocked.sum())}"
        f" (same packets dropped: {same_fate})",
        f"largest per-packet wait difference simcore vs ciw: {diff_ms:.1e} ms",
    ])


@register_figures("start_here")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: the La/R curve for M/M/1 and for M/D/1."""
    out = {}
    for service in SERVICES:
        fig = _empty_figure(widget=False)
        _draw(fig, RouterSetting(arrival_rate_pps=600.0, service=service))
        # the title on top, the legend under the x axis: a legend above the plot collides with the title
        fig.update_layout(title=f"Queueing delay vs traffic intensity, {service} transmission times, one link",
                          legend=dict(orientation="h", yanchor="top", y=-0.16, x=0), margin=dict(t=60, b=120))
        out[f"delay_vs_intensity_{service}"] = fig
    return out
