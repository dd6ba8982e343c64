"""Chapter 1's "predict, then check" questions: each holds its answer back until the student commits.

``panel_predictions()`` gate the live panel (and the tables that print the same answer): which policies are
fastest in experiment 2 at heavy overload, and by how much Ticket beats the control. Their answers are the
simulator's own runs at the stated setting (seed 0), computed when the student commits; the explanations
say so. ``bound_prediction(sweep)`` gates the lower bound's table and figure 20: can any policy merely
double the session time when the bandwidth is halved, as the thesis's 'ideal' says? Its answer is the
hard lower bound (SRPT, ``simcore.admission.session_lower_bound_s``) over the sweep's sets of clients.
"""

from __future__ import annotations

from dataclasses import asdict

import numpy as np

from simcore.admission import POLICIES, compare_to_control
from simcore.chapters.admission_panel import PanelSetting, run_setting
from simcore.predict import ChoicePrediction, NumberPrediction
from simcore.sweep import SweepResult

__all__ = ["PANEL_SETTING", "RANK_CHOICES", "IDEAL_CHOICES", "panel_predictions", "fastest_choice",
           "ticket_gain_pct", "bound_prediction", "ideal_numbers"]

#: the panel's setting the two panel questions ask about: experiment 2, half the required bandwidth, 6 extra
#: sockets, every other control at its default (the chronology's policy is not part of the answer)
PANEL_SETTING = {k: v for k, v in asdict(PanelSetting()).items() if k != "policy"}

RANK_CHOICES = (
    "HTTP and FTP: they never send a client away to come back later.",
    "FTP: one connection for the whole session saves a connection set-up per file.",
    "Reserve and Ticket: sockets kept for small files let the many short jobs through first.",
    "All four within 10 % of each other: with half the bandwidth, the bandwidth decides, not the order.",
)
RANK_FEEDBACK = {
    RANK_CHOICES[0]: "Being told to come back later costs a large job 30 s, but most clients here want only "
                     "small files, and those get a free socket at once: the mean falls.",
    RANK_CHOICES[1]: "FTP saves 0.5 s per extra file, but keeps its socket through every file, so a small "
                     "request waits behind whole sessions of large ones.",
    RANK_CHOICES[2]: "Right: experiment 2's clients mostly want small files; serving them first is "
                     "shortest-job-first, which minimises the mean.",
    RANK_CHOICES[3]: "The bandwidth fixes how many bytes leave per second, not whose: at the same throughput, "
                     "serving short jobs first lowers the mean session time.",
}
#: a spread of mean session times below this fraction counts as "all within 10 % of each other"
SAME_SPREAD = 0.10

IDEAL_CHOICES = (
    "Yes: with half the bandwidth every transfer takes twice as long, so sessions double.",
    "Yes, with Ticket: serving large jobs first-come-first-served is fair to everyone.",
    "Not for most sets of clients: even the best possible schedule more than doubles them, because the "
    "work the server cannot serve piles up while it is overloaded.",
    "No, but only because each client's own access link limits its speed.",
)
IDEAL_FEEDBACK = {
    IDEAL_CHOICES[0]: "That holds for a client alone with the server. Under overload the unserved work grows "
                      "during the whole window, and a client who arrives late waits for all the work ahead "
                      "of it.",
    IDEAL_CHOICES[1]: "First-come-first-served makes the waits fair, not short: the mean is smallest when the "
                      "shortest remaining work goes first, and even that is more than double.",
    IDEAL_CHOICES[3]: "Access links limit a client at every load: they are why sessions at full bandwidth are "
                      "as long as they are, not why halving the bandwidth more than doubles them.",
}


def _means(setting: dict) -> dict[str, float]:
    out = run_setting(PanelSetting(**setting))
    return {"control": out["control"].mean_session_s, **{p: r.mean_session_s for p, r in out["runs"].items()}}


def fastest_choice(means: dict[str, float]) -> str:
    """Return the ``RANK_CHOICES`` entry that describes ``means`` (mean session s per policy)."""
    m = np.array([means[p] for p in POLICIES])
    if m.max() - m.min() <= SAME_SPREAD * m.min():
        return RANK_CHOICES[3]
    first_two = {POLICIES[i] for i in np.argsort(m, kind="stable")[:2]}
    if first_two == {"Reserve", "Ticket"}:
        return RANK_CHOICES[2]
    return RANK_CHOICES[1] if POLICIES[int(np.argmin(m))] == "FTP" else RANK_CHOICES[0]


def ticket_gain_pct(setting: dict) -> float:
    """Return Ticket's improvement of the mean session time over the HTTP-30 control at ``setting``, in %
    (the panel's own runs: the same clients, seed ``setting['seed']``)."""
    out = run_setting(PanelSetting(**setting))
    return 100 * compare_to_control(out["runs"]["Ticket"], out["control"]).time_improvement


