"""Plotly figures of packet-simulator traces (run ``simulate(..., trace=True)`` first).

- ``cwnd_figure``: congestion window and ssthresh (segments) against time, timeouts marked;
- ``time_sequence_figure``: the classic time-sequence plot (segments sent, retransmissions, ACKs, drops);
- ``queue_figure``: buffer occupancy of one link against time;
- ``queue_delay_figure``: how long each packet waited in one link's buffer (its sojourn), against time, with
  the drops and CE marks of the link's queue discipline;
- ``space_time_figure``: the message-sequence diagram of one connection's packets between its hosts.
"""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from .capture.sctp_packets import chunk_bounds
from .results import PacketResult

__all__ = ["cwnd_figure", "time_sequence_figure", "queue_figure", "queue_delay_figure", "space_time_figure"]

_SSTHRESH_UNSET = 1e29


def _need(result: PacketResult, name: str):
    tr = getattr(result, name)
    if tr is None:
        raise ValueError(f"result.{name} is None: run simulate(..., trace=True) to record traces")
    return tr


def cwnd_figure(result: PacketResult, conn: int = 0, direction: int = 0, mss_bytes: int = 1460) -> go.Figure:
    """Return a figure of cwnd and ssthresh (in segments of ``mss_bytes``) against time (s)."""
    tr = _need(result, "tcp_trace")
    sel = (tr.conn == conn) & (tr.direction == direction)
    t = tr.time_s[sel]
    cw = tr.cwnd_bytes[sel] / mss_bytes
    ss = np.where(tr.ssthresh_bytes[sel] > _SSTHRESH_UNSET, np.nan, tr.ssthresh_bytes[sel] / mss_bytes)
    ev = tr.event[sel]
    fig = go.Figure()
    fig.add_trace(go.Scatter(x=t, y=cw, mode="lines", line_shape="hv", name="cwnd"))
    fig.add_trace(go.Scatter(x=t, y=ss, mode="lines", line_shape="hv", name="ssthresh", line_dash="dash"))
    to = ev == 2
    fig.add_trace(go.Scatter(x=t[to], y=cw[to], mode="markers", name="timeout", marker_symbol="x",
                             marker_size=9))
    fig.update_layout(title=f"Congestion window, connection {conn}", xaxis_title="time (s)",
                      yaxis_title="segments", legend_orientation="h")
    return fig


def _is_sctp(result: PacketResult, conn: int) -> bool:
    sc = result.scenario
    return sc is not None and conn < len(sc.connections) and sc.connections[conn].transport == "sctp"


def time_sequence_figure(result: PacketResult, conn: int = 0, direction: int = 0) -> go.Figure:
    """Return the time-sequence plot (sequence number vs time, s) of one direction of a connection (of an
    SCTP association: stream bytes, and the cumulative TSN ack drawn at the end of that chunk's bytes)."""
    pt = _need(result, "packet_trace")
    mine = (pt.conn == conn) & ((pt.flags & 8) == 0)
    data = mine & (pt.direction == direction) & (pt.seqlen > 0)
    sent = data & (pt.kind == 0)
    retx = sent & ((pt.flags & 16) != 0)
    dropped = data & (pt.kind >= 2)
    acks = mine & (pt.direction != direction) & (pt.kind == 1) & ((pt.flags & 2) != 0)
    fig = go.Figure()
    for name, sel, sym in (("sent", sent & ~retx, "line-ew"), ("retransmitted", retx, "circle-open"),
                           ("dropped", dropped, "x")):
        fig.add_trace(go.Scatter(x=pt.time_s[sel], y=pt.seq[sel], mode="markers", name=name,
                                 marker_symbol=sym, marker_size=7 if sym != "line-ew" else 8,
                                 marker_line_width=1.5))
    ack_y = pt.ack[acks]
    if _is_sctp(result, conn):
        _, ends = chunk_bounds(result, conn, direction)
        ack_y = np.where(ack_y >= 0, ends[np.clip(ack_y, 0, max(ends.size - 1, 0))] if ends.size else 1, 1)
    fig.add_trace(go.Scatter(x=pt.time_s[acks], y=ack_y, mode="lines", line_shape="hv",
                             name="SACK received" if _is_sctp(result, conn) else "ACK received"))
    fig.update_layout(title=f"Time-sequence plot, connection {conn}", xaxis_title="time (s)",
                      yaxis_title="sequence number (bytes)", legend_orientation="h")
    return fig


