"""Chapter 0c, part 3: AIMD's convergence to fairness between two TCP flows (Chiu & Jain 1989, K&R 3.7.3).

Two TCP flows of simcore.packet share a bottleneck (``simcore.aimd.run_two_flows``); flow 2 opens later, with its
own RTT. The panel draws K&R fig. 3.55's phase plane (flow 1's rate against flow 2's, the equal-share line and the
full-utilisation line) with the flows' measured trajectory beside Chiu & Jain's idealised one (``aimd_trajectory``:
synchronous additive increase of one MSS per RTT, halving on overload), and Jain's index of both over time.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_int, check_real, store_python_numbers
from simcore.aimd import (
    TwoFlowRun,
    TwoFlowSetting,
    aimd_trajectory,
    decreases_to_fairness,
    run_two_flows,
    synchronised_share_ratio,
)
from simcore.aimd.two_flows import MSS_BYTES
from simcore.plotting import LivePanel, color_for, float_slider, int_slider, new_figure
from simcore.predict import ChoicePrediction, NumberPrediction
from simcore.rng import check_seed
from simcore.warm import cold_notice

__all__ = ["FairnessSetting", "run", "idealised", "predictions", "make_panel", "figures", "warm"]

RTT1_MS = 40.0


@dataclass(frozen=True)
class FairnessSetting:
    """One setting of the panel. rtt2_ms: flow 2's round-trip propagation, in [10, 200] ms (flow 1's: 40 ms).
    start2_s: when flow 2 opens, in [0, 15] s. buffer_packets: bottleneck buffer, in [5, 100] packets. rate_mbps:
    bottleneck rate, in [1, 20] Mbit/s. duration_s: in [10, 40] s, after start2_s + 5 s. loss_pct: random loss on
    the bottleneck, in [0, 2] %. seed: its draws, int >= 0."""

    rtt2_ms: float = 40.0
    start2_s: float = 3.0
    buffer_packets: int = 20
    rate_mbps: float = 5.0
    duration_s: float = 15.0
    loss_pct: float = 0.0
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rtt2_ms", self.rtt2_ms, 10.0, 200.0)
        check_real("start2_s", self.start2_s, 0.0, 15.0)
        check_int("buffer_packets", self.buffer_packets, 5, 100)
        check_real("rate_mbps", self.rate_mbps, 1.0, 20.0)
        check_real("duration_s", self.duration_s, 10.0, 40.0)
        if self.duration_s < self.start2_s + 5.0:
            raise ValueError(f"duration_s={self.duration_s!r} is out of range: must be at least start2_s + 5 s = "
                             f"{self.start2_s + 5.0:g} s, so that flow 2 has time to converge")
        check_real("loss_pct", self.loss_pct, 0.0, 2.0)
        check_seed(self.seed)

    def two_flows(self) -> TwoFlowSetting:
        """The simcore.packet run (flow 1: 40 ms, opens at 0)."""
        return TwoFlowSetting(rate_mbps=self.rate_mbps, buffer_packets=self.buffer_packets, rtt1_ms=RTT1_MS,
                              rtt2_ms=self.rtt2_ms, start2_s=self.start2_s, duration_s=self.duration_s,
                              loss_pct=self.loss_pct, seed=self.seed)


@functools.lru_cache(maxsize=8)
def run(setting: FairnessSetting) -> TwoFlowRun:
    """Return the two flows' run (cached)."""
    return run_two_flows(setting.two_flows())


def idealised(setting: FairnessSetting, x1_bps: float) -> dict[str, np.ndarray]:
    """Return Chiu & Jain's trajectory from (x1_bps, 0) when flow 2 opens: each flow adds one MSS per its own RTT
    (a rate increment MSS/RTT_i per RTT_i), both halve when x1 + x2 exceeds the bottleneck's payload rate; steps of
    the shorter RTT, until the end of the run. With equal RTTs this is exactly Chiu & Jain's iteration."""
    s = setting
    c = s.two_flows().payload_rate_bps
    r1, r2 = RTT1_MS * 1e-3, s.rtt2_ms * 1e-3
    dt = min(r1, r2)
    steps = int((s.duration_s - s.start2_s) / dt)
    inc = (8.0 * MSS_BYTES / r1**2 * dt, 8.0 * MSS_BYTES / r2**2 * dt)
    tr = aimd_trajectory(min(x1_bps, c), 0.0, c, inc, 0.5, steps)
    return {"time_s": s.start2_s + dt * np.arange(steps + 1), "x1": tr.x1, "x2": tr.x2, "jain": tr.jain,
            "decreased": tr.decreased}


def _settled_s(s: FairnessSetting) -> float:
    """The second half of what follows flow 2's opening: where 'settled' shares are measured."""
    return s.start2_s + 0.5 * (s.duration_s - s.start2_s)


