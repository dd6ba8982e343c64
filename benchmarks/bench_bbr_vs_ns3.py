"""simcore's BBR v1 beside ns-3 3.44's TcpBbr on one dumbbell, and BBR against CUBIC sharing it (issue 26 item 3).

Run: .venv/bin/python benchmarks/bench_bbr_vs_ns3.py   (ns-3's figures from data/bbr_ns3_reference.json)
     .venv/bin/python benchmarks/bench_bbr_vs_ns3.py --ns3 /work/ns3venv/bin/python [--write-reference]
                                                        (runs ns-3 now: about a minute)

The cases are ``data/bbr_ns3_scenario.json``: bulk flows with SACK recovery, delayed ACKs (200 ms timer), initial
window 10, MSS 1460 without timestamps, 4 MB windows, minimum RTO 200 ms, across a FIFO bottleneck of 10 Mbit/s and
40 ms base RTT (one BDP = 33 packets of 1500 bytes):
- ``single``: one BBR flow, a 100-packet buffer (3 BDP), 30 s;
- ``bbr_cubic_q33`` / ``bbr_cubic_q330``: one BBR flow and one CUBIC flow (HyStart off on both sides), started 0.1 s
  apart, 60 s, a buffer of 1 BDP and of 10 BDP.

For each it prints simcore's figure beside ns-3's: every flow's goodput (over the run, and from ``measure_from_s``
on) and its share of the late goodput, the bottleneck queue (packets, the time average of samples every 10 ms from
``measure_from_s`` on, and the peak) and the buffer's drops. The issue asks for goodput within 10 % and mean queue
within 20 % on the single flow.

What differs by construction: ns-3's queue is its queue disc's (the packet on the wire and the one in the device's
one-packet queue are not in it), simcore's the link's buffer with the packet being sent (up to 2 packets more);
ns-3's TcpBbr adds an ACK-aggregation allowance to cwnd (at most a few KB here) that simcore's does not; ns-3
draws BBR's first gain phase from 6, simcore from 7 (the draft's and Linux's); ns-3's point-to-point links add a
2-byte PPP header to each packet.

The single flow's queue does not agree (about 4 packets here, 31 in ns-3). Traced in ns-3 (its socket's
PacingRate, 10 s of this case): at gain 1 it paces at 9.915 Mbit/s, so its BtlBw is 10.02 Mbit/s (9.87 with an ACK
per segment), above the 9.72 Mbit/s of payload its link can deliver (1460 of every 1502 bytes); paced faster than
the link drains, it is held by cwnd = 2 BDP, one BDP of it queued. simcore's BtlBw is 9.733 Mbit/s, its link's
payload rate (1460 of 1500), and paced 1 % below it the queue drains but for the 1.25 phase.
The cause is in ns-3's delivery-rate sampler (``TcpRateLinux``, src/internet/model/tcp-rate-ops.cc): its rate
sample (``m_rateSample``) is a member kept from one ACK to the next, never cleared, where Linux's ``tcp_ack`` starts
each ACK with a fresh ``struct rate_sample rs = { .prior_delivered = 0 }`` (and the draft takes each ACK's sample
from the packets that ACK delivers). In ns-3 a packet refreshes the sample's prior_delivered, send and ACK elapsed
times only if its ``delivered`` snapshot is newer than the one already held; packets sent after the same ACK share
one snapshot, so an ACK that delivers only such packets (common with pacing spreading sends between delayed ACKs)
keeps the previous ACK's, shorter, interval while ``delivered`` counts its bytes too: the sample exceeds the link's
rate, and BBR's max filter keeps exactly those. Evidence: simcore run with ns-3's rule instead of Linux's
(``benchmarks/bbr_ns3_rate_sample.diff`` applied to ``tcp/cc/rate.py``, nothing else changed) gives on this case
goodput 9.550 Mbit/s and mean queue 32.1 packets against ns-3's 9.537 and 31.5 (simcore as it is: 4.4); on
bbr_cubic_q33 BBR's share becomes 96 % (ns-3 99 %, simcore as it is 92 %: 91 % before its in-flight count in SACK
recovery became RFC 6675's pipe, when the 96 % was measured), mean queue 25.0 (ns-3 21.3), drops 1953 (ns-3 685).
simcore keeps Linux's and the draft's rule: the remaining gap is ns-3's, not a setting of the scenario.
The steady-state model Sarpkaya, Srivastava, Fund and Panwar (IFIP Networking 2025) evaluate (Ware et al., IMC 2019)
is checked by ``bench_bbr_share.py``, beside their FABRIC measurements.
"""

from __future__ import annotations

import dataclasses
import sys
import time

import numpy as np
from _ns3_reference import ratio, scenario_and_reference

from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate

BOTTLENECK = 0  # the dumbbell's left -> right link


