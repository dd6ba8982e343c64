"""Packets per file: the paper's 9.4 / 11.9 / 17.2 beside hand counts of the exchanges a stack could send.

Table 2 counts 944.2, 1189.2 and 1720.4 packets for HTTP/1.0 at 1K, 4K and 10K; the paper does not say how many
files a test sent or what its stacks sent per connection. Both are readings, and each is shown here with what it
implies, none declared the paper's.

**Per connection** (``Reading``): an HTTP/1.0 fetch of a response of ``d`` segments costs, counted by hand,

    3 (SYN, SYN-ACK, ACK)  + 1 (the GET on its own: real stacks; 0 if it rides on the handshake's ACK)
    + 1 if the server acknowledges the GET at once (else its ACK rides on the response)
    + d data segments (+ 1 if the HTTP header leaves in a segment of its own)
    + the client's ACKs: one per two segments (delayed ACKs), the FIN acknowledged at once:
      floor((d - 1) / 2) + 1 when the server's FIN rides on the last segment, floor(d / 2) + 1 when it
      leaves alone
    + 1 if the server's FIN leaves alone: always ('alone'), or only when the whole response left at once
      within the initial window, so that the write was sent before the application closed ('when_sent')
    + 1 if the client's FIN leaves after its ACK (else the ACK carries it)
    + 1 (the server's ACK of the client's FIN).

``SIMCORE`` is what the testbed sends (``tests/objpack/test_readings.py`` checks the count against the
simulation); the others add, one at a time, what a stack of 2002 could have sent alone.

**Files per test** (``files_from_package``): a package fetch is one connection, so Tables 1-2's package column
gives the number of files once the per-connection count is known: by its packets or by its bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from simcore._validate import check_bool, check_choice, check_int, store_python_numbers

from .paper import SIZE_BYTES, SIZES, paper_table, reduction_pct
from .params import ObjpackParams
from .wire import package_header_bytes
from .workload import make_page

__all__ = ["Reading", "SIMCORE", "TEXTBOOK", "READINGS", "FIN_CHOICES", "packets_per_connection",
           "http10_packets_per_file", "package_packets", "page_bytes", "files_from_package", "reading_rows",
           "readings_text", "readings_summary", "reductions_rows", "reductions_text"]

FIN_CHOICES = ("on_last_data", "when_sent", "alone")


@dataclass(frozen=True)
class Reading:
    """What a stack sends per HTTP/1.0 connection, beyond the data (see the module docstring)."""

    name: str
    says: str  # the behaviour, in a few words
    bare_handshake_ack: bool = True  # False: the GET rides on the handshake's ACK (the textbook)
    get_acked_alone: bool = False
    header_segment: bool = False
    server_fin: str = "on_last_data"
    client_ack_before_fin: bool = False

    def __post_init__(self):
        store_python_numbers(self)
        for f in ("name", "says"):
            if not isinstance(getattr(self, f), str) or not getattr(self, f).strip():
                raise ValueError(f"{f}={getattr(self, f)!r} is not allowed: must be a non-empty string")
        for f in ("bare_handshake_ack", "get_acked_alone", "header_segment", "client_ack_before_fin"):
            check_bool(f, getattr(self, f))
        check_choice("server_fin", self.server_fin, FIN_CHOICES)


SIMCORE = Reading("S", "simcore: a bare handshake ACK, then the GET; the server's FIN on its last data; the "
                   "client's FIN on its ACK")
TEXTBOOK = replace(SIMCORE, name="T", bare_handshake_ack=False,
                   says="the textbook (Kurose & Ross): as S, but the GET rides on the handshake's ACK")
_C = replace(SIMCORE, name="C", says="S, and the browser closes after its kernel ACKed the server's FIN (two packets)",
             client_ack_before_fin=True)
_CF = replace(_C, name="CF", says="C, and the server's FIN leaves alone when its whole response left at once "
              "(write, then close)", server_fin="when_sent")
READINGS = (
    TEXTBOOK,
    SIMCORE,
    _C,
    _CF,
    replace(_C, name="CA", says="C, and the server's FIN always leaves alone (it closes after its data left)",
            server_fin="alone"),
    replace(_CF, name="CFG", says="CF, and the server ACKs the GET at once, before it answers", get_acked_alone=True),
    replace(_CF, name="CFH", says="CF, and the HTTP header leaves in a segment of its own", header_segment=True),
)


def packets_per_connection(reading: Reading, response_bytes: int, header_bytes: int = 180, mss_bytes: int = 1460,
                           initial_window_segments: int = 2) -> int:
    """Packets of one HTTP/1.0 connection whose response is ``response_bytes`` (HTTP header of ``header_bytes``
    included) under ``reading``, counted by hand (module docstring)."""
    check_int("response_bytes", response_bytes, 1)
    check_int("header_bytes", header_bytes, 0, response_bytes)
    check_int("mss_bytes", mss_bytes, 1)
    check_int("initial_window_segments", initial_window_segments, 1)
    if reading.header_segment and header_bytes:
        d = 1 + math.ceil((response_bytes - header_bytes) / mss_bytes)
    else:
        d = math.ceil(response_bytes / mss_bytes)
    fin_alone = reading.server_fin == "alone" or (reading.server_fin == "when_sent" and d <= initial_window_segments)
    acks = d // 2 + 1 if fin_alone else (d - 1) // 2 + 1
    return (3 + int(reading.bare_handshake_ack) + int(reading.get_acked_alone) + d + acks + int(fin_alone)
            + int(reading.client_ack_before_fin) + 1)


def http10_packets_per_file(reading: Reading, file_bytes: int, p: ObjpackParams | None = None) -> int:
    """Packets one file of ``file_bytes`` costs over HTTP/1.0 on the testbed's parameters ``p``."""
    p = p or ObjpackParams()
    return packets_per_connection(reading, file_bytes + p.response_header_bytes, p.response_header_bytes,
                                  p.mss_bytes, p.initial_window_segments)


