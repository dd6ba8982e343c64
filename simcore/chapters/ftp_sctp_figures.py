"""Chapter 3's figures (Ladha, Amer, Iyengar, Caro 2002): figures 4/5 from the stored sweep, figure 1
(the server's cwnd across consecutive files) and figures 2/3-style space-time diagrams from traced
sessions, head-of-line blocking of control replies, and parallel sessions against a competing flow.

Every builder returns a plotly figure; ``widget=True`` gives a ``LiveFigure`` for a panel, which the
``draw_*`` functions update in place.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_real
from simcore.ftp import FtpParams, run_traced, run_transfer
from simcore.ftp.competition import compete
from simcore.ftp.figure_sweep import (
    CURVE_LABELS,
    FRACTION_READING,
    LOSSES,
    PERCENT_READING,
    curve_params,
    load_sweep,
)
from simcore.ftp.session import SERVER
from simcore.plotting import new_figure

__all__ = ["CURVE_COLORS", "CURVE_DASH", "CURVE_SYMBOL", "DESIGN_GROUPS", "loss_label", "sweep_figure", "server_cwnd",
           "cwnd_at_file_starts", "cwnd_figure", "draw_cwnd", "space_time_figure", "reply_latencies",
           "first_blocked_reply", "hol_figure", "competition_figure"]

# Okabe-Ito colours (design 4: Tol's wine, which green and blue stay further from under deuteranopia than
# Okabe-Ito's reddish purple). A design keeps its colour in every plot; the curves of any one group (the only curves a
# plot shows together) are in different hue families (blue, orange, green, purple, black, vermillion), checked
# under simulated colour blindness in tests/chapters/test_ftp_sctp_figures.py. Dashed: TCP alternatives to the
# paper's designs; dotted: message patterns on TCP with per-stream delivery (not SCTP).
CURVE_COLORS = {"ftp_tcp": "#0072B2", "sctp2_ftp": "#E69F00", "sctp3_multistream": "#009E73",
                "sctp4_pipelined": "#882255", "A_single_tcp": "#009E73", "B_persistent_data": "#E69F00",
                "C_persistent_pipelined": "#882255", "ftp_sack": "#000000", "parallel4_tcp": "#D55E00",
                "pattern3_tcp_streams": "#D55E00", "pattern4_tcp_streams": "#000000"}
CURVE_DASH = {"A_single_tcp": "dash", "B_persistent_data": "dash", "C_persistent_pipelined": "dash",
              "ftp_sack": "dashdot", "parallel4_tcp": "longdash", "pattern3_tcp_streams": "dot",
              "pattern4_tcp_streams": "dot"}
CURVE_SYMBOL = {"ftp_tcp": "circle", "sctp2_ftp": "square", "sctp3_multistream": "diamond",
                "sctp4_pipelined": "triangle-up", "A_single_tcp": "diamond-open", "B_persistent_data": "square-open",
                "C_persistent_pipelined": "triangle-up-open", "ftp_sack": "x", "parallel4_tcp": "cross",
                "pattern3_tcp_streams": "diamond-wide", "pattern4_tcp_streams": "triangle-down"}
# the curves a plot shows together (the live panel's "designs" menu, the static figures 4 and 5)
DESIGN_GROUPS = {
    "paper's designs 1-4": ("ftp_tcp", "sctp2_ftp", "sctp3_multistream", "sctp4_pipelined"),
    "1 vs TCP alternatives A-C": ("ftp_tcp", "A_single_tcp", "B_persistent_data", "C_persistent_pipelined"),
    "1 vs SACK, 4 parallel": ("ftp_tcp", "ftp_sack", "parallel4_tcp"),
    "3, 4 vs TCP patterns": ("sctp3_multistream", "sctp4_pipelined", "pattern3_tcp_streams", "pattern4_tcp_streams"),
}
ROLE_COLORS = {"control": "#E69F00", "data": "#0072B2", "single": "#009E73"}


def loss_label(loss: float) -> str:
    """Return a loss probability as the chapter writes it: '0', '0.1%', '30%'."""
    return "0" if loss == 0 else f"{100 * loss:g}%"


def sweep_figure(file_size_bytes: int, group: str = "paper's designs 1-4", records: list[dict] | None = None
                 ) -> go.Figure:
    """Return figure 4 (10 KB) or 5 (1 MB) re-run for the curves of ``group`` (a key of ``DESIGN_GROUPS``):
    mean ``mget`` time of 10 files against loss (both directions), with 90% intervals, from the stored sweep
    (``data/ftp_sctp_sweep.csv``). The two readings' loss points are marked; unfinished points are left out;
    the time axis is logarithmic (labels at decades), because times span 1 s to a day."""
    if group not in DESIGN_GROUPS:
        raise ValueError(f"group={group!r} is not allowed: must be one of {list(DESIGN_GROUPS)!r}")
    recs = [r for r in (records or load_sweep()) if r["file_size_bytes"] == file_size_bytes]
    size = "10 KB" if file_size_bytes == 10240 else f"{file_size_bytes / 2**20:g} MB"
    fig = new_figure(title=f"10 x {size} files, {group}: mean mget time (90% interval)",
                     xaxis_title="packet loss probability, each direction", yaxis_title="mget time (s, log)")
    x_all = [loss_label(lo) for lo in LOSSES]
    for c in DESIGN_GROUPS[group]:
        rows = sorted((r for r in recs if r["curve"] == c and r["completed"]), key=lambda r: r["loss"])
        fig.add_scatter(x=[loss_label(r["loss"]) for r in rows], y=[r["mean_s"] for r in rows],
                        error_y=dict(type="data", array=[r["half_width_s"] for r in rows], visible=True),
                        mode="lines+markers", name=CURVE_LABELS[c],
                        line=dict(color=CURVE_COLORS[c], dash=CURVE_DASH.get(c, "solid")),
                        marker=dict(symbol=CURVE_SYMBOL[c], size=8),
                        customdata=[[r["n_runs"]] for r in rows],
                        hovertemplate="%{x}: %{y:.3g} s (%{customdata[0]} runs)<extra>" + CURVE_LABELS[c] + "</extra>")
    for losses, text in ((PERCENT_READING[1:], "0.1 / 0.3 read as %"), (FRACTION_READING[1:], "read as fractions")):
        for lo in losses:
            fig.add_vline(x=x_all.index(loss_label(lo)), line=dict(color="#bbbbbb", dash="dash"))
        fig.add_annotation(x=x_all.index(loss_label(losses[0])), y=1.0, yref="paper", text=text, showarrow=False,
                           xanchor="left", yanchor="bottom", font=dict(size=11, color="#777"))
    fig.update_xaxes(type="category", categoryorder="array", categoryarray=x_all)
    fig.update_yaxes(type="log", dtick=1, tickformat="~g")
    fig.update_layout(height=440, legend=dict(orientation="h", yanchor="top", y=-0.18, x=0), margin=dict(b=110))
    return fig


def server_cwnd(res, pl, t0: float) -> tuple[np.ndarray, np.ndarray]:
    """Return (time since ``t0`` in s, cwnd in segments) of every connection direction on which the FTP
    server sends file data, one after another (NaN between connections: each new one starts over).
    SCTP's cwnd (bytes) is shown in full DATA chunks (1452 payload bytes on a 1500-byte MTU)."""
    tt = res.tcp_trace
    p = pl.params
    mss = p.sctp.max_payload_bytes if p.transport == "sctp" else p.tcp.segment_bytes
    xs, ys = [], []
    for i, c in enumerate(pl.conns):
        if pl.conn_role[i] == "control":
            continue
        d = 0 if c.client == SERVER else 1
        m = (tt.conn == i) & (tt.direction == d)
        if m.any():
            xs += [tt.time_s[m] - t0, [np.nan]]
            ys += [tt.cwnd_bytes[m] / mss, [np.nan]]
    if not xs:
        return np.zeros(0), np.zeros(0)
    return np.concatenate(xs), np.concatenate(ys)


