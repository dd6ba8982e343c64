"""Closed forms and summary statistics used with the packet simulator."""

from __future__ import annotations

import math

from simcore._validate import check_int, check_real
from simcore.stats import jain_index  # re-exported: one definition for the whole lab

__all__ = ["jain_index", "mathis_throughput_bps", "padhye_throughput_bps", "window_limited_throughput_bps"]


def mathis_throughput_bps(mss_bytes: float, rtt_s: float, loss_prob: float) -> float:
    """Return the Mathis et al. (1997) TCP throughput (MSS/RTT) * sqrt(3 / (2p)), bits/s."""
    check_real("mss_bytes", mss_bytes, 0.0, lo_open=True)
    check_real("rtt_s", rtt_s, 0.0, lo_open=True)
    check_real("loss_prob", loss_prob, 0.0, 1.0, lo_open=True)
    return 8.0 * mss_bytes / rtt_s * math.sqrt(1.5 / loss_prob)


def padhye_throughput_bps(mss_bytes: float, rtt_s: float, loss_prob: float, rto_s: float,
                          segments_per_ack: int = 1, max_window_bytes: float | None = None) -> float:
    """Return the Padhye-Firoiu-Towsley-Kurose (PFTK, SIGCOMM 1998, eq. 33) send rate of a Reno flow, bits/s:

        B(p) = min(Wmax / RTT, 1 / (RTT sqrt(2bp/3) + T0 min(1, 3 sqrt(3bp/8)) p (1 + 32 p^2))) segments/s

    times 8 ``mss_bytes``. ``loss_prob`` p is the probability that a segment is the first loss of a
    loss event (the model takes the rest of that round as lost too); ``rto_s`` is T0, the first
    timeout's duration (later ones back off: the factor 1 + 32 p^2); ``segments_per_ack`` is b (2 with
    delayed ACKs); ``max_window_bytes`` is Wmax (None: no limit). B counts every segment sent,
    retransmissions included. Unlike Mathis (which has only the fast-retransmit sawtooth), it models
    timeouts, which dominate at a few percent loss and more.
    """
    check_real("mss_bytes", mss_bytes, 0.0, lo_open=True)
    check_real("rtt_s", rtt_s, 0.0, lo_open=True)
    check_real("loss_prob", loss_prob, 0.0, 1.0, lo_open=True)
    check_real("rto_s", rto_s, 0.0, lo_open=True)
    b = check_int("segments_per_ack", segments_per_ack, 1, 1000)
    p = loss_prob
    rate = 1.0 / (rtt_s * math.sqrt(2.0 * b * p / 3.0)
                  + rto_s * min(1.0, 3.0 * math.sqrt(3.0 * b * p / 8.0)) * p * (1.0 + 32.0 * p * p))
    if max_window_bytes is not None:
        check_real("max_window_bytes", max_window_bytes, 0.0, lo_open=True)
        rate = min(rate, max_window_bytes / mss_bytes / rtt_s)
    return 8.0 * mss_bytes * rate


def window_limited_throughput_bps(window_bytes: float, rtt_s: float) -> float:
    """Return the throughput of a sender limited to ``window_bytes`` per round trip, bits/s."""
    check_real("window_bytes", window_bytes, 0.0, lo_open=True)
    check_real("rtt_s", rtt_s, 0.0, lo_open=True)
    return 8.0 * window_bytes / rtt_s
