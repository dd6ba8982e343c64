"""Chapter 3's "predict, then check" questions (``simcore.predict``): each holds back the output that answers
it (a diagram, a figure, a table, the live panel) until the student commits a prediction.

Answers come from hand counts and closed forms where there are any (round trips, Max.Burst's window), else
from the stored simulations the chapter shows (the reading sweep) or a run at the stated setting (the panel,
the competing flow); each explanation says which.
"""

from __future__ import annotations

from simcore.ftp.reading_sweep import load_readings
from simcore.ftp.sampling import runs_needed
from simcore.predict import ChoicePrediction, NumberPrediction

__all__ = ["PANEL_SETTINGS", "round_trips_prediction", "window_prediction", "sample_size_prediction",
           "panel_prediction", "parallel_prediction", "SAMPLE_SIZE_CHOICES"]

RTT_S = 0.070
PANEL_SETTINGS = ({"loss_pct": 0.3, "designs": "paper's designs 1-4", "file_kb": 10, "n_files": 10, "rtt_ms": 70,
                   "rate_mbps": 1.0, "run": 0},
                  {"loss_pct": 10.0, "designs": "paper's designs 1-4", "file_kb": 10, "n_files": 10, "rtt_ms": 70,
                   "rate_mbps": 1.0, "run": 0})


def round_trips_prediction() -> NumberPrediction:
    """Round trips design 1 spends per file (after the first) before the file's first byte leaves the server:
    PORT -> 200 (1), SIZE -> 213 (1), RETR reaching the server (1/2), the server's SYN -> SYN-ACK (1): 3.5."""
    return NumberPrediction(
        "Design 1 (FTP over TCP, active mode), any file after the first: how many round trips pass from the "
        "moment the client may send its next command until the file's first byte can leave the server? "
        "(Transmission times are tiny here; count the exchanges on the diagram below once it is shown.)",
        answer=3.5, unit=("round trip", "round trips"), abs_tol=0.25, rel_tol=0.0, bounds=(0, 50),
        explanation=("PORT $\\to$ 200 (1), SIZE $\\to$ 213 (1), RETR reaching the server ($\\tfrac12$), then "
                     "ftpd's `connect()`: SYN $\\to$ SYN-ACK (1), and only then the 150 reply and the data: "
                     f"3.5 round trips, {3.5 * RTT_S * 1e3:.0f} ms on this 70 ms path, for every file. A persistent "
                     "data connection (design B) saves PORT and the handshake: 1.5."))


_WINDOW = ("as large as when file 1 ended: the association is kept",
           "4 MTU (6,000 bytes): Max.Burst cuts it after the pause",
           "1 segment: slow start again, as design 1")


def window_prediction() -> ChoicePrediction:
    """Design 3's window when file 2 starts: Max.Burst's 4 MTU (RFC 2960 implementers' guide rule)."""
    return ChoicePrediction(
        "Design 3 keeps **one** SCTP association for all ten files, but the server idles while the client "
        "sends SIZE and RETR for the next file. When file 2 starts, the server's congestion window is...",
        choices=list(_WINDOW), answer=_WINDOW[1],
        feedback={_WINDOW[0]: "Keeping the association keeps the window *variable*, not its value: the rule "
                              "that applies before new data is sent decides it.",
                  _WINDOW[2]: "That is design 1, whose every file has a new TCP connection. SCTP's association "
                              "stays; only Max.Burst limits the window after the pause."},
        explanation=("The implementers' guide the paper cites applies Max.Burst before new data is sent: cwnd = "
                     "min(cwnd, flightsize + 4 MTU). After the pause nothing is in flight, so each file after "
                     "the first starts at 4 x 1,500 = 6,000 bytes (4.13 full DATA chunks), whatever the "
                     "window was (sec. 4 of the paper). Design 4 pipelines the next RETR, so data is still "
                     "in flight when the next file is written, and the window stays open."))


SAMPLE_SIZE_CHOICES = ("fewer than 30", "30 to 1,000", "1,000 to a million", "more than a million")


