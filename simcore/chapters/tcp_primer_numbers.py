"""The TCP primer's checked numbers: simcore's packet simulator against TCP's known laws.

- window-limited throughput W/RTT (a 32767-byte window over a 640 ms satellite round trip: 410 kbit/s);
- Mathis et al. (1997): goodput under random loss p is about (MSS/RTT) sqrt(3/(2p));
- Reno, NewReno and SACK when several segments of one window are lost (the Fall & Floyd 1996 experiment);
- Jain's fairness index of four flows sharing a bottleneck;
- buffer sizing: one flow's bottleneck utilization against buffer / BDP, beside the fluid sawtooth law.
All runs use fixed seeds and print rounded numbers, so re-running gives identical text.
"""

from __future__ import annotations

import numpy as np

from simcore._validate import check_real
from simcore.packet import (
    VARIANTS,
    LinkParams,
    PacketResult,
    TcpParams,
    bulk_scenario,
    dumbbell,
    jain_index,
    mathis_throughput_bps,
    simulate,
    simulate_many,
    window_limited_throughput_bps,
)

from .tcp_primer import MSS_BYTES, PACKET_BYTES

__all__ = ["window_limited", "mathis", "variants_multiple_drops", "fairness", "sawtooth_utilization",
           "buffer_sizing", "laws_text", "variants_text", "sharing_text", "key_numbers_text"]


def _bulk_scenario(rate_bps: float, rtt_s: float, buffer_packets: int, variant: str, rwnd_bytes: int,
                   duration_s: float, flows: int = 1, loss_prob: float = 0.0, drops: tuple[int, ...] = ()):
    link = LinkParams(rate_bps=rate_bps, delay_s=rtt_s / 2, queue_packets=buffer_packets, loss_prob=loss_prob,
                      drop_sequence=drops)
    db = dumbbell(flows, link)
    tcp = TcpParams.preset("rfc5681", variant=variant, mss_bytes=MSS_BYTES, rwnd_bytes=rwnd_bytes)
    return bulk_scenario(db.network, db.pairs, tcp, duration_s=duration_s)


def _bulk(rate_bps: float, rtt_s: float, buffer_packets: int, variant: str, rwnd_bytes: int,
          duration_s: float, seed: int = 1, flows: int = 1, loss_prob: float = 0.0,
          drops: tuple[int, ...] = ()) -> PacketResult:
    sc = _bulk_scenario(rate_bps, rtt_s, buffer_packets, variant, rwnd_bytes, duration_s, flows, loss_prob, drops)
    return simulate(sc, seed=seed)


