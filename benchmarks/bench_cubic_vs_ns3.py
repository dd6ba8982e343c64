"""simcore's CUBIC (RFC 9438) beside ns-3 3.44's TcpCubic on one dumbbell (issue 26 item 2).

Run: .venv/bin/python benchmarks/bench_cubic_vs_ns3.py   (ns-3's figures from data/cubic_ns3_reference.json)
     .venv/bin/python benchmarks/bench_cubic_vs_ns3.py --ns3 /work/ns3venv/bin/python [--write-reference]
                                                          (runs ns-3 now: a few minutes)

The cases are ``data/cubic_ns3_scenario.json``: bulk CUBIC flows with SACK recovery, delayed ACKs, initial window
10, MSS 1460, 16 MB windows, minimum RTO 200 ms, across a FIFO bottleneck:
- ``rtt20``: one flow, 20 Mbit/s, 20 ms base RTT, 60 packets, 30 s: short round trips, where CUBIC's
  Reno-friendly region (RFC 9438 sec. 4.3) sets the window most of the time;
- ``rtt80``: one flow, 50 Mbit/s, 80 ms base RTT, 150 packets, 60 s: long round trips, where the cubic function
  itself does (K of about 7 s);
- ``two_flows``: two flows, 20 Mbit/s, 40 ms, 100 packets, 60 s, the second starting at 10 s (fast convergence).

For each it prints simcore's figure beside ns-3's: goodput of each flow (over the whole run, and from
``measure_from_s`` on, past slow start's overshoot), the loss events of flow 0 (recoveries
entered, timeouts), flow 0's cwnd every 2 s, and a fit of W(t) = C (t - K)^3 + W_max to flow 0's cwnd between
consecutive loss events (grid over K, least squares for C and W_max; from 3 round trips after the event, past the
recovery, to the next one): the median C over the epochs whose own fit determines C to within 5 % of 0.4 (standard
error of C, all three parameters fitted together, at most 0.02; RFC 9438: 0.4) and the median K beside the K the
RFC gives for the fitted W_max, cbrt(W_max (1 - 0.7) / 0.4). An epoch cut short by the next loss (under about 2 s
here) covers so little of the cubic that C and K trade off: its C ranged from 0.05 to 3441 in ns-3's two_flows
run, and the median over every epoch (0.439 for ns-3, 0.455 for simcore there) read that noise as a high C. The
fit itself recovers C = 0.4 from an exact cubic (tests/packet/test_cubic_fit.py). With this fit ns-3's C is 0.396,
0.402, 0.404 (rtt20, rtt80, two_flows), simcore's 0.425, 0.391, 0.372: within 5 % of 0.4 on rtt80 only. On rtt20
every determined epoch of simcore gives 0.424-0.425 (standard error 0.01), so that is CUBIC's window, not the fit:
the RTT in W_cubic(t + RTT) is not the cause (simcore with a fixed 20 ms there, as ns-3's minimum RTT, gives 0.438);
the cause is not found. On two_flows
simcore's determined epochs spread from 0.10 to 0.75 (each with standard error near 0.01): those epochs are not
one cubic (the other flow's losses, the Reno-friendly region), and their median is not a test of C.
Both sides' cwnd are sampled the same way (the value at
the end of every 20 ms). The issue asks for goodput and loss events within 10 % and C within 5 % of 0.4.

What differs by construction: ns-3's TcpCubic measures t + RTT with the minimum RTT, simcore's with the smoothed
RTT (the RFC's); ns-3 counts cwnd in whole segments (bytes rounded down), simcore in fractional bytes; HyStart is
off in ns-3 (simcore has none). ns-3's bottleneck device keeps one packet besides its queue disc (as in
``_ns3_aqm.py``). The scenario of ns-3's merge request 1791 (capacity doubling at 15 s of 30 s) is not run:
simcore's links have one rate for the whole run.
"""

from __future__ import annotations

import sys
import time

import numpy as np
from _ns3_reference import ratio, scenario_and_reference

