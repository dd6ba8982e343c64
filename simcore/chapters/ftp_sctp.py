"""Chapter 3: FTP over TCP vs FTP over SCTP multistreaming (Ladha, Amer, Iyengar, Caro 2002).

The wiring the notebook calls: the paper's setup and claims (``data/ftp_sctp_claims.csv``), the stored
figure sweep (``data/ftp_sctp_sweep.csv``, ``simcore.ftp.figure_sweep``) read under both readings of the
paper's loss ratios, the live panel, and the static figures (``python -m simcore figures ftp_sctp``).

SCTP (the paper's designs 2-4) is being built (issue 10); until then the curves are design 1, its SACK
variant, the section 3 TCP alternatives A/B/C, parallel sessions, and the design 3/4 message patterns on
TCP with per-stream delivery, which are NOT SCTP and are labelled so everywhere.
"""

from __future__ import annotations

import csv
import html
import math

import plotly.graph_objects as go

from simcore.chapters.capture_button import CaptureButton, attach
from simcore.chapters.ftp_sctp_figures import (
    CURVE_COLORS,
    competition_figure,
    cwnd_figure,
    draw_cwnd,
    hol_figure,
    loss_label,
    space_time_figure,
    sweep_figure,
)
from simcore.figures import register_figures
from simcore.ftp import FtpParams, run_traced
from simcore.ftp.figure_sweep import (
    CURVE_LABELS,
    FRACTION_READING,
    PERCENT_READING,
    STAND_INS,
    SWEEP_CSV,
    curve_params,
    load_sweep,
)
from simcore.ftp.sampling import runs_needed
from simcore.plotting import LivePanel, dropdown, new_figure, slider_from_range

__all__ = ["SLIDER_RANGES", "DESIGN_GROUPS", "claims_rows", "claims_text", "setup_text", "reading_rows",
           "reading_text", "sample_size_text", "claims_verdict_text", "panel_params", "make_panel", "figures", "warm"]

CLAIMS_CSV = SWEEP_CSV.parent / "ftp_sctp_claims.csv"
SLIDER_RANGES = {
    "loss_pct": (0.0, 30.0, 0.1),
    "n_files": (1, 20, 1),
    "rtt_ms": (10, 600, 10),
    "rate_mbps": (0.1, 10.0, 0.1),
    "run": (0, 29, 1),
    "file_kb": (1, 1024, 1),
}
DESIGN_GROUPS = {
    "1 vs the TCP alternatives A, B, C": ("ftp_tcp", "A_single_tcp", "B_persistent_data", "C_persistent_pipelined"),
    "1 vs SACK TCP": ("ftp_tcp", "ftp_sack"),
    "1 vs 4 parallel sessions": ("ftp_tcp", "parallel4_tcp"),
    "1 vs design 3/4 patterns on TCP (not SCTP)": ("ftp_tcp", "pattern3_tcp_streams", "pattern4_tcp_streams"),
    "all TCP designs": ("ftp_tcp", "ftp_sack", "A_single_tcp", "B_persistent_data", "C_persistent_pipelined",
                        "parallel4_tcp"),
}
PANEL_MAX_TIME_S = 900.0  # simulated seconds a panel session may last (a 30%-loss 1 MB mget lasts a day)


def _read_claims() -> list[dict]:
    with open(CLAIMS_CSV, newline="") as f:
        return list(csv.DictReader(f))


def claims_rows(kind: str | None = None) -> list[dict]:
    """Return the paper's setup (kind 'testbed'/'method'), claims ('claim') and overheads ('overhead')."""
    rows = _read_claims()
    return [r for r in rows if kind is None or r["kind"] == kind]


def setup_text() -> str:
    """Return the paper's testbed and method (sec. 6) beside the model's values, as text."""
    lines = [f"{'':4}{'what':38}{'paper':34}{'ours'}"]
    for r in claims_rows("testbed") + claims_rows("method"):
        lines.append(f"{r['id']:4}{r['subject'][:37]:38}{(r['value'] + ' ' + r['unit'])[:33]:34}{r['how_we_check']}")
    return "\n".join(lines)


def claims_text() -> str:
    """Return the paper's claims and overheads with their section and words, as text."""
    out = []
    for r in claims_rows("claim") + claims_rows("overhead"):
        out.append(f"{r['id']} ({r['section']}; designs {r['designs']}; needs SCTP: {r['needs_sctp']}): "
                   f"\"{r['words']}\"")
    return "\n".join(out)


def _mean(recs, curve, size, loss) -> float:
    for r in recs:
        if r["curve"] == curve and r["file_size_bytes"] == size and r["loss"] == loss:
            return r["mean_s"] if r["completed"] else math.nan
    raise ValueError(f"no stored point for curve={curve!r}, file_size_bytes={size}, loss={loss}")