def window_limited(window_bytes: int = 32767, rtt_s: float = 0.64,
                   duration_s: float = 120.0) -> dict[str, float]:
    """Return goodput (kbit/s) of one flow limited by a ``window_bytes`` receive window over a 10 Mbit/s
    path of ``rtt_s`` propagation RTT, the closed form W/RTT, and that of the whole segments that fit
    in the window (floor(W/MSS) * MSS / RTT), in kbit/s."""
    res = _bulk(10e6, rtt_s, 1000, "newreno", window_bytes, duration_s)
    whole = (window_bytes // MSS_BYTES) * MSS_BYTES
    return {"goodput_kbps": res.goodput_total_bps() / 1e3,
            "closed_form_kbps": window_limited_throughput_bps(window_bytes, rtt_s) / 1e3,
            "whole_segments_kbps": window_limited_throughput_bps(whole, rtt_s) / 1e3}


def mathis(loss_prob: float = 0.01, rtt_s: float = 0.1, variant: str = "newreno", seeds: range = range(1, 6),
           duration_s: float = 100.0) -> dict[str, float]:
    """Return the mean goodput (Mbit/s) over ``seeds`` of one flow with Bernoulli loss ``loss_prob`` on a
    100 Mbit/s path (never the bottleneck) and the Mathis prediction (MSS/RTT) sqrt(3/(2p)), Mbit/s."""
    check_real("loss_prob", loss_prob, 0.0, 1.0, lo_open=True)
    sc = _bulk_scenario(100e6, rtt_s, 2000, variant, 1 << 22, duration_s, loss_prob=loss_prob)
    good = [r.goodput_total_bps() for r in simulate_many(sc, list(seeds))]  # the seeds' runs back to back
    return {"goodput_mbps": float(np.mean(good)) / 1e6,
            "mathis_mbps": mathis_throughput_bps(MSS_BYTES, rtt_s, loss_prob) / 1e6}


def variants_multiple_drops(n_drops: tuple[int, ...] = (1, 2, 3, 4), duration_s: float = 5.0) -> list[dict]:
    """Return, per variant and per number k of segments lost from one window (segments 200, 202, ...
    of a flow whose window is 30 segments, 10 Mbit/s, 100 ms), goodput (Mbit/s), timeouts and fast
    retransmit episodes over ``duration_s``."""
    rows = []
    for k in n_drops:
        for variant in VARIANTS:
            res = _bulk(10e6, 0.1, 100, variant, 30 * MSS_BYTES, duration_s,
                        drops=tuple(200 + 2 * i for i in range(k)))
            rows.append({"drops": k, "variant": variant, "goodput_mbps": res.goodput_total_bps() / 1e6,
                         "timeouts": int(res.timeouts[0, 0]),
                         "fast_retransmits": int(res.fast_retransmits[0, 0])})
    return rows


def fairness(flows: int = 4, variant: str = "sack", duration_s: float = 60.0, seed: int = 1) -> dict:
    """Return per-flow goodputs (Mbit/s) and Jain's index of ``flows`` equal-RTT flows (100 ms) sharing a
    10 Mbit/s bottleneck whose buffer is one BDP."""
    bdp = round(10e6 * 0.1 / (8 * PACKET_BYTES))
    res = _bulk(10e6, 0.1, bdp, variant, 1 << 20, duration_s, seed=seed, flows=flows)
    g = res.goodput_bps[:, 0]
    return {"goodput_mbps": (g / 1e6).tolist(), "jain": jain_index(g),
            "utilization": float(res.link_utilization[0])}


def sawtooth_utilization(buffer_over_bdp: float) -> float:
    """Return the bottleneck utilization (fraction) of one idealized AIMD flow whose window saws between
    (BDP + B)/2 and BDP + B, with b = B/BDP: 3/4 at b = 0, rising to 1 at b >= 1 (fluid model)."""
    b = check_real("buffer_over_bdp", buffer_over_bdp, 0.0)
    if b >= 1.0:
        return 1.0
    w = 1.0 + b  # window at the loss, in BDPs
    sent_below = (1.0 - w * w / 4) / 2  # rounds with window < BDP: sent packets, in BDP^2 units
    idle_cap = (1.0 - w / 2)  # capacity offered in those rounds
    full = (w * w - 1.0) / 2  # rounds with a standing queue: the link is busy
    return (sent_below + full) / (idle_cap + full)


def buffer_sizing(fractions: tuple[float, ...] = (0.1, 0.25, 0.5, 1.0, 2.0), variant: str = "sack",
                  duration_s: float = 120.0) -> list[dict]:
    """Return, per buffer size (fraction of the BDP of 10 Mbit/s x 100 ms), one flow's bottleneck
    utilization (simcore) and the fluid sawtooth law's, and the mean RTT (ms) the flow measured."""
    bdp = 10e6 * 0.1 / (8 * PACKET_BYTES)
    rows = []
    for f in fractions:
        buf = max(1, round(f * bdp))
        res = _bulk(10e6, 0.1, buf, variant, 1 << 22, duration_s)
        rows.append({"buffer_over_bdp": f, "buffer_packets": buf,
                     "utilization": float(res.link_utilization[0]),
                     "sawtooth_law": sawtooth_utilization(buf / bdp)})
    return rows


def laws_text() -> str:
    """Return printable lines: window-limited throughput vs W/RTT, and goodput under 1% loss vs Mathis."""
    wl = window_limited()
    lines = [f"window-limited: 32767-byte window over 640 ms: simcore {wl['goodput_kbps']:.0f} kbit/s, "
             f"W/RTT {wl['closed_form_kbps']:.0f} kbit/s "
             f"(whole segments only: {wl['whole_segments_kbps']:.0f})"]
    for variant in ("reno", "sack"):
        m = mathis(variant=variant)
        lines.append(f"1% random loss, 100 ms, {variant:>4}: simcore {m['goodput_mbps']:.2f} Mbit/s, "
                     f"Mathis {m['mathis_mbps']:.2f} Mbit/s "
                     f"(ratio {m['goodput_mbps'] / m['mathis_mbps']:.2f})")
    return "\n".join(lines)


def variants_text() -> str:
    """Return printable lines: goodput (Mbit/s) / timeouts of each variant when k segments of a window
    are lost."""
    lines = ["k segments lost from one 30-segment window, 5 s (goodput Mbit/s / timeouts):"]
    rows = variants_multiple_drops()
    for k in sorted({r["drops"] for r in rows}):
        cells = [f"{r['variant']:>7} {r['goodput_mbps']:.2f}/{r['timeouts']}"
                 for r in rows if r["drops"] == k]
        lines.append(f"  k={k}: " + "  ".join(cells))
    return "\n".join(lines)


def sharing_text() -> str:
    """Return printable lines: four flows' goodputs and Jain's index, and utilization against buffer size."""
    fr = fairness()
    lines = ["4 SACK flows, 10 Mbit/s, 100 ms, buffer = BDP, 60 s:",
             "  goodputs " + ", ".join(f"{g:.2f}" for g in fr["goodput_mbps"])
             + f" Mbit/s, Jain {fr['jain']:.3f}, utilization {fr['utilization']:.3f}",
             "one SACK flow, 10 Mbit/s, 100 ms, 120 s: utilization vs buffer (fluid sawtooth law):"]
    for r in buffer_sizing():
        lines.append(f"  buffer {r['buffer_over_bdp']:.2f} BDP ({r['buffer_packets']:>3} packets): "
                     f"{r['utilization']:.3f} ({r['sawtooth_law']:.3f})")
    return "\n".join(lines)


def key_numbers_text() -> str:
    """Return the printable block of the chapter's checked numbers (rounded, fixed seeds)."""
    return "\n".join([laws_text(), variants_text(), sharing_text()])