def cwnd_at_file_starts(curve: str, file_size_bytes: int = 100 * 1024, seed: int = 0) -> list[float]:
    """Return the server's cwnd (segments, as ``server_cwnd``) when each file's data is written, in one
    loss-free session of ``curve``: figure 1's point (the window kept or clamped between files)."""
    t, res, pl = run_traced(curve_params(curve, 0.0, file_size_bytes), seed)
    x, y = server_cwnd(res, pl, t.start_s)
    out = []
    for k in range(1, pl.params.n_files + 1):
        first = min(i for i in range(len(pl.msgs)) if pl.file[i] == k and pl.kind[i] == "data")
        m = x <= res.message_write_s[first] - t.start_s + 1e-9
        out.append(float(y[m][~np.isnan(y[m])][-1]) if m.any() else float("nan"))
    return out


def cwnd_figure(*, widget: bool = False, title: str = "") -> go.Figure:
    """Return an empty figure 1: the server's cwnd (segments) over the mget, one trace per design."""
    fig = new_figure(widget=widget, title=title, xaxis_title="time since the first packet after mget (s)",
                     yaxis_title="server cwnd (segments)", height=380)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.2, x=0), margin=dict(b=110))
    return fig


def draw_cwnd(fig: go.Figure, runs: dict[str, tuple]) -> None:
    """Draw ``{curve: (transfer, traced result, plan)}`` into ``fig`` (one step line per curve)."""
    keep = len(runs)
    while len(fig.data) < keep:
        fig.add_scatter(x=[], y=[], mode="lines", line_shape="hv")
    for i, (c, (t, res, pl)) in enumerate(runs.items()):
        x, y = server_cwnd(res, pl, t.start_s)
        fig.data[i].update(x=x, y=y, name=CURVE_LABELS[c], visible=True, mode="lines", line_shape="hv",
                           line=dict(color=CURVE_COLORS[c], dash=CURVE_DASH.get(c, "solid")))
    for tr in fig.data[keep:]:
        tr.update(x=[], y=[], visible=False)


