"""Chapter 2's smaller stored tables: the hybrid fast mode against the full packet run (with timings), and
the beyond-the-paper switches, each written to ``data/`` by ``python -m simcore.chapters.satellite_extras``
so the notebook reads them instead of simulating.
"""

from __future__ import annotations

import csv
import time
from dataclasses import replace
from pathlib import Path

from simcore.satellite import SatelliteParams, simulate_satellite
from simcore.satellite.hybrid import simulate_hybrid

from .satellite import DATA_DIR, traces_for_load

__all__ = ["HYBRID_PATH", "BEYOND_PATH", "SWITCHES", "write_hybrid_check", "write_beyond", "load_rows",
           "hybrid_check_text", "speedup_text", "beyond_text"]

HYBRID_PATH = DATA_DIR / "satellite_hybrid_check.csv"
BEYOND_PATH = DATA_DIR / "satellite_beyond.csv"
HYBRID_LOADS = (20, 120, 300)  # day-traces: ~1.2, ~7 and ~17 Mbit/s (the test's three loads)
BEYOND_LOAD_BPS = 20e6
# name -> what changes from the paper's setting (SatelliteParams fields)
SWITCHES = {
    "paper (GEO 320 ms, 32767-byte windows, 4.4BSD-Lite)": {},
    "RFC 1323 window scaling (4 MB proxy windows)": {"proxy_window_bytes": 4 * 2**20},
    "today's TCP (linux preset: IW 10, SACK)": {"tcp_preset": "linux"},
    "LEO delay (20 ms one way)": {"satellite_delay_s": 0.020},
    "persistent HTTP/1.1 from the NZ proxy (Zipf 0.8, 5000 servers)": {"http_version": "1.1"},
}
BASE_ONLY = ("http_version",)  # switches of the NZ proxy's own connections: the base case only


def _write(path: Path, rows: list[dict]) -> Path:
    tmp = path.with_suffix(".tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    tmp.replace(path)
    return path


def write_hybrid_check(path: Path = HYBRID_PATH, duration_s: float = 60.0, seed: int = 1) -> Path:
    """Run the full packet simulation and the hybrid at ``HYBRID_LOADS`` for the base case and 100
    inter-proxy connections; write latency, carried load and wall-clock times."""
    rows = []
    for arch, n in (("base", 1), ("us_proxy", 100)):
        for nt in HYBRID_LOADS:
            p = SatelliteParams(architecture=arch, n_proxy_connections=n, n_traces=nt, duration_s=duration_s,
                                measure_buffers=False)
            t0 = time.perf_counter()
            full = simulate_satellite(p, seed)
            t_full = time.perf_counter() - t0
            fast = simulate_hybrid(p, seed)
            rows.append(dict(curve="base" if arch == "base" else f"{n} connections", n_traces=nt,
                             presented_mbps=round(full.presented_load_bps / 1e6, 3),
                             full_latency_s=round(full.sample_latency_mean_s, 4),
                             hybrid_latency_s=round(fast.sample_latency_mean_s, 4),
                             full_carried_mbps=round(full.carried_nz_bound_bps / 1e6, 4),
                             hybrid_carried_mbps=round(fast.carried_nz_bound_bps / 1e6, 4),
                             full_requests=full.requests, hybrid_packet_requests=fast.packet_requests,
                             full_s=round(t_full, 3), hybrid_s=round(fast.elapsed_s, 3),
                             source=f"simcore.satellite full vs hybrid, {duration_s:g} s simulated, seed {seed}"))
    return _write(path, rows)


def write_beyond(path: Path = BEYOND_PATH, duration_s: float = 600.0, seed: int = 1) -> Path:
    """Run every switch of ``SWITCHES`` for the base case and 100 connections at 20 Mbit/s presented (full
    packet runs) and write the sample latency and carried load."""
    rows = []
    nt = traces_for_load(BEYOND_LOAD_BPS)
    for name, change in SWITCHES.items():
        for arch, n in (("base", 1), ("us_proxy", 100), ("us_proxy", 10)):
            if arch != "base" and any(k in BASE_ONLY for k in change):
                continue
            p = replace(SatelliteParams(architecture=arch, n_proxy_connections=n, n_traces=nt, duration_s=duration_s,
                                        measure_buffers=False), **change)
            r = simulate_satellite(p, seed)
            rows.append(dict(switch=name, curve="base" if arch == "base" else f"{n} connections",
                             presented_mbps=round(r.presented_load_bps / 1e6, 3),
                             carried_mbps=round(r.carried_nz_bound_bps / 1e6, 3),
                             latency_s=round(r.sample_latency_mean_s, 3), sample_unfinished=r.sample_unfinished,
                             source=f"simcore.satellite packet-level run, {duration_s:g} s simulated, seed {seed}"))
    return _write(path, rows)


def load_rows(path: Path) -> list[dict]:
    """Return a stored table's rows (strings; the notebook formats them)."""
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


if __name__ == "__main__":
    print(write_hybrid_check())
    print(write_beyond())


def hybrid_check_text(rows: list[dict] | None = None) -> str:
    """Return the stored hybrid check as fixed-width text: latency and carried load, full vs hybrid."""
    rows = load_rows(HYBRID_PATH) if rows is None else rows
    head = (f"{'curve':<16}{'presented':>10}{'latency full':>14}{'hybrid':>8}{'carried full':>14}{'hybrid':>8}"
            f"{'packet-level requests':>23}")
    lines = [head, "-" * len(head)]
    for r in rows:
        lines.append(f"{r['curve']:<16}{float(r['presented_mbps']):>10.2f}{float(r['full_latency_s']):>14.2f}"
                     f"{float(r['hybrid_latency_s']):>8.2f}{float(r['full_carried_mbps']):>14.2f}"
                     f"{float(r['hybrid_carried_mbps']):>8.2f}"
                     f"{r['hybrid_packet_requests']:>12} of {r['full_requests']}")
    lines.append("(Mbit/s and seconds)")
    return "\n".join(lines)


def speedup_text(rows: list[dict] | None = None) -> str:
    """Return the wall-clock times of the stored hybrid check (machine-dependent: not a checked output)."""
    rows = load_rows(HYBRID_PATH) if rows is None else rows
    return "\n".join(f"{r['curve']:<16}{float(r['presented_mbps']):>7.2f} Mbit/s: full {float(r['full_s']):5.2f} s, "
                     f"hybrid {float(r['hybrid_s']):5.2f} s, x{float(r['full_s']) / float(r['hybrid_s']):.1f}"
                     for r in rows)


def beyond_text(rows: list[dict] | None = None) -> str:
    """Return the stored switches as a table: sample latency (s) and carried load (Mbit/s) per curve."""
    rows = load_rows(BEYOND_PATH) if rows is None else rows
    cols = list(dict.fromkeys(r["curve"] for r in rows))
    head = f"{'switch':<64}" + "".join(f"{c:>24}" for c in cols)
    lines = [head, "-" * len(head)]
    for s in dict.fromkeys(r["switch"] for r in rows):
        cells = []
        for c in cols:
            r = next((x for x in rows if x["switch"] == s and x["curve"] == c), None)
            cells.append("(base only)" if r is None else
                         f"{float(r['latency_s']):>8.2f} s {float(r['carried_mbps']):>6.1f} Mbit/s")
        lines.append(f"{s:<64}" + "".join(f"{x:>24}" for x in cells))
    lines.append("(mean sample-page latency, carried NZ-bound load; 20 Mbit/s presented)")
    return "\n".join(lines)
