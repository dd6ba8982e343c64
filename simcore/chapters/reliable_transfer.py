"""Chapter 0c, "Reliable data transfer and the timeout", part 1: stop-and-wait, Go-Back-N and Selective Repeat.

The panel runs ``simcore.rdt`` at the sliders' setting (protocol, window N, data and ACK loss, RTT, link rate,
timeout, seed) and draws three plots: the space-time diagram of the first packets (what is sent, lost, sent
again, acknowledged; the timeouts), and the delivered fraction of the link against the window N and against the
data loss, simulated beside the closed forms of ``simcore.rdt.theory``. Parts 2 and 3 (the RTT estimator, AIMD's
fairness) are in ``reliable_transfer_rtt`` and ``reliable_transfer_aimd``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import plotly.graph_objects as go

from simcore._validate import check_choice, check_int, check_real, store_python_numbers
from simcore.figures import register_figures
from simcore.plotting import LivePanel, color_for, dropdown, float_slider, int_slider, new_figure
from simcore.predict import ChoicePrediction, NumberPrediction
from simcore.rdt import RdtParams, RdtResult, simulate_rdt
from simcore.rdt import theory as T
from simcore.rdt.params import MAX_TRANSMISSIONS
from simcore.rng import check_seed

__all__ = ["ArqSetting", "PROTOCOL_CHOICES", "RATE_CHOICES", "DIAGRAM_PACKETS", "run", "diagram_rows",
           "window_sweep", "loss_sweep", "predictions", "make_panel", "figures", "warm"]

PACKET_BYTES = 1000
PROTOCOL_CHOICES = (("stop-and-wait (rdt3.0)", "saw"), ("Go-Back-N", "gbn"), ("Selective Repeat", "sr"))
NAMES = {"saw": "stop-and-wait", "gbn": "GBN", "sr": "SR"}
RATE_CHOICES = (("0.1 Mbit/s (L/R = 80 ms)", 0.1), ("0.5 Mbit/s (16 ms)", 0.5), ("1 Mbit/s (8 ms)", 1.0),
                ("2 Mbit/s (4 ms)", 2.0), ("10 Mbit/s (0.8 ms)", 10.0), ("1 Gbit/s (8 µs)", 1000.0))
DIAGRAM_PACKETS = 12  # the diagram follows the first 12 packets until each is acknowledged ...
DIAGRAM_MAX_SENDS = 120  # ... or its first 120 transmissions, if a flooding sender needs more
WINDOW_GRID = (1, 2, 4, 6, 8, 12, 16, 32)
LOSS_GRID = (0.0, 0.05, 0.1, 0.2, 0.35, 0.5)
SWEEP_PACKET_TIMES = 2000  # each simulated point of the sweeps: at least this many packet times ...
SWEEP_ROUNDS = 40  # ... and this many timeouts plus round trips ...
SWEEP_MAX_SENDS = 8_000  # ... but at most this many transmissions: a move runs 35 runs, so at most 280,000


@dataclass(frozen=True)
class ArqSetting:
    """One setting of the panel.

    protocol: 'saw', 'gbn' or 'sr'. window: N in [1, 32] packets (stop-and-wait uses 1 whatever it is).
    loss_data_pct, loss_ack_pct: loss of data packets / ACKs, in [0, 50] %. rtt_ms: round-trip propagation, in
    [1, 400] ms. rate_mbps: link rate, in [0.05, 1000] Mbit/s (packets of 1000 bytes). timeout_ms: the
    retransmission timeout, in [1, 2000] ms. seed: int >= 0.
    """

    protocol: str = "gbn"
    window: int = 4
    loss_data_pct: float = 10.0
    loss_ack_pct: float = 0.0
    rtt_ms: float = 40.0
    rate_mbps: float = 1.0
    timeout_ms: float = 60.0
    seed: int = 1

    def __post_init__(self):
        store_python_numbers(self)
        check_choice("protocol", self.protocol, tuple(v for _, v in PROTOCOL_CHOICES))
        check_int("window", self.window, 1, 32)
        check_real("loss_data_pct", self.loss_data_pct, 0.0, 50.0)
        check_real("loss_ack_pct", self.loss_ack_pct, 0.0, 50.0)
        check_real("rtt_ms", self.rtt_ms, 1.0, 400.0)
        check_real("rate_mbps", self.rate_mbps, 0.05, 1000.0)
        check_real("timeout_ms", self.timeout_ms, 1.0, 2000.0)
        check_seed(self.seed)

    @property
    def packet_time_s(self) -> float:
        """L/R, seconds."""
        return 8.0 * PACKET_BYTES / (self.rate_mbps * 1e6)

    def params(self, protocol: str | None = None, window: int | None = None, loss_data: float | None = None,
               n_packets: int = 0) -> RdtParams:
        """Return the ``RdtParams`` of this setting (or of another protocol / window / data loss), run for
        ``SWEEP_PACKET_TIMES`` packet times or ``SWEEP_ROUNDS`` timeouts plus round trips, whichever is longer, but
        stopped at ``SWEEP_MAX_SENDS`` transmissions (a sender flooding a fast link with premature retransmissions
        is cut short: its points are measured over less time)."""
        proto = protocol or self.protocol
        n = 1 if proto == "saw" else (window or self.window)
        tx = self.packet_time_s
        duration = max(SWEEP_PACKET_TIMES * tx, SWEEP_ROUNDS * (tx + self.rtt_ms * 1e-3 + self.timeout_ms * 1e-3))
        duration = min(duration, (MAX_TRANSMISSIONS - 2) * tx)
        return RdtParams(protocol=proto, window=n, packet_bytes=PACKET_BYTES, rate_bps=self.rate_mbps * 1e6,
                         rtt_s=self.rtt_ms * 1e-3, timeout_s=self.timeout_ms * 1e-3,
                         loss_data=self.loss_data_pct / 100.0 if loss_data is None else loss_data,
                         loss_ack=self.loss_ack_pct / 100.0, duration_s=duration, n_packets=n_packets,
                         max_sends=SWEEP_MAX_SENDS)


def run(setting: ArqSetting) -> RdtResult:
    """Return the run of ``setting`` (its sweep length)."""
    return simulate_rdt(setting.params(), setting.seed)


def _efficiency(s: ArqSetting, res: RdtResult) -> float:
    """The delivered fraction after the first round trip (or over the second half of a run cut shorter)."""
    return res.efficiency_after(min(s.packet_time_s + s.rtt_ms * 1e-3, 0.5 * res.end_s))


def _acked_by(res: RdtResult) -> float:
    """Return when the sender knew that each of the first DIAGRAM_PACKETS packets had arrived (or the run's end)."""
    ok = ~np.isnan(res.ack_arrive_s)
    t, n = res.ack_arrive_s[ok], res.ack_no[ok]
    if res.params.protocol == "sr":
        first = [t[n == s].min() if np.any(n == s) else math.inf for s in range(DIAGRAM_PACKETS)]
    else:  # cumulative ACKs: ACK n covers every packet up to n
        first = [t[n >= s].min() if np.any(n >= s) else math.inf for s in range(DIAGRAM_PACKETS)]
    return min(max(first), res.end_s)


def diagram_rows(res: RdtResult) -> dict:
    """Return what the space-time diagram draws, in ms, until the first DIAGRAM_PACKETS packets are acknowledged:
    per data transmission and ACK its start, end (NaN: lost) and label; the timeouts; and the time shown."""
    end = _acked_by(res)
    if res.data_start_s.size > DIAGRAM_MAX_SENDS:
        end = min(end, float(res.data_start_s[DIAGRAM_MAX_SENDS - 1]))
    saw = res.params.protocol == "saw"
    seq = res.data_seq % 2 if saw else res.data_seq
    shown = res.data_start_s <= end
    from simcore.rdt import ACTIONS

    data = [dict(t0=1e3 * t, t1=1e3 * a, retx=bool(r), label=f"pkt{q}" + (" again" if r else ""),
                 action=ACTIONS[int(act)], seq=int(q))
            for t, a, r, q, act, keep in zip(res.data_start_s, res.data_arrive_s, res.data_retx, seq,
                                             res.data_action, shown, strict=True) if keep]
    ackno = res.ack_no % 2 if saw else res.ack_no
    acks = [dict(t0=1e3 * t, t1=1e3 * a, label=f"ACK{n}") for t, a, n in
            zip(res.ack_start_s, res.ack_arrive_s, ackno, strict=True) if t <= end]
    tos = [(1e3 * t, f"timeout (pkt{(s % 2) if saw else s})") for t, s in zip(res.timeout_at_s, res.timeout_seq,
                                                                               strict=True) if t <= end]
    return {"data": data, "acks": acks, "timeouts": tos, "end_ms": 1e3 * end}


def window_sweep(s: ArqSetting) -> dict:
    """Return GBN's and SR's simulated delivered fraction at each window of WINDOW_GRID (stop-and-wait is N = 1)
    and the closed forms on every window 1..32 at ``s``'s losses, RTT, rate and timeout."""
    out = {"window": np.array(WINDOW_GRID)}
    for proto in ("gbn", "sr"):
        out[proto] = np.array([_efficiency(s, simulate_rdt(s.params(proto, n), s.seed)) for n in WINDOW_GRID])
    ns = np.arange(1, 33)
    tx, rtt, to = s.packet_time_s, s.rtt_ms * 1e-3, s.timeout_ms * 1e-3
    pd, pa = s.loss_data_pct / 100.0, s.loss_ack_pct / 100.0
    out["n"] = ns
    out["lossless"] = np.array([T.pipelined_utilisation(int(n), tx, rtt) for n in ns])
    out["gbn_formula"] = np.array([T.go_back_n_efficiency(int(n), tx, rtt, to, pd) if pa == 0 else math.nan
                                   for n in ns])
    out["sr_formula"] = np.array([T.selective_repeat_efficiency(pd, pa) if T.sr_window_never_binds(int(n), tx, rtt, to)
                                  and to >= tx + rtt else math.nan for n in ns])
    out["saw_formula"] = T.stop_and_wait_lossy_efficiency(tx, rtt, to, pd, pa)
    return out


def loss_sweep(s: ArqSetting) -> dict:
    """Return each protocol's simulated delivered fraction at each data loss of LOSS_GRID (window N of ``s``,
    its ACK loss) and the closed forms on a fine loss grid."""
    out = {"loss": np.array(LOSS_GRID)}
    for proto in ("saw", "gbn", "sr"):
        out[proto] = np.array([_efficiency(s, simulate_rdt(s.params(proto, loss_data=p), s.seed)) for p in LOSS_GRID])
    ps = np.round(np.arange(0.0, 0.501, 0.01), 2)
    tx, rtt, to, n = s.packet_time_s, s.rtt_ms * 1e-3, s.timeout_ms * 1e-3, s.window
    pa = s.loss_ack_pct / 100.0
    out["p"] = ps
    out["saw_formula"] = np.array([T.stop_and_wait_lossy_efficiency(tx, rtt, to, p, pa) for p in ps])
    out["gbn_formula"] = np.array([T.go_back_n_efficiency(n, tx, rtt, to, p) if pa == 0 else math.nan for p in ps])
    ok = T.sr_window_never_binds(n, tx, rtt, to) and to >= tx + rtt
    out["sr_formula"] = np.array([T.selective_repeat_efficiency(p, pa) if ok else math.nan for p in ps])
    return out


def _empty_figures(widget: bool) -> tuple[go.Figure, go.Figure, go.Figure]:
    dg = new_figure(widget=widget, title="Space-time diagram: the first 12 packets", xaxis_title="",
                    yaxis_title="time (ms)", height=560)
    for name, key, dash in (("data packet", "data packet", "solid"), ("sent again", "retransmission", "solid"),
                            ("ACK", "ACK", "dash")):
        dg.add_scatter(mode="lines", name=name, line=dict(color=color_for(key), width=1.6, dash=dash),
                       hoverinfo="skip")
    dg.add_scatter(mode="markers", name="lost", marker=dict(color=color_for("drop"), symbol="x", size=11))
    dg.add_scatter(mode="markers", name="timeout", marker=dict(color=color_for("timeout"), symbol="diamond", size=9))
    dg.add_scatter(mode="text", name="sender", showlegend=False, textposition="middle left",
                   textfont=dict(size=10), hoverinfo="skip")
    dg.add_scatter(mode="text", name="receiver", showlegend=False, textposition="middle right",
                   textfont=dict(size=10), hoverinfo="skip")
    dg.update_layout(legend=dict(orientation="h", y=-0.02, yanchor="top", x=0), margin=dict(b=60, t=80))
    dg.update_xaxes(range=[-1.1, 2.0], showticklabels=False, showgrid=False, zeroline=False)
    dg.update_yaxes(autorange=False)
    dg.layout.shapes = [dict(type="line", xref="x", yref="paper", x0=x, x1=x, y0=0, y1=1,
                             line=dict(color="#555", width=2)) for x in (0, 1)]
    dg.layout.annotations = [dict(x=x, y=1.0, xref="x", yref="paper", text=f"<b>{t}</b>", showarrow=False,
                                  yanchor="bottom") for x, t in ((0, "sender"), (1, "receiver"))]
    by_n = new_figure(widget=widget, title="Delivered fraction of the link against the window N",
                      xaxis_title="window N (packets)", yaxis_title="delivered packets × L/R / time", height=420)
    by_p = new_figure(widget=widget, title="Delivered fraction of the link against data loss",
                      xaxis_title="data packets lost (%)", yaxis_title="delivered packets × L/R / time", height=420)
    for fig in (by_n, by_p):
        fig.add_scatter(mode="lines", name="no loss: min(1, N(L/R)/(RTT+L/R))", line=dict(color=color_for("bound"),
                        width=2))
        fig.add_scatter(mode="lines", name="GBN formula", line=dict(color=color_for("closed form"), dash="dash"))
        fig.add_scatter(mode="lines", name="SR formula", line=dict(color=color_for("closed form"), dash="dot"))
        fig.add_scatter(mode="lines+markers", name="stop-and-wait formula",
                        line=dict(color=color_for("closed form"), dash="dashdot", width=1),
                        marker=dict(color=color_for("closed form"), symbol="star", size=9))
        for proto, symbol in (("saw", "diamond"), ("gbn", "circle"), ("sr", "square")):
            fig.add_scatter(mode="markers", name=f"{NAMES[proto]} simulated",
                            marker=dict(color=color_for(NAMES[proto]), symbol=symbol, size=9))
        fig.add_scatter(mode="markers", name="your setting", marker=dict(symbol="circle-open", size=20, color="#000",
                        line=dict(width=2)))
        fig.update_yaxes(range=[0, 1.05])
        fig.update_layout(legend=dict(orientation="h", y=-0.22, yanchor="top", x=0), margin=dict(b=150))
    by_n.update_xaxes(range=[0, 33])
    by_p.update_xaxes(range=[-1, 51])
    return dg, by_n, by_p


def _segments(rows, forward: bool, lost: bool):
    """x, y of the lines of ``rows`` (None between them): sender (0) to receiver (1) if forward; a lost one ends
    halfway."""
    xs, ys = [], []
    for r in rows:
        if math.isnan(r["t1"]) != lost:
            continue
        t1 = (r["t0"] + r["mid"]) if lost else r["t1"]
        x0, x1 = (0.0, 1.0) if forward else (1.0, 0.0)
        xs += [x0, 0.5 if lost else x1, None]
        ys += [r["t0"], t1, None]
    return xs, ys


def _draw_diagram(fig: go.Figure, res: RdtResult) -> dict:
    d = diagram_rows(res)
    p = res.params
    half_ms = 0.5e3 * (p.packet_time_s + p.rtt_s / 2)  # a lost packet's line stops halfway across
    half_ack_ms = 0.5e3 * (p.ack_time_s + p.rtt_s / 2)
    for r in d["data"]:
        r["mid"] = half_ms
    for r in d["acks"]:
        r["mid"] = half_ack_ms
    first = [r for r in d["data"] if not r["retx"]]
    again = [r for r in d["data"] if r["retx"]]
    lines = []
    for rows in (first, again):
        xa, ya = _segments(rows, True, False)
        xb, yb = _segments(rows, True, True)
        lines.append((xa + xb, ya + yb))
    xa, ya = _segments(d["acks"], False, False)
    xb, yb = _segments(d["acks"], False, True)
    lines.append((xa + xb, ya + yb))
    for i, (x, y) in enumerate(lines):
        fig.data[i].update(x=x, y=y)
    lost_x = [0.5] * (sum(math.isnan(r["t1"]) for r in d["data"]) + sum(math.isnan(r["t1"]) for r in d["acks"]))
    lost_y = ([r["t0"] + half_ms for r in d["data"] if math.isnan(r["t1"])]
              + [r["t0"] + half_ack_ms for r in d["acks"] if math.isnan(r["t1"])])
    fig.data[3].update(x=lost_x, y=lost_y)
    fig.data[4].update(x=[0.0] * len(d["timeouts"]), y=[t for t, _ in d["timeouts"]])
    # the sender's column: what it sends, and its timeouts (merged with the send they cause at the same moment)
    sender = {}
    for r in d["data"]:
        sender[round(r["t0"], 9)] = r["label"]
    for t, lab in d["timeouts"]:
        key = round(t, 9)
        sender[key] = f"{lab} → {sender[key]}" if key in sender else lab
    fig.data[5].update(x=[-0.03] * len(sender), y=list(sender), text=list(sender.values()))
    # the receiver's column: what it did with each packet and which ACK it sent
    ack_of = {round(a["t0"], 9): a["label"] for a in d["acks"]}
    recv = [(r["t1"], f"{r['label'].split(' ')[0]} {r['action']}") for r in d["data"] if not math.isnan(r["t1"])]
    text = [f"{lab}, {ack_of[round(t, 9)]}" if round(t, 9) in ack_of else lab for t, lab in recv]
    fig.data[6].update(x=[1.03] * len(recv), y=[t for t, _ in recv], text=text)
    top = max(d["end_ms"], 1e-3) * 1.04
    fig.update_yaxes(range=[top, -0.03 * top])
    name = NAMES[p.protocol] if p.protocol != "saw" else "stop-and-wait (alternating bit 0/1)"
    if len(d["data"]) >= DIAGRAM_MAX_SENDS:
        fig.layout.title = (f"Space-time diagram of {name}: its first {len(d['data'])} transmissions "
                            f"({d['end_ms']:.4g} ms)")
    else:
        fig.layout.title = (f"Space-time diagram of {name}: the first {DIAGRAM_PACKETS} packets, until each is "
                            f"acknowledged ({d['end_ms']:.4g} ms)")
    return d


def _draw_sweeps(by_n: go.Figure, by_p: go.Figure, s: ArqSetting, wsw: dict, lsw: dict, here: float) -> None:
    by_n.data[0].update(x=wsw["n"], y=wsw["lossless"])
    by_n.data[1].update(x=wsw["n"], y=wsw["gbn_formula"])
    by_n.data[2].update(x=wsw["n"], y=wsw["sr_formula"])
    by_n.data[3].update(x=[1], y=[wsw["saw_formula"]])
    by_n.data[4].update(x=[1], y=[wsw["gbn"][0]])  # at N = 1 GBN is stop-and-wait
    by_n.data[5].update(x=wsw["window"], y=wsw["gbn"])
    by_n.data[6].update(x=wsw["window"], y=wsw["sr"])
    n_here = 1 if s.protocol == "saw" else s.window
    by_n.data[7].update(x=[n_here], y=[here])
    pct = 100 * lsw["p"]
    tx, rtt = s.packet_time_s, s.rtt_ms * 1e-3
    bound = T.pipelined_utilisation(s.window, tx, rtt)
    by_p.data[0].update(x=[0, 50], y=[bound, bound], name=f"no loss, N = {s.window}: min(1, N(L/R)/(RTT+L/R))")
    by_p.data[1].update(x=pct, y=lsw["gbn_formula"], name=f"GBN formula (N = {s.window})")
    by_p.data[2].update(x=pct, y=lsw["sr_formula"], name=f"SR formula (N = {s.window})")
    by_p.data[3].update(x=pct, y=lsw["saw_formula"], mode="lines")
    for i, proto in enumerate(("saw", "gbn", "sr")):
        by_p.data[4 + i].update(x=100 * lsw["loss"], y=lsw[proto])
    by_p.data[7].update(x=[s.loss_data_pct], y=[here])
    by_p.layout.title = f"Delivered fraction of the link against data loss (N = {s.window} for GBN and SR)"


def _status(s: ArqSetting, res: RdtResult, d: dict) -> str:
    p = res.params
    tx, rtt, to = p.packet_time_s, p.rtt_s, p.timeout_s
    forms = T.closed_forms(p)
    name = NAMES[p.protocol]
    parts = [f"{name}: sender busy {res.utilisation:.4g} of the time (K&R's U), delivered "
             f"<b>{_efficiency(s, res):.3g}</b> of the link"]
    parts.append(f"no-loss bound min(1, N(L/R)/(RTT+L/R)) = {forms['lossless']:.4g}")
    if not math.isnan(forms["lossy"]):
        parts.append(f"closed form with loss = {forms['lossy']:.3g}")
    text = "; ".join(parts) + "."
    shown = d["data"]
    text += (f"<br>In the diagram: {len(shown)} packets sent, {sum(r['retx'] for r in shown)} of them again, "
             f"{sum(math.isnan(r['t1']) for r in shown)} lost, {len(d['timeouts'])} timeouts, "
             f"{sum(r['action'] == 'duplicate' for r in shown)} duplicates at the receiver, "
             f"{len(d['acks'])} ACKs ({sum(math.isnan(a['t1']) for a in d['acks'])} lost).")
    if res.cut:
        text += (f"<br>The run was cut after {res.transmissions:,} transmissions ({1e3 * res.end_s:.4g} ms): the "
                 "sender floods the link.")
    if to < tx + rtt:
        text += (f"<br><b>The timeout ({1e3 * to:.4g} ms) is shorter than L/R + RTT = {1e3 * (tx + rtt):.4g} ms</b>: "
                 "it expires before any ACK can come back, so packets are sent again needlessly.")
    return text


def make_panel(setting: ArqSetting | None = None, *, gate=None) -> LivePanel:
    """Return the live panel: protocol, window N, data and ACK loss, RTT, link rate, timeout and seed; the
    space-time diagram and the delivered fraction against N and against data loss, beside the closed forms.
    gate: predictions (``predictions()``) that hold the plots back until committed."""
    s = setting or ArqSetting()
    controls = {
        "protocol": dropdown("protocol", PROTOCOL_CHOICES, s.protocol),
        "window": int_slider("window N (GBN, SR)", s.window, 1, 32),
        "loss_data_pct": float_slider("data packets lost (%)", s.loss_data_pct, 0, 50, 1),
        "loss_ack_pct": float_slider("ACKs lost (%)", s.loss_ack_pct, 0, 50, 1),
        "rtt_ms": float_slider("round-trip time RTT (ms)", s.rtt_ms, 1, 400, 1),
        "rate_mbps": dropdown("link rate R", RATE_CHOICES, s.rate_mbps),
        "timeout_ms": float_slider("timeout (ms)", s.timeout_ms, 1, 1000, 1),
        "seed": int_slider("seed", s.seed, 0, 99),
    }
    figs = _empty_figures(widget=True)
    cache: dict = {}

    def update(values: dict) -> str:
        now = ArqSetting(**values)
        key_n = (now.loss_data_pct, now.loss_ack_pct, now.rtt_ms, now.rate_mbps, now.timeout_ms, now.seed)
        key_p = (now.window, now.loss_ack_pct, now.rtt_ms, now.rate_mbps, now.timeout_ms, now.seed)
        if cache.get("key_n") != key_n:
            cache["key_n"], cache["wsw"] = key_n, window_sweep(now)
        if cache.get("key_p") != key_p:
            cache["key_p"], cache["lsw"] = key_p, loss_sweep(now)
        res = run(now)
        d = _draw_diagram(figs[0], res)
        _draw_sweeps(figs[1], figs[2], now, cache["wsw"], cache["lsw"], _efficiency(now, res))
        return _status(now, res, d)

    def idle(values: dict) -> dict[str, str]:
        out = {}
        if values["loss_data_pct"] == 0 and values["loss_ack_pct"] == 0:
            out["seed"] = "with no loss nothing in the run is random, so the seed changes nothing"
        return out

    return LivePanel(controls, update, list(figs), columns=3, idle=idle, gate=gate,
                     title="Stop-and-wait, Go-Back-N and Selective Repeat on a lossy link")


# The setting K&R 3.4.2 computes: 1 Gbit/s, RTT 30 ms, 1000-byte packets, no loss.
KR_EXAMPLE = {"protocol": "saw", "window": 1, "loss_data_pct": 0.0, "loss_ack_pct": 0.0, "rtt_ms": 30.0,
              "rate_mbps": 1000.0, "timeout_ms": 60.0, "seed": 1}
# GBN against SR with 10 % data loss and a window that keeps the link busy (N (L/R) = 128 ms).
LOSSY_16 = {"window": 16, "loss_data_pct": 10.0, "loss_ack_pct": 0.0, "rtt_ms": 40.0, "rate_mbps": 1.0,
            "timeout_ms": 60.0, "seed": 1}


def predictions() -> list:
    """Return part 1's "predict, then check" questions: K&R's stop-and-wait utilisation (1 Gbit/s, 30 ms,
    1000 bytes) and how Go-Back-N's delivered fraction compares with Selective Repeat's at 10 % loss."""
    u = T.stop_and_wait_utilisation(8 * PACKET_BYTES, 1e9, 0.030)
    q1 = NumberPrediction(
        "Stop-and-wait on K&R's link: $R$ = 1 Gbit/s, RTT = 30 ms, packets of $L$ = 1000 bytes, nothing lost. "
        "What fraction of the time is the sender busy sending?",
        answer=u, rel_tol=0.2, bounds=(0, 1), digits=2, setting=KR_EXAMPLE,
        explanation=("$U = \\dfrac{L/R}{RTT + L/R} = \\dfrac{0.008\\text{ ms}}{30.008\\text{ ms}} = 0.00027$: "
                     "the sender transmits for 8 µs and then waits 30 ms for the ACK. A 1 Gbit/s link carries "
                     "267 kbit/s. Only pipelining (a window of packets in flight) fixes this."))
    tx, rtt, to = 8e-3, 0.040, 0.060
    gbn = T.go_back_n_efficiency(16, tx, rtt, to, 0.1)
    sr = T.selective_repeat_efficiency(0.1)
    choices = ["about the same as SR's: both lose 10 %", "about 90 % of SR's", "less than half of SR's",
               "more than SR's: GBN's receiver has less to do"]
    q2 = ChoicePrediction(
        "Go-Back-N and Selective Repeat with a window of N = 16, RTT 40 ms, $L/R$ = 8 ms, timeout 60 ms, and 10 % "
        "of data packets lost. Selective Repeat delivers about 0.9 of the link. Go-Back-N delivers ...",
        choices=choices, answer=choices[2], setting={**LOSSY_16, "protocol": "gbn"},
        feedback={choices[0]: "SR loses only the lost packets' own time. GBN also throws away everything sent after "
                              "a lost packet until the timeout sends it again.",
                  choices[1]: "That would be true if a loss cost GBN one packet time; it costs RTT + timeout.",
                  choices[3]: "GBN's receiver is simpler, but simplicity costs the link, not the other way round."},
        explanation=(f"SR sends again only what was lost: each packet needs $1/(1-p)$ transmissions, so it delivers "
                     f"$1-p$ = {sr:.2f}. GBN goes back: a lost packet costs the time $D_1$ from its transmission "
                     "to the go-back, the ACK of the packet before it (RTT after it was sent) plus the timeout, "
                     "rounded up to a whole packet time: 104 ms, 13 packet times, all wasted. So GBN delivers "
                     f"$\\dfrac{{L/R}}{{L/R + pD_1 + p^2 D_2/(1-p)}}$ = {gbn:.2f}, less than half of SR's."))
    return [q1, q2]


REFERENCE = ArqSetting()


@register_figures("reliable_transfer")
def figures() -> dict[str, go.Figure]:
    """Return the chapter's static figures: part 1's diagram and sweeps at the panel's defaults, and the figures of
    parts 2 and 3 (``reliable_transfer_rtt``, ``reliable_transfer_aimd``)."""
    from simcore.chapters import reliable_transfer_aimd, reliable_transfer_rtt

    dg, by_n, by_p = _empty_figures(widget=False)
    res = run(REFERENCE)
    _draw_diagram(dg, res)
    _draw_sweeps(by_n, by_p, REFERENCE, window_sweep(REFERENCE), loss_sweep(REFERENCE),
                 _efficiency(REFERENCE, res))
    out = {"space_time_gbn": dg, "efficiency_by_window": by_n, "efficiency_by_loss": by_p}
    out.update(reliable_transfer_rtt.figures())
    out.update(reliable_transfer_aimd.figures())
    return out


def warm() -> None:
    """Compile and cache the three protocols' kernel on tiny runs."""
    for proto in ("saw", "gbn", "sr"):
        simulate_rdt(RdtParams(protocol=proto, window=1 if proto == "saw" else 4, loss_data=0.2, loss_ack=0.1,
                               duration_s=0.5), 0)
