"""Chapter 4's "predict, then check": each prediction holds back the panel or table that answers it.

Part 1's answers are the closed forms (``simcore.delay.closed_form_ms``: packets counted by hand, priced at
d_prop + t_B x size); Part 2's are the packet-level runs at the reference setting beside the textbook's
formulas (``simcore.delay.tcp_view.compare_modes``), said so in the explanations. Settings are the panels'
control values, so committing sets a gated panel to what was asked.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from simcore.delay import DelayParams, closed_form_ms, packet_counts
from simcore.delay.params import MODES
from simcore.delay.tcp_view import compare_modes
from simcore.predict import ChoicePrediction, NumberPrediction

from .delay_tcp import REFERENCE, REFERENCE_SEED

__all__ = ["REPORT_SETTING", "TCP_SETTING", "report_predictions", "tcp_predictions"]

# Part 1's panel at the report's correctness setting (§III.1): 200 ms, 2 ms/byte, P = C = 2, no cache
REPORT_SETTING = {"prop_delay_ms": 200.0, "trans_ms_per_byte": 2.0, "n_parents": 2, "n_children": 2,
                  "data_size_bytes": 269.0, "mode": "1.0", "cache": False, "hit_ratio": 1.0, "pipelining": False}
# Part 2's panel at the reference setting: 100 ms, 1 Mbit/s, a 10 kB base and 5 objects of 10 kB, IW 1
TCP_SETTING = {"rtt_ms": 100.0, "rate_mbps": 1.0, "object_kb": 10.0, "n_objects": 5, "mode": "non-persistent",
               "parallel": 1, "initial_window": 1, "cross_load": 0.0, "hit_ratio": 0.0, "handshake": "textbook"}
_MODE_CHOICE = {"1.0": "HTTP/1.0 (a connection per object)", "1.1": "HTTP/1.1 (one connection, never closed)",
                "1.2": "the report's \"HTTP/1.2\" (a connection per list)"}


def _report(mode: str) -> DelayParams:
    return DelayParams(mode=mode)  # the defaults are the report's correctness setting


def _http10_ms(_setting=None) -> float:
    return closed_form_ms(_report("1.0"))


def _http10_explanation(_setting=None) -> str:
    c = packet_counts(_report("1.0"))
    ctrl, data = c["n_ctrl_packets"], c["n_data_packets"]
    return (f"HTTP/1.0 makes one handshake per object: 6 objects × (SYN + ACK + GET) = {ctrl} control "
            f"packets at 266 ms and {data} data packets at 738 ms: {ctrl} × 266 + {data} × 738 = "
            f"{_http10_ms():.0f} ms. Every packet waits for the one before it, so the time is just their sum.")


def _fastest(_setting=None) -> str:
    times = {m: closed_form_ms(_report(m)) for m in MODES}
    return _MODE_CHOICE[min(times, key=times.get)]


def _fastest_explanation(_setting=None) -> str:
    t = {m: closed_form_ms(_report(m)) for m in MODES}
    return (f"HTTP/1.0 {t['1.0']:.0f} ms, 1.1 {t['1.1']:.0f} ms, \"1.2\" {t['1.2']:.0f} ms. The page has 6 "
            "objects either way and every GET and response costs the same; only the handshakes differ: 6 for "
            "1.0, 1 + P = 3 for \"1.2\" (the parents' connection, then one per parent for its children), 1 for "
            "1.1. Each handshake saved is 2 × 266 = 532 ms.")


def report_predictions() -> list:
    """Part 1: HTTP/1.0's time at the report's setting (a number) and the fastest mode (a choice); they gate
    the live panel and the correctness table."""
    time = NumberPrediction(
        "The report's page (2 parents with 2 children each: 6 objects), 200 ms propagation, 2 ms/byte, no "
        "cache: a control packet costs 266 ms, a data packet 738 ms. How many **ms** does HTTP/1.0 take?",
        answer=_http10_ms, unit="ms", rel_tol=0.05, bounds=(0.0, 1e6), digits=4, setting=REPORT_SETTING,
        explanation=_http10_explanation)
    fastest = ChoicePrediction(
        "Same page: which mode is fastest?", choices=[*_MODE_CHOICE.values(), "all three take the same time"],
        answer=_fastest, setting=REPORT_SETTING, explanation=_fastest_explanation,
        feedback={_MODE_CHOICE["1.2"]: "\"1.2\" still opens a connection for the parents and one per parent.",
                  "all three take the same time": "The objects cost the same in every mode; the handshakes "
                                                  "do not."})
    return [time, fastest]


@lru_cache(maxsize=1)
def _reference_rows() -> tuple:
    return tuple({k: v for k, v in r.items() if k != "result"}
                 for r in compare_modes(replace(REFERENCE, initial_window_segments=1), seed=REFERENCE_SEED))


def _row(mode: str) -> dict:
    return next(r for r in _reference_rows() if r["mode"] == mode)


def _gap_pct(_setting=None) -> float:
    r = _row("non-persistent")
    return 100.0 * (r["simple_s"] - r["simulated_s"]) / r["simulated_s"]


def _direction(_setting=None) -> str:
    g = _gap_pct()
    return _DIRECTIONS[2] if abs(g) <= 3 else (_DIRECTIONS[0] if g < 0 else _DIRECTIONS[1])


def _tcp_explanation(_setting=None) -> str:
    r = _row("non-persistent")
    return (f"Simulated {r['simulated_s']:.3f} s, the simple formula {r['simple_s']:.3f} s ({_gap_pct():+.0f} %), "
            f"with slow start {r['slow_start_s']:.3f} s. The simple formula lets each 10 kB object flow at the full "
            "1 Mbit/s at once; from a window of one segment a new connection sends 1, 2, then 4 segments, and "
            "with RTT = 100 ms ≫ S/R = 11.7 ms it stalls after each of the first two windows. Non-persistent HTTP "
            "pays that on all 6 connections.")


_DIRECTIONS = ("too optimistic: it predicts less time than the simulation",
               "too pessimistic: it predicts more time than the simulation",
               "about right: within 3 %")


def tcp_predictions() -> list:
    """Part 2: is the simple formula too optimistic for non-persistent HTTP at an initial window of 1, and
    by how much; they gate the Part 2 panel and the reference table."""
    direction = ChoicePrediction(
        "Initial window 1 segment, RTT 100 ms, 1 Mbit/s, a 10 kB base and 5 objects of 10 kB, non-persistent: "
        "the textbook's simple formula, (N + 1)(2 RTT + O/R), is ...", choices=list(_DIRECTIONS),
        answer=_direction, setting=TCP_SETTING, explanation=_tcp_explanation,
        feedback={_DIRECTIONS[1]: "The simple formula leaves out things that take time (slow start's stalls, "
                                  "headers); it has nothing that would make it too long.",
                  _DIRECTIONS[2]: "It would be, with a window large enough never to stall: try an initial "
                                  "window of 50."})
    gap = NumberPrediction(
        "Same setting: by how many **per cent** does the simple formula miss the simulated time (negative if "
        "it is too short)?", answer=_gap_pct, unit="%", rel_tol=0.0, abs_tol=10.0, bounds=(-100.0, 100.0),
        digits=2, setting=TCP_SETTING, explanation=_tcp_explanation)
    return [direction, gap]