def run_simcore(sc: dict, case: dict) -> dict:
    bn = LinkParams(rate_bps=case["rate_bps"], delay_s=case["delay_s"], queue_packets=case["queue_packets"])
    db = dumbbell(case["n_flows"], bn)
    tcps = [TcpParams(recovery="sack", congestion_control=cc, mss_bytes=sc["mss"], rwnd_bytes=sc["rwnd"],
                      initial_window_segments=sc["iw"], delayed_ack=True, delayed_ack_timeout_s=0.2,
                      limited_transmit=True, min_rto_s=0.2) for cc in case["cc"]]
    scen = bulk_scenario(db.network, db.pairs, tcps[0], case["duration_s"], case["start_s"])
    scen = dataclasses.replace(scen, connections=tuple(dataclasses.replace(c, tcp=tp)  # each flow's own TCP
                                                       for c, tp in zip(scen.connections, tcps, strict=True)))
    t0 = time.perf_counter()
    r = simulate(scen, seed=1, trace=True)
    wall = time.perf_counter() - t0
    tr = r.tcp_trace
    t_from = case["measure_from_s"]
    late = []
    for i in range(case["n_flows"]):  # bytes acknowledged from measure_from_s on
        sel = (tr.conn == i) & (tr.direction == 0)
        una, ts = tr.snd_una[sel], tr.time_s[sel]
        k = np.searchsorted(ts, t_from, side="right") - 1
        late.append(float(una[-1] - una[max(k, 0)]) * 8.0 / (case["duration_s"] - t_from))
    q = r.queue_trace
    sel = q.link == BOTTLENECK
    qt, qn = q.time_s[sel], q.packets[sel]
    at = np.arange(t_from + sc["queue_sample_s"], case["duration_s"] + 1e-9, sc["queue_sample_s"])
    i = np.searchsorted(qt, at, side="right") - 1  # the occupancy after the last change before each sample
    qs = np.where(i >= 0, qn[np.maximum(i, 0)], 0.0)
    return {"goodput_bps": [float(x) for x in r.goodput_bps[:, 0]], "goodput_late_bps": late,
            "queue_mean_packets": float(qs.mean()), "queue_peak_packets": float(qs.max()),
            "drops": int(r.link_drops_queue[BOTTLENECK]), "wall_s": wall, "events": int(r.events)}




def main() -> None:
    sc, ref, source = scenario_and_reference("bbr", __doc__.splitlines()[0])
    print(f"ns-3 {ref['ns3']} figures: {source}")
    for name, case in sc["cases"].items():
        mine, theirs = run_simcore(sc, case), ref["results"][name]
        print(f"\n{name}: {case['n_flows']} flow(s) {'+'.join(case['cc'])}, {case['rate_bps'] / 1e6:g} Mbit/s, "
              f"{2e3 * case['delay_s']:g} ms RTT, {case['queue_packets']} packets, {case['duration_s']:g} s "
              f"(simcore {mine['wall_s']:.2f} s wall, {mine['events']} events; ns-3 {theirs['cpu_s']:.2f} s CPU)")
        print("                          simcore       ns-3   ratio")
        tot_m, tot_t = sum(mine["goodput_late_bps"]), sum(theirs["goodput_late_bps"])
        for i, cc in enumerate(case["cc"]):
            gm, gt = mine["goodput_bps"][i], theirs["goodput_bps"][i]
            print(f"  flow {i} {cc:5s} goodput  {gm / 1e6:7.3f}    {gt / 1e6:7.3f}   {ratio(gm, gt)}  Mbit/s")
            lm, lt = mine["goodput_late_bps"][i], theirs["goodput_late_bps"][i]
            print(f"    from {case['measure_from_s']:g} s        {lm / 1e6:7.3f}    {lt / 1e6:7.3f}   "
                  f"{ratio(lm, lt)}  Mbit/s  (share {lm / tot_m:5.1%} / {lt / tot_t:5.1%})")
        qm, qt = mine["queue_mean_packets"], theirs["queue_mean_packets"]
        print(f"  queue mean           {qm:7.1f}    {qt:7.1f}   {ratio(qm, qt)}  packets")
        print(f"  queue peak           {mine['queue_peak_packets']:7.0f}    {theirs['queue_peak_packets']:7.0f}")
        print(f"  drops                {mine['drops']:7d}    {theirs['drops']:7d}")
    print(WHAT_IT_SHOWS)


WHAT_IT_SHOWS = """
What the shared bottleneck shows (both simulators agree on the direction, not on the exact split): BBR v1 does not
slow down for loss, it caps what it has in flight at cwnd_gain x its BDP estimate (2 BDP) and paces at its bandwidth
estimate. In a buffer of 1 BDP its 1.25 probing phases and STARTUP overflow the buffer, each drop cuts CUBIC's
window by 30 % and none cuts BBR's: BBR takes nearly all of the link. In a buffer of 10 BDP CUBIC keeps the buffer
full, so BBR never sees the empty-queue RTT again: 10 s on, its RTprop expires and takes an RTT with CUBIC's queue
in it (simcore's BBR ends this run with RTprop 0.32 s against a base of 0.04 s), and that in-flight cap of 2 x BtlBw
x RTprop, not loss, sets its share, the smaller one, while every PROBE_RTT (every 10 s, at 4 segments) hands CUBIC
more. So which one wins depends on the buffer, not on which is "more aggressive" (Hock, Bless and Zitterbart, ICNP
2017; Ware et al., IMC 2019, who model BBR's share from this in-flight cap). The single flow shows BBR's aim: the
link full with almost no queue while its bandwidth estimate is right; ns-3's TcpBbr there estimates BtlBw at about
the raw link rate (3 % above the payload rate the link can deliver), so it paces above the link, is held by cwnd = 2
BDP and keeps about one BDP queued: a small error in BtlBw is the difference between no queue and a full BDP of
queue. That error is ns-3's rate sampler keeping one ACK's sample into the next (Linux and the draft start each
ACK afresh): simcore given ns-3's rule queues 32.1 packets where ns-3 queues 31.5 (see this script's docstring).
It also explains part of the 1-BDP split: with ns-3's rule simcore's BBR took 96 % (ns-3 99 %, simcore then 91 %,
now 92 %).
"""


if __name__ == "__main__":
    sys.exit(main())
