"""Chapter 0c, part 2: TCP's RTT estimator and timeout (K&R 3.5.3), spurious retransmissions and Karn's rule.

Small probes cross a 5 Mbit/s bottleneck (100 ms round-trip propagation) whose buffer a bulk TCP flow fills and
drains (``simcore.rto.measure_probes``, simcore.packet); the estimator and a retransmission timer are replayed over
their sample RTTs (``simcore.rto.replay_timer``). The panel draws the samples with EstimatedRTT, DevRTT and the
TimeoutInterval; the estimator's response to a step of the RTT beside its closed form; and the spurious
retransmissions against K, the weight of DevRTT in the timeout, under each sampling rule.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.plotting import LivePanel, color_for, dropdown, float_slider, int_slider, new_figure
from simcore.predict import ChoicePrediction, NumberPrediction
from simcore.rng import check_seed
from simcore.rto import (
    EstimatorParams,
    ProbeRun,
    ProbeSetting,
    TimerReplay,
    estimate,
    measure_probes,
    replay_timer,
    samples_to_settle,
    step_response,
)
from simcore.warm import cold_notice

__all__ = ["RttSetting", "RULE_CHOICES", "K_GRID", "probes", "replay", "spurious_by_k", "step_demo", "predictions",
           "make_panel", "figures", "warm"]

RULE_CHOICES = (("Karn: skip probes sent twice", "karn"), ("measure from the first copy", "first"),
                ("measure from the last copy", "last"))
RULE_NAMES = {"karn": "Karn's rule", "first": "from the first copy", "last": "from the last copy"}
K_GRID = tuple(np.round(np.arange(0.0, 8.01, 0.5), 1))
STEP = (0.1, 0.2, 40)  # the step demo: 40 samples at 100 ms, then 40 at 200 ms
DURATION_S = 12.0


@dataclass(frozen=True)
class RttSetting:
    """One setting of the panel.

    buffer_packets: the bottleneck's buffer, in [5, 200] packets (how far the queue makes the RTT swing).
    tcp_start_s: when the bulk TCP flow opens, in [0, 10] s. loss_pct: random loss on the bottleneck, in [0, 5] %.
    alpha, beta: the estimator's gains, in [0.05, 1]. k: DevRTT's weight in the timeout, in [0, 8].
    min_timeout_ms: the timeout's floor, in [0, 1000] ms (RFC 6298: 1000; K&R's formula alone: 0).
    rule: 'karn', 'first' or 'last' (which RTT a probe sent twice gives). seed: int >= 0 (random loss).
    """

    buffer_packets: int = 50
    tcp_start_s: float = 2.0
    loss_pct: float = 0.0
    alpha: float = 0.125
    beta: float = 0.25
    k: float = 4.0
    min_timeout_ms: float = 0.0
    rule: str = "karn"
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        check_int("buffer_packets", self.buffer_packets, 5, 200)
        check_real("tcp_start_s", self.tcp_start_s, 0.0, 10.0)
        check_real("loss_pct", self.loss_pct, 0.0, 5.0)
        check_real("alpha", self.alpha, 0.05, 1.0)
        check_real("beta", self.beta, 0.05, 1.0)
        check_real("k", self.k, 0.0, 8.0)
        check_real("min_timeout_ms", self.min_timeout_ms, 0.0, 1000.0)
        check_choice("rule", self.rule, tuple(v for _, v in RULE_CHOICES))
        check_seed(self.seed)

    def probe_setting(self) -> ProbeSetting:
        """The simcore.packet run behind the samples (100 ms, 5 Mbit/s, a probe every 20 ms, 12 s)."""
        return ProbeSetting(rtt_ms=100.0, rate_mbps=5.0, buffer_packets=self.buffer_packets,
                            tcp_start_s=self.tcp_start_s, loss_pct=self.loss_pct, probe_interval_ms=20.0,
                            duration_s=DURATION_S, seed=self.seed)

    def estimator(self, k: float | None = None) -> EstimatorParams:
        """The estimator's parameters (``k`` instead of the setting's if given)."""
        return EstimatorParams(alpha=self.alpha, beta=self.beta, k=self.k if k is None else k,
                               min_timeout_s=self.min_timeout_ms * 1e-3)


@functools.lru_cache(maxsize=8)
def probes(probe_setting: ProbeSetting) -> ProbeRun:
    """Return the probes of ``probe_setting`` (cached: moving an estimator slider does not re-simulate)."""
    return measure_probes(probe_setting)


def replay(setting: RttSetting, k: float | None = None, rule: str | None = None) -> TimerReplay:
    """Return the timer replay of ``setting`` (or at another K or rule)."""
    run = probes(setting.probe_setting())
    return replay_timer(run.send_s, run.rtt_s, setting.estimator(k), rule or setting.rule, end_s=DURATION_S)


def spurious_by_k(setting: RttSetting) -> dict[str, np.ndarray]:
    """Return the spurious retransmissions of the run at each K of K_GRID, per rule (cached: moving K or the rule
    does not replay the sweep again)."""
    table = _spurious_table(setting.probe_setting(), setting.alpha, setting.beta, setting.min_timeout_ms)
    return {rule: np.array(row) for rule, row in table}


@functools.lru_cache(maxsize=16)
def _spurious_table(probe_setting: ProbeSetting, alpha: float, beta: float, min_timeout_ms: float):
    s = RttSetting(buffer_packets=probe_setting.buffer_packets, tcp_start_s=probe_setting.tcp_start_s,
                   loss_pct=probe_setting.loss_pct, alpha=alpha, beta=beta, min_timeout_ms=min_timeout_ms,
                   seed=probe_setting.seed)
    return tuple((rule, tuple(replay(s, k, rule).spurious for k in K_GRID)) for _, rule in RULE_CHOICES)


def step_demo(setting: RttSetting) -> dict[str, np.ndarray]:
    """Return the estimator after a step of the RTT (40 samples at 100 ms, then 40 at 200 ms) at the setting's
    alpha, beta and K, and the closed form of EstimatedRTT after the step."""
    before, after, n = STEP
    e = estimate([before] * n + [after] * n, setting.estimator())
    i = np.arange(1, n + 1)
    return {"n": i, "estimated_s": e.estimated_s[n:], "timeout_s": e.timeout_s[n:],
            "closed_form_s": np.array([step_response(int(k), before, after, setting.alpha) for k in i])}


def _empty_figures(widget: bool) -> tuple[go.Figure, go.Figure, go.Figure]:
    f = new_figure(widget=widget, title="Sample RTTs of probes, and TCP's estimate and timeout",
                   xaxis_title="time (s)", yaxis_title="ms", height=500)
    f.add_scatter(mode="markers", name="SampleRTT (taken)", marker=dict(color=color_for("bound"), size=4))
    f.add_scatter(mode="markers", name="skipped (Karn)", marker=dict(color=color_for("bound"), size=7,
                  symbol="circle-open"))
    f.add_scatter(mode="markers", name="taken but wrong (> 10 % off)", marker=dict(color=color_for("drop"), size=8,
                  symbol="x"))
    f.add_scatter(mode="lines", name="EstimatedRTT", line=dict(color=color_for("simulation"), width=2, shape="hv"))
    f.add_scatter(mode="lines", name="DevRTT", line=dict(color=color_for("SR"), width=1.5, shape="hv"))
    f.add_scatter(mode="lines", name="TimeoutInterval", line=dict(color=color_for("closed form"), width=1.5,
                  shape="hv", dash="dash"))
    f.add_scatter(mode="markers", name="timer fired though the probe was on its way (spurious)",
                  marker=dict(color=color_for("retransmission"), symbol="triangle-up", size=8))
    f.add_scatter(mode="markers", name="timer fired: probe lost (needed)",
                  marker=dict(color=color_for("stop-and-wait"), symbol="triangle-down", size=9))
    s = new_figure(widget=widget, title="The estimator after the RTT steps from 100 to 200 ms",
                   xaxis_title="samples since the step", yaxis_title="ms", height=330)
    s.add_scatter(mode="lines", name="closed form 200 − 100 (1 − α)ⁿ", line=dict(color=color_for("closed form"),
                  width=1.5))
    s.add_scatter(mode="markers", name="EstimatedRTT (estimator)", marker=dict(color=color_for("simulation"), size=6))
    s.add_scatter(mode="lines+markers", name="TimeoutInterval", line=dict(color=color_for("stop-and-wait"), width=1,
                  dash="dash"), marker=dict(size=4))
    s.add_scatter(mode="lines", name="the new RTT", line=dict(color=color_for("bound"), dash="dot"))
    s.update_xaxes(range=[0, STEP[2] + 1])
    k = new_figure(widget=widget, title="Spurious retransmissions in this run against K",
                   xaxis_title="K in TimeoutInterval = EstimatedRTT + K·DevRTT", yaxis_title="spurious retransmissions",
                   height=350)
    for (label, _rule), color, dash in zip(RULE_CHOICES, ("simulation", "retransmission", "stop-and-wait"),
                                          ("solid", "dash", "dot"), strict=True):
        k.add_scatter(mode="lines+markers", name=label, line=dict(color=color_for(color), dash=dash))
    k.add_scatter(mode="markers", name="your setting", marker=dict(symbol="circle-open", size=18, color="#000",
                  line=dict(width=2)))
    for fig, rows in ((f, 3), (s, 1), (k, 2)):  # legends under the plots, clear of the titles
        fig.update_layout(legend=dict(orientation="h", y=-0.2, yanchor="top", x=0), margin=dict(b=70 + 22 * rows))
    return f, s, k


def _draw(figs, setting: RttSetting) -> str:
    f, s, kf = figs
    run = probes(setting.probe_setting())
    r = replay(setting)
    ms = 1e3
    used = r.sample_used
    wrong = used & (np.abs(r.sample_s - r.sample_true_s) > 0.1 * r.sample_true_s)
    ok = used & ~wrong
    f.data[0].update(x=r.sample_at_s[ok], y=ms * r.sample_s[ok])
    f.data[1].update(x=r.sample_at_s[~used], y=ms * r.sample_s[~used])
    f.data[2].update(x=r.sample_at_s[wrong], y=ms * r.sample_s[wrong])
    t_state = np.append(r.state_at_s, DURATION_S)
    f.data[3].update(x=t_state, y=ms * np.append(r.estimated_s, r.estimated_s[-1]))
    f.data[4].update(x=t_state, y=ms * np.append(r.dev_s, r.dev_s[-1]))
    f.data[5].update(x=t_state, y=ms * np.append(r.timeout_s, r.timeout_s[-1]))
    fired = r.retx_at_s - run.send_s[r.retx_probe]  # how long after the probe's send the timer fired
    spur = r.retx_spurious
    f.data[6].update(x=r.retx_at_s[spur], y=ms * fired[spur])
    f.data[7].update(x=r.retx_at_s[~spur], y=ms * fired[~spur])
    top = ms * max(np.nanmax(run.rtt_s) * 1.6, 0.25)
    f.update_yaxes(range=[0, top])
    f.update_xaxes(range=[0, DURATION_S])
    d = step_demo(setting)
    s.data[0].update(x=d["n"], y=ms * d["closed_form_s"])
    s.data[1].update(x=d["n"], y=ms * d["estimated_s"])
    s.data[2].update(x=d["n"], y=ms * d["timeout_s"])
    s.data[3].update(x=[0, STEP[2] + 1], y=[ms * STEP[1]] * 2)
    s.update_yaxes(range=[0, ms * max(0.45, float(np.max(d["timeout_s"][:10])) * 1.05)])
    by_k = spurious_by_k(setting)
    for i, (_, rule) in enumerate(RULE_CHOICES):
        kf.data[i].update(x=list(K_GRID), y=by_k[rule])
    kf.data[3].update(x=[setting.k], y=[r.spurious])
    n90 = samples_to_settle(0.1, setting.alpha) if setting.alpha < 1 else 1.0
    return (f"{run.send_s.size} probes ({run.lost} lost in the run); {RULE_NAMES[setting.rule]}: "
            f"<b>{r.spurious} spurious retransmissions</b>, {r.needed} needed; {r.skipped} samples skipped, "
            f"{r.wrong_samples()} taken but more than 10 % off the true RTT. EstimatedRTT closes 90 % of a step "
            f"in ln 0.1 / ln(1 − α) = {n90:.3g} samples.")


def make_panel(setting: RttSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live panel of part 2: buffer, TCP start, loss, alpha, beta, K, minimum timeout, sampling rule
    and seed; the samples with the estimate and timeout, the step response beside its closed form, and the
    spurious retransmissions against K. gate: predictions that hold the plots back until committed."""
    s = setting or RttSetting()
    controls = {
        "buffer_packets": int_slider("bottleneck buffer (packets)", s.buffer_packets, 5, 200),
        "tcp_start_s": float_slider("TCP flow starts at (s)", s.tcp_start_s, 0, 10, 0.5),
        "loss_pct": float_slider("random loss (%)", s.loss_pct, 0, 5, 0.25),
        "alpha": float_slider("α (EstimatedRTT's gain)", s.alpha, 0.05, 1, 0.025),
        "beta": float_slider("β (DevRTT's gain)", s.beta, 0.05, 1, 0.05),
        "k": float_slider("K (DevRTT's weight)", s.k, 0, 8, 0.5),
        "min_timeout_ms": float_slider("minimum timeout (ms)", s.min_timeout_ms, 0, 1000, 50),
        "rule": dropdown("samples of probes sent twice", RULE_CHOICES, s.rule),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    figs = _empty_figures(widget=True)

    def update(values: dict) -> str:
        return _draw(figs, RttSetting(**values))

    def idle(values: dict) -> dict[str, str]:
        return {"seed": "with no random loss nothing in this run is random"} if values["loss_pct"] == 0 else {}

    return LivePanel(controls, update, list(figs), title="TCP's RTT estimator and timeout, on measured RTTs",
                     columns=3, idle=idle, gate=gate, compile_notice=functools.partial(cold_notice, "packet"))


def _spurious_ratio_choice(setting: dict) -> str:
    s = RttSetting(**{k: v for k, v in setting.items() if k != "k"})
    four, one = replay(s, 4.0).spurious, replay(s, 1.0).spurious
    return _ratio_choice(four, one)


RATIO_CHOICES = ["none more: the estimate is the same, so the timeouts are too", "about twice as many",
                 "five times as many or more", "fewer: a shorter timeout finds losses sooner"]


def _ratio_choice(four: int, one: int) -> str:
    if one < four:
        return RATIO_CHOICES[3]
    if one == four:
        return RATIO_CHOICES[0]
    return RATIO_CHOICES[2] if one >= 5 * max(four, 1) else RATIO_CHOICES[1]


def predictions() -> list:
    """Return part 2's "predict, then check" questions: how many samples EstimatedRTT needs to close 90 % of a step
    (closed form), and how the spurious retransmissions change when K goes from 4 to 1 (from the run)."""
    n90 = samples_to_settle(0.1, 0.125)
    q1 = NumberPrediction(
        "The RTT jumps from 100 ms to 200 ms and stays there. With α = 1/8, after how many samples has "
        "EstimatedRTT covered 90 % of the jump (reached 190 ms)?",
        answer=n90, unit=("sample", "samples"), rel_tol=0.15, bounds=(0, 1000), setting={"alpha": 0.125},
        explanation=("Each sample moves EstimatedRTT $\\alpha$ of the way to the new RTT, so the gap left after $n$ "
                     "samples is $(1-\\alpha)^n$ of the jump: $(7/8)^n = 0.1$ gives $n = \\ln 0.1 / \\ln(7/8)$ = "
                     f"{n90:.1f} samples. TCP takes about one sample per RTT, so that is about 17 round trips; "
                     "until then the timeout must cover the gap, which is DevRTT's job."))
    setting = {"k": 1.0, "rule": "karn", "alpha": 0.125, "beta": 0.25, "min_timeout_ms": 0.0, "buffer_packets": 50,
               "tcp_start_s": 2.0, "loss_pct": 0.0, "seed": 1}

    def explain(st: dict) -> str:
        s = RttSetting(**{k: v for k, v in st.items() if k != "k"})
        four, one = replay(s, 4.0).spurious, replay(s, 1.0).spurious
        return (f"With K = 4 this run has {four} spurious retransmissions, with K = 1 {one}. The queue makes the "
                "RTT swing by up to 120 ms within a few round trips, more than EstimatedRTT can follow; "
                "DevRTT measures that swing, and K·DevRTT is the margin that keeps the timer from firing "
                "while the probe is still on its way. A timeout too small does not find losses sooner in any "
                "useful way: it sends copies of probes that were never lost.")

    q2 = ChoicePrediction(
        "Keep the estimator but lower K, DevRTT's weight in the timeout, from 4 to 1. Compared with K = 4, how many "
        "spurious retransmissions (probes sent again although they were on their way) does this run have?",
        choices=RATIO_CHOICES, answer=_spurious_ratio_choice, setting=setting, explanation=explain,
        feedback={RATIO_CHOICES[0]: "EstimatedRTT is the same, but the timeout is EstimatedRTT + K·DevRTT: a "
                                    "smaller K gives a smaller timeout.",
                  RATIO_CHOICES[3]: "A shorter timer fires sooner after a real loss, but it also fires on probes "
                                    "that are only late, and here late probes are far more common than lost ones."})
    return [q1, q2]


def figures() -> dict[str, go.Figure]:
    """Return part 2's static figures at the panel's defaults (registered with part 1's, ``reliable_transfer``)."""
    f, s, k = _empty_figures(widget=False)
    _draw((f, s, k), RttSetting())
    return {"rtt_estimator": f, "rtt_step_response": s, "spurious_by_k": k}


def warm() -> None:
    """Compile the probe run (simcore.packet) and the replay kernel on a tiny run."""
    run = measure_probes(ProbeSetting(duration_s=0.5, tcp_start_s=0.1, probe_interval_ms=50.0))
    replay_timer(run.send_s, run.rtt_s, EstimatorParams(), "karn", end_s=0.5)