def reading_rows(records: list[dict] | None = None) -> list[dict]:
    """Return, per reading of "0, 0.1 and 0.3" and per size, the ratios to design 1 of the TCP curves
    (C: pipelining on TCP, the design-4 pattern on per-stream TCP, SACK) and the runs the paper's rule
    needs for design 1 at its highest loss (sigma from the stored sweep)."""
    recs = records or load_sweep()
    out = []
    for reading, losses in (("percent", PERCENT_READING), ("fraction", FRACTION_READING)):
        for size in (10 * 1024, 1 << 20):
            for lo in losses:
                base = _mean(recs, "ftp_tcp", size, lo)
                row = {"reading": reading, "file_size_bytes": size, "loss": lo, "design1_s": base}
                for c, key in (("C_persistent_pipelined", "C_over_1"), ("pattern4_tcp_streams", "p4_over_1"),
                               ("ftp_sack", "sack_over_1")):
                    row[key] = _mean(recs, c, size, lo) / base
                sd = next(r["sd_s"] for r in recs if r["curve"] == "ftp_tcp" and r["file_size_bytes"] == size
                          and r["loss"] == lo)
                row["runs_needed"] = runs_needed(sd) if math.isfinite(sd) else math.nan
                out.append(row)
    return out


def _fmt(x: float, spec: str) -> str:
    return "n/a" if not math.isfinite(x) else format(x, spec)


def reading_text(records: list[dict] | None = None) -> str:
    """Return ``reading_rows`` as fixed-width text (ratios to 2 decimals)."""
    lines = [f"{'reading':9}{'files':>8}{'loss':>7}{'design 1 (s)':>14}{'C / 1':>8}{'pattern 4* / 1':>16}"
             f"{'SACK / 1':>10}{'runs for 0.5 s':>16}"]
    for r in reading_rows(records):
        size = "10 KB" if r["file_size_bytes"] == 10240 else "1 MB"
        lines.append(f"{r['reading']:9}{size:>8}{loss_label(r['loss']):>7}{_fmt(r['design1_s'], '.1f'):>14}"
                     f"{_fmt(r['C_over_1'], '.2f'):>8}{_fmt(r['p4_over_1'], '.2f'):>16}"
                     f"{_fmt(r['sack_over_1'], '.2f'):>10}"
                     f"{_fmt(r['runs_needed'], ',.0f'):>16}")
    lines.append("* the design-4 message pattern on TCP with per-stream delivery, NOT SCTP; n/a: a 10 x 1 MB "
                 "session at 30% does not finish within an hour")
    return "\n".join(lines)


def _runs_cell(r: dict) -> str:
    return "unfin." if not r["completed"] else f"{r['n_runs']}{'' if r['reached'] else '*'}"


def sample_size_text(records: list[dict] | None = None, curves=("ftp_tcp", "C_persistent_pipelined")) -> str:
    """Return the runs the sequential rule took per stored point (capped at 30; * = half-width target missed)."""
    recs = records or load_sweep()
    losses = sorted({r["loss"] for r in recs})
    lines = [f"{'curve':34}{'files':>7}" + "".join(f"{loss_label(lo):>8}" for lo in losses)]
    for c in curves:
        for size in (10 * 1024, 1 << 20):
            row = {r["loss"]: r for r in recs if r["curve"] == c and r["file_size_bytes"] == size}
            cells = "".join(f"{_runs_cell(row[lo]):>8}" for lo in losses)
            lines.append(f"{CURVE_LABELS[c][:33]:34}{'10 KB' if size == 10240 else '1 MB':>7}{cells}")
    lines.append("* capped at 30 runs before the 90% half-width reached 0.5 s; unfin.: a session did not finish "
                 "within an hour of simulated time")
    return "\n".join(lines)


def claims_verdict_text(records: list[dict] | None = None) -> str:
    """Return which of the paper's claims the TCP curves support under each reading (SCTP ones pending)."""
    rows = reading_rows(records)

    def ratio(reading, size, i):
        return [r for r in rows if r["reading"] == reading and r["file_size_bytes"] == size][i]["C_over_1"]

    out = []
    for reading in ("percent", "fraction"):
        small = [ratio(reading, 10240, i) for i in range(3)]
        big = [ratio(reading, 1 << 20, i) for i in range(2)]
        trend = ("the relative gain grows with loss" if small[0] > small[1] > small[2] else
                 "the relative gain shrinks with loss" if small[0] < small[1] < small[2] else "no clear trend")
        out.append(f"{reading} reading, pipelined TCP (C) vs design 1: 10 KB ratio {small[0]:.2f} -> {small[1]:.2f} "
                   f"-> {small[2]:.2f} ({trend}); "
                   f"1 MB ratio {big[0]:.2f} -> {big[1]:.2f} ({'more' if big[1] < 0.5 else 'less'} than halved)")
    return "\n".join(out)


def panel_params(values: dict, curve: str) -> FtpParams:
    """Return the ``FtpParams`` of ``curve`` at the panel's values."""
    return curve_params(curve, float(values["loss_pct"]) / 100.0, int(values["file_kb"]) * 1024,
                        n_files=int(values["n_files"]), rate_bps=float(values["rate_mbps"]) * 1e6,
                        one_way_delay_s=float(values["rtt_ms"]) / 2000.0, max_time_s=PANEL_MAX_TIME_S)


