"""Chapter 5's static figures and printed tables: Figure 4 and 5 beside the paper, methods compared,
the price of packaging, compression, the loopback check beside the simulation, one file's time by hand."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from simcore.objpack import METHODS, ObjpackParams, simulate_objpack
from simcore.objpack.loopback import loopback_fetch
from simcore.objpack.paper import QUANTITIES, SIZES, abstract_check, derive_from_tables, paper_reductions
from simcore.objpack.readings import SIMCORE, TEXTBOOK, files_from_package, readings_summary, reductions_rows
from simcore.objpack.reproduce import REFERENCE, compare_methods, files_sweep, reproduce_tables
from simcore.objpack.streaming import streamed_file_done_s
from simcore.objpack.workload import make_page, page_contents
from simcore.packet.plots import space_time_figure
from simcore.plotting import color_for, new_figure

__all__ = ["QUANTITY_LABELS", "SHORT", "METHOD_COLORS", "METHOD_DASH", "reductions_figure", "files_sweep_figure",
           "methods_text", "abstract_text", "derivation_text", "price_text", "compression_text", "loopback_rows",
           "loopback_text", "one_file_space_time", "methods_figure", "one_file_breakdown", "one_file_breakdown_text",
           "differences_markdown"]

QUANTITY_LABELS = {"bytes": "bytes", "packets": "packets", "response_time": "response time"}
SHORT = {"http10": "HTTP/1.0", "package": "package", "keepalive": "keep-alive", "parallel": "6 parallel",
         "pipelined": "pipelined", "multistream": "multistream"}
# One hue family per method, told apart also under simulated deuteranopia and protanopia
# (tests/chapters/test_objpack_colours.py): Okabe-Ito orange and blue (chapter 4's non-persistent and
# persistent), black and grey (achromatic, 60 apart in lightness), Tol's wine and green. The paper's own
# colour (vermillion) is kept for the paper's numbers. Pipelined and multistream coincide without loss:
# multistream is dotted, so the line under it shows.
METHOD_COLORS = {"http10": color_for("non-persistent"), "package": "#000000", "keepalive": color_for("persistent"),
                 "parallel": "#999999", "pipelined": "#882255", "multistream": "#228833"}
METHOD_DASH = {"http10": "solid", "package": "solid", "keepalive": "solid", "parallel": "dash",
               "pipelined": "solid", "multistream": "dot"}


def reductions_figure(rows: list[dict] | None = None) -> go.Figure:
    """Figure 4 beside ours: reduction (%) of bytes, packets and response time against average file size."""
    rows = rows or reproduce_tables()
    fig = new_figure(title="Figure 4 re-run: what the package saves against HTTP/1.0, 100 files",
                     xaxis_title="average file size", yaxis_title="reduction (%)", height=420)
    paper = paper_reductions()
    for q, col in zip(QUANTITIES, ("#0072B2", "#009E73", "#CC79A7"), strict=True):
        ours = [r["ours_reduction_pct"] for r in rows if r["quantity"] == q]
        fig.add_bar(x=list(SIZES), y=[paper[(q, s)] for s in SIZES], name=f"{QUANTITY_LABELS[q]}: paper",
                    marker=dict(color=col, opacity=0.45, line=dict(color=color_for("paper"), width=2)))
        fig.add_bar(x=list(SIZES), y=ours, name=f"{QUANTITY_LABELS[q]}: simcore", marker_color=col)
    fig.update_layout(barmode="group", margin=dict(t=90), title_y=0.97)
    return fig


def files_sweep_figure(base: ObjpackParams = REFERENCE, rows: list[dict] | None = None) -> go.Figure:
    """Figure 5's trend: the reductions (%) against the number of files (``rows``: a ``files_sweep`` of
    ``base``, run here if not given)."""
    rows = list(rows) if rows is not None else files_sweep(base)
    fig = new_figure(title=f"Figure 5 re-run: reduction against the number of files ({base.mean_file_bytes} B each)",
                     xaxis_title="number of files", yaxis_title="reduction (%)", height=420)
    n = [r["n_files"] for r in rows]
    for q, col in zip(QUANTITIES, ("#0072B2", "#009E73", "#CC79A7"), strict=True):
        fig.add_scatter(x=n, y=[r[f"{q}_reduction_pct"] for r in rows], mode="lines+markers",
                        name=QUANTITY_LABELS[q], line_color=col)
    top = max(max(r[f"{q}_reduction_pct"] for r in rows) for q in QUANTITIES)
    fig.add_scatter(x=[10, 10], y=[0, top], mode="lines", name="paper: flat above ~10 files",
                    line=dict(color=color_for("paper"), dash="dot"))
    fig.update_xaxes(type="log", dtick=1)  # labels at decades only: 1, 10, 100
    fig.update_layout(margin=dict(t=90), title_y=0.97)
    return fig


def methods_figure(base: ObjpackParams = REFERENCE) -> go.Figure:
    """Response time (s) of every method for the same page."""
    res = compare_methods(base)
    fig = new_figure(title=f"{base.n_files} files of {base.mean_file_bytes} B: every method on the hub",
                     yaxis_title="response time (s)", height=380)
    fig.add_bar(x=[SHORT[m] for m in METHODS], y=[res[m].response_time_s for m in METHODS],
                marker_color=[METHOD_COLORS[m] for m in METHODS],
                text=[f"{res[m].response_time_s:.3f} s" for m in METHODS], textposition="outside")
    return fig


def methods_text(base: ObjpackParams = REFERENCE) -> str:
    """Every method on the same page: response time (s), packets, bytes, connections."""
    res = compare_methods(base)
    lines = [f"{'method':<12}{'time (s)':>10}{'packets':>9}{'bytes':>10}{'conns':>7}"]
    for m in METHODS:
        r = res[m]
        lines.append(f"{SHORT[m]:<12}{r.response_time_s:>10.3f}{r.packets:>9d}{r.bytes:>10d}{r.n_connections:>7d}")
    return "\n".join(lines)


def abstract_text() -> str:
    """Each reduction the paper states, beside the one its own tables give."""
    lines = []
    for c in abstract_check():
        note = "matches" if c["matches"] else "DOES NOT match"
        if c["matches_other_quantity"]:
            note += f" (it is the {c['matches_other_quantity']} reduction)"
        lines.append(f"{c['claim']:<13}{c['quantity']:<14}{c['size']:>4}: stated {c['stated_pct']:5.1f} %, "
                     f"tables give {c['from_tables_pct']:5.1f} %  {note}")
    return "\n".join(lines)


def derivation_text() -> str:
    """What Tables 1-2 imply about each test: how many files (from the package column, under simcore's count
    of a connection's packets), and how many header bytes a packet carried; rounded for printing."""
    d = derive_from_tables()
    fp = "  ".join(f"{s}: {files_from_package(SIMCORE, s, 'packets'):.0f}" for s in SIZES)
    fb = "  ".join(f"{s}: {files_from_package(SIMCORE, s, 'bytes'):.0f}" for s in SIZES)
    r = "  ".join(f"{s}: {d.bytes_saved_per_packet_saved[s]:.0f}" for s in SIZES)
    o = "  ".join(f"{s}: {d.overhead_per_file_at_54[s]:.0f}" for s in SIZES)
    return "\n".join([
        f"files a test sent, from the package's packets     {fp}",
        f"files a test sent, from the package's bytes       {fb}",
        f"bytes saved per packet saved                      {r}",
        f"fit  bytes saved = h * packets saved + c:  h = {d.fit_header_bytes:.0f} +- {d.fit_header_stderr:.0f} "
        f"bytes, c / 99 = {d.fit_overhead_per_file:.0f} bytes per extra connection",
        f"HTTP bytes per extra connection if h = 54         {o}",
    ])


def price_text(base: ObjpackParams = REFERENCE) -> str:
    """The price of packaging: first file usable, and what one changed file costs to re-send."""
    http = simulate_objpack(replace(base, method="http10"))
    keep = simulate_objpack(replace(base, method="keepalive"))
    pkg = simulate_objpack(replace(base, method="package"), trace=True)
    streamed = streamed_file_done_s(pkg)
    one = simulate_objpack(replace(base, method="http10", n_files=1))
    return "\n".join([
        f"first file usable: HTTP/1.0 {http.file_done_s.min():.3f} s, keep-alive {keep.file_done_s.min():.3f} s,",
        f"  package unpacked at the end {pkg.file_done_s.min():.3f} s, unpacked while streaming {streamed.min():.3f} s",
        f"half the files usable: HTTP/1.0 {np.median(http.file_done_s):.3f} s, package at the end "
        f"{pkg.response_time_s:.3f} s, streamed {np.median(streamed):.3f} s",
        f"one file changed: HTTP/1.0 re-sends {one.bytes} bytes in {one.packets} packets "
        f"({one.response_time_s:.3f} s);",
        f"  the package re-sends {pkg.bytes} bytes in {pkg.packets} packets ({pkg.response_time_s:.3f} s)",
    ])


def compression_text(base: ObjpackParams = REFERENCE) -> str:
    """Compression as a switch: bytes and time of HTTP/1.0 and the package, with zlib off and on."""
    lines = [f"{'method':<10}{'zlib':>6}{'bytes':>10}{'packets':>9}{'time (s)':>10}"]
    for m in ("http10", "package"):
        for z in (False, True):
            r = simulate_objpack(replace(base, method=m, compress=z))
            lines.append(f"{SHORT[m]:<10}{'on' if z else 'off':>6}{r.bytes:>10d}{r.packets:>9d}"
                         f"{r.response_time_s:>10.3f}")
    return "\n".join(lines)


def loopback_rows(n_files: int = 100, sizes=(1000, 10000), repeats: int = 5) -> list[dict]:
    """Run the real loopback check (stdlib HTTP server on 127.0.0.1) for each mean size and both methods,
    beside the simulation on the hub: segments per file and time."""
    out = []
    for s in sizes:
        p = replace(REFERENCE, n_files=n_files, mean_file_bytes=s)
        page = make_page(p)
        files = [(n, d, "text" if t else "binary")
                 for n, d, t in zip(page.names, page_contents(page), page.is_text, strict=True)]
        for m in ("http10", "package"):
            lb = loopback_fetch(files, m, repeats)
            sim = simulate_objpack(replace(p, method=m))
            out.append({"size": s, "method": m, "loopback_segments": lb.segments,
                        "loopback_time_s": lb.time_s, "loopback_mss": lb.mss_bytes,
                        "sim_packets": sim.packets, "sim_time_s": sim.response_time_s})
    return out


def loopback_text(rows: list[dict]) -> str:
    """``loopback_rows`` as fixed-width text."""
    lines = [f"{'size':>6} {'method':<9}{'loopback segs':>14}{'per conn':>9}{'time (ms)':>10}"
             f"{'hub sim pkts':>13}{'per conn':>9}{'time (ms)':>10}"]
    for r in rows:
        n = 100 if r["method"] == "http10" else 1
        lines.append(f"{r['size']:>6} {SHORT[r['method']]:<9}{r['loopback_segments']:>14d}"
                     f"{r['loopback_segments'] / n:>9.1f}{1e3 * r['loopback_time_s']:>10.1f}"
                     f"{r['sim_packets']:>13d}{r['sim_packets'] / n:>9.1f}{1e3 * r['sim_time_s']:>10.1f}")
    lines.append(f"(per conn: per TCP connection; loopback MSS {max(r['loopback_mss'] for r in rows)} bytes, hub "
                 "MSS 1460: not comparable in size;")
    lines.append(" loopback times: medians of the sum of connect() to last byte)")
    return "\n".join(lines)


_PACKET_NAMES = ("SYN", "SYN-ACK", "ACK", "GET", "response + FIN", "FIN + ACK", "ACK")


def one_file_space_time(size_bytes: int = 1000) -> go.Figure:
    """The space-time diagram of one file fetched over HTTP/1.0 on the hub, each packet named beside its
    start (the packets Q1 asks the student to count)."""
    r = simulate_objpack(replace(REFERENCE, n_files=1, mean_file_bytes=size_bytes), trace=True)
    fig = space_time_figure(r.packet, conn=0)
    pt = r.packet.packet_trace
    sent = np.flatnonzero((pt.kind == 0) & ((pt.flags & 8) == 0))
    names = _PACKET_NAMES if sent.size == len(_PACKET_NAMES) else tuple(f"packet {k + 1}" for k in range(sent.size))
    x = [-0.03 if pt.direction[i] == 0 else 1.03 for i in sent]
    fig.add_scatter(x=x, y=pt.time_s[sent], mode="text", text=[f"{k + 1}. {n}" for k, n in enumerate(names)],
                    textposition=["middle left" if v < 0.5 else "middle right" for v in x], showlegend=False,
                    hoverinfo="skip")
    fig.update_xaxes(range=[-0.45, 1.45])
    fig.update_layout(title=f"One {size_bytes}-byte file over HTTP/1.0: {sent.size} packets on the hub", height=480,
                      template="plotly_white")
    return fig


def one_file_breakdown(p: ObjpackParams | None = None) -> dict[str, float]:
    """Where one file's HTTP/1.0 fetch spends its time, worked by hand from the testbed's parameters (s).

    Each packet crosses its sender's link (the client's NIC, fast; the server's stack: ``server_packet_s``
    plus 8 / ``server_stack_rate_bps`` per byte), the medium (its frame, IP size + 14 + 24 bytes, at
    ``link_rate_bps``, then ``rtt_s`` / 2) and the hub's fast exit port. The bare ACK and the GET leave
    together, the GET behind the ACK on the medium."""
    p = replace(p or REFERENCE, n_files=1)
    fast = 1e11  # the client's NIC and the hub's exit ports (testbed._FAST_BPS)
    ip = p.tcpip_header_bytes
    frame = p.ethernet_header_bytes + p.framing_bytes
    tx = lambda n: (n + frame) * 8 / p.link_rate_bps  # noqa: E731 - on the medium
    stack = lambda n: p.server_packet_s + n * 8 / p.server_stack_rate_bps  # noqa: E731
    hop = lambda n: n * 8 / fast  # noqa: E731
    prop = p.rtt_s / 2
    resp = ip + p.response_header_bytes + p.mean_file_bytes
    get = ip + p.request_bytes
    parts = {
        "SYN on the medium": hop(ip) + tx(ip) + prop + hop(ip),
        "SYN-ACK through the server's stack": stack(ip),
        "SYN-ACK on the medium": tx(ip) + prop + hop(ip),
        "ACK, then the GET behind it on the medium": hop(ip) + tx(ip) + tx(get) + prop + hop(get),
        "server's file work (access + copy)": p.server_file_s + p.server_copy_s_per_byte * p.mean_file_bytes,
        "response through the server's stack": stack(resp),
        "response on the medium": tx(resp) + prop + hop(resp),
    }
    if resp > p.mss_bytes + ip:
        raise ValueError(f"mean_file_bytes={p.mean_file_bytes!r} is not allowed: the breakdown is worked for a "
                         f"response of one segment (at most {p.mss_bytes - p.response_header_bytes} bytes)")
    return parts


def one_file_breakdown_text(p: ObjpackParams | None = None) -> str:
    """``one_file_breakdown`` as markdown: each part in µs or ms, the total, and the server's share."""
    parts = one_file_breakdown(p)
    total = sum(parts.values())
    work = parts["server's file work (access + copy)"]
    items = "; ".join(f"{k} {1e3 * v:.3f} ms" if v >= 1e-3 else f"{k} {1e6 * v:.0f} µs" for k, v in parts.items())
    return (f"{items}. Total **{1e3 * total:.2f} ms**, of which the server's file work is "
            f"**{100 * work / total:.0f} %**.")


def differences_markdown(rows: list[dict] | None = None) -> str:
    """Markdown computed from the numbers: our packets per file beside Table 2's, what the readings of the paper's
    stacks give, and how close our package column is (``rows``: ``reproduce_tables`` records)."""
    rows = rows or reproduce_tables()
    pk = {r["size"]: r for r in rows if r["quantity"] == "packets"}
    errs = {s: 100 * (pk[s]["ours_package"] - pk[s]["paper_package"]) / pk[s]["paper_package"] for s in SIZES}
    red = [r for r in reductions_rows() if r["reading"] not in (TEXTBOOK.name, SIMCORE.name)]
    spans = []
    for s in SIZES:
        v = [r["packets_pct"] for r in red if r["size"] == s]
        paper = next(r["paper_packets_pct"] for r in red if r["size"] == s)
        spans.append(f"{min(v):.1f}-{max(v):.1f} % at {s} (Table 2: {paper:.1f} %)")
    return (readings_summary() + " Under those readings the packet reductions come to " + "; ".join(spans) + ". "
            "Our package column, where a connection's few packets hardly matter, is within "
            f"{max(abs(e) for e in errs.values()):.0f} % of Table 2 at every size ("
            + ", ".join(f"{s} {e:+.1f} %" for s, e in errs.items()) + ").")
