"""Benchmark of simcore.packet: 10 NewReno bulk flows through a 10 Mbit/s, 20 ms dumbbell bottleneck with a
50-packet drop-tail queue for 60 simulated seconds; then fluid vs packet background traffic.

Run: .venv/bin/python benchmarks/bench_packet.py [--repeats N]
Prints medians over N runs after a warm-up (compilation) run. Aims: >= 3 M events/s, < 0.15 s per run.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import time

import numpy as np
from _timing import timed as _median_time

from simcore.packet import (
    CbrSource,
    FluidBackground,
    LinkParams,
    SctpParams,
    TcpParams,
    bulk_scenario,
    chain,
    dumbbell,
    jain_index,
    simulate,
)
from simcore.packet.kernel.loop import run
from simcore.packet.simulate import _build


def main(repeats: int = 7) -> None:
    db = dumbbell(10, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    starts = [0.01 * i for i in range(10)]
    sc = bulk_scenario(db.network, db.pairs, TcpParams(variant="newreno"), duration_s=60.0,
                       start_times_s=starts)
    seeds = np.random.default_rng(0).integers(0, 2**64, size=len(db.network.links), dtype=np.uint64)

    def kernel_only():
        X = _build(sc, seeds, False, {})[0]
        t0 = time.perf_counter()
        run(X)
        return time.perf_counter() - t0, X

    t_full, res = _median_time(lambda: simulate(sc, seed=1), repeats)
    t_traced, res_tr = _median_time(lambda: simulate(sc, seed=1, trace=True), max(3, repeats // 2))
    kern = [kernel_only() for _ in range(repeats)]
    t_kernel = statistics.median(k[0] for k in kern)
    X = kern[0][1]
    events = res.events
    packets = res.packets_created
    hops = int(X.link["n_tx"].sum())
    g = res.goodput_bps[:, 0]
    print("== dumbbell: 10 NewReno bulk flows, 10 Mbit/s 20 ms bottleneck, 50-packet queue, 60 s ==")
    print(f"simulate() wall time, median of {repeats}: {t_full * 1e3:8.1f} ms   (aim < 150 ms)")
    print(f"kernel only (run), median:               {t_kernel * 1e3:8.1f} ms")
    print(f"events: {events}   -> {events / t_full / 1e6:.2f} M events/s (simulate), "
          f"{events / t_kernel / 1e6:.2f} M events/s (kernel)   (aim >= 3)")
    print(f"packets created: {packets} ({hops} link transmissions) -> {packets / t_full / 1e6:.2f} M packets/s")
    print(f"with traces on: {t_traced * 1e3:8.1f} ms  ({t_traced / t_full:.2f}x; "
          f"{len(res_tr.packet_trace.time_s)} packet events, {len(res_tr.tcp_trace.time_s)} TCP samples, "
          f"{len(res_tr.queue_trace.time_s)} queue samples)")
    print(f"aggregate goodput: {g.sum() / 1e6:.3f} Mbit/s  (bottleneck utilization "
          f"{res.link_utilization[db.bottleneck_link]:.4f}),  Jain's index: {jain_index(g):.4f}")
    print(f"timeouts: {res.timeouts[:, 0].sum()}, fast retransmits: {res.fast_retransmits[:, 0].sum()}, "
          f"queue drops: {res.link_drops_queue[db.bottleneck_link]}")
    # The same 10 flows with the hosts sitting on the routers (no access links): one hop per packet.
    sc1 = bulk_scenario(chain(1, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50)), [(0, 1)] * 10,
                        TcpParams(variant="newreno"), duration_s=60.0, start_times_s=starts)
    t1, r1 = _median_time(lambda: simulate(sc1, seed=1), repeats)
    print(f"without access links: {t1 * 1e3:.1f} ms, {r1.events} events -> {r1.events / t1 / 1e6:.2f} M events/s, "
          f"goodput {r1.goodput_bps[:, 0].sum() / 1e6:.3f} Mbit/s, Jain {jain_index(r1.goodput_bps[:, 0]):.4f}")

    # The same dumbbell with SCTP associations (RFC 4960 defaults) instead of TCP connections (issue 10:
    # events/s within 25% of TCP's).
    sc_s = dataclasses.replace(sc, connections=tuple(dataclasses.replace(c, transport="sctp", sctp=SctpParams())
                                                     for c in sc.connections))
    t_s, r_s = _median_time(lambda: simulate(sc_s, seed=1), repeats)
    print(f"SCTP instead of TCP: {t_s * 1e3:.1f} ms, {r_s.events} events -> {r_s.events / t_s / 1e6:.2f} M events/s "
          f"({r_s.events / t_s / (events / t_full):.2f}x TCP's), goodput {r_s.goodput_bps[:, 0].sum() / 1e6:.3f} "
          f"Mbit/s, Jain {jain_index(r_s.goodput_bps[:, 0]):.4f}, T3 {r_s.timeouts[:, 0].sum()}, "
          f"fast rtx {r_s.fast_retransmits[:, 0].sum()}")

    print("\n== hybrid: 1 bulk TCP flow + 4 Mbit/s background on the bottleneck, 60 s ==")
    bg = FluidBackground.constant(4e6, 1500)
    rows = []
    for label, background, as_cbr in (("fluid (packets granularity)", bg, False),
                                      ("fluid (continuous)", FluidBackground.constant(4e6, 1500, "continuous"),
                                       False),
                                      ("background as CBR packets", bg, True)):
        link = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50, background=None if as_cbr else background)
        d2 = dumbbell(2, link)
        cbr = (CbrSource.from_background(d2.router_left, d2.router_right, bg),) if as_cbr else ()
        probe = CbrSource(d2.left[1], d2.right[1], rates_bps=(50e3,), packet_bytes=100)
        sc2 = bulk_scenario(d2.network, [(d2.left[0], d2.right[0])], TcpParams(rwnd_bytes=1 << 20),
                            duration_s=60.0, cbr=cbr + (probe,))
        t2, r2 = _median_time(lambda sc2=sc2: simulate(sc2), repeats)
        delay = r2.cbr_delay_s[r2.cbr_source == len(cbr)].mean()
        rows.append((label, t2, r2.events, r2.goodput_bps[0, 0], delay))
    for label, t2, ev, gp, delay in rows:
        print(f"{label:30s} {t2 * 1e3:7.1f} ms  {ev:7d} events  TCP goodput {gp / 1e6:.3f} Mbit/s  "
              f"probe delay {delay * 1e3:.2f} ms")
    ref = rows[-1]
    for label, t2, _, gp, delay in rows[:-1]:
        print(f"{label:30s} vs packets: time x{t2 / ref[1]:.2f}, goodput {100 * (gp / ref[3] - 1):+.1f} %, "
              f"delay {100 * (delay / ref[4] - 1):+.1f} %")


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=7)
    main(ap.parse_args().repeats)
