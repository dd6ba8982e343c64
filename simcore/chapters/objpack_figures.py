"""Chapter 5's static figures and printed tables: Figure 4 and 5 beside the paper, methods compared,
the price of packaging, compression, the loopback check beside the simulation."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import plotly.graph_objects as go

from simcore.objpack import METHODS, ObjpackParams, simulate_objpack
from simcore.objpack.loopback import loopback_fetch
from simcore.objpack.paper import QUANTITIES, SIZES, abstract_check, derive_from_tables, paper_reductions
from simcore.objpack.reproduce import REFERENCE, compare_methods, control_packet_credit, files_sweep, reproduce_tables
from simcore.objpack.streaming import streamed_file_done_s
from simcore.objpack.workload import make_page, page_contents
from simcore.packet.plots import space_time_figure
from simcore.plotting import color_for, new_figure

__all__ = ["QUANTITY_LABELS", "SHORT", "reductions_figure", "files_sweep_figure", "methods_text",
           "abstract_text", "derivation_text", "control_packets_text", "price_text", "compression_text",
           "loopback_rows", "loopback_text", "one_file_space_time", "methods_figure"]

QUANTITY_LABELS = {"bytes": "bytes", "packets": "packets", "response_time": "response time"}
SHORT = {"http10": "HTTP/1.0", "package": "package", "keepalive": "keep-alive", "parallel": "6 parallel",
         "pipelined": "pipelined", "multistream": "multistream"}


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


def files_sweep_figure(base: ObjpackParams = REFERENCE) -> go.Figure:
    """Figure 5's trend: the reductions (%) against the number of files."""
    rows = files_sweep(base)
    fig = new_figure(title=f"Figure 5 re-run: reduction against the number of files ({base.mean_file_bytes} B each)",
                     xaxis_title="number of files", yaxis_title="reduction (%)", height=420)
    n = [r["n_files"] for r in rows]
    for q, col in zip(QUANTITIES, ("#0072B2", "#009E73", "#CC79A7"), strict=True):
        fig.add_scatter(x=n, y=[r[f"{q}_reduction_pct"] for r in rows], mode="lines+markers",
                        name=QUANTITY_LABELS[q], line_color=col)
    top = max(max(r[f"{q}_reduction_pct"] for r in rows) for q in QUANTITIES)
    fig.add_scatter(x=[10, 10], y=[0, top], mode="lines", name="paper: flat above ~10 files",
                    line=dict(color=color_for("paper"), dash="dot"))
    fig.update_xaxes(type="log")
    fig.update_layout(margin=dict(t=90), title_y=0.97)
    return fig


def methods_figure(base: ObjpackParams = REFERENCE) -> go.Figure:
    """Response time (s) of every method for the same page."""
    res = compare_methods(base)
    fig = new_figure(title=f"{base.n_files} files of {base.mean_file_bytes} B: every method on the hub",
                     yaxis_title="response time (s)", height=380)
    fig.add_bar(x=[SHORT[m] for m in METHODS], y=[res[m].response_time_s for m in METHODS],
                marker_color=[color_for("paper") if m == "package" else color_for("simulation") for m in METHODS],
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
    """The files-per-test and header-size derivation from Tables 1-2, rounded for printing."""
    d = derive_from_tables()
    f = "  ".join(f"{s}: {d.files_from_packets[s]:.0f}" for s in SIZES)
    b = "  ".join(f"{s}: {d.files_from_bytes[s]:.0f}" for s in SIZES)
    p = "  ".join(f"{s}: {d.existing_packets_per_file[s]:.1f}" for s in SIZES)
    r = "  ".join(f"{s}: {d.bytes_saved_per_packet_saved[s]:.0f}" for s in SIZES)
    o = "  ".join(f"{s}: {d.overhead_per_file_at_54[s]:.0f}" for s in SIZES)
    return "\n".join([
        f"files implied by the package's packets     {f}",
        f"files implied by the package's bytes (h=54) {b}",
        f"existing packets per file if N = 100       {p}",
        f"bytes saved per packet saved               {r}",
        f"fit  bytes saved = h * packets saved + c:  h = {d.fit_header_bytes:.0f} +- {d.fit_header_stderr:.0f} "
        f"bytes, c / 99 = {d.fit_overhead_per_file:.0f} bytes per extra connection",
        f"HTTP bytes per extra connection if h = 54  {o}",
    ])


def control_packets_text(base: ObjpackParams = REFERENCE) -> str:
    """HTTP/1.0 packets per file, ours beside the paper's, and the bytes gap once ours are credited with
    the headers of the packets the paper's stack sent beyond ours (``reproduce.control_packet_credit``)."""
    rows = reproduce_tables(base)
    credit = control_packet_credit(rows)
    n = base.n_files
    pk = {r["size"]: r for r in rows if r["quantity"] == "packets"}
    lines = []
    for s in SIZES:
        c = credit[s]
        lines.append(f"{s:>3}: HTTP/1.0 packets per file  ours {pk[s]['ours_existing'] / n:4.1f}  paper "
                     f"{pk[s]['paper_existing'] / n:4.1f}  ({c['extra_packets'] / n:.1f} more); bytes reduction "
                     f"with their headers credited {c['credited_reduction_pct']:.1f} %, gap "
                     f"{c['credited_gap_points'] + 0.0:+.1f} points")
    return "\n".join(lines)


def price_text(base: ObjpackParams = REFERENCE) -> str:
    """The price of packaging: first file usable, and what one changed file costs to re-send."""
    http = simulate_objpack(replace(base, method="http10"))
    keep = simulate_objpack(replace(base, method="keepalive"))
    pkg = simulate_objpack(replace(base, method="package"), trace=True)
    streamed = streamed_file_done_s(pkg)
    one = simulate_objpack(replace(base, method="http10", n_files=1))
    return "\n".join([
        f"first file usable: HTTP/1.0 {http.file_done_s.min():.3f} s, keep-alive {keep.file_done_s.min():.3f} s, "
        f"package unpacked at the end {pkg.file_done_s.min():.3f} s, package unpacked while streaming "
        f"{streamed.min():.3f} s",
        f"half the files usable: HTTP/1.0 {np.median(http.file_done_s):.3f} s, package at the end "
        f"{pkg.response_time_s:.3f} s, streamed {np.median(streamed):.3f} s",
        f"one file changed: HTTP/1.0 re-sends {one.bytes} bytes in {one.packets} packets "
        f"({one.response_time_s:.3f} s); the package re-sends {pkg.bytes} bytes in {pkg.packets} packets "
        f"({pkg.response_time_s:.3f} s)",
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
    lines.append("(per conn: per TCP connection; loopback MSS "
                 f"{max(r['loopback_mss'] for r in rows)} bytes, hub MSS 1460; times are medians)")
    return "\n".join(lines)


def one_file_space_time(size_bytes: int = 1000) -> go.Figure:
    """The space-time diagram of one file fetched over HTTP/1.0 on the hub (count its packets)."""
    r = simulate_objpack(replace(REFERENCE, n_files=1, mean_file_bytes=size_bytes), trace=True)
    fig = space_time_figure(r.packet, conn=0)
    fig.update_layout(title=f"One {size_bytes}-byte file over HTTP/1.0: every packet on the hub", height=480,
                      template="plotly_white")
    return fig