from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate

BETA, C = 0.7, 0.4


def run_simcore(sc: dict, case: dict) -> dict:
    bn = LinkParams(rate_bps=case["rate_bps"], delay_s=case["delay_s"], queue_packets=case["queue_packets"])
    db = dumbbell(case["n_flows"], bn)
    tcp = TcpParams(recovery="sack", congestion_control="cubic", mss_bytes=sc["mss"], rwnd_bytes=sc["rwnd"],
                    initial_window_segments=sc["iw"], delayed_ack=True, delayed_ack_timeout_s=0.2,
                    limited_transmit=True, min_rto_s=0.2)
    scen = bulk_scenario(db.network, db.pairs, tcp, case["duration_s"], case["start_s"])
    t0 = time.perf_counter()
    r = simulate(scen, seed=1, trace=True)
    wall = time.perf_counter() - t0
    tr = r.tcp_trace
    late = []
    for i in range(case["n_flows"]):  # bytes acknowledged from measure_from_s on
        sel = (tr.conn == i) & (tr.direction == 0)
        una, ts = tr.snd_una[sel], tr.time_s[sel]
        k = np.searchsorted(ts, case["measure_from_s"], side="right") - 1
        late.append(float(una[-1] - una[max(k, 0)]) * 8.0 / (case["duration_s"] - case["measure_from_s"]))
    mine = (tr.conn == 0) & (tr.direction == 0)
    t, cw, ev = tr.time_s[mine], tr.cwnd_bytes[mine] / sc["mss"], tr.event[mine]
    dt = sc["sample_s"]
    ends = dt * np.arange(1, int(round(case["duration_s"] / dt)) + 1)
    idx = np.searchsorted(t, ends, side="right") - 1
    samples = np.where(idx >= 0, cw[np.maximum(idx, 0)], float(sc["iw"]))
    # loss events: a timeout, or the duplicate ACK that entered recovery (the only one that lowers cwnd)
    lost = (ev == 2) | ((ev == 1) & (np.diff(cw, prepend=cw[0]) < 0))
    return {"cwnd_seg": samples.tolist(), "loss_event_s": t[lost].tolist(),
            "recoveries": int(r.fast_retransmits[0, 0]), "timeouts": int(r.timeouts[0, 0]),
            "goodput_bps": [float(x) for x in r.goodput_bps[:, 0]], "goodput_late_bps": late,
            "wall_s": wall, "events": int(r.events)}


def fit_epochs(res: dict, sc: dict, case: dict) -> list[tuple[float, float, float, float]]:
    """Return (C, K, W_max, standard error of C) fitted to flow 0's cwnd in each epoch between consecutive loss
    events. The standard error is the least-squares one of all three parameters together (Jacobian at the optimum,
    residual variance): over a short piece of a cubic, C and K trade off and C is barely determined."""
    dt = sc["sample_s"]
    w = np.asarray(res["cwnd_seg"])
    t = dt * np.arange(1, w.size + 1)
    losses = np.asarray(res["loss_event_s"])
    skip = 3 * 2 * case["delay_s"] + 0.1
    fits = []
    for a, b in zip(losses[:-1], losses[1:], strict=True):
        sel = (t > a + skip) & (t < b - dt)
        if sel.sum() < 20:
            continue
        te, we = t[sel] - a, w[sel]
        best = None
        for k in np.arange(0.0, 1.5 * (b - a), 0.01):
            X = np.stack([(te - k) ** 3, np.ones_like(te)], axis=1)
            coef, *_ = np.linalg.lstsq(X, we, rcond=None)
            sse = float(((X @ coef - we) ** 2).sum())
            if best is None or sse < best[0]:
                best = (sse, float(coef[0]), k, float(coef[1]))
        c, k, wm = best[1:]
        jac = np.stack([(te - k) ** 3, -3.0 * c * (te - k) ** 2, np.ones_like(te)], axis=1)
        s2 = best[0] / max(te.size - 3, 1)
        cov = s2 * np.linalg.pinv(jac.T @ jac)
        fits.append((c, k, wm, float(np.sqrt(max(cov[0, 0], 0.0)))))
    return fits


