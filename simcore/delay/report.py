"""The report's numbers (data/delay_*.csv), its own formulas, and what its measurements imply.

- :func:`load_correctness`, :func:`load_sweeps`: the CSVs as plain records;
- :func:`report_general_formula_ms`: section III.2's general formulas, verbatim (including the one for
  multiplexing that disagrees with the report's own hand count);
- :func:`per_run_times`: the Appendix-2 points as times of single runs. The propagation and
  number-of-objects sweeps are printed as running totals (each point = previous point + this run):
  their first differences are linear in x, the printed values are not (and grow faster than any
  count of packets allows);
- :func:`report_sweep_fits`: straight-line fits of the per-run times (runs 2..10) giving how many
  packets each run paid propagation for and how many bytes it transmitted;
- :func:`inferred_sizes`: the packet sizes those fits imply (SYN/ACK ~3 bytes, ...).
"""

from __future__ import annotations

import csv
import functools
from pathlib import Path

import numpy as np

from simcore._validate import check_bool, check_choice, check_int, check_real

__all__ = [
    "DATA_DIR",
    "load_correctness",
    "load_sweeps",
    "report_general_formula_ms",
    "per_run_times",
    "report_sweep_fits",
    "inferred_sizes",
    "SWEEPS",
]

DATA_DIR = Path(__file__).resolve().parents[2] / "data"
SWEEPS = {"transmission": "trans_ms_per_byte", "propagation": "prop_delay_ms", "objects": "n_objects"}
CUMULATIVE_SWEEPS = ("propagation", "objects")

_INT_COLS = {"n_parents", "n_children", "n_objects", "point", "ctrl_packets_in_text",
             "ctrl_packets_in_formula", "data_packets", "n_trials"}
_FLOAT_COLS = {"prop_delay_ms", "trans_ms_per_byte", "ctrl_size_bytes", "data_size_bytes", "hand_calc_ms",
               "measured_ms", "response_time_ms"}


def _read(name: str) -> tuple[dict, ...]:
    rows = []
    with open(DATA_DIR / name, newline="") as f:
        for row in csv.DictReader(f):
            out = {}
            for k, v in row.items():
                if k in _INT_COLS:
                    out[k] = int(v)
                elif k in _FLOAT_COLS:
                    out[k] = float(v)
                elif k == "cache":
                    out[k] = v == "True"
                else:
                    out[k] = v
            rows.append(out)
    return tuple(rows)


@functools.cache
def _correctness() -> tuple[dict, ...]:
    return _read("delay_correctness.csv")


@functools.cache
def _sweeps() -> tuple[dict, ...]:
    return _read("delay_sweeps.csv")


def load_correctness() -> list[dict]:
    """Return the report's four correctness cases (section III.1, Appendix 1) as records; times in ms."""
    return [dict(r) for r in _correctness()]


def load_sweeps() -> list[dict]:
    """Return every Appendix-2 point as printed (records; ``response_time_ms`` in ms)."""
    return [dict(r) for r in _sweeps()]


def report_general_formula_ms(mode: str, n_parents: int, n_children: int, d_ctrl_ms: float,
                              d_data_ms: float) -> float:
    """Return the report's section-III.2 formula for the response time, ms (verbatim, errors included).

    persistent ``(2 + P + PC) d_ctrl + (P + PC) d_data``; non-persistent ``3(P + PC) d_ctrl + (P + PC)
    d_data``; multiplexing ``(5P + PC) d_ctrl + (P + PC) d_data``. The last disagrees with the report's
    own hand count ``(2 + 3P + PC)`` control packets whenever P > 1.
    """
    check_choice("mode", mode, ("1.0", "1.1", "1.2"))
    P = check_int("n_parents", n_parents, 1)
    C = check_int("n_children", n_children, 0)
    dc = check_real("d_ctrl_ms", d_ctrl_ms, 0.0)
    dd = check_real("d_data_ms", d_data_ms, 0.0)
    n = P + C * P
    if mode == "1.1":
        return (2 + P + P * C) * dc + n * dd
    if mode == "1.0":
        return 3 * n * dc + n * dd
    return (5 * P + P * C) * dc + n * dd


