"""The server's two per-file costs, least-squares fitted to Table 3 (so Table 3 is not evidence for them).

The paper gives no server costs, only the six response times of Table 3 (HTTP/1.0 and the package at 1K,
4K and 10K). The testbed's response time is exactly linear in the server's per-file work: HTTP/1.0 pays it
once per file, one file after another, with nothing else on the wire meanwhile, and the package pays it once
for the whole package. So, for each of the six fetches,

    T = T_0 + a x (file accesses) + b x (bytes read and copied),

where T_0 is the same fetch with a = b = 0 (``zero_cost_runs``), a = ``server_file_s`` and
b = ``server_copy_s_per_byte``. ``fit_server_costs`` solves for (a, b) by least squares on the relative
errors (each of the six times weighs the same in per cent) and ``ObjpackParams``'s defaults are that fit,
rounded. Comparing our response times with Table 3 afterwards shows how well two numbers can fit six, not
that the model agrees with the paper: the bytes and packets (Tables 1-2) are the independent evidence.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from .model import response_plan, simulate_objpack
from .paper import SIZE_BYTES, SIZES, paper_table
from .params import ObjpackParams
from .workload import make_page

__all__ = ["FitRow", "ServerFit", "zero_cost_runs", "fit_server_costs", "fit_text"]

METHOD_OF = {"existing": "http10", "package": "package"}


@dataclass(frozen=True)
class FitRow:
    """One of Table 3's six fetches: the paper's time, ours without server costs, and what the costs multiply."""

    size: str  # '1K', '4K' or '10K'
    method: str  # 'existing' (HTTP/1.0) or 'package'
    paper_s: float  # Table 3
    zero_cost_s: float  # our fetch with no per-file server work
    accesses: int  # file accesses the server makes (HTTP/1.0: one per file; the package: one)
    copied_bytes: int  # bytes the server reads and copies (file bodies; the package's whole body)


@dataclass(frozen=True)
class ServerFit:
    """The fit: per-file cost (s), per-byte cost (s/byte), and each fetch's fitted time and relative error."""

    server_file_s: float
    server_copy_s_per_byte: float
    rows: tuple[FitRow, ...]

    def fitted_s(self, row: FitRow) -> float:
        """Our response time for ``row`` at the fitted costs (exact: the testbed is linear in them), s."""
        return row.zero_cost_s + self.server_file_s * row.accesses + self.server_copy_s_per_byte * row.copied_bytes

    def error_pct(self, row: FitRow) -> float:
        """Fitted minus the paper's time, in % of the paper's."""
        return 100.0 * (self.fitted_s(row) - row.paper_s) / row.paper_s


def zero_cost_runs(base: ObjpackParams | None = None, seed: int = 0) -> tuple[FitRow, ...]:
    """Return Table 3's six fetches run on the testbed with no per-file server work (``base``'s other values)."""
    base = base or ObjpackParams()
    table = paper_table()
    rows = []
    for s in SIZES:
        for m, method in METHOD_OF.items():
            p = replace(base, mean_file_bytes=SIZE_BYTES[s], method=method, server_file_s=0.0,
                        server_copy_s_per_byte=0.0)
            resp, _ = response_plan(p, make_page(p, seed))
            body = resp - p.response_header_bytes
            rows.append(FitRow(s, m, table[("response_time", s, m)], simulate_objpack(p, seed).response_time_s,
                               int(body.size), int(body.sum())))
    return tuple(rows)


def fit_server_costs(base: ObjpackParams | None = None, seed: int = 0) -> ServerFit:
    """Return the per-file and per-byte server costs that best fit Table 3 (least squares, relative errors)."""
    rows = zero_cost_runs(base, seed)
    w = np.array([1.0 / r.paper_s for r in rows])
    a = np.array([[r.accesses, r.copied_bytes] for r in rows], float) * w[:, None]
    y = np.array([r.paper_s - r.zero_cost_s for r in rows]) * w
    scale = np.array([1e-3, 1e-9])  # solve in ms and ns: columns of similar size
    x = np.linalg.lstsq(a * scale, y, rcond=None)[0] * scale
    return ServerFit(float(x[0]), float(x[1]), rows)


def fit_text(fit: ServerFit | None = None) -> str:
    """The fit and each of Table 3's times beside ours at the fitted costs, as fixed-width text."""
    fit = fit or fit_server_costs()
    a_ms, b_ns = 1e3 * fit.server_file_s, 1e9 * fit.server_copy_s_per_byte
    lines = [f"fitted to Table 3: {a_ms:.2f} ms per file + {b_ns:.0f} ns per byte (2 numbers fitted to 6)",
             f"{'size':>4}  {'method':<9}{'paper (s)':>10}{'ours (s)':>10}{'ours - paper':>14}"]
    for r in fit.rows:
        label = "HTTP/1.0" if r.method == "existing" else "package"
        lines.append(f"{r.size:>4}  {label:<9}{r.paper_s:>10.3f}{fit.fitted_s(r):>10.3f}{fit.error_pct(r):>+13.1f}%")
    worst = max(fit.rows, key=lambda r: abs(fit.error_pct(r)))
    within = sum(abs(fit.error_pct(r)) <= 5.0 for r in fit.rows)
    lines.append(f"{within} of 6 within 5 %; the largest miss: {worst.size} "
                 f"{'HTTP/1.0' if worst.method == 'existing' else 'package'}, {fit.error_pct(worst):+.1f} %")
    return "\n".join(lines)