def _rank_explanation(setting: dict) -> str:
    m = _means(setting)
    listed = ", ".join(f"{p} {m[p]:.0f} s" for p in sorted(POLICIES, key=m.get))
    return (f"The panel's own runs at this setting (seed {setting['seed']}, the same 400 clients for every "
            f"policy): {listed}; the control, HTTP on 30 sockets, {m['control']:.0f} s. The server sends the "
            "same bytes per second under every policy; what changes is who waits. Most clients of experiment 2 "
            "want only small files (under 20 KB): with sockets kept for them they get in at once instead of "
            "waiting behind 1 MB transfers, and the few large jobs lose little. That is shortest-job-first, "
            "which minimises the mean.")


def _gain_explanation(setting: dict) -> str:
    m = _means(setting)
    g = ticket_gain_pct(setting)
    return (f"Control {m['control']:.0f} s, Ticket {m['Ticket']:.0f} s: $(\\text{{control}} - "
            f"\\text{{Ticket}})/\\text{{control}}$ = {g:.0f} % (the simulator's run at this setting, seed "
            f"{setting['seed']}). The thesis measured 70-72 % for Ticket with reserved sockets (figure 19); the "
            "tables below give ours over 10 sets of clients, and say why the thesis's sessions are longer. "
            "Reserve, without tickets, does as well: the gain comes from short jobs first, not from the "
            "tickets' first-come-first-served order, which makes the waits fair rather than short.")


def panel_predictions() -> list:
    """Return the two predictions that gate the live panel (and the tables printing the same answer):
    which policies are fastest, and Ticket's improvement over the control in %, at ``PANEL_SETTING``."""
    rank = ChoicePrediction(
        "Experiment 2 (mostly small files), the server has **half** the bandwidth its clients need, 6 extra "
        "sockets: which policies give the shortest mean session time?",
        choices=list(RANK_CHOICES), answer=lambda s: fastest_choice(_means(s)), feedback=RANK_FEEDBACK,
        setting=PANEL_SETTING, explanation=_rank_explanation)
    gain = NumberPrediction(
        "Same setting: by how much does **Ticket** shorten the mean session time compared with HTTP on 30 "
        "sockets (the control)? Answer in % of the control's mean.",
        answer=ticket_gain_pct, unit="%", rel_tol=0.0, abs_tol=10.0, bounds=(-100.0, 100.0), digits=2,
        setting=PANEL_SETTING, explanation=_gain_explanation)
    return [rank, gain]


def ideal_numbers(sweep: SweepResult) -> dict:
    """Return, per set of clients (seed) in ``sweep``: the hard lower bound on the mean session time in
    experiment 2 at heavy overload, in % of that set's HTTP-30 mean at sufficient load (the thesis's figure
    20 unit, where its 'ideal' is 200 %); with the mean, min, max and how many exceed 200 %."""
    recs = sweep.to_records()

    def pick(load):
        return {r["seed"]: r for r in recs if (r["experiment"], r["load"], r["policy"], r["extra_sockets"])
                == (2, load, "HTTP", 0)}

    base, heavy = pick("sufficient"), pick("heavy")
    pct = np.array([100 * heavy[s]["lower_bound_mean_session_s"] / base[s]["mean_session_s"] for s in sorted(base)])
    return {"pct": pct, "mean": float(pct.mean()), "min": float(pct.min()), "max": float(pct.max()),
            "above_200": int(np.sum(pct > 200)), "n": int(pct.size)}


def bound_prediction(sweep: SweepResult) -> ChoicePrediction:
    """Return the prediction that gates the lower bound's table and figure 20: when the bandwidth is halved,
    can any policy merely double the mean session time? Answered from the bound over ``sweep``'s clients."""
    def answer():
        d = ideal_numbers(sweep)
        return IDEAL_CHOICES[2] if d["above_200"] > d["n"] / 2 else IDEAL_CHOICES[0]

    def explanation():
        d = ideal_numbers(sweep)
        return (f"The hard lower bound at heavy overload is {d['mean']:.0f} % of the control at full bandwidth "
                f"on average ({d['min']:.0f}-{d['max']:.0f} % over the {d['n']} sets of clients, above 200 % on "
                f"{d['above_200']} of them). At half the bandwidth the server is overloaded for the whole "
                "window: the work it cannot serve piles up at (demand $-$ capacity), and every late arrival "
                "waits for it. 'Doubling' treats each transfer as if it were alone with half the server. The "
                "thesis itself calls its 'ideal' \"far too optimistic\"; the bound shows by how much.")

    return ChoicePrediction(
        "Halve the server's bandwidth (experiment 2, heavy overload). The thesis's 'ideal' says session times "
        "should then double. Can **any** admission policy achieve that?",
        choices=list(IDEAL_CHOICES), answer=answer, feedback=IDEAL_FEEDBACK, explanation=explanation)
