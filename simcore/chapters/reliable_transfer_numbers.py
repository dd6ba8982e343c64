"""Chapter 0c's checked numbers: the simulations beside the closed forms, printed by the notebook (nbval compares
the text on every test run, so every number here comes from fixed seeds)."""

from __future__ import annotations

import math

import numpy as np

from simcore.aimd import TwoFlowSetting, run_two_flows
from simcore.chapters import reliable_transfer_rtt as part2
from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.rdt import RdtParams, simulate_rdt
from simcore.rdt import theory as T
from simcore.rto import EstimatorParams, estimate, samples_to_settle, step_response

__all__ = ["arq_rows", "arq_text", "estimator_check", "rtt_text", "fairness_rows", "fairness_text", "SEEDS"]

SEEDS = range(1, 11)
T975_9 = 2.262  # Student t, 95 %, 9 degrees of freedom
MS = 1e-3
# L/R = 1 ms (1000 bytes at 8 Mbit/s), RTT 10.5 ms, timeout 15.25 ms: no timeout coincides with the end of a
# transmission, so the closed forms' rounding to whole packet times is exact
LINK = dict(packet_bytes=1000, rate_bps=8e6, rtt_s=10.5 * MS, timeout_s=15.25 * MS, duration_s=20.0)


def _interval(values) -> tuple[float, float]:
    v = np.asarray(values, dtype=float)
    return float(v.mean()), float(T975_9 * v.std(ddof=1) / math.sqrt(v.size))


def arq_rows() -> list[dict]:
    """Return, per case, the delivered fraction simulated (mean and 95 % half-width over 10 seeds of 20,000 packet
    times, the first 0.1 s left out) beside its closed form."""
    tx, rtt, to = MS, 10.5 * MS, 15.25 * MS
    cases = [("stop-and-wait", dict(protocol="saw", window=1, loss_data=0.1),
              T.stop_and_wait_lossy_efficiency(tx, rtt, to, 0.1)),
             ("stop-and-wait, 5 % ACKs lost", dict(protocol="saw", window=1, loss_data=0.1, loss_ack=0.05),
              T.stop_and_wait_lossy_efficiency(tx, rtt, to, 0.1, 0.05)),
             ("Go-Back-N, N = 40", dict(protocol="gbn", window=40, loss_data=0.1),
              T.go_back_n_efficiency(40, tx, rtt, to, 0.1)),
             ("Selective Repeat, N = 256", dict(protocol="sr", window=256, loss_data=0.1),
              T.selective_repeat_efficiency(0.1)),
             ("Go-Back-N, N = 8, no loss", dict(protocol="gbn", window=8),
              T.pipelined_utilisation(8, tx, rtt))]
    rows = []
    for name, kw, closed in cases:
        p = RdtParams(**LINK, **kw)
        mean, half = _interval([simulate_rdt(p, s).efficiency_after(0.1) for s in SEEDS])
        rows.append({"case": name, "loss": kw.get("loss_data", 0.0), "simulated": mean, "half": half,
                     "closed_form": closed})
    return rows


def arq_text() -> str:
    """Return the ARQ table as text, and K&R's stop-and-wait example."""
    lines = ["L/R = 1 ms, RTT = 10.5 ms, timeout = 15.25 ms, 10 % of data packets lost (10 seeds):",
             f"{'case':<30} {'simulated (95 % CI)':>22} {'closed form':>12}"]
    for r in arq_rows():
        lines.append(f"{r['case']:<30} {r['simulated']:>13.4f} ± {r['half']:.4f} {r['closed_form']:>12.4f}")
    kr = simulate_rdt(RdtParams(protocol="saw", window=1, packet_bytes=1000, rate_bps=1e9, rtt_s=0.030,
                                timeout_s=0.05, duration_s=3.0), 0)
    lines.append(f"K&R 3.4.2 (1 Gbit/s, 30 ms, 8000 bits): simulated U = {kr.utilisation:.5f}, "
                 f"(L/R)/(RTT + L/R) = {T.stop_and_wait_utilisation(8000, 1e9, 0.030):.5f}")
    return "\n".join(lines)


def estimator_check(seed: int = 3) -> dict:
    """Return how far K&R's estimator, fed with the samples simcore.packet's TCP took (one timed segment at a time,
    read from its packet trace), is from the SRTT and RTO that TCP itself recorded (a lossy 2 Mbit/s path with a
    1 ms RTO floor)."""
    link = LinkParams(rate_bps=2e6, delay_s=0.03, queue_packets=20, loss_prob=0.01)
    db = dumbbell(1, link)
    tcp = TcpParams.preset("rfc5681", variant="newreno", mss_bytes=1000, rwnd_bytes=1 << 20, min_rto_s=1e-3)
    res = simulate(bulk_scenario(db.network, db.pairs, tcp, duration_s=10.0), seed=seed, trace=True)
    pt = res.packet_trace
    timing, t0, una, samples, times = -1, 0.0, 0, [], []
    for i in np.flatnonzero((pt.conn == 0) & ((pt.flags & 8) == 0)):
        t, kind, d, seq, ln, ack, fl = (pt.time_s[i], pt.kind[i], pt.direction[i], pt.seq[i], pt.seqlen[i], pt.ack[i],
                                        pt.flags[i])
        if kind == 0 and d == 0:
            if fl & 1:
                timing, t0 = 1, t
            elif ln > 0 and fl & 16:
                timing = -1  # Karn: nothing timed across a retransmission
            elif ln > 0 and timing < 0:
                timing, t0 = seq + ln, t
        elif kind == 1 and d == 1 and fl & 2 and ack > una:
            if 0 <= timing <= ack:
                samples.append(t - t0)
                times.append(t)
                timing = -1
            una = ack
    e = estimate(samples, EstimatorParams(min_timeout_s=1e-3))
    tr = res.tcp_trace
    m = (tr.conn == 0) & (tr.direction == 0)
    row = np.searchsorted(tr.time_s[m], times, side="right") - 1
    return {"samples": len(samples), "timeouts": int(res.timeouts[0, 0]),
            "max_srtt_diff_s": float(np.max(np.abs(tr.srtt_s[m][row] - e.estimated_s))),
            "max_rto_diff_s": float(np.max(np.abs(tr.rto_s[m][row] - e.timeout_s)))}