def _controls() -> dict:
    def s(name, label, value, fmt=".3g"):
        return slider_from_range(SLIDER_RANGES, name, label, value, readout_format=fmt)

    return {
        "loss_pct": s("loss_pct", "loss each way (%)", 0.3, ".1f"),
        "n_files": s("n_files", "files", 10),
        "rtt_ms": s("rtt_ms", "RTT (ms)", 70),
        "rate_mbps": s("rate_mbps", "bottleneck (Mbit/s)", 1.0, ".1f"),
        "run": s("run", "run (seed)", 0),
        "designs": dropdown("designs shown", list(DESIGN_GROUPS), "1 vs the TCP alternatives A, B, C"),
        "file_kb": s("file_kb", "file size (KB; 1024 = 1 MB)", 10),
    }


def make_panel() -> LivePanel:
    """Return the live panel: one ``mget`` per design shown, its time (bars) and the server's cwnd across
    the files (figure 1); a save-as-capture button for the first design's run."""
    bars = new_figure(widget=True, yaxis_title="mget time (s)", height=320)
    bars.update_yaxes(rangemode="tozero")
    bars.add_bar(x=[], y=[], name="one session (this run's seed)", showlegend=False)
    cwnd = cwnd_figure(widget=True)
    last: dict = {}
    panel: LivePanel | None = None

    def update(values: dict) -> str:
        curves = DESIGN_GROUPS[values["designs"]]
        runs = {}
        for i, c in enumerate(curves):
            if panel is not None and int(values["file_kb"]) * int(values["n_files"]) > 1024:
                panel.status.value = (f"<i>simulating {html.escape(CURVE_LABELS[c])} ({i + 1} of {len(curves)})"
                                      "&hellip;</i>")
            runs[c] = run_traced(panel_params(values, c), int(values["run"]))
        last["run"] = runs[curves[0]][1]
        last["name"] = f"ftp_{curves[0]}_{values['loss_pct']:g}pct_{values['file_kb']}KB_run{values['run']}"
        times = [runs[c][0].time_s for c in curves]
        bars.data[0].update(x=[CURVE_LABELS[c].replace(", not SCTP", "<br>(not SCTP)") for c in curves],
                            y=[t if math.isfinite(t) else 0.0 for t in times],
                            marker=dict(color=[CURVE_COLORS[c] for c in curves]),
                            text=[f"{t:.2f} s" if math.isfinite(t) else f"not done in {PANEL_MAX_TIME_S:g} s"
                                  for t in times], textposition="outside", cliponaxis=False)
        draw_cwnd(cwnd, runs)
        t1 = times[0]
        parts = [f"<b>{html.escape(CURVE_LABELS[c])}</b>: {t:.2f} s"
                 + (f" ({t / t1:.2f} x design 1)" if c != "ftp_tcp" and math.isfinite(t1) and t1 > 0 else "")
                 + f", {runs[c][0].retransmits} retransmissions, {runs[c][0].timeouts} timeouts, "
                 f"{runs[c][0].server_time_wait} server TIME-WAIT"
                 for c, t in zip(curves, times, strict=True) if math.isfinite(t)]
        note = (" Dotted: the design 3/4 message patterns on TCP with per-stream delivery, NOT SCTP."
                if any(c in STAND_INS for c in curves) else "")
        return "; ".join(parts) + "." + note

    panel = LivePanel(_controls(), update, [bars, cwnd], title="One mget, re-run: time and the server's cwnd",
                      columns=3)
    attach(panel, CaptureButton(lambda: last.get("run"), lambda: last.get("name", "ftp")))
    return panel


@register_figures("ftp_sctp")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: figures 4 and 5 re-run (stored sweep), figure 1 (cwnd across
    files), space-time diagrams of designs 1, B, C and A, head-of-line blocking, parallel sessions."""
    out = {"fig4_10KB": sweep_figure(10 * 1024), "fig5_1MB": sweep_figure(1 << 20)}
    cw = cwnd_figure(title="Figure 1 re-run: the server's cwnd across 10 x 100 KB files, no loss")
    draw_cwnd(cw, {c: run_traced(curve_params(c, 0.0, 100 * 1024), 0)
                   for c in ("ftp_tcp", "B_persistent_data", "C_persistent_pipelined", "pattern4_tcp_streams")})
    out["fig1_cwnd"] = cw
    for c in ("ftp_tcp", "B_persistent_data", "C_persistent_pipelined", "A_single_tcp"):
        out[f"space_time_{c}"] = space_time_figure(c)
    out["hol_replies"] = hol_figure()
    out["parallel_competition"] = competition_figure()
    return out


def warm() -> None:
    """Run each design once on a tiny session (compiles the packet kernel)."""
    for c in DESIGN_GROUPS["all TCP designs"] + STAND_INS:
        run_traced(curve_params(c, 0.01, 2048, n_files=2), 0)