SE_MAX = 0.05 * C  # an epoch tests "C within 5 % of 0.4" only if its own fit determines C that well


def determined(fits: list) -> list:
    """The epochs whose fit determines C to within 5 % of 0.4 (standard error <= 0.02)."""
    return [f for f in fits if f[3] <= SE_MAX]




def _fit_line(name: str, fits: list) -> str:
    if not fits:
        return f"  {name}: no epoch long enough to fit"
    c_all = float(np.median([f[0] for f in fits]))
    good = determined(fits)
    if not good:
        return f"  {name}: {len(fits):2d} epochs, none determines C to +-{SE_MAX:.2f} (median of all {c_all:.3f})"
    c, k, wm = (np.median([f[i] for f in good]) for i in range(3))
    k_rfc = (wm * (1 - BETA) / C) ** (1 / 3)
    return (f"  {name}: C = {c:.3f} ({c / C - 1:+.1%} from 0.4), median of the {len(good)} of {len(fits)} epochs "
            f"whose fit determines C to +-{SE_MAX:.2f} (all epochs: {c_all:.3f}); K = {k:.2f} s "
            f"(RFC for W_max = {wm:.0f}: {k_rfc:.2f} s)")


def main() -> None:
    sc, ref, _source = scenario_and_reference("cubic", __doc__.splitlines()[0])
    print(f"CUBIC, simcore beside ns-3 {ref['ns3']} (TcpCubic, HyStart off, classic SACK recovery)")
    for name, case in sc["cases"].items():
        s, n = run_simcore(sc, case), ref["results"][name]
        print(f"\n{name}: {case['n_flows']} flow(s), {case['rate_bps'] / 1e6:g} Mbit/s, base RTT "
              f"{2e3 * case['delay_s']:g} ms, {case['queue_packets']}-packet FIFO, {case['duration_s']:g} s "
              f"(simcore: {s['events']} events in {s['wall_s']:.2f} s)")
        for i in range(case["n_flows"]):
            gs, gn = s["goodput_bps"][i], n["goodput_bps"][i]
            ls, ln = s["goodput_late_bps"][i], n["goodput_late_bps"][i]
            print(f"  goodput flow {i}: whole run simcore {gs / 1e6:6.2f} Mbit/s, ns-3 {gn / 1e6:6.2f}, ratio "
                  f"{ratio(gs, gn)}; from {case['measure_from_s']:g} s simcore {ls / 1e6:6.2f}, ns-3 {ln / 1e6:6.2f}, "
                  f"ratio {ratio(ls, ln)}")
        ls, ln = s["recoveries"] + s["timeouts"], n["recoveries"] + n["timeouts"]
        print(f"  loss events flow 0: simcore {ls} ({s['recoveries']} recoveries, {s['timeouts']} timeouts), "
              f"ns-3 {ln} ({n['recoveries']}, {n['timeouts']}), ratio {ratio(ls, ln)}")
        step = int(round(2.0 / sc["sample_s"]))
        ws, wn = np.asarray(s["cwnd_seg"]), np.asarray(n["cwnd_seg"])
        print("  cwnd flow 0 (segments) at  t = " + " ".join(f"{(i + 1) * sc['sample_s']:5.0f}"
                                                        for i in range(step - 1, ws.size, step)))
        print("                     simcore     " + " ".join(f"{x:5.0f}" for x in ws[step - 1::step]))
        print("                     ns-3        " + " ".join(f"{x:5.0f}" for x in wn[step - 1::step]))
        print(f"  mean cwnd flow 0: simcore {ws.mean():.1f}, ns-3 {wn.mean():.1f} segments")
        print(_fit_line("simcore", fit_epochs(s, sc, case)))
        print(_fit_line("ns-3   ", fit_epochs(n, sc, case)))
        sys.stdout.flush()


if __name__ == "__main__":
    main()