def per_run_times(sweep: str, mode: str, cache: bool = False) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Return ``(x, printed_ms, per_run_ms)`` for one Appendix-2 series (x in the sweep's unit, times ms).

    For the propagation and objects sweeps the printed values are running totals, so ``per_run_ms`` is
    their first difference; for the transmission sweep it equals ``printed_ms``.
    """
    check_choice("sweep", sweep, tuple(SWEEPS))
    check_bool("cache", cache)
    rows = [r for r in _sweeps() if r["sweep"] == sweep and r["http_version"] == mode and r["cache"] == cache]
    if not rows:
        raise ValueError(f"the report has no {sweep} series for mode={mode!r}, cache={cache!r}")
    rows.sort(key=lambda r: r["point"])
    x = np.array([r[SWEEPS[sweep]] for r in rows], dtype=np.float64)
    y = np.array([r["response_time_ms"] for r in rows], dtype=np.float64)
    per_run = np.diff(y, prepend=0.0) if sweep in CUMULATIVE_SWEEPS else y.copy()
    return x, y, per_run


def report_sweep_fits() -> list[dict]:
    """Return one record per Appendix-2 series: a least-squares line through its runs 2..10 (ms vs x).

    Fields: ``slope`` (ms per x unit: bytes per run for the transmission sweep, packets per run for the
    propagation sweep, ms per object for the objects sweep), ``intercept_ms``, ``max_abs_residual_ms``
    over runs 2..10 and ``first_point_residual_ms`` (run 1 minus the line). Run 1 is left out because
    it differs systematically (a handshake more for 1.1, one less for 1.2: see ASSUMPTIONS.md).
    """
    out = []
    keys = sorted({(r["sweep"], r["http_version"], r["cache"]) for r in _sweeps()})
    for sweep, mode, cache in keys:
        x, _, y = per_run_times(sweep, mode, cache)
        slope, icpt = np.polyfit(x[1:], y[1:], 1)
        res = y - (slope * x + icpt)
        out.append({
            "sweep": sweep, "http_version": mode, "cache": cache,
            "slope": float(slope), "intercept_ms": float(icpt),
            "max_abs_residual_ms": float(np.max(np.abs(res[1:]))),
            "first_point_residual_ms": float(res[0]),
        })
    return out


def inferred_sizes() -> dict[str, float]:
    """Return packet sizes (bytes) implied by the transmission sweep (2 objects, 2 ms/byte ... 29 ms/byte).

    The slope of a run's time against the per-byte delay is the number of bytes the run transmitted.
    1.0 sends (SYN, ACK, GET, 200) per object; 1.1 runs after the first found the connection still open
    and sent (GET, 200) only; 1.0 cached sends (SYN, ACK, GET, 304); 1.2 with C = 0 sends one handshake
    and (GET + header, 200) per object. Hence, with 2 objects per run:

    ``syn_plus_ack = (b_1.0 - b_1.1) / 2``, ``get_plus_data = b_1.1 / 2``,
    ``cond_get_plus_304 = b_1.0c / 2 - syn_plus_ack``, ``mux_header = (b_1.2 - syn_plus_ack - b_1.1) / 2``.
    Also ``overhead_ms_per_packet``: the 1.0 intercept minus 8 x 100 ms propagation, per packet.
    """
    fits = {(f["sweep"], f["http_version"], f["cache"]): f for f in report_sweep_fits()}
    b10 = fits[("transmission", "1.0", False)]["slope"]
    b10c = fits[("transmission", "1.0", True)]["slope"]
    b11 = fits[("transmission", "1.1", False)]["slope"]
    b12 = fits[("transmission", "1.2", False)]["slope"]
    syn_ack = (b10 - b11) / 2.0
    return {
        "syn_plus_ack_bytes": syn_ack,
        "syn_bytes": syn_ack / 2.0,
        "get_plus_data_bytes": b11 / 2.0,
        "cond_get_plus_304_bytes": b10c / 2.0 - syn_ack,
        "mux_header_bytes": (b12 - syn_ack - b11) / 2.0,
        "overhead_ms_per_packet": (fits[("transmission", "1.0", False)]["intercept_ms"] - 800.0) / 8.0,
    }