def _package_response(n_files: int, file_bytes: int, p: ObjpackParams) -> int:
    names = make_page(replace(p, n_files=n_files, mean_file_bytes=file_bytes)).names
    return p.response_header_bytes + package_header_bytes(names) + n_files * file_bytes


def package_packets(reading: Reading, n_files: int, file_bytes: int, p: ObjpackParams | None = None) -> int:
    """Packets of one package fetch of ``n_files`` files of ``file_bytes`` (names as the testbed's page)."""
    p = p or ObjpackParams()
    check_int("n_files", n_files, 1)
    return packets_per_connection(reading, _package_response(n_files, file_bytes, p), p.response_header_bytes,
                                  p.mss_bytes, p.initial_window_segments)


def page_bytes(reading: Reading, method: str, n_files: int, file_bytes: int, p: ObjpackParams | None = None) -> int:
    """Bytes a monitor on the hub counts for the page (every packet's 54 header bytes included)."""
    p = p or ObjpackParams()
    check_choice("method", method, ("http10", "package"))
    if method == "http10":
        per = http10_packets_per_file(reading, file_bytes, p)
        return n_files * (p.request_bytes + p.response_header_bytes + file_bytes + per * p.header_bytes)
    pk = package_packets(reading, n_files, file_bytes, p)
    return p.request_bytes + _package_response(n_files, file_bytes, p) + pk * p.header_bytes


def files_from_package(reading: Reading, size: str, by: str, p: ObjpackParams | None = None,
                       n_range: tuple[int, int] = (50, 200)) -> float:
    """Return the number of files (interpolated between whole numbers) whose package fetch under ``reading``
    gives Table 2's packets (``by='packets'``) or Table 1's bytes (``by='bytes'``) at ``size``."""
    check_choice("size", size, SIZES)
    check_choice("by", by, ("packets", "bytes"))
    p = p or ObjpackParams()
    target = paper_table()[(by, size, "package")]
    s = SIZE_BYTES[size]

    def value(n: int) -> float:
        return float(package_packets(reading, n, s, p) if by == "packets" else page_bytes(reading, "package", n, s, p))

    lo, hi = n_range
    if not value(lo) <= target <= value(hi):
        raise ValueError(f"no number of files in {n_range} gives the paper's package {by} at {size}")
    while hi - lo > 1:  # both counts grow with n
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if value(mid) <= target else (lo, mid)
    v0, v1 = value(lo), value(hi)
    return lo + (target - v0) / (v1 - v0) if v1 > v0 else float(lo)


def reading_rows(p: ObjpackParams | None = None) -> list[dict]:
    """One record per reading: ours per file at each size and the paper's per file under the two readings of
    files per test (100 in every test; as many as the package column implies under this reading, by its
    packets), with the gaps; and the number of files each size's HTTP/1.0 packets imply."""
    p = p or ObjpackParams()
    table = paper_table()
    out = []
    for r in READINGS:
        rec = {"reading": r.name, "says": r.says}
        for s in SIZES:
            ours = http10_packets_per_file(r, SIZE_BYTES[s], p)
            pe = table[("packets", s, "existing")]
            n_pkg = files_from_package(r, s, "packets", p)
            rec[s] = {"ours": ours, "paper_n100": pe / 100.0, "gap_n100": ours - pe / 100.0,
                      "n_package": n_pkg, "paper_npkg": pe / n_pkg, "gap_npkg": ours - pe / n_pkg,
                      "n_implied": pe / ours}
        gaps = [abs(rec[s]["gap_n100"]) for s in SIZES]
        rec["max_gap_n100"] = max(gaps)
        rec["max_gap_npkg"] = max(abs(rec[s]["gap_npkg"]) for s in SIZES)
        out.append(rec)
    return out