def queue_figure(result: PacketResult, link: int, in_bytes: bool = False) -> go.Figure:
    """Return the occupancy (packets, or bytes) of ``link``'s buffer against time (s), at every arrival."""
    q = _need(result, "queue_trace")
    sel = q.link == link
    y = q.bytes[sel] if in_bytes else q.packets[sel]
    fig = go.Figure(go.Scatter(x=q.time_s[sel], y=y, mode="lines", name=f"link {link}"))
    fig.update_layout(title=f"Queue of link {link}", xaxis_title="time (s)",
                      yaxis_title="bytes" if in_bytes else "packets")
    return fig


def queue_delay_figure(result: PacketResult, link: int, max_points: int = 20_000) -> go.Figure:
    """Return the queueing delay at ``link``: each packet's sojourn in its buffer (ms, from entering the buffer to
    the start of its transmission, the delay CoDel measures) at the time its transmission began, with the
    packets the buffer dropped (x, at 0 ms) and those its AQM marked CE (circles). At most ``max_points``
    packets are drawn (evenly spaced, the largest delay kept)."""
    st = _need(result, "sojourn_trace")
    pt = _need(result, "packet_trace")
    sel = np.flatnonzero(st.link == link)
    keep = sel
    if sel.size > max_points:
        keep = sel[np.unique(np.r_[np.linspace(0, sel.size - 1, max_points).astype(np.int64),
                                   np.argmax(st.sojourn_s[sel])])]
    t = st.time_s[keep]
    y = st.sojourn_s[keep] * 1e3
    fig = go.Figure(go.Scatter(x=t, y=y, mode="lines", name="queueing delay", line_width=1))
    ce = keep[st.ce[keep]]
    if ce.size:
        fig.add_trace(go.Scatter(x=st.time_s[ce], y=st.sojourn_s[ce] * 1e3, mode="markers", name="marked CE",
                                 marker_symbol="circle-open", marker_size=6))
    dropped = (pt.kind == 2) & (pt.link == link)
    if dropped.any():
        fig.add_trace(go.Scatter(x=pt.time_s[dropped], y=np.zeros(int(dropped.sum())), mode="markers",
                                 name="dropped by the buffer", marker_symbol="x", marker_size=7))
    fig.update_layout(title=f"Queueing delay at link {link}", xaxis_title="time (s)",
                      yaxis_title="delay in the buffer (ms)", legend_orientation="h")
    return fig


def _label(flags: int, seq: int, seqlen: int, ack: int) -> str:
    parts = []
    if flags & 1:
        parts.append("SYN")
    if flags & 4:
        parts.append("FIN")
    if seqlen > 0 and not flags & 5:
        parts.append(f"seq {seq}:{seq + seqlen}")
    if flags & 2:
        parts.append(f"ACK {ack}")
    if flags & 16:
        parts.append("(retx)")
    return " ".join(parts)


def _sctp_label(pt, i: int, closer_dir: int, tsn_of: dict) -> str:
    """Label of an SCTP packet: its chunks (INIT, COOKIE-ECHO, DATA tsn, SACK cum+gaps, SHUTDOWN ...)."""
    f, d = int(pt.flags[i]), int(pt.direction[i])
    parts = []
    if f & 4:
        parts.append("SHUTDOWN-COMPLETE" if f & 1 else ("SHUTDOWN" if d == closer_dir else "SHUTDOWN-ACK"))
    elif f & 1:
        parts.append("INIT-ACK" if f & 2 else "INIT")
    if f & 32:
        parts.append("COOKIE-ECHO" if d == 0 else "COOKIE-ACK")
    if f & 2 and not f & 1:
        gaps = [] if pt.sack is None else [f"{lo}-{hi - 1}" for lo, hi in pt.sack[i] if lo >= 0]
        parts.append(f"SACK {int(pt.ack[i])}" + ("+" + ",".join(gaps) if gaps else ""))
    if pt.seqlen[i] > 0:
        starts = tsn_of[d]
        first = int(np.searchsorted(starts, pt.seq[i]))
        last = int(np.searchsorted(starts, pt.seq[i] + pt.seqlen[i])) - 1
        parts.append(f"DATA tsn {first}" + (f"-{last}" if last > first else ""))
    if f & 16:
        parts.append("(retx)")
    return " ".join(parts)