def space_time_height_px(span_s: float) -> int:
    """Return a space-time diagram's height: taller for a longer session (so designs compare by eye), 120 px
    per second over a floor of 320 px that keeps the shortest sessions readable, at most 12 s. Pixels."""
    span_s = check_real("span_s", span_s, 0.0)
    return 320 + int(120 * min(span_s, 12.0))


def space_time_figure(curve: str, params: FtpParams | None = None, seed: int = 0, t_max_s: float | None = None
                      ) -> go.Figure:
    """Return a figures 2/3-style space-time diagram of one session of ``curve``: client at x = 0, server
    at x = 1, time down; every packet a thin line (dropped: dotted, x), every command and reply an arrow
    labelled with its text, colour by connection role (control, data, or the single connection)."""
    p = params or curve_params(curve, 0.0, 10 * 1024, n_files=2)
    t, res, pl = run_traced(p, seed)
    pt = res.packet_trace
    t0 = t.start_s - 0.02
    t_end = t0 + 0.02 + (t.complete_s if np.isfinite(t.complete_s) else p.max_time_s) + 0.1
    t_end = t_end if t_max_s is None else min(t_end, t0 + t_max_s)
    fig = new_figure(title=f"{CURVE_LABELS[curve]}: one session ({p.n_files} x {p.file_size_bytes} B, loss "
                           f"{loss_label(p.loss)}, seed {seed}); mget takes {t.time_s:.3f} s",
                     yaxis_title="time since mget (s)", height=space_time_height_px(t_end - t0))
    sent = np.flatnonzero((pt.kind == 0) & (pt.time_s >= t0) & (pt.time_s <= t_end))
    end = {int(u): j for j, u in zip(np.flatnonzero(pt.kind > 0), pt.uid[pt.kind > 0], strict=True)}
    for role in ("control", "data", "single"):
        xs, ys, dx, dy = [], [], [], []
        for i in sent:
            c = int(pt.conn[i])
            if c >= len(pl.conns) or pl.conn_role[c] != role:
                continue
            sender = pl.conns[c].client if pt.direction[i] == 0 else pl.conns[c].server
            x0 = 0.0 if sender != SERVER else 1.0
            j = end.get(int(pt.uid[i]))
            t1 = pt.time_s[j] if j is not None else pt.time_s[i]
            if j is None or pt.kind[j] != 1:
                dx.append(0.5)  # lost at the router (Dummynet: on arrival), drawn halfway
                dy.append(t1 - t0 - 0.02)
                xs += [x0, 0.5, None]
                ys += [pt.time_s[i] - t0 - 0.02, t1 - t0 - 0.02, None]
            else:
                xs += [x0, 1.0 - x0, None]
                ys += [pt.time_s[i] - t0 - 0.02, t1 - t0 - 0.02, None]
        if xs:
            fig.add_scatter(x=np.array(xs, float), y=np.array(ys, float), mode="lines", name=f"{role} packets",
                            line=dict(color=ROLE_COLORS[role], width=1), hoverinfo="y")
        if dx:
            fig.add_scatter(x=dx, y=dy, mode="markers", name=f"{role} packet lost", marker_symbol="x",
                            marker=dict(color="#000000", size=9))  # black: vermillion is control's orange family
    hx, hy, ht = [], [], []  # handshake packets, labelled where they leave (questions ask to count them)
    sctp = p.transport == "sctp"
    for i in sent:
        f = int(pt.flags[i])
        if (not f & 1 and not f & 32) or f & 4:  # SYN / INIT or a cookie; not a FIN / SHUTDOWN
            continue
        c = int(pt.conn[i])
        if c >= len(pl.conns):
            continue
        opener = pt.direction[i] == 0
        if sctp:
            name = ("INIT" if opener else "INIT-ACK") if f & 1 else ("COOKIE-ECHO" if opener else "COOKIE-ACK")
        else:
            name = "SYN" if opener else "SYN-ACK"
        sender = pl.conns[c].client if opener else pl.conns[c].server
        hx.append(0.04 if sender != SERVER else 0.96)
        hy.append(pt.time_s[i] - t0 - 0.02)
        ht.append(name + (" (again)" if f & 16 else ""))
    if hx:
        fig.add_scatter(x=hx, y=hy, mode="text", text=ht, name="handshake packets, where they leave",
                        textposition=["bottom right" if x < 0.5 else "bottom left" for x in hx],
                        textfont=dict(size=9, color="#444"), hoverinfo="y+text")
    lx, ly, lt = [], [], []
    for k, m in enumerate(pl.msgs):
        if pl.kind[k] == "data" or pl.file[k] < 0 or not np.isfinite(res.message_write_s[k]):
            continue
        c = pl.conns[m.conn]
        host = c.client if m.sender == "client" else c.server
        w = res.message_write_s[k] - t0 - 0.02
        if w > t_end - t0:
            continue
        x = -0.02 if host != SERVER else 1.02
        if lx and lx[-1] == x and abs(ly[-1] - w) < 0.01:  # written together (e.g. 150 and 226): one label
            lt[-1] += ", " + pl.label[k]
            continue
        lx.append(x)
        ly.append(w)
        lt.append(pl.label[k])
    fig.add_scatter(x=lx, y=ly, mode="text", text=lt, name="commands (left) and replies (right), as written",
                    textposition=["middle left" if x < 0.5 else "middle right" for x in lx], textfont=dict(size=10))
    fig.update_yaxes(autorange="reversed")
    fig.update_xaxes(range=[-0.45, 1.45], tickvals=[0, 1], ticktext=["FTP client", "FTP server"], showgrid=False)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.08, x=0), margin=dict(b=90))
    return fig


