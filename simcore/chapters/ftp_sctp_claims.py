"""Chapter 3's claims under every reading of the paper's loss setting, as the notebook prints them.

Every verdict here is read from ``simcore.ftp.claims.verdicts`` on the stored reading sweep
(``data/ftp_sctp_readings.csv``); nothing is typed by hand. ``data/ftp_sctp_verdicts.csv`` holds the same
verdicts (a test checks that it is what the computation gives).
"""

from __future__ import annotations

import math
import textwrap

from simcore.ftp.claims import CLAIMS, verdicts
from simcore.ftp.reading_sweep import SIZES, evidence_rows, load_readings
from simcore.ftp.readings import READINGS

__all__ = ["SHORT", "claims_table_text", "claims_why_text", "evidence_text", "balance_text", "verdict_of"]

SHORT = {"percent": "0.1/0.3%", "fraction": "10/30%", "fraction_c2s": "10/30% c>s", "fraction_s2c": "10/30% s>c",
         "between": "1/3%", "spared_sctp": "10/30% S-rtx", "spared_all": "10/30% rtx"}
WIDTH = 110  # printed lines: no wrapping at 1400 px with the file browser open
_CELL = {"yes": "yes", "no": "no", "not resolved": "unresolved", "not measurable": "n/m"}


def _size(s: int) -> str:
    return "10 KB" if s == 10 * 1024 else "1 MB"


def _verdicts(records):
    return verdicts(records if records is not None else load_readings())


def verdict_of(claim: str, reading: str, file_size_bytes: int, records: list[dict] | None = None) -> str:
    """Return one verdict ('yes', 'no', 'not resolved', 'not measurable')."""
    for v in _verdicts(records):
        if (v.claim, v.reading, v.file_size_bytes) == (claim, reading, file_size_bytes):
            return v.verdict
    raise ValueError(f"no verdict for claim={claim!r}, reading={reading!r}, file_size_bytes={file_size_bytes}")


def claims_table_text(records: list[dict] | None = None) -> str:
    """Return the claims (rows: claim and file size) against the readings (columns) as fixed-width text."""
    vs = _verdicts(records)
    names = [n for n in READINGS if any(v.reading == n for v in vs)]
    w = max(12, *(len(SHORT.get(n, n)) + 1 for n in names))
    lines = [f"{'claim':12}" + "".join(f"{SHORT.get(n, n):>{w}}" for n in names)]
    for claim in CLAIMS:
        for size in SIZES:
            cells = {v.reading: _CELL[v.verdict] for v in vs if v.claim == claim and v.file_size_bytes == size}
            lines.append(f"{claim + ' ' + _size(size):12}" + "".join(f"{cells.get(n, '-'):>{w}}" for n in names))
    lines.append("")
    lines += [f"{c}: {text}" for c, text in CLAIMS.items()]
    lines += [f"{SHORT.get(n, n):>13}: {READINGS[n].label}" for n in names]
    return "\n".join(lines)


def claims_why_text(records: list[dict] | None = None) -> str:
    """Return every verdict with the numbers it rests on (90% intervals in brackets)."""
    out = []
    for v in _verdicts(records):
        out.append(f"{v.claim} {_size(v.file_size_bytes)}, {READINGS[v.reading].label}: {v.verdict.upper()}: {v.why}")
    return "\n".join(out)


def evidence_text(records: list[dict] | None = None) -> str:
    """Return, per reading, what the paper's sample-size rule asks at its highest loss (the most runs any
    design needs for a 0.5 s half-width, and the testbed hours of that point's four designs) and how many
    of the claims hold, as fixed-width text."""
    recs = records if records is not None else load_readings()
    ev = {(e["reading"], e["file_size_bytes"]): e for e in evidence_rows(recs)}
    vs = _verdicts(recs)
    lines = [f"{'reading':14}{'runs (10 KB)':>14}{'hours':>10}{'runs (1 MB)':>14}{'hours':>11}"
             f"{'claims yes (10 KB / 1 MB)':>27}{'gave up':>9}"]
    for n in READINGS:
        if (n, SIZES[0]) not in ev:
            continue
        cells = ""
        for s in SIZES:
            e = ev[(n, s)]
            cells += f"{_big(e['max_runs_needed']):>14}{_big(e['testbed_hours']):>{10 if s == SIZES[0] else 11}}"
        held = [sum(v.verdict == "yes" for v in vs if v.reading == n and v.file_size_bytes == s) for s in SIZES]
        gave = sum(ev[(n, s)]["gave_up"] for s in SIZES)
        runs = sum(ev[(n, s)]["runs"] for s in SIZES)
        lines.append(f"{SHORT.get(n, n):14}{cells}{f'{held[0]} of 3 / {held[1]} of 3':>27}{f'{gave}/{runs}':>9}")
    lines += textwrap.wrap("runs: the most sessions any design needs at the reading's highest loss for a 90% "
                           "interval of +-0.5 s (sigma from the sweep); hours: those sessions' testbed time, four "
                           "designs; gave up: sessions at that loss whose transport gave up", WIDTH)
    return "\n".join(lines)


def _big(x: float) -> str:
    if not math.isfinite(x):
        return "n/a"
    if x >= 1e6:
        return f"{x:.1e}"
    return f"{x:,.0f}" if x >= 10 else f"{x:.2g}"


def balance_text(records: list[dict] | None = None) -> str:
    """Return which readings the paper's method supports (its sample-size rule needs at most ``FEASIBLE_RUNS``
    sessions at every point of both figures) and which its claims support (most of the six claim checks,
    C1-C3 for both file sizes, reproduced), computed from the stored sweep, in two sentences."""
    recs = records if records is not None else load_readings()
    vs = _verdicts(recs)
    ev = {(e["reading"], e["file_size_bytes"]): e for e in evidence_rows(recs)}
    names = [n for n in READINGS if all((n, s) in ev for s in SIZES)]
    need = {n: max(ev[(n, s)]["max_runs_needed"] for s in SIZES) for n in names}
    held = {n: sum(v.verdict == "yes" for v in vs if v.reading == n) for n in names}
    feasible = [n for n in names if need[n] <= FEASIBLE_RUNS]
    top = max(held.values())
    best = [n for n in names if held[n] == top]

    def label(n):
        return READINGS[n].label

    method = (f"The paper's sample-size rule can be met (at most {FEASIBLE_RUNS:,} sessions a point) only under "
              + (", ".join(label(n) for n in feasible) if feasible else "no reading")
              + "; under the others it needs "
              + ", ".join(f"{_big(need[n])} ({SHORT.get(n, n)})" for n in names if n not in feasible) + ".")
    claims = (f"The claims are reproduced best ({top} of 6 checks) under "
              + " and ".join(label(n) for n in best) + "; "
              + ", ".join(f"{SHORT.get(n, n)} {held[n]}" for n in names if n not in best) + ".")
    both = [n for n in best if n in feasible]
    end = (" One reading is best on both counts: " + label(both[0]) + "." if both else
           " No reading is best on both counts: the method and the reported trends point different ways.")
    return "\n".join(textwrap.wrap(method, WIDTH) + textwrap.wrap(claims + end, WIDTH))


FEASIBLE_RUNS = 1000  # sessions a point: hours of testbed time for 10 x 10 KB, about a day for 10 x 1 MB