def _empty_figures(widget: bool) -> tuple[go.Figure, go.Figure]:
    ph = new_figure(widget=widget, title="Chiu & Jain's phase plane: flow 1's rate against flow 2's",
                    xaxis_title="flow 1: cwnd / RTT (Mbit/s)", yaxis_title="flow 2: cwnd / RTT (Mbit/s)", height=560)
    ph.add_scatter(mode="lines", name="equal share (x1 = x2)", line=dict(color=color_for("bound"), dash="dot"))
    ph.add_scatter(mode="lines", name="full utilisation (x1 + x2 = C)", line=dict(color=color_for("closed form"),
                   dash="dash", width=1))
    ph.add_scatter(mode="lines", name="two TCP flows (simcore.packet)", line=dict(color=color_for("simulation"),
                   width=1))
    ph.add_scatter(mode="lines", name="Chiu & Jain's AIMD (idealised)", line=dict(color=color_for("stop-and-wait"),
                   width=1.5))
    ph.add_scatter(mode="markers+text", name="flow 2 opens", marker=dict(color="#000", symbol="circle", size=9),
                   text=["start"], textposition="top right", showlegend=False)
    ph.add_scatter(mode="markers", name="TCP's settled mean", marker=dict(color=color_for("simulation"),
                   symbol="star", size=14, line=dict(color="#000", width=1)))
    ph.update_yaxes(scaleanchor="x", scaleratio=1)
    ph.update_xaxes(constrain="domain")
    jf = new_figure(widget=widget, title="Jain's fairness index of the two rates", xaxis_title="time (s)",
                    yaxis_title="(x1 + x2)² / (2 (x1² + x2²))", height=330)
    jf.add_scatter(mode="lines", name="two TCP flows", line=dict(color=color_for("simulation"), width=1))
    jf.add_scatter(mode="lines", name="Chiu & Jain's AIMD", line=dict(color=color_for("stop-and-wait"), width=1.5))
    jf.update_yaxes(range=[0.45, 1.02])
    for fig, rows in ((ph, 2), (jf, 1)):  # legends under the plots, clear of the titles
        fig.update_layout(legend=dict(orientation="h", y=-0.15, yanchor="top", x=0), margin=dict(b=70 + 22 * rows))
    return ph, jf


def _draw(figs, s: FairnessSetting) -> str:
    ph, jf = figs
    r = run(s)
    c = s.two_flows().payload_rate_bps
    mb = 1e-6
    top = 1.15 * c * mb
    ph.data[0].update(x=[0, top], y=[0, top])
    ph.data[1].update(x=[0, c * mb], y=[c * mb, 0])
    after = r.time_s >= s.start2_s
    ph.data[2].update(x=r.rate1_bps[after] * mb, y=r.rate2_bps[after] * mb)
    i0 = int(np.argmax(after))
    ideal = idealised(s, float(r.rate1_bps[i0]))
    ph.data[3].update(x=ideal["x1"] * mb, y=ideal["x2"] * mb)
    ph.data[4].update(x=[r.rate1_bps[i0] * mb], y=[r.rate2_bps[i0] * mb])
    m1, m2 = r.mean_rates_bps(_settled_s(s))
    ph.data[5].update(x=[m1 * mb], y=[m2 * mb])
    ph.update_xaxes(range=[0, top])
    ph.update_yaxes(range=[0, top])
    jf.data[0].update(x=r.time_s[after], y=r.jain[after])
    jf.data[1].update(x=ideal["time_s"], y=ideal["jain"])
    jf.update_xaxes(range=[0, s.duration_s])
    ratio = m1 / m2 if m2 > 0 else math.inf
    jain = (m1 + m2) ** 2 / (2 * (m1 * m1 + m2 * m2)) if m1 + m2 > 0 else 1.0
    m = decreases_to_fairness(1.0, 0.1)
    text = (f"From {_settled_s(s):.3g} s to the end, TCP delivered <b>{m1 * mb:.2f}</b> and "
            f"<b>{m2 * mb:.2f} Mbit/s</b> (flow 1 / flow 2 = {ratio:.2f}; Jain's index of the means {jain:.3f}). "
            f"Chiu & Jain: each halving halves the gap, so from one flow holding the whole link it takes {m} "
            "halvings to bring the gap under 10 % of C")
    if abs(s.rtt2_ms - RTT1_MS) > 1e-9:
        text += (f". With one MSS per own RTT and synchronised halvings the shares settle at (RTT2/RTT1)² = "
                 f"{synchronised_share_ratio(RTT1_MS, s.rtt2_ms):.2f}; under random loss alone (Mathis, "
                 f"MSS/RTT·√(3/2p) each) at RTT2/RTT1 = {s.rtt2_ms / RTT1_MS:.2f}")
        if s.loss_pct == 0:
            text += ("; with drop-tail and no random loss the shares also depend on when each flow's bursts "
                     "reach the full buffer (phase effects): move flow 2's RTT by 10 ms and see")
    return text + "."