def readings_text(rows: list[dict] | None = None) -> str:
    """``reading_rows`` as fixed-width text (under 120 characters a line), with what each reading says."""
    rows = rows or reading_rows()
    head = (f"{'reading':<9}" + "".join(f"{s:>6}" for s in SIZES)
            + f"{'largest gap, N = 100':>22}{'N from package':>16}{'gap then':>10}{'N from HTTP/1.0':>17}")
    lines = [head, f"{'paper':<9}" + "".join(f"{rows[0][s]['paper_n100']:>6.1f}" for s in SIZES)]
    for r in rows:
        npk = "/".join(f"{r[s]['n_package']:.0f}" for s in SIZES)
        ns = "/".join(f"{r[s]['n_implied']:.0f}" for s in SIZES)
        lines.append(f"{r['reading']:<9}" + "".join(f"{r[s]['ours']:>6d}" for s in SIZES)
                     + f"{r['max_gap_n100']:>22.1f}{npk:>16}{r['max_gap_npkg']:>10.1f}{ns:>17}")
    lines.append("(HTTP/1.0 packets per file at 1K, 4K, 10K; gap: the largest |ours - paper| per file; N from")
    lines.append(" package: the files a test sent if its package fetch sent Table 2's packets under this reading;")
    lines.append(" N from HTTP/1.0: Table 2's HTTP/1.0 packets divided by ours per file)")
    lines += [f"{r['reading']:<4} {r['says']}" for r in rows]
    return "\n".join(lines)


def reductions_rows(p: ObjpackParams | None = None, n_files: int = 100) -> list[dict]:
    """Per reading and size: the package's packet and byte reductions (%) against HTTP/1.0 for ``n_files`` files,
    by hand count, beside Tables 1-2's."""
    p = p or ObjpackParams()
    table = paper_table()
    out = []
    for r in READINGS:
        for s in SIZES:
            f = SIZE_BYTES[s]
            pe, pp = n_files * http10_packets_per_file(r, f, p), package_packets(r, n_files, f, p)
            be, bp = page_bytes(r, "http10", n_files, f, p), page_bytes(r, "package", n_files, f, p)
            out.append({"reading": r.name, "size": s, "packets_pct": reduction_pct(pe, pp),
                        "paper_packets_pct": reduction_pct(table[("packets", s, "existing")],
                                                           table[("packets", s, "package")]),
                        "bytes_pct": reduction_pct(be, bp),
                        "paper_bytes_pct": reduction_pct(table[("bytes", s, "existing")],
                                                         table[("bytes", s, "package")])})
    return out


def reductions_text(rows: list[dict] | None = None) -> str:
    """``reductions_rows`` as fixed-width text: packets and bytes reductions per reading at 1K/4K/10K."""
    rows = rows or reductions_rows()
    by = {(r["reading"], r["size"]): r for r in rows}
    names = list(dict.fromkeys(r["reading"] for r in rows))
    head = f"{'reduction (%)':<14}" + "".join(f"{'packets ' + s:>12}" for s in SIZES) + "".join(
        f"{'bytes ' + s:>11}" for s in SIZES)
    lines = [head, f"{'Tables 1-2':<14}" + "".join(f"{by[(names[0], s)]['paper_packets_pct']:>12.1f}" for s in SIZES)
             + "".join(f"{by[(names[0], s)]['paper_bytes_pct']:>11.1f}" for s in SIZES)]
    for n in names:
        lines.append(f"{'reading ' + n:<14}" + "".join(f"{by[(n, s)]['packets_pct']:>12.1f}" for s in SIZES)
                     + "".join(f"{by[(n, s)]['bytes_pct']:>11.1f}" for s in SIZES))
    return "\n".join(lines)


def readings_summary(rows: list[dict] | None = None) -> str:
    """One paragraph (markdown) computed from ``reading_rows``: simcore's count beside the paper's, and which
    readings come closest under each count of files per test."""
    rows = rows or reading_rows()
    by = {r["reading"]: r for r in rows}
    s = by[SIMCORE.name]
    ours = " / ".join(f"{s[k]['ours']}" for k in SIZES)
    paper = " / ".join(f"{s[k]['paper_n100']:.1f}" for k in SIZES)
    gaps = " / ".join(f"{s[k]['paper_n100'] - s[k]['ours']:.1f}" for k in SIZES)
    best = {}
    for key in ("max_gap_n100", "max_gap_npkg"):
        low = min(r[key] for r in rows)
        best[key] = (low, [r["reading"] for r in rows if abs(r[key] - low) < 0.05])
    names = {k: " and ".join(v[1]) for k, v in best.items()}

    def verdict(key: str, files: str) -> str:
        low = best[key][0]
        if low <= 0.5:  # half a packet: the resolution of a whole-packet count against an average
            return f"with {files}, {names[key]} comes within {low:.1f} packets per file at every size"
        return f"with {files}, the closest ({names[key]}) still misses one size by {low:.1f} packets per file"

    return (f"simcore's testbed sends **{ours}** packets per HTTP/1.0 file at 1K / 4K / 10K; the paper's Table 2 "
            f"gives **{paper}** if each test sent 100 files: {gaps} more. Hand counts of what a stack could "
            f"send alone: {verdict('max_gap_n100', '100 files')}; "
            f"{verdict('max_gap_npkg', 'the number of files the package column implies')}.")
