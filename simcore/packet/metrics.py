"""Closed forms and summary statistics used with the packet simulator."""

from __future__ import annotations

import math

from simcore._validate import check_real
from simcore.stats import jain_index  # re-exported: one definition for the whole lab

__all__ = ["jain_index", "mathis_throughput_bps", "window_limited_throughput_bps"]


def mathis_throughput_bps(mss_bytes: float, rtt_s: float, loss_prob: float) -> float:
    """Return the Mathis et al. (1997) TCP throughput (MSS/RTT) * sqrt(3 / (2p)), bits/s."""
    check_real("mss_bytes", mss_bytes, 0.0, lo_open=True)
    check_real("rtt_s", rtt_s, 0.0, lo_open=True)
    check_real("loss_prob", loss_prob, 0.0, 1.0, lo_open=True)
    return 8.0 * mss_bytes / rtt_s * math.sqrt(1.5 / loss_prob)


def window_limited_throughput_bps(window_bytes: float, rtt_s: float) -> float:
    """Return the throughput of a sender limited to ``window_bytes`` per round trip, bits/s."""
    check_real("window_bytes", window_bytes, 0.0, lo_open=True)
    check_real("rtt_s", rtt_s, 0.0, lo_open=True)
    return 8.0 * window_bytes / rtt_s
