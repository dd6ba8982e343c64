"""The TCP primer's "predict, then check" questions, with their closed forms and the measurements that check them.

- ``peak_window_segments``: where a drop-tail flow's sawtooth peaks, BDP + buffer (in full-size packets);
- ``tooth_length_s``: how long one tooth lasts, by the fluid law (the window grows one segment per RTT and the
  RTT grows with the queue once the pipe is full);
- ``halvings`` / ``tooth_lengths_s``: the same two read off a run's cwnd trace (what the student reads off the plot);
- ``predictions()``: the two questions that hold the live panel back; ``flows_prediction()`` and
  ``flows_table()``: Q5, one flow or four through a 5-packet buffer.
"""

from __future__ import annotations

import numpy as np

from simcore.packet import PacketResult
from simcore.predict import ChoicePrediction, NumberPrediction

from .tcp_primer import PACKET_BYTES, PrimerSetting, run

__all__ = ["peak_window_segments", "tooth_length_s", "halvings", "tooth_lengths_s", "predictions",
           "flows_prediction", "flows_table", "DEFAULTS", "SMALL_BUFFER"]

DEFAULTS = PrimerSetting()
SMALL_BUFFER = 5  # packets: where 4 flows visibly use the link better than one (at 40 they are within 1 %)


def peak_window_segments(setting: PrimerSetting) -> float:
    """Return the window (full-size packets) at which one drop-tail flow overflows the buffer: BDP + buffer."""
    return setting.bdp_packets + setting.buffer_packets


def tooth_length_s(setting: PrimerSetting) -> float:
    """Return the fluid law's time between two halvings of one flow, in seconds.

    After a halving the window W restarts from W_max / 2 (W_max = BDP + B) and grows one segment per RTT. While
    W < BDP the RTT is the propagation RTT: (BDP - W_max/2) RTT seconds. Above it the queue holds W - BDP
    packets, the RTT is W / C (C in packets/s), so dW/dt = C / W and reaching W_max takes
    (W_max^2 - max(BDP, W_max/2)^2) / (2C) seconds."""
    c_pps = setting.rate_mbps * 1e6 / (8 * PACKET_BYTES)
    bdp = setting.bdp_packets
    w_max = peak_window_segments(setting)
    w_min = w_max / 2
    return max(bdp - w_min, 0.0) * setting.rtt_ms * 1e-3 + (w_max**2 - max(bdp, w_min) ** 2) / (2 * c_pps)


def halvings(res: PacketResult, flow: int = 0, rtt_s: float = 0.1) -> tuple[np.ndarray, np.ndarray]:
    """Return (times in s, window just before in segments of 1460 bytes) of each loss episode of ``flow``: the
    first cwnd cut by over a quarter, and none within 3 RTTs after (one recovery may cut cwnd in steps)."""
    tr = res.tcp_trace
    if tr is None:
        raise ValueError("halvings needs a result of run(setting, trace=True)")
    sel = (tr.conn == flow) & (tr.direction == 0)
    t, cw = tr.time_s[sel], tr.cwnd_bytes[sel] / 1460
    cut = np.flatnonzero(cw[1:] < 0.75 * cw[:-1])
    times, peaks = [], []
    for i in cut:
        if not times or t[i + 1] - times[-1] > 3 * rtt_s:
            times.append(t[i + 1])
            peaks.append(cw[i])
    return np.asarray(times), np.asarray(peaks)


def tooth_lengths_s(res: PacketResult, rtt_s: float = 0.1) -> np.ndarray:
    """Return the times between successive halvings after slow start's (the first two episodes, slow start's
    overshoot and its aftermath, left out), seconds."""
    times, _ = halvings(res, 0, rtt_s)
    return np.diff(times[1:])