def reply_latencies(curve: str, loss: float, seeds=range(10), n_files: int = 10,
                    file_size_bytes: int = 10 * 1024) -> np.ndarray:
    """Return the time (s) from ftpd writing each control reply (150/125, 213, 226, 200) to its arrival at
    the client, over sessions with ``seeds``: on one byte stream a reply waits behind lost file data."""
    out = []
    p = curve_params(curve, loss, file_size_bytes, n_files=n_files)
    for s in seeds:
        t, res, pl = run_traced(p, s)
        for k in range(len(pl.msgs)):
            if pl.kind[k] == "reply" and pl.file[k] >= 1:
                out.append(res.message_done_s[k] - res.message_write_s[k])
    return np.array(out)


def first_blocked_reply(loss: float = 0.03, seed: int = 4, file_size_bytes: int = 10 * 1024) -> dict:
    """Return the first message whose arrival differs between design A (one TCP byte stream) and the same
    session with per-stream delivery (same seed): up to it both runs are identical packet for packet, so
    the difference is head-of-line blocking alone. Times in s from the first packet after mget."""
    ta, ra, pa = run_traced(curve_params("A_single_tcp", loss, file_size_bytes), seed)
    ts, rs, _ = run_traced(curve_params("pattern3_tcp_streams", loss, file_size_bytes), seed)
    for k in np.argsort(ra.message_write_s, kind="stable"):
        if not np.isclose(ra.message_done_s[k], rs.message_done_s[k], rtol=0, atol=1e-9):
            return {"label": pa.label[k], "file": int(pa.file[k]),
                    "written_s": float(ra.message_write_s[k] - ta.start_s),
                    "read_one_stream_s": float(ra.message_done_s[k] - ta.start_s),
                    "read_per_stream_s": float(rs.message_done_s[k] - ts.start_s)}
    raise ValueError(f"no message was held back in this session (loss={loss}, seed={seed}): try another seed")


