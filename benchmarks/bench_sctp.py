"""SCTP vs TCP on the reference dumbbell (issue 10: SCTP bulk events/s within 25 % of TCP's, ratio >= 0.75).

The reference dumbbell of ``bench_packet.py``: 10 bulk flows through a 10 Mbit/s, 20 ms bottleneck with a
50-packet drop-tail queue, 60 simulated seconds; TCP NewReno, then the same flows as SCTP associations
(RFC 4960 defaults). The two runs alternate (TCP, SCTP, TCP, SCTP ...) so that the load of a shared machine
hits both alike; the figure to trust is the ratio of medians, not absolute events/s. Also printed: events
and wall time per MB delivered (fewer events per MB is a real gain; events/s alone could be gamed), and
what the events are (packets, data and acknowledgement-only, link hops, timers).

Run: .venv/bin/python benchmarks/bench_sctp.py [--repeats N]
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

from simcore.packet import LinkParams, SctpParams, TcpParams, bulk_scenario, dumbbell, simulate


def scenarios():
    """Return (TCP scenario, SCTP scenario) of the reference dumbbell."""
    db = dumbbell(10, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="newreno"), duration_s=60.0,
                       start_times_s=[0.01 * i for i in range(10)])
    sc_s = dataclasses.replace(sc, connections=tuple(dataclasses.replace(c, transport="sctp", sctp=SctpParams())
                                                     for c in sc.connections))
    return sc, sc_s


def _cpu_s() -> float:
    return time.process_time()


def main(repeats: int = 21) -> None:
    sc_t, sc_s = scenarios()
    runs = {"TCP": sc_t, "SCTP": sc_s}
    res = {k: simulate(v, seed=1) for k, v in runs.items()}  # warm-up: compile or load the cache
    wall = {k: [] for k in runs}
    cpu = {k: [] for k in runs}
    for _ in range(repeats):
        for k, v in runs.items():
            t0, c0 = time.perf_counter(), _cpu_s()
            simulate(v, seed=1)
            wall[k].append(time.perf_counter() - t0)
            cpu[k].append(_cpu_s() - c0)
    print(f"== reference dumbbell, TCP NewReno vs SCTP (RFC 4960), 10 flows, 60 s; medians of {repeats}, "
          "interleaved ==")
    eps = {}
    for k in runs:
        r = res[k]
        mb = r.delivered_bytes.sum() / 1e6
        w = statistics.median(wall[k])
        c = statistics.median(cpu[k])
        eps[k] = (r.events / w, r.events / c)
        print(f"{k:5s} {r.events:8d} events  {w * 1e3:6.1f} ms wall  {c * 1e3:6.1f} ms CPU  "
              f"{r.events / w / 1e6:5.2f} M events/s  {mb:6.1f} MB delivered  {r.events / mb:7.0f} events/MB  "
              f"{w / mb * 1e3:6.3f} ms/MB  (pkts {r.packets_created}, segs {r.segments_sent.sum()}, "
              f"T3/RTO {r.timeouts.sum()}, fast rtx {r.fast_retransmits.sum()})")
    ratio_w = [(res["SCTP"].events / s) / (res["TCP"].events / t)
               for t, s in zip(wall["TCP"], wall["SCTP"], strict=True)]
    print(f"SCTP/TCP events/s: {eps['SCTP'][0] / eps['TCP'][0]:.3f} (ratio of median wall), "
          f"{eps['SCTP'][1] / eps['TCP'][1]:.3f} (ratio of median CPU), "
          f"{statistics.median(ratio_w):.3f} (median of paired ratios)   (aim >= 0.75)")
    wpm = [(s / (res["SCTP"].delivered_bytes.sum())) / (t / res["TCP"].delivered_bytes.sum())
           for t, s in zip(wall["TCP"], wall["SCTP"], strict=True)]
    print(f"SCTP/TCP wall time per MB delivered: {statistics.median(wpm):.3f}")
    # What the events are: one per link a packet crosses (its arrival at the far end), plus timers and writes.
    for k, v in runs.items():
        r = simulate(v, seed=1, trace=True)
        sent = r.packet_trace.kind == 0
        data = sent & (r.packet_trace.seqlen > 0)
        hops = int(r.link_packets.sum())
        print(f"{k:5s} packets sent {int(sent.sum())}: with data {int(data.sum())}, acknowledgement only "
              f"{int((sent & ~data).sum())}; packets accepted by links (arrival events) {hops}; other events "
              f"(timers, writes, arrivals pending at the end) {r.events - hops}")

if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=21)
    main(ap.parse_args().repeats)