def _floats(values: list) -> np.ndarray:
    return np.array(values, dtype=float)  # None -> NaN


def _texts(values: list) -> np.ndarray:
    return np.array(["" if v is None else v for v in values], dtype=str)


def space_time_figure(result: PacketResult, conn: int = 0, t_max_s: float | None = None,
                      max_packets: int = 400) -> go.Figure:
    """Return the space-time (message sequence) diagram of connection ``conn``: client at x = 0, server
    at x = 1, time (s) growing downwards; each packet is a line from its sending to its arrival (or
    drop, marked x, drawn halfway)."""
    pt = _need(result, "packet_trace")
    mine = (pt.conn == conn) & ((pt.flags & 8) == 0)
    sent = np.flatnonzero(mine & (pt.kind == 0))
    if t_max_s is not None:
        sent = sent[pt.time_s[sent] <= t_max_s]
    sent = sent[:max_packets]
    ends = np.flatnonzero(mine & (pt.kind > 0))
    end_of = dict(zip(pt.uid[ends].tolist(), ends.tolist(), strict=True))
    fig = go.Figure()
    for x, name in ((0, "client"), (1, "server")):
        fig.add_trace(go.Scatter(x=[x, x], y=[0, 0], mode="text", text=[name], textposition="top center",
                                 showlegend=False, hoverinfo="skip"))
    sctp = _is_sctp(result, conn)
    if sctp:
        closer_dir = {"client": 0, "server": 1}.get(result.scenario.connections[conn].closer, -1)
        tsn_of = {d: chunk_bounds(result, conn, d)[0] for d in (0, 1)}
    xs: dict[bool, list] = {True: [], False: []}
    ys: dict[bool, list] = {True: [], False: []}
    texts: dict[bool, list] = {True: [], False: []}
    drop_x, drop_y = [], []
    t_last = 0.0
    for i in sent:
        d = pt.direction[i]
        x0, x1 = (0.0, 1.0) if d == 0 else (1.0, 0.0)
        j = end_of.get(int(pt.uid[i]))
        t0 = pt.time_s[i]
        lab = _sctp_label(pt, i, closer_dir, tsn_of) if sctp else _label(int(pt.flags[i]), int(pt.seq[i]),
                                                                          int(pt.seqlen[i]), int(pt.ack[i]))
        if j is None or pt.kind[j] != 1:
            t1 = pt.time_s[j] if j is not None else t0
            xm = (x0 + x1) / 2
            xs[False] += [x0, xm, None]
            ys[False] += [t0, max(t1, t0), None]
            texts[False] += [lab, lab, None]
            drop_x.append(xm)
            drop_y.append(max(t1, t0))
            continue
        t1 = pt.time_s[j]
        t_last = max(t_last, t1)
        ok = True
        xs[ok] += [x0, x1, None]
        ys[ok] += [t0, t1, None]
        texts[ok] += [lab, lab, None]
    # numpy arrays (NaN breaks a line like None does): plotly validates lists element by element, arrays at once
    fig.add_trace(go.Scatter(x=_floats(xs[True]), y=_floats(ys[True]), mode="lines+markers", name="delivered",
                             text=_texts(texts[True]), hoverinfo="text+y", marker_size=4))
    fig.add_trace(go.Scatter(x=_floats(xs[False]), y=_floats(ys[False]), mode="lines", name="lost",
                             text=_texts(texts[False]), hoverinfo="text+y", line_dash="dot"))
    fig.add_trace(go.Scatter(x=drop_x, y=drop_y, mode="markers", name="drop", marker_symbol="x",
                             marker_size=10))
    for x in (0, 1):
        fig.add_shape(type="line", x0=x, x1=x, y0=0, y1=t_last, line_color="gray")
    fig.update_layout(title=f"Space-time diagram, connection {conn}", yaxis_title="time (s)",
                      yaxis_autorange="reversed", xaxis=dict(tickvals=[0, 1], ticktext=["client", "server"]),
                      legend_orientation="h")
    return fig
