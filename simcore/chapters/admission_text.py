"""Chapter 1's tables as text: the thesis's numbers beside ours, each line at most 100 characters.

The numbers come from ``admission_tables`` (``reproduction_table``, ``bound_table``, ``relative_times``,
``findings``); this module only lays them out. ``format_headline`` is the lecture path's one table
(experiment 2's session times, thesis beside ours); ``format_reproduction`` the thesis's full tables
(figures 7-9, 17-19) for the deep dive. Times in s, shares in %.
"""

from __future__ import annotations

from simcore.admission import LOADS
from simcore.chapters.admission_tables import LOAD_LABELS

__all__ = ["HEADLINE_SCENARIOS", "format_headline", "format_reproduction", "format_bounds",
           "format_relative_times", "format_findings"]

#: the lecture path's rows: the control, FTP, HTTP and FTP with 20 % more sockets, Reserve and Ticket with them
HEADLINE_SCENARIOS = ("HTTP +0%", "FTP +0%", "HTTP +20%", "FTP +20%", "Reserve +20%", "Ticket +20%")


def _f(v, none: str = "n/a") -> str:
    """Return ``v`` rounded to an integer as text ('-0' shown as '0'), or ``none`` for None."""
    if v is None:
        return none
    text = f"{v:.0f}"
    return "0" if text == "-0" else text


def _mean_sd(r: dict, metric: str) -> str:
    return f"{_f(r[metric]):>4} ({_f(r[metric + '_sd']):>2})"


def _thesis_net(r: dict) -> str:
    """Return the thesis's net faster share as net / clients, with its printed % in brackets if different
    (the thesis printed net / 400 in experiment 1 too, where there were 200 clients)."""
    ours, printed = r["thesis_net_faster_pct"], r["thesis_net_faster_pct_printed"]
    if ours is None or abs(ours - printed) <= 0.5 + 1e-9:  # 258 / 400 = 64.5 %, printed 65: the same
        return _f(printed, "n/a")
    return f"{_f(ours)} [{_f(printed)}]"


def format_headline(table: list[dict], experiment: int = 2) -> str:
    """Return the lecture path's table: mean session times of ``HEADLINE_SCENARIOS`` at the three loads,
    the thesis's beside ours (mean and sd over the seeds), and our hard lower bound on the mean."""
    rows = {(r["load"], r["scenario"]): r for r in table if r["experiment"] == experiment}
    n = next(iter(rows.values()))["n_seeds"]
    lines = [f"Experiment {experiment}: mean session time (s), the thesis's beside ours "
             f"(mean and sd over {n} sets of clients)",
             f"{'':<14}" + "".join(f"{LOAD_LABELS[k]:>25}" for k in LOADS),
             f"{'scenario':<14}" + f"{'thesis':>12}{'ours':>13}" * len(LOADS)]
    for sc in HEADLINE_SCENARIOS:
        cells = [rows[(k, sc)] for k in LOADS]
        lines.append(f"{sc:<14}" + "".join(f"{_f(r['thesis_mean_session_s']):>12}"
                                           f"{_mean_sd(r, 'mean_session_s'):>13}" for r in cells))
    bounds = [_mean_sd(rows[(k, "HTTP +0%")], "lower_bound_mean_session_s") for k in LOADS]
    lines.append(f"{'lower bound':<14}" + "".join(f"{'':>12}{b:>13}" for b in bounds))
    return "\n".join(line.rstrip() for line in lines)


def format_reproduction(table: list[dict], experiment: int) -> str:
    """Return the thesis's tables of ``experiment`` beside ours as text (rounded; ours: mean (sd))."""
    lines = []
    for load in LOADS:
        rows = [r for r in table if r["experiment"] == experiment and r["load"] == load]
        lines += [
            f"Experiment {experiment}, {LOAD_LABELS[load]}: thesis figure {rows[0]['figure']}, ours as mean (sd) "
            f"over {rows[0]['n_seeds']} seeds",
            f"hard lower bound on the mean session: {_mean_sd(rows[0], 'lower_bound_mean_session_s').strip()} s",
            f"{'':<14}{'session (s)':>16}{'improvement (%)':>20}{'net faster (% of clients)':>28}",
            f"{'scenario':<14}{'thesis':>7}{'ours':>9}{'thesis':>11}{'ours':>9}{'thesis [printed]':>19}{'ours':>9}",
        ]
        for r in rows:
            ctrl = r["policy"] == "HTTP" and r["extra_sockets"] == 0
            imp = "control" if ctrl else _mean_sd(r, "time_improvement_pct")
            net = "control" if ctrl else _mean_sd(r, "net_faster_pct")
            lines.append(f"{r['scenario']:<14}{_f(r['thesis_mean_session_s']):>7}{_mean_sd(r, 'mean_session_s'):>9}"
                         f"{_f(r['thesis_time_improvement_pct']):>11}{imp:>9}{_thesis_net(r):>19}{net:>9}")
        lines.append("")
    return "\n".join(line.rstrip() for line in lines).rstrip()


