"""Chapter 0, "Start here": queueing delay against traffic intensity at one router (the La/R curve).

A router's output port sends packets of L bits on ``servers`` links of R bit/s each; packets arrive as a
Poisson stream of ``a`` packets/s. The traffic intensity is La/(cR). simcore simulates the FIFO queue and
plots its mean queueing delay against the closed form (M/M/1 or M/M/c via Erlang C for exponential
service; M/D/1 by Pollaczek-Khinchine, M/D/c by the Allen-Cunneen approximation for deterministic
service) and against ciw run on the same setting.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from simcore import theory
from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.figures import register_figures
from simcore.plotting import LivePanel, color_for, dropdown, float_slider, int_slider, new_figure
from simcore.predict import NumberPrediction
from simcore.queueing import QueueParams, simulate_queue
from simcore.queueing.ciw_oracle import ciw_replay, ciw_sample
from simcore.rng import check_seed

__all__ = ["RouterSetting", "delay_curve", "operating_point", "make_panel", "predictions", "key_numbers",
           "cross_checks", "figures"]

PACKET_SIZE_BYTES = 1500
LINK_RATE_BPS = 10e6
MEAN_SERVICE_S = PACKET_SIZE_BYTES * 8 / LINK_RATE_BPS  # L/R = 1.2 ms
RHO_GRID = np.round(np.arange(0.05, 0.951, 0.05), 2)
SERVICES = ("exponential", "deterministic")
# Trace names are set on every redraw too: plotly's FigureWidget may not sync names set before display.
SIM_NAME = "simcore (95% CI)"
POINT_NAME = "simcore at your arrival rate"
CIW_NAME = "ciw at your arrival rate"
# The live panel runs small (a slider move must redraw within ~150 ms): 5,000 packets per curve point
# (the curve is cached per service, links, link rate and seed, so moving the arrival rate only re-runs the
# dot) and 500 packets for ciw (pure Python, about 70 us a packet: 1,000 took half the move's budget).
# The checked numbers (key_numbers) run 200,000 packets per seed.
LIVE_CUSTOMERS = 5_000
LIVE_CIW_CUSTOMERS = 500


@dataclass(frozen=True)
class RouterSetting:
    """One router setting as the sliders give it.

    arrival_rate_pps: packets per second arriving, in (0, 20000].
    service: 'exponential' or 'deterministic' transmission times with mean L/R = 1.2 ms.
    servers: parallel output links c, in [1, 8].
    link_rate_mbps: rate R of each output link, in [0.5, 100] Mbit/s (L/R = 1.2 ms at 10 Mbit/s).
    seed: int >= 0.
    n_customers: packets per simulated point, in [1000, 10**6].
    """

    arrival_rate_pps: float = 600.0
    service: str = "exponential"
    servers: int = 1
    seed: int = 1
    n_customers: int = 20_000
    link_rate_mbps: float = LINK_RATE_BPS / 1e6

    def __post_init__(self):
        store_python_numbers(self)
        check_real("arrival_rate_pps", self.arrival_rate_pps, 0.0, 20_000.0, lo_open=True)
        check_choice("service", self.service, SERVICES)
        check_int("servers", self.servers, 1, 8)
        check_seed(self.seed)
        check_int("n_customers", self.n_customers, 1000, 10**6)
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
                           service=self.service, n_customers=self.n_customers,
                           warmup_customers=self.n_customers // 10)


def delay_curve(setting: RouterSetting) -> dict[str, np.ndarray]:
    """Return the La/R curve: intensity, simulated mean queueing delay and its 95% half-width, and the
    closed form, in milliseconds, over RHO_GRID. All points use the same seed (common random numbers),
    so the curve is smooth and differences between settings are not noise."""
    sim_ms = np.empty(RHO_GRID.size)
    half_ms = np.empty(RHO_GRID.size)
    theory_ms = np.empty(RHO_GRID.size)
    for i, rho in enumerate(RHO_GRID):
        rate = rho * setting.servers / setting.mean_service_s
        res = simulate_queue(setting.queue_params(rate), setting.seed)
        mean, half = res.wait_ci95_s()
        sim_ms[i], half_ms[i] = 1e3 * mean, 1e3 * half
        theory_ms[i] = 1e3 * theory.mean_wait_s(rate, setting.mean_service_s, setting.servers, setting.service)
    return {"intensity": RHO_GRID.copy(), "sim_ms": sim_ms, "sim_half_ms": half_ms, "theory_ms": theory_ms}


def operating_point(setting: RouterSetting, *, ciw_customers: int = 3000) -> dict[str, float]:
    """Return mean queueing delay (ms) at the setting's own arrival rate: simcore, closed form and ciw
    (ciw with its own random numbers and ``ciw_customers`` packets, so expect sampling noise)."""
    res = simulate_queue(setting.queue_params(), setting.seed)
    mean, half = res.wait_ci95_s()
    stable = setting.intensity < 1.0
    closed = theory.mean_wait_s(setting.arrival_rate_pps, setting.mean_service_s, setting.servers, setting.service)
    ciw_params = QueueParams(arrival_rate_per_s=setting.arrival_rate_pps, mean_service_s=setting.mean_service_s,
                             servers=setting.servers, service=setting.service, n_customers=ciw_customers)
    ciw_ms = 1e3 * ciw_sample(ciw_params, setting.seed).mean_wait_s(ciw_customers // 10)
    return {
        "intensity": setting.intensity,
        "sim_ms": 1e3 * mean,
        "sim_half_ms": 1e3 * half,
        "theory_ms": 1e3 * closed if stable else float("inf"),
        "ciw_ms": ciw_ms,
        "little_L": res.time_average_in_system,
        "little_XW": res.throughput_per_s * res.whole_run_mean_sojourn_s,
    }


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
def _cached_curve(service: str, servers: int, seed: int, n_customers: int) -> dict[str, np.ndarray]:
    return delay_curve(RouterSetting(service=service, servers=servers, seed=seed, n_customers=n_customers))


def _curve(setting: RouterSetting) -> dict[str, np.ndarray]:
    """Return ``delay_curve(setting)`` from the cached curve at 10 Mbit/s: at a fixed intensity every
    interarrival and transmission time is the same random draw times L/R, so every delay scales with L/R
    (to rounding, ~1e-12; a test checks it against a fresh run)."""
    curve = _cached_curve(setting.service, setting.servers, setting.seed, setting.n_customers)
    k = setting.mean_service_s / MEAN_SERVICE_S
    return {**curve, "sim_ms": k * curve["sim_ms"], "sim_half_ms": k * curve["sim_half_ms"],
            "theory_ms": k * curve["theory_ms"]}


def _draw(fig: go.Figure, setting: RouterSetting, ciw_customers: int = 3000) -> dict[str, float]:
    curve = _curve(setting)
    point = operating_point(setting, ciw_customers=ciw_customers)
    rho_line, theory_line = _theory_line(setting)
    fig.data[0].update(x=rho_line, y=theory_line, name=_theory_name(setting))
    fig.data[1].update(x=curve["intensity"], y=curve["sim_ms"], name=SIM_NAME,
                       error_y=dict(type="data", array=curve["sim_half_ms"], visible=True))
    shown = min(point["intensity"], 1.2)
    fig.data[2].update(x=[shown], y=[point["sim_ms"]], name=POINT_NAME)
    fig.data[3].update(x=[shown], y=[point["ciw_ms"]], name=CIW_NAME)
    top = max(5 * setting.mean_service_s * 1e3, float(np.nanmax(curve["sim_ms"])) * 1.1)
    fig.update_yaxes(range=[0, max(top, min(point["sim_ms"] * 1.1, 4 * top))])
    return point


def _empty_figure(widget: bool) -> go.Figure:
    fig = new_figure(widget=widget, xaxis_title="traffic intensity La/(cR)",
                     yaxis_title="mean queueing delay (ms)")
    fig.add_scatter(mode="lines", name="closed form", line=dict(color=color_for("closed form")))
    fig.add_scatter(mode="markers", name=SIM_NAME, marker=dict(color=color_for("simcore"), size=7))
    fig.add_scatter(mode="markers", name=POINT_NAME,
                    marker=dict(color=color_for("simcore"), size=16, symbol="diamond-open", line_width=3))
    fig.add_scatter(mode="markers", name=CIW_NAME,
                    marker=dict(color=color_for("ciw"), size=12, symbol="x"))
    fig.update_xaxes(range=[0, 1.25])
    return fig


def _status(point: dict[str, float], setting: RouterSetting) -> str:
    if point["intensity"] >= 1.0:
        return (f"<b>La/(cR) = {point['intensity']:.2f} &ge; 1: the queue is unstable.</b> The simulated delay "
                f"({point['sim_ms']:.1f} ms) only reflects how long we ran; run longer and it grows.")
    return (f"La/(cR) = {point['intensity']:.2f}: simcore {point['sim_ms']:.3f} &plusmn; "
            f"{point['sim_half_ms']:.3f} ms, closed form {point['theory_ms']:.3f} ms, ciw "
            f"{point['ciw_ms']:.3f} ms. Little's law: L = {point['little_L']:.3f}, "
            f"X&middot;W = {point['little_XW']:.3f}.")


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


def make_panel(setting: RouterSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live La/R panel: sliders for arrival rate, service distribution, servers and seed.
    gate: predictions (``predictions()``) that hold the plot and its numbers back until committed."""
    s = setting or RouterSetting(n_customers=LIVE_CUSTOMERS)
    controls = {
        "arrival_rate_pps": float_slider("arrival rate a (packets/s)", s.arrival_rate_pps, 50, 6000, 10),
        "service": dropdown("transmission time", SERVICES, s.service),
        "servers": int_slider("output links c", s.servers, 1, 8),
        "link_rate_mbps": float_slider("rate of each link R (Mbit/s)", s.link_rate_mbps, 0.5, 100, 0.5),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    fig = _empty_figure(widget=True)

    def update(values: dict) -> str:
        setting_now = RouterSetting(**values, n_customers=s.n_customers)
        return _status(_draw(fig, setting_now, LIVE_CIW_CUSTOMERS), setting_now)

    panel = LivePanel(controls, update, [fig], title="Queueing delay at one router", gate=gate)
    controls["arrival_rate_pps"].layout.grid_column = "1 / -1"  # a long track: 596 values
    return panel


def key_numbers(seeds: range = range(1, 6)) -> list[dict[str, float]]:
    """Return, for M/M/1 and M/D/1 at intensities 0.5 and 0.9, simcore's mean queueing delay averaged
    over ``seeds`` (200,000 packets each) and the closed form, in ms, rounded for stable printing."""
    rows = []
    for service in SERVICES:
        for rho in (0.5, 0.9):
            rate = rho / MEAN_SERVICE_S
            sims = []
            for seed in seeds:
                p = QueueParams(arrival_rate_per_s=rate, mean_service_s=MEAN_SERVICE_S, service=service,
                                n_customers=200_000, warmup_customers=20_000)
                sims.append(simulate_queue(p, seed).mean_wait_s)
            closed = theory.mean_wait_s(rate, MEAN_SERVICE_S, 1, service)
            rows.append({"service": service, "intensity": rho, "simcore_ms": round(1e3 * float(np.mean(sims)), 2),
                         "closed_form_ms": round(1e3 * closed, 2)})
    return rows


def cross_checks(seed: int = 7) -> str:
    """Return a printable report: Little's law on an M/M/3 run with a 10-packet buffer, and the largest
    per-packet difference between simcore's and ciw's waits when ciw replays simcore's packets (ms)."""
    params = QueueParams(arrival_rate_per_s=2200.0, mean_service_s=MEAN_SERVICE_S, servers=3,
                         buffer_size=10, n_customers=5000)
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
        setting = RouterSetting(arrival_rate_pps=600.0, service=service, n_customers=50_000)
        _draw(fig, setting)
        # the title on top, the legend under the x axis: a legend above the plot collides with the title
        fig.update_layout(title=f"Queueing delay vs traffic intensity, {service} transmission times, one link",
                          legend=dict(orientation="h", yanchor="top", y=-0.16, x=0), margin=dict(t=60, b=120))
        out[f"delay_vs_intensity_{service}"] = fig
    return out