def predictions() -> list[NumberPrediction]:
    """Return the primer's two questions on the default panel (one SACK flow, 5 Mbit/s, 100 ms, 40-packet
    buffer): the window at which the sawtooth peaks, and the length of one tooth; answers are closed forms."""
    s = DEFAULTS
    setting = {"rtt_ms": s.rtt_ms, "rate_mbps": s.rate_mbps, "buffer_packets": s.buffer_packets,
               "loss_pct": 0.0, "variant": s.variant, "transport": "tcp", "flows": 1, "duration_s": s.duration_s,
               "congestion_control": s.congestion_control, "queue": s.queue}
    peak, tooth = peak_window_segments(s), tooth_length_s(s)

    def peak_why(_setting) -> str:
        res = run(s)
        times, peaks = halvings(res)
        return (f"A drop-tail flow learns of the path's capacity only by losing a packet, and it loses one when "
                f"its window exceeds what the pipe holds (the BDP, {s.bdp_packets:.1f} packets) plus the buffer "
                f"({s.buffer_packets}): {peak:.1f} segments. On the plot each tooth peaks at {peaks[-1]:.0f}. "
                f"The first peak is about twice as high ({peaks[0]:.0f}): **slow-start overshoot**. In slow "
                f"start the window doubles every RTT; the first drop comes at about {peak:.0f}, but the sender "
                "learns of it one RTT later, from three duplicate ACKs, and by then the window has doubled "
                "again.")

    def tooth_why(_setting) -> str:
        measured = tooth_lengths_s(run(s))
        return (f"After a halving the window restarts at half of {peak:.0f} and grows one segment per RTT. "
                "Above the BDP every extra segment waits in the queue, so the RTT grows with the window and "
                "the climb slows: $t = (W_{max}^2 - \\text{BDP}^2)/(2C)$ with $C$ in packets/s, "
                f"{tooth:.1f} s here. The run's teeth last {measured.mean():.1f} s: the law leaves out the round "
                "trip each recovery takes, and the window peaks a segment or so above BDP + buffer.")

    return [
        NumberPrediction(
            "With the defaults (one SACK flow, 5 Mbit/s, RTT 100 ms, buffer 40 packets), at what congestion "
            "window, in segments, does each tooth of the sawtooth peak once slow start is over?",
            answer=lambda _s: peak, unit=("segment", "segments"), rel_tol=0.1, bounds=(0, 1e6), setting=setting,
            explanation=peak_why),
        NumberPrediction(
            "And how long does one tooth last, from one halving of the window to the next?",
            answer=lambda _s: tooth, unit="s", rel_tol=0.25, bounds=(0, 1e6), setting=setting,
            explanation=tooth_why),
    ]


FLOWS_CHOICES = (
    "one flow: it has the link to itself",
    "four flows: when one halves, the others keep the link busy",
    "the same: the link's capacity is the same",
)


def flows_prediction() -> ChoicePrediction:
    """Return Q5: with a 5-packet buffer, do four flows use the link better than one? (The check: ``flows_table``.)"""
    return ChoicePrediction(
        f"Buffer {SMALL_BUFFER} packets (far below the BDP of 42), otherwise the defaults: is the link better "
        "used by **one flow** or by **four flows**?",
        choices=list(FLOWS_CHOICES), answer=FLOWS_CHOICES[1],
        feedback={
            FLOWS_CHOICES[0]: "One flow is alone, but each halving takes half of all the traffic away, and a "
                              "5-packet buffer cannot keep the link busy while the window climbs back.",
            FLOWS_CHOICES[2]: "Capacity is what the link could carry; how much of it is used depends on how "
                              "deep the dips after a loss are, and four flows dip less together.",
        },
        explanation=("Better, but not by as much as one might hope: a loss halves one flow's window, not the "
                     "others', so the total dips less. With a drop-tail buffer this small the flows often lose "
                     "packets in the same overflow and halve together (they synchronize), which is why big "
                     "routers with thousands of unsynchronized flows need far less than one BDP of buffer."),
        setting={"buffer_packets": SMALL_BUFFER, "flows": 4, "loss_pct": 0.0, "rtt_ms": DEFAULTS.rtt_ms,
                 "rate_mbps": DEFAULTS.rate_mbps, "congestion_control": DEFAULTS.congestion_control,
                 "queue": DEFAULTS.queue})


def flows_table(buffers: tuple[int, ...] = (SMALL_BUFFER, DEFAULTS.buffer_packets)) -> str:
    """Return a printable table: the link's utilization and the total goodput with one flow and with four, for
    each buffer size (the defaults otherwise, 30 s)."""
    lines = ["buffer   1 flow                 4 flows"]
    for buf in buffers:
        cells = []
        for flows in (1, 4):
            r = run(PrimerSetting(buffer_packets=buf, flows=flows, duration_s=30.0), trace=False)
            cells.append(f"{100 * float(r.link_utilization[0]):4.1f} % ({r.goodput_total_bps() / 1e6:.2f} Mbit/s)")
        lines.append(f"{buf:>3} pkt   {cells[0]}   {cells[1]}")
    return "\n".join(lines)