def format_bounds(bounds: list[dict]) -> str:
    """Return the bound table as text (s, rounded): bound beside the thesis's and our scenario means."""
    lines = [
        f"{'':<16}{'lower bound on the mean (s)':>28}{'11 scenarios, mean session (s)':>34}"
        f"{'thesis HTTP-30':>16}",
        f"{'exp. load':<16}{'mean':>12}{'[min-max] over seeds':>22}{'thesis':>15}{'ours':>13}{'/ bound':>14}",
    ]
    for b in bounds:
        spread = f"[{b['bound_min_s']:.0f}-{b['bound_max_s']:.0f}]"
        thesis = f"{b['thesis_min_s']:.0f}-{b['thesis_max_s']:.0f}"
        ours = f"{b['ours_min_s']:.0f}-{b['ours_max_s']:.0f}"
        lines.append(
            f"{b['experiment']:<2}{b['load']:<14}{b['bound_s']:>12.0f}{spread:>16}{thesis:>21}{ours:>13}"
            f"{b['thesis_control_s'] / b['bound_s']:>13.1f}x"
        )
    return "\n".join(line.rstrip() for line in lines)


def format_relative_times(rel: list[dict]) -> str:
    """Return figure 20 beside ours and the bound as text (% of HTTP-30 at sufficient load, rounded)."""
    head = "".join(f"{LOAD_LABELS[k].split(' (')[0]:>18}" for k in LOADS)
    lines = [f"{'':<16}{head}", f"{'':<16}" + f"{'thesis':>11}{'ours':>7}" * len(LOADS)]
    first = {k: next(r for r in rel if r["load"] == k) for k in LOADS}
    lines.append(f"{'thesis ideal':<16}" + "".join(f"{first[k]['ideal_pct']:>11.0f}{'':>7}" for k in LOADS))
    lines.append(f"{'hard bound':<16}" + "".join(f"{'':>11}{first[k]['bound_pct']:>7.0f}" for k in LOADS))
    for sc in dict.fromkeys(r["scenario"] for r in rel):
        cells = {r["load"]: r for r in rel if r["scenario"] == sc}
        lines.append(
            f"{sc:<16}"
            + "".join(f"{cells[k]['thesis_pct']:>11.0f}{cells[k]['ours_pct']:>7.0f}" for k in LOADS)
        )
    return "\n".join(line.rstrip() for line in lines)


def format_findings(f: dict[str, float]) -> str:
    """Return the key comparison numbers of ``findings`` as text (s and %, rounded)."""
    lines = []
    for e in (1, 2):
        pairs = [
            f"{f[f'exp{e}_{k}_control_ours_s']:.0f} vs {f[f'exp{e}_{k}_control_thesis_s']:.0f}" for k in LOADS
        ]
        lines.append(f"HTTP-30 control, exp. {e}, ours vs thesis (s): " + ", ".join(pairs))
    ratios = [f[f"exp2_{k}_control_thesis_s"] / f[f"exp2_{k}_control_ours_s"] for k in LOADS]
    lines.append("exp. 2 control, thesis / ours: " + ", ".join(f"{r:.1f}x" for r in ratios))
    for k in ("light", "heavy"):
        ours = (f[f"exp2_{k}_reserved_improvement_ours_min"], f[f"exp2_{k}_reserved_improvement_ours_max"])
        th = (f[f"exp2_{k}_reserved_improvement_thesis_min"], f[f"exp2_{k}_reserved_improvement_thesis_max"])
        lines.append(
            f"exp. 2 {k} overload, Reserve/Ticket with reserved sockets, improvement over control: "
            f"ours {ours[0]:.0f}-{ours[1]:.0f} %, thesis {th[0]:.0f}-{th[1]:.0f} %"
        )
        ftp = (f[f"exp2_{k}_ftp_improvement_ours"], f[f"exp2_{k}_ftp_improvement_thesis"])
        lines.append(
            f"exp. 2 {k} overload, FTP +0% improvement over control: "
            f"ours {ftp[0]:+.0f} %, thesis {ftp[1]:+.0f} %"
        )
    lines.append(
        f"exp. 2 heavy overload: thesis's HTTP-30 mean / our lower bound = "
        f"{f['exp2_heavy_control_thesis_over_bound']:.1f}"
    )
    if "exp2_heavy_bound_pct_of_sufficient_control" in f:
        lines.append(
            f"exp. 2 heavy overload: lower bound = {f['exp2_heavy_bound_pct_of_sufficient_control']:.0f} % "
            "of our HTTP-30 at sufficient load (thesis's 'ideal': 200 %)"
        )
    return "\n".join(line.rstrip() for line in lines)