def rtt_text() -> str:
    """Return part 2's checks: the estimator against simcore.packet's TCP, the step response against its closed
    form, and the spurious retransmissions of the panel's default run at K = 4, 2, 1, 0 under each rule."""
    c = estimator_check()
    e = estimate([0.1] * 40 + [0.2] * 40)
    worst = max(abs(e.estimated_s[39 + n] - step_response(n, 0.1, 0.2)) for n in range(1, 41))
    def small(x: float) -> str:  # below rounding: print a bound, not the digits of rounding noise
        return "below 1e-12 s" if x < 1e-12 else f"{x:.1e} s"

    lines = [f"K&R's estimator fed with the {c['samples']} samples simcore.packet's TCP took ({c['timeouts']} timeouts "
             f"in the run): largest difference from TCP's own SRTT {small(c['max_srtt_diff_s'])}, RTO "
             f"{small(c['max_rto_diff_s'])}",
             f"Step 100 -> 200 ms: largest difference from 200 - 100 (7/8)^n over 40 samples {small(worst)}; 90 % "
             f"closed after ln 0.1 / ln(7/8) = {samples_to_settle(0.1):.2f} samples",
             "Spurious retransmissions in the panel's default run (12 s, a probe every 20 ms):",
             f"{'K':>4} {'Karn':>6} {'first copy':>11} {'last copy':>10}"]
    s = part2.RttSetting()
    for k in (4.0, 2.0, 1.0, 0.0):
        counts = [part2.replay(s, k, rule).spurious for rule in ("karn", "first", "last")]
        lines.append(f"{k:>4g} {counts[0]:>6} {counts[1]:>11} {counts[2]:>10}")
    wrong = [part2.replay(s, 1.0, rule).wrong_samples() for rule in ("karn", "first", "last")]
    lines.append(f"Samples taken more than 10 % off the true RTT at K = 1: Karn {wrong[0]}, first copy {wrong[1]}, "
                 f"last copy {wrong[2]}")
    return "\n".join(lines)


def fairness_rows() -> dict:
    """Return part 3's measurements: two 40 ms flows (Jain's index of the settled means), flow 2 at 80 ms with 1 %
    random loss (the share ratio over seeds 1-10), and flow 2 at 50, 60 and 100 ms without random loss."""
    def settled(setting: TwoFlowSetting) -> tuple[float, float]:
        run = run_two_flows(setting)
        return run.mean_rates_bps(setting.start2_s + 0.5 * (setting.duration_s - setting.start2_s))

    base = dict(rate_mbps=5.0, buffer_packets=20, rtt1_ms=40.0, start2_s=3.0, duration_s=20.0)
    m1, m2 = settled(TwoFlowSetting(rtt2_ms=40.0, **base))
    equal = (m1 + m2) ** 2 / (2 * (m1 * m1 + m2 * m2))
    ratios = []
    for seed in SEEDS:
        a, b = settled(TwoFlowSetting(rtt2_ms=80.0, loss_pct=1.0, seed=seed, **base))
        ratios.append(a / b)
    phase = {rtt2: (lambda ab: ab[0] / ab[1])(settled(TwoFlowSetting(rtt2_ms=rtt2, **base))) for rtt2 in (50, 60, 100)}
    return {"equal_jain": equal, "equal_rates": (m1, m2), "lossy_ratios": ratios, "phase_ratios": phase}


def fairness_text() -> str:
    """Return part 3's measurements as text."""
    r = fairness_rows()
    m1, m2 = r["equal_rates"]
    lo, hi = min(r["lossy_ratios"]), max(r["lossy_ratios"])
    lines = [f"Two 40 ms flows, 5 Mbit/s, buffer 20: {m1 / 1e6:.2f} and {m2 / 1e6:.2f} Mbit/s once settled, "
             f"Jain's index {r['equal_jain']:.3f}",
             f"Flow 2 at 80 ms, 1 % random loss, seeds 1-10: flow 1 / flow 2 = {np.mean(r['lossy_ratios']):.2f} on "
             f"average ({lo:.2f} to {hi:.2f}); Mathis predicts RTT2/RTT1 = 2, synchronised halvings (RTT2/RTT1)^2 = 4",
             "No random loss (drop-tail alone), flow 1 / flow 2 at flow 2's RTT of "
             + ", ".join(f"{k} ms: {v:.2f}" for k, v in r["phase_ratios"].items())]
    return "\n".join(lines)
