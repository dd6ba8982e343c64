"""simcore's BBR v1 against one CUBIC (or Reno) flow beside Ware et al.'s steady-state model and Sarpkaya et al.'s
FABRIC measurements (issue 26 item 3).

Run: .venv/bin/python benchmarks/bench_bbr_share.py [--seeds 10] [--duration 400] [--no-reno] [--no-diagnose]
     [--fabric CSV]     (about 1.5 min of CPU with the defaults, numba's cache warm)

Ware's topology, as Sarpkaya, Srivastava, Fund and Panwar (IFIP Networking 2025) run it on FABRIC: one BBR v1 flow
and one loss-based flow through a drop-tail bottleneck of 10 Mbit/s, 40 ms base RTT (one BDP = 33.3 packets of 1500
bytes), buffers of 1, 2, 4, 8, 16, 32 and 64 BDP. Here both flows use SACK recovery, delayed ACKs (200 ms), initial
window 10, MSS 1460, 16 MB windows, minimum RTO 200 ms (as ``bench_bbr_vs_ns3``); the loss-based flow starts 0.1 s
after BBR; each run lasts ``--duration`` s (400 s: Ware's ``d`` for this topology); the buffer is round(X x 33.3)
packets.

For each buffer it prints BBR's share of the two flows' goodput (mean over seeds with a 95 % t-interval; the seed
draws BBR's first gain phase and the links' jitter), the same from 40 s on (after the start-up transients), the
model's prediction (``simcore.packet.ware_bbr_share``: Ware, IMC 2019, eqs. 7-11) and its share between PROBE_RTTs
(1 - p, eq. 9), and FABRIC's measured share (mean and range of their three runs) when the developers' transcription
(``--fabric``: the developers' shared area, ``data/sarpkaya2025_ware_topology.csv``, never in the repository) is
there. FABRIC's run length is not known to us (their notebook was not read that far): their figures are read as
goodput over the whole run.

The diagnosis (``--no-diagnose`` skips it): one traced run per buffer (CUBIC, seed 1, 120 s) measures the time BBR
spends with cwnd at its 4-segment floor (PROBE_RTT, or a recovery that collapsed the window) and how long each such
episode lasts, beside the model's PROBE_RTT time (eq. 11: q/c + 0.2 s + l every 10 s).
"""

from __future__ import annotations

import argparse
import dataclasses
import math
import statistics
import sys
import time
from pathlib import Path

import numpy as np

from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate, ware_bbr_share

ROOT = Path(__file__).resolve().parent.parent
RATE_BPS, RTT_S, PKT_BYTES, MSS = 10e6, 0.040, 1500, 1460
BDP_PACKETS = RATE_BPS * RTT_S / (8 * PKT_BYTES)  # 33.3
BUFFERS_BDP = (1, 2, 4, 8, 16, 32, 64)
SETTLE_S = 40.0  # the "late" share is measured from here on
FABRIC_NAME = "sarpkaya2025_ware_topology.csv"
# Student's t, 97.5 % quantile, by degrees of freedom (a 95 % two-sided interval of the mean over seeds)
T975 = {1: 12.706, 2: 4.303, 3: 3.182, 4: 2.776, 5: 2.571, 6: 2.447, 7: 2.365, 8: 2.306, 9: 2.262, 10: 2.228}


def scenario(buffer_packets: int, loss_cc: str, duration_s: float):
    bn = LinkParams(rate_bps=RATE_BPS, delay_s=RTT_S / 2, queue_packets=buffer_packets)
    db = dumbbell(2, bn)
    tcps = [TcpParams(recovery="sack", congestion_control=cc, mss_bytes=MSS, rwnd_bytes=16 * 2**20,
                      initial_window_segments=10, delayed_ack=True, delayed_ack_timeout_s=0.2,
                      limited_transmit=True, min_rto_s=0.2) for cc in ("bbr", loss_cc)]
    sc = bulk_scenario(db.network, db.pairs, tcps[0], duration_s, (0.0, 0.1))
    return dataclasses.replace(sc, connections=tuple(dataclasses.replace(c, tcp=tp)  # each flow's own TCP
                                                     for c, tp in zip(sc.connections, tcps, strict=True)))


def shares(buffer_packets: int, loss_cc: str, duration_s: float, seed: int) -> tuple[float, float]:
    """BBR's share of the two flows' goodput over the whole run and from SETTLE_S on (a run to SETTLE_S is the
    same run's prefix: same seed, same events up to then)."""
    whole = simulate(scenario(buffer_packets, loss_cc, duration_s), seed=seed).delivered_bytes[:, 0].astype(float)
    head = simulate(scenario(buffer_packets, loss_cc, SETTLE_S), seed=seed).delivered_bytes[:, 0].astype(float)
    late = whole - head
    return whole[0] / whole.sum(), late[0] / late.sum()


def mean_ci(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return f"{m:6.1%}        "
    half = T975.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:6.1%} ±{half:5.1%}"


