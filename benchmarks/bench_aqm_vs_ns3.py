"""simcore's queue disciplines beside ns-3 3.44's queue discs on one dumbbell (issue 26 item 4).

Run: .venv/bin/python benchmarks/bench_aqm_vs_ns3.py                  (ns-3's figures from data/aqm_ns3_reference.json)
     .venv/bin/python benchmarks/bench_aqm_vs_ns3.py --ns3 /work/ns3venv/bin/python [--write-reference]
                                                                      (runs ns-3 now: about 2 minutes)

The scenario is ``data/aqm_ns3_scenario.json``: 4 bulk TCP flows (SACK recovery, NewReno's window, delayed ACKs,
initial window 10, MSS 1460, 1 MB windows) across a 50 Mbit/s, 20 ms bottleneck with a 1000-packet buffer, 30 s,
started 0.25 s apart; measured from 5 s on. For each discipline (drop-tail, RED, CoDel, FQ-CoDel; CoDel and
FQ-CoDel again with ECN at the senders and the link) it prints the bottleneck's queueing delay (mean, median, 95th
percentile), the goodput of all flows, and the drops and CE marks from 5 s on, simcore's beside ns-3's, and the
ratio of the mean delays and of the drops (the issue asks for both within 15 %).

What differs by construction (see ``benchmarks/_ns3_aqm.py``): ns-3's sojourn ends when a packet leaves the queue
disc for the device's one-packet transmit queue, simcore's when its transmission starts (up to 0.24 ms later); the
row "ns-3 way" under each discipline ends simcore's sojourn where ns-3's ends (when the previous packet's
transmission starts), the like-for-like figure for the 15 % aim;
ns-3's RED samples the queue disc's backlog (not the packet waiting in the device queue); ns-3 counts time in
integer nanoseconds and CoDel in 1024 ns units; both TCPs are their own code (ns-3's TcpNewReno with classic
recovery and SACK, simcore's 'sack' variant).
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _ns3_reference import ratio, scenario_and_reference

from simcore.packet import (
    CoDelParams,
    FqCoDelParams,
    LinkParams,
    RedParams,
    TcpParams,
    bulk_scenario,
    dumbbell,
    simulate,
)


def _queue(name: str, sc: dict):
    ecn = name.endswith("_ecn")
    base = name.removesuffix("_ecn")
    if base == "red":
        r = sc["red"]
        return RedParams(min_th=r["min_th"], max_th=r["max_th"], max_p=r["max_p"], w_q=r["w_q"], gentle=r["gentle"])
    if base == "codel":
        return CoDelParams(ecn=ecn)
    if base == "fq_codel":
        return FqCoDelParams(ecn=ecn)
    return "droptail"


def run_simcore(sc: dict, name: str) -> dict:
    bn = LinkParams(rate_bps=sc["rate_bps"], delay_s=sc["delay_s"], queue_packets=sc["queue_packets"],
                    queue=_queue(name, sc))
    db = dumbbell(sc["n_flows"], bn)
    tcp = TcpParams(variant="sack", mss_bytes=sc["mss"], rwnd_bytes=sc["rwnd"], initial_window_segments=sc["iw"],
                    delayed_ack=True, limited_transmit=True, ecn=name.endswith("_ecn"))
    scen = bulk_scenario(db.network, db.pairs, tcp, sc["duration_s"], sc["start_s"])
    t0 = time.perf_counter()
    r = simulate(scen, seed=1, trace=True)
    wall = time.perf_counter() - t0
    b = db.bottleneck_link
    st, pt = r.sojourn_trace, r.packet_trace
    late = (st.link == b) & (st.time_s >= sc["measure_from_s"])
    soj = st.sojourn_s[late]
    # ns-3's SojournTime ends when the packet leaves the queue disc for the device's one-packet queue: when the
    # packet before it starts its transmission (or at once, if that one had started before it arrived). The same
    # quantity from simcore's trace: max(0, start of the previous transmission - arrival).
    on_b = st.link == b
    t_tx, soj_b = st.time_s[on_b], st.sojourn_s[on_b]
    prev_tx = np.concatenate([[-np.inf], t_tx[:-1]])
    soj_ns3 = np.maximum(0.0, prev_tx - (t_tx - soj_b))[t_tx >= sc["measure_from_s"]]
    drops = int(((pt.kind == 2) & (pt.link == b) & (pt.time_s >= sc["measure_from_s"])).sum())
    return {"sojourn_mean_s": float(soj.mean()), "sojourn_p50_s": float(np.quantile(soj, 0.5, method="lower")),
            "sojourn_p95_s": float(np.quantile(soj, 0.95, method="lower")), "sojourn_packets": int(soj.size),
            "sojourn_ns3_mean_s": float(soj_ns3.mean()),
            "sojourn_ns3_p50_s": float(np.quantile(soj_ns3, 0.5, method="lower")),
            "sojourn_ns3_p95_s": float(np.quantile(soj_ns3, 0.95, method="lower")),
            "drops": int(r.link_drops_queue[b]), "marks": int(r.link_marks[b]), "drops_measured": drops,
            "marks_measured": int(st.ce[late].sum()), "goodput_bps": float(r.goodput_bps[:, 0].sum()),
            "wall_s": wall, "events": int(r.events)}




def main() -> None:
    sc, ref, _source = scenario_and_reference("aqm", __doc__.splitlines()[0])
    print(f"dumbbell: {sc['n_flows']} flows, {sc['rate_bps'] / 1e6:g} Mbit/s, {sc['delay_s'] * 1e3:g} ms, "
          f"{sc['queue_packets']}-packet buffer, {sc['duration_s']:g} s, measured from {sc['measure_from_s']:g} s; "
          f"ns-3 {ref['ns3']}")
    head = (f"{'queue':13s} {'delay mean ms':>17s} {'ratio':>5s} {'median ms':>15s} {'p95 ms':>15s} "
            f"{'goodput Mbit/s':>15s} {'drops':>13s} {'ratio':>5s} {'marks':>13s}")
    print(head)
    print(f"{'':13s} {'simcore / ns-3':>17s}")
    for name in sc["queues"]:
        s, n = run_simcore(sc, name), ref["results"][name]
        print(f"{name:13s} {s['sojourn_mean_s'] * 1e3:8.2f} {n['sojourn_mean_s'] * 1e3:8.2f} "
              f"{ratio(s['sojourn_mean_s'], n['sojourn_mean_s'])} "
              f"{s['sojourn_p50_s'] * 1e3:7.2f} {n['sojourn_p50_s'] * 1e3:7.2f} "
              f"{s['sojourn_p95_s'] * 1e3:7.2f} {n['sojourn_p95_s'] * 1e3:7.2f} "
              f"{s['goodput_bps'] / 1e6:7.2f} {n['goodput_bps'] / 1e6:7.2f} "
              f"{s['drops_measured']:6d} {n['drops_measured']:6d} {ratio(s['drops_measured'], n['drops_measured'])} "
              f"{s['marks_measured']:6d} {n['marks_measured']:6d}")
        print(f"{'  ns-3 way':13s} {s['sojourn_ns3_mean_s'] * 1e3:8.2f} {n['sojourn_mean_s'] * 1e3:8.2f} "
              f"{ratio(s['sojourn_ns3_mean_s'], n['sojourn_mean_s'])} "
              f"{s['sojourn_ns3_p50_s'] * 1e3:7.2f} {n['sojourn_p50_s'] * 1e3:7.2f} "
              f"{s['sojourn_ns3_p95_s'] * 1e3:7.2f} {n['sojourn_p95_s'] * 1e3:7.2f}")
        sys.stdout.flush()
    print("'ns-3 way': simcore's sojourn ended where ns-3's SojournTime ends, when the packet before it starts its\n"
          "transmission (ns-3 moves the next packet into the device's one-packet queue then), not when its own\n"
          "starts: the fair comparison. FQ-CoDel's mean is small (about 1 ms), so the up to 0.24 ms of one\n"
          "transmission at 50 Mbit/s that simcore's own measure adds is a 20 % gap there (1.51 vs 1.23 ms).")


if __name__ == "__main__":
    main()
