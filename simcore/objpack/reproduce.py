"""Tables 1-3 and Figures 4-5 re-run on the testbed, beside the paper's numbers."""

from __future__ import annotations

from dataclasses import replace

from simcore._validate import check_int
from simcore.rng import SeedLike

from .model import ObjpackResult, simulate_objpack
from .paper import QUANTITIES, SIZE_BYTES, SIZES, paper_table, reduction_pct
from .params import METHODS, ObjpackParams

__all__ = ["REFERENCE", "METHOD_OF", "reproduce_tables", "table_text", "files_sweep", "compare_methods"]

REFERENCE = ObjpackParams()  # 100 files, fixed sizes, the server fitted to Table 3, 10 Mbit/s hub
METHOD_OF = {"existing": "http10", "package": "package"}


def _value(r: ObjpackResult, q: str) -> float:
    return {"bytes": float(r.bytes), "packets": float(r.packets), "response_time": r.response_time_s}[q]


def reproduce_tables(base: ObjpackParams = REFERENCE, seed: SeedLike = 0) -> list[dict]:
    """Return one record per (quantity, size): the paper's existing/package values and reduction, ours,
    and the gap in reduction (ours - paper, percentage points)."""
    paper = paper_table()
    runs = {(s, m): simulate_objpack(replace(base, mean_file_bytes=SIZE_BYTES[s], method=METHOD_OF[m]), seed)
            for s in SIZES for m in METHOD_OF}
    rows = []
    for q in QUANTITIES:
        for s in SIZES:
            pe, pp = paper[(q, s, "existing")], paper[(q, s, "package")]
            oe, op = _value(runs[(s, "existing")], q), _value(runs[(s, "package")], q)
            rp, ro = reduction_pct(pe, pp), reduction_pct(oe, op)
            rows.append({"quantity": q, "size": s, "paper_existing": pe, "paper_package": pp,
                         "paper_reduction_pct": rp, "ours_existing": oe, "ours_package": op,
                         "ours_reduction_pct": ro, "gap_points": ro - rp})
    return rows


def table_text(rows: list[dict]) -> str:
    """Return ``reproduce_tables`` rows as fixed-width text (values rounded for printing)."""
    fmt = {"bytes": ".0f", "packets": ".1f", "response_time": ".3f"}
    head = (f"{'quantity':<14}{'size':>5}{'paper exist':>13}{'paper pkg':>11}{'paper red':>10}"
            f"{'ours exist':>12}{'ours pkg':>10}{'ours red':>10}{'gap':>7}")
    lines = [head, "-" * len(head)]
    for r in rows:
        f = fmt[r["quantity"]]
        lines.append(f"{r['quantity']:<14}{r['size']:>5}{r['paper_existing']:>13{f}}{r['paper_package']:>11{f}}"
                     f"{r['paper_reduction_pct']:>9.1f}%{r['ours_existing']:>12{f}}{r['ours_package']:>10{f}}"
                     f"{r['ours_reduction_pct']:>9.1f}%{r['gap_points'] + 0.0:>+7.1f}")
    lines.append("(bytes include 54 header bytes per packet; response time in s, fitted to the paper's; gap = ours - "
                 "paper, points)")
    return "\n".join(lines)


def files_sweep(base: ObjpackParams = REFERENCE, n_files=(1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100),
                seed: SeedLike = 0) -> list[dict]:
    """Return, for each number of files, the reductions (%) of bytes, packets and response time (Figure 5)."""
    out = []
    for n in n_files:
        check_int("n_files", n, 1)
        e = simulate_objpack(replace(base, n_files=n, method="http10"), seed)
        p = simulate_objpack(replace(base, n_files=n, method="package"), seed)
        out.append({"n_files": n, **{f"{q}_reduction_pct": reduction_pct(_value(e, q), _value(p, q))
                                     for q in QUANTITIES}})
    return out


def compare_methods(base: ObjpackParams = REFERENCE, seed: SeedLike = 0,
                    methods=METHODS) -> dict[str, ObjpackResult]:
    """Return {method: result} for the same page fetched by every method."""
    return {m: simulate_objpack(replace(base, method=m), seed) for m in methods}
