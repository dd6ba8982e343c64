"""Chapter 3: FTP over TCP vs FTP over SCTP multistreaming (Ladha, Amer, Iyengar, Caro 2002).

The wiring the notebook calls: the paper's setup and claims (``data/ftp_sctp_claims.csv``), the stored
figure sweep (``data/ftp_sctp_sweep.csv``, ``simcore.ftp.figure_sweep``), the predictions
(``ftp_sctp_predictions``), the live panel, and the static figures (``python -m simcore figures ftp_sctp``).
The readings of the paper's loss setting and the claims' verdicts under each: ``ftp_sctp_claims``.

The curves: the paper's four designs (2-4 on simcore.packet's SCTP, the RFC 2960 preset of the 2002 KAME
stack), design 1 with SACK, the section 3 TCP alternatives A/B/C, parallel sessions, and the design 3/4
message patterns on TCP with per-stream delivery, which are NOT SCTP and are labelled so everywhere (kept
to show what SCTP's own rules change).
"""

from __future__ import annotations

import csv
import html
import math

import plotly.graph_objects as go

from simcore.chapters import ftp_sctp_predictions as P
from simcore.chapters.capture_button import CaptureButton, attach
from simcore.chapters.ftp_sctp_figures import (
    CURVE_COLORS,
    DESIGN_GROUPS,
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
    STAND_INS,
    SWEEP_CSV,
    curve_params,
    load_sweep,
)
from simcore.plotting import LivePanel, dropdown, new_figure, slider_from_range

__all__ = ["SLIDER_RANGES", "DESIGN_GROUPS", "claims_rows", "claims_text", "setup_text", "sample_size_text",
           "panel_params", "predictions", "make_panel", "figures", "warm"]

CLAIMS_CSV = SWEEP_CSV.parent / "ftp_sctp_claims.csv"
SLIDER_RANGES = {
    "loss_pct": (0.0, 30.0, 0.1),
    "n_files": (1, 20, 1),
    "rtt_ms": (10, 600, 10),
    "rate_mbps": (0.1, 10.0, 0.1),
    "run": (0, 29, 1),
    "file_kb": (1, 1024, 1),
}
FIG1_CURVES = ("ftp_tcp", "sctp3_multistream", "sctp4_pipelined")  # restarts, clamped by Max.Burst, kept open
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


def _runs_cell(r: dict) -> str:
    return "unfin." if not r["completed"] else f"{r['n_runs']}{'' if r['reached'] else '*'}" + (
        f" ({r['gave_up']} gave up)" if r.get("gave_up") else "")


def sample_size_text(records: list[dict] | None = None, curves=("ftp_tcp", "sctp4_pipelined")) -> str:
    """Return the runs the sequential rule took per point of the figure sweep (capped at 30; * = half-width
    target missed; sessions a transport gave up are counted apart, and replaced)."""
    recs = records or load_sweep()
    losses = sorted({r["loss"] for r in recs})
    lines = [f"{'curve':34}{'files':>7}" + "".join(f"{loss_label(lo):>8}" for lo in losses)]
    for c in curves:
        for size in (10 * 1024, 1 << 20):
            row = {r["loss"]: r for r in recs if r["curve"] == c and r["file_size_bytes"] == size}
            cells = "".join(f"{_runs_cell(row[lo]):>8}" for lo in losses)
            lines.append(f"{CURVE_LABELS[c][:33]:34}{'10 KB' if size == 10240 else '1 MB':>7}{cells}")
    lines.append("* capped at 30 runs before the 90% half-width reached 0.5 s; unfin.: a session did not finish")
    return "\n".join(lines)


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
        "designs": dropdown("designs", list(DESIGN_GROUPS), "paper's designs 1-4"),
        "file_kb": s("file_kb", "file size (KB; 1024 = 1 MB)", 10),
    }


def predictions() -> dict:
    """Return the chapter's "predict, then check" questions, new objects each call (``ftp_sctp_predictions``):
    'round_trips' (the design 1 diagram), 'window' (figure 1), 'sample_size' (the readings' evidence),
    'panel' (gates the live panel and figures 4 and 5), 'parallel' (parallel sessions)."""
    return {"round_trips": P.round_trips_prediction(), "window": P.window_prediction(),
            "sample_size": P.sample_size_prediction(), "panel": P.panel_prediction(),
            "parallel": P.parallel_prediction()}


def make_panel(*, gate=None) -> LivePanel:
    """Return the live panel: one ``mget`` per design shown, its time (bars) and the server's cwnd across
    the files (figure 1); a save-as-capture button for the first design's run. ``gate``: predictions that
    hold its plots and numbers back until committed (``predictions()['panel']``)."""
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
                 + (f" ({t / t1:.2f} x {html.escape(CURVE_LABELS[curves[0]].split(':')[0])})"
                    if c != curves[0] and math.isfinite(t1) and t1 > 0 else "")
                 + f", {runs[c][0].retransmits} retransmissions, {runs[c][0].timeouts} timeouts, "
                 f"{runs[c][0].server_time_wait} server TIME-WAIT"
                 for c, t in zip(curves, times, strict=True) if math.isfinite(t)]
        note = (" Dotted: the design 3/4 message patterns on TCP with per-stream delivery, NOT SCTP."
                if any(c in STAND_INS for c in curves) else "")
        return "; ".join(parts) + "." + note

    panel = LivePanel(_controls(), update, [bars, cwnd], title="One mget, re-run: time and the server's cwnd",
                      columns=3, gate=gate)
    attach(panel, CaptureButton(lambda: last.get("run"), lambda: last.get("name", "ftp")))
    return panel


@register_figures("ftp_sctp")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: figures 4 and 5 re-run (stored sweep), figure 1 (cwnd across
    files), space-time diagrams of designs 1, B, C and A, head-of-line blocking, parallel sessions."""
    out = {}
    for i, group in enumerate(DESIGN_GROUPS):
        tag = ("", "_tcp_alternatives", "_sack_parallel", "_tcp_patterns")[i]
        out[f"fig4_10KB{tag}"] = sweep_figure(10 * 1024, group)
        out[f"fig5_1MB{tag}"] = sweep_figure(1 << 20, group)
    cw = cwnd_figure(title="Figure 1 re-run: the server's cwnd across 10 x 100 KB files, no loss")
    draw_cwnd(cw, {c: run_traced(curve_params(c, 0.0, 100 * 1024), 0) for c in FIG1_CURVES})
    out["fig1_cwnd"] = cw
    for c in ("ftp_tcp", "sctp2_ftp", "sctp3_multistream", "sctp4_pipelined", "B_persistent_data",
              "C_persistent_pipelined", "A_single_tcp"):
        out[f"space_time_{c}"] = space_time_figure(c)
    out["hol_replies"] = hol_figure()
    out["parallel_competition"] = competition_figure()
    return out


def warm() -> None:
    """Run each design once on a tiny session (compiles the packet kernel)."""
    for c in dict.fromkeys(c for g in DESIGN_GROUPS.values() for c in g):
        run_traced(curve_params(c, 0.01, 2048, n_files=2), 0)
