"""Chapter 2's "predict, then check" questions (``simcore.predict``): each holds back the figure, printout or
live panel that answers it until the student commits a guess.

- ``window_limit``: one connection's ceiling (closed form window / round trip); gates figure 4.
- ``connections_needed``: how many inter-proxy connections before latency stops falling at 20 Mbit/s (from
  the stored full runs); gates figure 5 and the findings.
- ``leo_delay``: 10 connections at 10 Mbit/s, GEO to LEO delay (window / round trip again); gates the panel.
"""

from __future__ import annotations

import numpy as np

from simcore.predict import ChoicePrediction, NumberPrediction
from simcore.satellite import SatelliteParams
from simcore.satellite.figure4 import window_limit_bps

from .satellite_figures import E3_BPS, curves

__all__ = ["window_limit", "connections_needed", "leo_delay", "predictions", "fewest_connections",
           "NEEDED_LOAD_BPS", "CONNECTION_CHOICES"]

NEEDED_LOAD_BPS = 20e6  # the load of the "how many connections" question
CONNECTION_CHOICES = ("10", "50", "100", "200")


def window_limit() -> NumberPrediction:
    """Return the question of figure 4: one connection's ceiling, kbit/s (closed form)."""
    p = SatelliteParams()
    return NumberPrediction(
        "One inter-proxy connection may have at most **32,767 bytes** unacknowledged (its window), and the "
        "satellite's round trip is **640 ms**. However much load is presented, how many **kbit/s** can it "
        "carry at most?",
        answer=window_limit_bps(p) / 1e3, unit="kbit/s", rel_tol=0.1, bounds=(0.0, 1e6), digits=4,
        explanation="A sender may not have more than one window in flight, and the first acknowledgment comes "
                    "back one round trip later: $W/RTT = 32767 \\times 8 / 0.64\\ \\mathrm{s} = 409.6$ kbit/s, "
                    "1/84 of the E3's 34.368 Mbit/s. The E3's rate does not enter: the window and the round "
                    "trip do. Figure 4 shows our simulated connection levelling off there.")


def fewest_connections(data: dict | None = None, load_bps: float = NEEDED_LOAD_BPS, slack: float = 0.1) -> int:
    """Return the fewest inter-proxy connections (of the figure's curves) whose mean sample latency near
    ``load_bps`` (the nearest stored load, mean over seeds) is within ``slack`` of the lowest of them."""
    data = curves() if data is None else data
    lat = {}
    for n in (10, 50, 100, 150, 200):
        c = data[f"{n} connections"]
        lat[n] = float(c["sample_latency_mean_s"][int(np.argmin(abs(c["presented_load_bps"] - load_bps)))])
    best = min(lat.values())
    return min(n for n, v in lat.items() if v <= (1 + slack) * best)


def connections_needed() -> ChoicePrediction:
    """Return the question of figure 5: how many connections before latency stops falling at 20 Mbit/s."""
    per = window_limit_bps(SatelliteParams()) / 1e6
    return ChoicePrediction(
        f"The US proxy carries **{NEEDED_LOAD_BPS / 1e6:.0f} Mbit/s** of replies to NZ over N persistent "
        f"connections, each limited to ~{per:.2f} Mbit/s. From how many connections on does the sample pages' "
        "latency stop falling?",
        choices=CONNECTION_CHOICES, answer=lambda: str(fewest_connections()),
        feedback={
            "10": f"10 x {per:.2f} = {10 * per:.1f} Mbit/s, a fifth of the load: replies queue at the US proxy "
                  "for minutes.",
            "50": f"50 x {per:.2f} = {50 * per:.1f} Mbit/s is just the load: connections that are always full "
                  "queue every reply (figure 5b: seconds to a minute).",
            "200": "200 connections are no faster than 100 (the curves lie within their spread over seeds): once "
                   "the connections carry the load with room to spare, the satellite's round trips set the "
                   "latency.",
        },
        explanation=f"From the stored full runs (mean of three seeds): the latency falls from minutes (10) and "
                    f"seconds to a minute (50) to ~1.1 s at 100 connections and stays there. 100 x {per:.2f} = "
                    f"{100 * per:.0f} Mbit/s exceeds even the E3's {E3_BPS / 1e6:.1f}: beyond that the link, not "
                    "the connections, limits. The paper found the same: about 100 connections to use the link, "
                    "about 150 for the best latency (ours cannot tell 150 from 100).")


def leo_delay() -> ChoicePrediction:
    """Return the live panel's question: 10 connections at 10 Mbit/s, the delay from 320 ms to 20 ms."""
    geo = 10 * window_limit_bps(SatelliteParams()) / 1e6
    leo = 10 * window_limit_bps(SatelliteParams(satellite_delay_s=0.020)) / 1e6
    return ChoicePrediction(
        "The US proxy has **10** inter-proxy connections and **10 Mbit/s** is presented. The satellite is "
        "replaced by a low orbit one: **20 ms** one way instead of 320 ms. The sample pages' latency...",
        choices=("falls by about 0.6 s: the propagation saved on one round trip",
                 "falls from minutes to well under a second",
                 "barely changes: the E3's capacity is the same",
                 "rises: more data in flight fills the router buffer"),
        answer="falls from minutes to well under a second",
        feedback={
            "falls by about 0.6 s: the propagation saved on one round trip":
                f"that would hold if the connections had room; at 320 ms 10 connections carry at most {geo:.1f} "
                "Mbit/s, less than half the load, and the replies queue at the US proxy for minutes.",
            "barely changes: the E3's capacity is the same":
                "the E3 is not the limit here: the connections' windows are, and each carries window / round "
                "trip, 16 times more at 20 ms.",
            "rises: more data in flight fills the router buffer":
                f"10 connections at {leo:.0f} Mbit/s could fill 512 KB, but only 10 Mbit/s is presented: the "
                "buffer stays nearly empty.",
        },
        setting={"architecture": "us_proxy", "n_conn": 10, "load_mbps": 10.0, "delay_ms": 20.0, "window": 32767,
                 "buffer_kb": 512, "tcp": "bsd44lite", "seed": 1},
        explanation=f"Each connection carries at most window / round trip. At 320 ms: 10 x 32767 x 8 / 0.64 s = "
                    f"{geo:.1f} Mbit/s, less than the 10 presented, so the backlog grows for the whole run "
                    f"(move the delay back to 320 ms: minutes). At 20 ms: 10 x 32767 x 8 / 0.04 s = {leo:.0f} "
                    "Mbit/s, no queue at all, and every round trip is 16 times shorter. The study's question is "
                    "a geostationary one.")


def predictions() -> dict[str, object]:
    """Return the chapter's predictions by name (one object each: a notebook builds them once)."""
    return {"window_limit": window_limit(), "connections_needed": connections_needed(), "leo_delay": leo_delay()}
