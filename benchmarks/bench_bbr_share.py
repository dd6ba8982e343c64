"""simcore's BBR v1 against one CUBIC (or Reno) flow beside Ware et al.'s steady-state model and Sarpkaya et al.'s
FABRIC measurements (issue 26 item 3).

Run: .venv/bin/python benchmarks/bench_bbr_share.py [--seeds 10] [--duration 400] [--no-reno] [--no-diagnose]
     [--fabric CSV]     (about 50 s of CPU with the defaults, numba's cache warm)

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
there.

The diagnosis (``--no-diagnose`` skips it): one traced run per buffer (CUBIC, seed 1, 120 s) measures the time BBR
spends with cwnd at its 4-segment floor (PROBE_RTT, or a recovery that collapsed the window) and how long each such
episode lasts, beside the model's PROBE_RTT time (eq. 11: q/c + 0.2 s + l every 10 s).

Two readings of "share", both printed: BBR's part of the two flows' goodput, and BBR's goodput over the link rate
(10 Mbit/s), which is what Sarpkaya et al. plot as "link fraction" (their notebook divides each run's goodput by 10;
their three files per figure are three trials). The two flows' goodputs sum to ~9.5 Mbit/s in simcore and on
FABRIC, so the second reading is ~5 % (relative) below the first for both, and the model's number is the same under
both: the verdicts below hold under either. FABRIC's run length is not known to us (their notebook's experiment
cells were not read); their figures are read as goodput over the whole run.

Figures (2026-11-29, after BBR's in-flight count became RFC 6675's pipe in SACK recovery; 10 seeds, 400 s, CPU 25 s),
BBR's share, % (simcore: mean ± 95 % interval over seeds; FABRIC: mean [min, max] of 3 trials; "link": BBR's goodput
/ 10 Mbit/s, means):

    vs CUBIC  simcore  from 40 s  link | model  (1-p) | FABRIC             link
     1 BDP  92.4 ± 0.2  92.4 ± 0.2  88.0 |  97.2  100.0 | 86.5 [86.2, 86.7]  81.4
     2 BDP  47.2 ± 0.8  47.4 ± 0.8  45.8 |  78.3   80.8 | 60.1 [59.3, 60.7]  57.3
     4 BDP  41.6 ± 0.8  42.4 ± 0.9  40.5 |  62.9   65.5 | 50.3 [49.8, 51.2]  48.1
     8 BDP  41.7 ± 0.8  43.9 ± 0.9  40.5 |  54.5   57.7 | 46.5 [44.4, 48.4]  44.5
    16 BDP  36.6 ± 2.7  39.2 ± 3.1  35.6 |  49.1   53.9 | 41.4 [40.3, 42.2]  39.6
    32 BDP  26.9 ± 2.1  29.0 ± 2.3  26.2 |  44.0   51.9 | 34.6 [33.4, 35.8]  33.1
    64 BDP  14.3 ± 2.1  14.9 ± 2.1  13.8 |  36.7   51.0 | 19.8 [17.7, 21.6]  18.9
    vs Reno
     1 BDP  94.2 ± 0.1  94.3 ± 0.1  89.9 |  97.2  100.0 | 88.8 [88.4, 89.3]  83.6
     2 BDP  58.3 ± 1.0  58.2 ± 1.1  56.4 |  78.3   80.8 | 63.8 [62.9, 65.4]  60.7
     4 BDP  44.0 ± 0.3  44.9 ± 0.4  42.8 |  62.9   65.5 | 48.2 [47.9, 48.5]  46.1
     8 BDP  45.3 ± 0.1  47.4 ± 0.2  44.1 |  54.5   57.7 | 48.7 [47.9, 49.2]  46.6
    16 BDP  42.2 ± 0.2  45.1 ± 0.2  41.1 |  49.1   53.9 | 47.4 [46.9, 47.6]  45.3
    32 BDP  36.7 ± 0.4  39.5 ± 0.4  35.8 |  44.0   51.9 | 44.1 [44.0, 44.3]  42.2
    64 BDP  24.3 ± 1.2  26.2 ± 1.3  23.7 |  36.7   51.0 | 37.2 [37.1, 37.4]  35.6

What it shows (points are of the share of the two goodputs):
- The direction agrees: in simcore, on FABRIC and in the model BBR takes most of a 1-BDP buffer and less the deeper
  the buffer.
- simcore does not agree with the model's numbers anywhere it applies (2 BDP and more): it is 8-31 points below it
  against CUBIC and 4-21 against Reno (from 40 s on), far outside the seeds' intervals (at most ±3.1 points). FABRIC
  is below the model too (8-18 points against CUBIC; against Reno 15 at 2-4 BDP, 6 at 8 BDP, within 2 at 16-64 BDP):
  Linux's BBR v1 does not reach the model's share against CUBIC either, so a gap to the model alone is not a defect
  of simcore.
- The model's PROBE_RTT time, the one term a trace shows directly, is simcore's at every buffer (the diagnosis:
  episodes of 0.24-2.87 s against the model's 0.32-2.80 s, 2-25 % of the time against 3-28 %).
- Against FABRIC: close at 8-16 BDP, within 2.6 points from 40 s on (CUBIC 43.9 / 39.2 against 46.5 / 41.4, inside
  FABRIC's range or at its edge; Reno 47.4 / 45.1 against 48.7 / 47.4, just below it); below at 2-4 BDP against
  CUBIC (47 and 42 against 60 and 50) and at 32-64 BDP (CUBIC 29 and 15 against 35 and 20; Reno 40 and 26 against
  44 and 37); above at 1 BDP (92-94 against 87-89). We have not found why at 2-4 BDP; candidates not modelled here:
  Linux BBR's ACK-aggregation allowance and TSO quanta, Linux CUBIC's HyStart, stretch ACKs (GRO) on FABRIC, their
  run length.
- This benchmark found a defect, now fixed: BBR's PROBE_RTT waits until its data in flight is at most 4 segments,
  and simcore counted as in flight the segments the SACK scoreboard already marks lost (``rs_inflight`` = snd_max -
  snd_una - SACKed), so at 64 BDP the 200 ms timer started only once every hole was repaired, a few segments per
  2.6 s round trip at cwnd 4: 15 s episodes (model 2.8 s), half of the time. In SACK recovery ``rs_inflight`` is now
  RFC 6675's pipe (``kernel.scoreboard.pipe_bytes``), as Linux's ``tcp_packets_in_flight``. Before, against CUBIC:
  64 BDP 9.8 ± 1.5 %, 32 BDP 23.1 ± 2.3 %; against Reno: 64 BDP 20.6 ± 1.6 %; 1-16 BDP and Reno at 32 BDP moved by
  less than the seeds' intervals.
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


def shares(buffer_packets: int, loss_cc: str, duration_s: float, seed: int) -> tuple[float, float, float]:
    """BBR's share of the two flows' goodput over the whole run and from SETTLE_S on (a run to SETTLE_S is the
    same run's prefix: same seed, same events up to then), and its goodput over the whole run as a fraction of the
    link rate (Sarpkaya et al.'s "link fraction")."""
    whole = simulate(scenario(buffer_packets, loss_cc, duration_s), seed=seed).delivered_bytes[:, 0].astype(float)
    head = simulate(scenario(buffer_packets, loss_cc, SETTLE_S), seed=seed).delivered_bytes[:, 0].astype(float)
    late = whole - head
    return whole[0] / whole.sum(), late[0] / late.sum(), whole[0] * 8.0 / duration_s / RATE_BPS


def mean_ci(xs: list[float]) -> str:
    m = statistics.fmean(xs)
    if len(xs) < 2:
        return f"{m:6.1%}        "
    half = T975.get(len(xs) - 1, 1.96) * statistics.stdev(xs) / math.sqrt(len(xs))
    return f"{m:6.1%} ±{half:5.1%}"


def fabric_shares(path: Path | None) -> dict[tuple[str, int], list[tuple[float, float]]]:
    """{(loss_cc, buffer_bdp): [(BBR's share of the two goodputs, its goodput / link rate) in each FABRIC run]} from
    the developers' transcription, or {}."""
    if path is None or not path.is_file():
        return {}
    out: dict[tuple[str, int], list[float]] = {}
    for line in path.read_text().splitlines():
        if line.startswith("#") or line.startswith("loss_cc") or not line.strip():
            continue
        cc, x, _trial, bbr, loss = line.split(",")
        out.setdefault((cc, int(x)), []).append((float(bbr) / (float(bbr) + float(loss)), float(bbr) * 1e6 / RATE_BPS))
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
        print(" buffer   packets | simcore whole run  from 40 s        of link | model eq.10  (1-p) | "
              "FABRIC mean  [min, max]        of link")
        for x in BUFFERS_BDP:
            q = round(x * BDP_PACKETS)
            runs = [shares(q, cc, args.duration, s) for s in range(1, args.seeds + 1)]
            m = ware_bbr_share(RATE_BPS, RTT_S, q, 1, PKT_BYTES)
            fab = fabric.get((cc, x))
            sh = [a for a, _ in fab] if fab else []
            fab_s = (f"{statistics.fmean(sh):6.1%}  [{min(sh):5.1%}, {max(sh):5.1%}]  "
                     f"{statistics.fmean([b for _, b in fab]):6.1%}" if fab else "absent")
            print(f" {x:3d} BDP  {q:6d}  | {mean_ci([a for a, _, _ in runs])}   {mean_ci([b for _, b, _ in runs])}  "
                  f"{statistics.fmean([c for _, _, c in runs]):6.1%} | {m.bbr_share:6.1%}    {m.cap_share:6.1%} | "
                  f"{fab_s}", flush=True)
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