def make_panel(setting: FairnessSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live panel of part 3: flow 2's RTT and start, buffer, rate, duration, loss and seed; the phase
    plane with TCP's and Chiu & Jain's trajectories, and Jain's index over time."""
    s = setting or FairnessSetting()
    controls = {
        "rtt2_ms": float_slider("flow 2's RTT (ms; flow 1: 40)", s.rtt2_ms, 10, 200, 5),
        "start2_s": float_slider("flow 2 opens at (s)", s.start2_s, 0, 10, 0.5),
        "buffer_packets": int_slider("bottleneck buffer (packets)", s.buffer_packets, 5, 100),
        "rate_mbps": float_slider("bottleneck rate C (Mbit/s)", s.rate_mbps, 1, 20, 1),
        "duration_s": float_slider("duration (s)", s.duration_s, 15, 40, 1),  # >= start2 + 5 at every position
        "loss_pct": float_slider("random loss (%)", s.loss_pct, 0, 2, 0.1),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    figs = _empty_figures(widget=True)

    def update(values: dict) -> str:
        return _draw(figs, FairnessSetting(**values))

    def idle(values: dict) -> dict[str, str]:
        return {"seed": "with no random loss nothing in this run is random"} if values["loss_pct"] == 0 else {}

    return LivePanel(controls, update, list(figs), title="Two TCP flows sharing a bottleneck: AIMD and fairness",
                     columns=3, idle=idle, gate=gate, compile_notice=functools.partial(cold_notice, "packet"))


def _who_gets_more(setting: dict) -> str:
    s = FairnessSetting(**setting)
    m1, m2 = run(s).mean_rates_bps(_settled_s(s))
    if abs(m1 - m2) <= 0.1 * (m1 + m2) / 2:
        return SHARE_CHOICES[0]
    return SHARE_CHOICES[1] if m1 > m2 else SHARE_CHOICES[2]


SHARE_CHOICES = ["about equal shares (within 10 %): AIMD is fair", "flow 1, the one with the shorter RTT, gets more",
                 "flow 2, the one with the longer RTT, gets more"]


def predictions() -> list:
    """Return part 3's questions: Chiu & Jain's halvings to fairness (closed form) and who gets more when flow 2's
    RTT is twice flow 1's (measured in the run)."""
    m = decreases_to_fairness(1.0, 0.1)
    q1 = NumberPrediction(
        "Chiu & Jain's idealised AIMD: flow 1 has the whole link C, flow 2 starts from zero; both add the same "
        "amount each RTT and both halve when they overload the link. After how many halvings is the gap between "
        "their rates below 10 % of C?", answer=float(m), unit=("halving", "halvings"), rel_tol=0.0, abs_tol=1.0,
        bounds=(0, 100), setting={"rtt2_ms": RTT1_MS, "start2_s": 3.0},
        explanation=("An increase adds the same amount to both rates, so it leaves the gap $x_1 - x_2$ alone; a "
                     "halving halves both, so it halves the gap. From $C$, after $m$ halvings the gap is "
                     f"$C/2^m$: below $C/10$ at $m$ = {m} ($2^4 = 16$). In the phase plane each increase moves the "
                     "point at 45° and each halving towards the origin, closer to the equal-share line each time."))
    setting = {"rtt2_ms": 2 * RTT1_MS, "start2_s": 3.0, "buffer_packets": 20, "rate_mbps": 5.0, "duration_s": 20.0,
               "loss_pct": 1.0, "seed": 1}

    def explain(st: dict) -> str:
        s = FairnessSetting(**st)
        m1, m2 = run(s).mean_rates_bps(_settled_s(s))
        return (f"Measured here: {m1 * 1e-6:.2f} against {m2 * 1e-6:.2f} Mbit/s, a ratio of {m1 / m2:.1f}. TCP adds "
                "one MSS per *its own* RTT, so the flow with the shorter RTT raises its rate faster. With 1 % random "
                "loss each flow gets about Mathis's $\\frac{MSS}{RTT}\\sqrt{3/(2p)}$, so the ratio is about "
                "$RTT_2/RTT_1$ = 2 (the deep dive measures it over ten seeds); if both flows halved at the same "
                "moments it would be $(RTT_2/RTT_1)^2$ = 4. K&R 3.7.3: TCP is fair only between flows with the "
                "same RTT.")

    q2 = ChoicePrediction(
        "Now flow 2's RTT is 80 ms, twice flow 1's (40 ms), and the bottleneck loses 1 % of packets at random. "
        "Where do the two flows settle?",
        choices=SHARE_CHOICES, answer=_who_gets_more, setting=setting, explanation=explain,
        feedback={SHARE_CHOICES[0]: "Chiu & Jain's proof assumes both flows add the same amount per step. TCP adds "
                                    "one MSS per RTT, and the steps of the two flows have different lengths.",
                  SHARE_CHOICES[2]: "A longer RTT does not buy a larger window: the window grows one MSS per RTT, "
                                    "so the long-RTT flow grows more slowly, and its rate is its window over a "
                                    "longer RTT."})
    return [q1, q2]


def figures() -> dict[str, go.Figure]:
    """Return part 3's static figures at the panel's defaults (registered with part 1's, ``reliable_transfer``)."""
    ph, jf = _empty_figures(widget=False)
    _draw((ph, jf), FairnessSetting())
    return {"aimd_phase_plane": ph, "aimd_jain_index": jf}


def warm() -> None:
    """Run two short TCP flows (compiles and caches simcore.packet's traced kernel)."""
    run_two_flows(TwoFlowSetting(duration_s=1.0, start2_s=0.2, rate_mbps=2.0))