def fabric_shares(path: Path | None) -> dict[tuple[str, int], list[float]]:
    """{(loss_cc, buffer_bdp): [BBR's share in each FABRIC run]} from the developers' transcription, or {}."""
    if path is None or not path.is_file():
        return {}
    out: dict[tuple[str, int], list[float]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or line.startswith("loss_cc") or not line.strip():
            continue
        cc, x, _trial, bbr, loss = line.split(",")
        out.setdefault((cc, int(x)), []).append(float(bbr) / (float(bbr) + float(loss)))
    return out


def floor_episodes(buffer_packets: int, duration_s: float) -> tuple[float, float, int]:
    """One traced run (CUBIC, seed 1): the fraction of [SETTLE_S, end] BBR's cwnd sits at its 4-segment floor, the
    mean length of those episodes (s) and their number."""
    r = simulate(scenario(buffer_packets, "cubic", duration_s), seed=1, trace=True)
    tr = r.tcp_trace
    sel = (tr.conn == 0) & (tr.direction == 0)
    t, cw = tr.time_s[sel], tr.cwnd_bytes[sel]
    low = cw <= 4 * MSS + 1e-6
    dt = np.diff(np.append(t, duration_s))  # each record's value holds until the next record
    keep = t >= SETTLE_S
    frac = float(dt[keep & low].sum() / dt[keep].sum())
    starts = np.flatnonzero(low & ~np.concatenate(([False], low[:-1])) & keep)
    ends = np.flatnonzero(~low & np.concatenate(([False], low[:-1])))
    lengths = [t[ends[ends > s][0]] - t[s] for s in starts if np.any(ends > s)]
    return frac, (statistics.fmean(lengths) if lengths else float("nan")), len(lengths)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--seeds", type=int, default=10)
    ap.add_argument("--duration", type=float, default=400.0)
    ap.add_argument("--no-reno", action="store_true", help="CUBIC only")
    ap.add_argument("--no-diagnose", action="store_true", help="skip the traced PROBE_RTT diagnosis")
    ap.add_argument("--fabric", type=Path, default=None,
                    help=f"the FABRIC transcription (default: shared/data/{FABRIC_NAME} beside the repository or "
                         "its worktree folder)")
    args = ap.parse_args(argv)
    fabric_path = args.fabric or next((p for p in (ROOT.parent / "shared" / "data" / FABRIC_NAME,
                                                   ROOT.parent.parent / "shared" / "data" / FABRIC_NAME)
                                       if p.is_file()), None)
    fabric = fabric_shares(fabric_path)
    print(f"BBR v1 vs one loss-based flow, {RATE_BPS / 1e6:g} Mbit/s, {RTT_S * 1e3:g} ms, BDP {BDP_PACKETS:.1f} "
          f"packets, {args.duration:g} s, seeds 1..{args.seeds}")
    print("FABRIC (Sarpkaya et al. 2025, fig. 2a/2c, 3 runs): "
          + (str(fabric_path) if fabric else "absent (no transcription found; --fabric CSV)"))
    t0 = time.process_time()
    for cc in ("cubic",) + (() if args.no_reno else ("reno",)):
        print(f"\nBBR's share against one {cc.upper()} flow")
        print(" buffer   packets | simcore whole run  from 40 s         | model eq.10  (1-p) | FABRIC mean  [min, max]")
        for x in BUFFERS_BDP:
            q = round(x * BDP_PACKETS)
            runs = [shares(q, cc, args.duration, s) for s in range(1, args.seeds + 1)]
            m = ware_bbr_share(RATE_BPS, RTT_S, q, 1, PKT_BYTES)
            fab = fabric.get((cc, x))
            fab_s = (f"{statistics.fmean(fab):6.1%}  [{min(fab):5.1%}, {max(fab):5.1%}]" if fab else "absent")
            print(f" {x:3d} BDP  {q:6d}  | {mean_ci([a for a, _ in runs])}   {mean_ci([b for _, b in runs])} | "
                  f"{m.bbr_share:6.1%}    {m.cap_share:6.1%} | {fab_s}", flush=True)
    cpu_runs = time.process_time() - t0
    if not args.no_diagnose:
        print(f"\nDiagnosis (CUBIC, seed 1, 120 s traced): BBR's time at its 4-segment cwnd floor from {SETTLE_S:g} s "
              "on, beside the model's PROBE_RTT time (eq. 11)")
        print(" buffer | simcore: fraction at floor  episodes  mean length | model: fraction  PROBE_RTT length")
        for x in BUFFERS_BDP:
            q = round(x * BDP_PACKETS)
            frac, mean_len, n_ep = floor_episodes(q, 120.0)
            m = ware_bbr_share(RATE_BPS, RTT_S, q, 1, PKT_BYTES)
            probe_len = q / (RATE_BPS / (8 * PKT_BYTES)) + 0.2 + RTT_S
            print(f" {x:3d} BDP |                 {frac:6.1%}      {n_ep:4d}     {mean_len:6.2f} s |"
                  f"         {m.probe_rtt_fraction:6.1%}          {probe_len:5.2f} s", flush=True)
    print(f"\nCPU {time.process_time() - t0:.1f} s (runs {cpu_runs:.1f} s)")
    print(WHAT_IT_SHOWS)
    return 0


WHAT_IT_SHOWS = """
How to read it: the model holds where BBR is held by its in-flight cap against a standing queue the loss-based flow
keeps full, i.e. buffers of a few BDP and more; at 1 BDP it only says "BBR takes nearly all" (p clipped at 0), and
the runs there test BBR's probing against CUBIC's and Reno's backoff, not the model. Its PROBE_RTT term assumes BBR
is silent for q/c + 0.2 s + l every 10 s.
"""


if __name__ == "__main__":
    sys.exit(main())