def _sample_size_answer(records=None) -> tuple[str, int]:
    recs = records if records is not None else load_readings()
    r = next(x for x in recs if x["reading"] == "fraction" and x["file_size_bytes"] == 10 * 1024
             and x["loss"] == 0.3 and x["design"] == 1)
    n = runs_needed(r["sd_s"])
    k = sum(n >= edge for edge in (30, 1000, 1_000_000))  # the choices' edges
    return SAMPLE_SIZE_CHOICES[k], n


def sample_size_prediction(records=None) -> ChoicePrediction:
    """How many sessions the paper's rule needs for design 1 at 30% loss each way (10 KB files): from the
    standard deviation of the stored reading sweep (100 sessions), n = (1.645 sigma / 0.5 s)^2."""
    def explain():
        choice, n = _sample_size_answer(records)
        return (f"With $\\sigma$ from 100 simulated sessions, $n = (1.645\\,\\sigma / 0.5\\,\\mathrm{{s}})^2$ = "
                f"{n:,} sessions, each lasting many minutes: years of testbed time for one point. At 0.3% the "
                "same rule needs a handful. The paper's own method is one piece of evidence about its unit.")

    return ChoicePrediction(
        "The paper chose its sample size so that the 90% confidence interval of each mean is at most "
        "$\\pm$0.5 s. Read \"0.3\" as 30% loss each way: about how many `mget` sessions of design 1 "
        "(10 files of 10 KB) would one point need?",
        choices=list(SAMPLE_SIZE_CHOICES), answer=lambda: _sample_size_answer(records)[0], explanation=explain,
        feedback={SAMPLE_SIZE_CHOICES[0]: "That is the percent reading's answer: at 0.3% sessions vary by a "
                                          "second or so. At 30% each retransmission timeout (1 s, doubling) "
                                          "makes them vary by minutes.",
                  SAMPLE_SIZE_CHOICES[1]: "The spread grows with the timeouts, and the runs needed grow with "
                                          "its square."})


def _ratio_at(setting: dict) -> float:
    from simcore.chapters.ftp_sctp import panel_params
    from simcore.ftp import run_transfer

    t1 = run_transfer(panel_params(setting, "ftp_tcp"), int(setting["run"])).time_s
    t4 = run_transfer(panel_params(setting, "sctp4_pipelined"), int(setting["run"])).time_s
    return t4 / t1


def panel_prediction() -> NumberPrediction:
    """t4 / t1 for one run (seed 0) at 0.3% loss, then at 10%: the panel's own simulation."""
    return NumberPrediction(
        lambda s: (f"Loss {s['loss_pct']:g}% each way, 10 files of 10 KB, one run (seed {s['run']}): what is design "
                   "4's `mget` time as a fraction of design 1's, $t_4/t_1$? (1 = no gain, 0.5 = twice as fast.)"),
        answer=_ratio_at, unit="", rel_tol=0.25, bounds=(0.0, 5.0), digits=2, setting=list(PANEL_SETTINGS),
        explanation=lambda s: (
            "The answer is this run's simulation (the panel below, at your setting). Design 4 saves design 1's "
            "per-file connection set-up and the idle round trips between files, a fixed number of round trips "
            "that is most of a small file's time. At higher loss both designs also wait for retransmission "
            "timeouts; whether the ratio falls or rises then depends on who waits more, which is what the "
            "paper's claim C2 is about."))


def parallel_prediction() -> NumberPrediction:
    """FTP's share of the bottleneck for four parallel sessions against one bulk TCP flow (a run)."""
    def share():
        from simcore.ftp.competition import compete

        return compete(4, seed=0).ftp_share

    return NumberPrediction(
        "Four FTP sessions at once (design 1 each, 10 files of 100 KB shared between them) against one long "
        "TCP transfer on the same 1 Mbit/s bottleneck: what share of the bytes delivered during the `mget` "
        "goes to FTP? (One flow against one would get 0.5.)",
        answer=share, unit="", rel_tol=0.2, bounds=(0.0, 1.0), digits=2,
        explanation=("From a run of the model (seed 0). Each session is a TCP flow, so four of them take about "
                     "as much as four of the five flows would share; less here, because every file restarts "
                     "slow start and idles through PORT, SIZE and RETR. Parallel connections are faster by "
                     "taking bandwidth from others (K&R 3.7.3)."))