def hol_figure(loss: float = 0.03, seeds=range(10)) -> go.Figure:
    """Return the distribution of control-reply delays for design A (one TCP byte stream), design B
    (separate control connection) and the design-3 pattern on TCP with per-stream delivery."""
    fig = new_figure(title=f"Control replies, server write -> client read, loss {loss_label(loss)} ({len(seeds)} "
                           "sessions of 10 x 10 KB)", yaxis_title="reply delay (s, log)", height=420)
    colors = {**CURVE_COLORS, "pattern3_tcp_streams": "#000000"}  # vermillion would be B's orange family
    for c, color in ((c, colors[c]) for c in ("A_single_tcp", "B_persistent_data", "pattern3_tcp_streams")):
        lat = reply_latencies(c, loss, seeds)
        fig.add_box(y=lat, name=CURVE_LABELS[c].replace(", not SCTP", "<br>(not SCTP)"), boxpoints="all",
                    jitter=0.5, pointpos=0, marker=dict(color=color, size=4), line=dict(color=color))
    fig.update_yaxes(type="log")
    fig.update_layout(showlegend=False)
    return fig


def competition_figure(ns=(1, 2, 4, 8), seeds=range(3)) -> go.Figure:
    """Return what ``n`` parallel FTP sessions take from one competing bulk TCP flow (10 x 100 KB)."""
    share = np.array([[compete(n, seed=s).ftp_share for s in seeds] for n in ns])
    fig = new_figure(title="Parallel FTP sessions against one competing TCP flow (10 x 100 KB, no loss)",
                     xaxis_title="parallel FTP sessions n", yaxis_title="FTP's share of the bottleneck")
    fig.add_bar(x=[str(n) for n in ns], y=share.mean(axis=1), name="FTP's share (mean over seeds)",
                marker_color=CURVE_COLORS["parallel4_tcp"])
    fig.add_scatter(x=[str(n) for n in ns], y=[n / (n + 1) for n in ns], mode="markers+lines",
                    name="n / (n + 1): n TCP flows against one", line=dict(color="#D55E00", dash="dash"))
    fig.update_yaxes(range=[0, 1])
    return fig


def design_times(curves, params: FtpParams, seed: int = 0) -> dict[str, float]:
    """Return the ``mget`` time (s) of each of ``curves`` with ``params``'s testbed and files."""
    out = {}
    for c in curves:
        kw = {k: getattr(params, k) for k in ("n_files", "rate_bps", "one_way_delay_s", "max_time_s")}
        out[c] = run_transfer(curve_params(c, params.loss, params.file_size_bytes, **kw), seed).time_s
    return out
