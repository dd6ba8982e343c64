"""Chapter 5's "predict, then check": each prediction holds back the panel, table or figure that answers it.

Answers are computed when the student commits: hand counts and hand-worked times where the question allows
(``readings``, ``one_file_breakdown``), otherwise the testbed's run at the stated setting (said so in the
explanation). Settings are the panel's control values, so committing sets a gated panel to what was asked.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from simcore.objpack.paper import reduction_pct
from simcore.objpack.readings import SIMCORE, TEXTBOOK, http10_packets_per_file
from simcore.objpack.reproduce import REFERENCE, files_sweep
from simcore.predict import ChoicePrediction, NumberPrediction

from .objpack import PANEL_SETTING, panel_params, run_all
from .objpack_figures import SHORT, one_file_breakdown, one_file_breakdown_text

__all__ = ["panel_predictions", "figure5_predictions", "methods_prediction", "one_file_predictions",
           "window_prediction", "SWEEP_N", "figure5_rows"]

SWEEP_N = (1, 2, 3, 5, 7, 10, 15, 20, 30, 50, 75, 100)
_SHAPES = (
    "About 0 % for one file; it rises fast and is nearly flat from about ten files on",
    "It grows in proportion to the number of files: ten times the files, ten times the saving",
    "The same at every number of files: the package saves a fixed share",
    "Largest for a few files, then falling as the package grows",
)
_SHAPE_FEEDBACK = {
    _SHAPES[1]: "The saving is a *share* of HTTP/1.0's time, and HTTP/1.0's time grows with the files too.",
    _SHAPES[2]: "With one file there is nothing to save: one connection and one file access either way.",
    _SHAPES[3]: "The package pays one connection and one access whatever its size; its advantage does not shrink.",
}
_LATER = ("keepalive", "parallel", "pipelined", "multistream")


@lru_cache(maxsize=4)
def _runs(setting_items: tuple) -> dict:
    return run_all(panel_params(dict(setting_items)))


def _res(setting: dict) -> dict:
    return _runs(tuple(sorted(setting.items())))


def _time_cut(setting: dict) -> float:
    r = _res(setting)
    return reduction_pct(r["http10"].response_time_s, r["package"].response_time_s)


def _time_question(setting: dict) -> str:
    if setting["file_ms"] > 0:
        return (f"{setting['n_files']} files of {1000 * setting['mean_kb']:.0f} bytes on the 10 Mbit/s hub, "
                f"{setting['file_ms']:g} ms of server work per file: by how many **per cent** does the package "
                "cut HTTP/1.0's response time?")
    return ("Now the server's per-file cost is **0** (a fast server with every file in memory). By how many per "
            "cent does the package cut HTTP/1.0's response time now?")


def _time_explanation(setting: dict) -> str:
    r = _res(setting)
    h, p = r["http10"], r["package"]
    why = (f"HTTP/1.0 pays, per file, a connection ({h.packets / h.params.n_files:.0f} packets and two round trips "
           "on the hub) and the server's file access; the package pays each once.")
    if setting["file_ms"] == 0:
        why = ("With no per-file server work, only the connections' packets and round trips are left to save, "
               "and on a 0.1 ms LAN they are cheap: the wire's time for the bytes, which the package also pays, "
               "is a larger share. This is why the paper's title says *slow and busy* servers.")
    return (f"HTTP/1.0 {h.response_time_s:.3f} s, the package {p.response_time_s:.3f} s: "
            f"{reduction_pct(h.response_time_s, p.response_time_s):.0f} % less (the testbed's runs at this "
            f"setting). {why}")


def _cut_more(setting: dict) -> str:
    r = _res(setting)
    dp = reduction_pct(r["http10"].packets, r["package"].packets)
    db = reduction_pct(r["http10"].bytes, r["package"].bytes)
    if abs(dp - db) < 5:
        return "about the same share of each"
    return "packets" if dp > db else "bytes"


def _cut_explanation(setting: dict) -> str:
    r = _res(setting)
    h, p = r["http10"], r["package"]
    return (f"Packets {h.packets} → {p.packets} ({reduction_pct(h.packets, p.packets):.0f} % fewer), bytes "
            f"{h.bytes} → {p.bytes} ({reduction_pct(h.bytes, p.bytes):.0f} % fewer). Every file's data still has "
            "to cross the wire; what the package removes is each connection's control packets, small packets "
            "whose 54 header bytes are most of what they carry.")


def panel_predictions() -> list:
    """The two predictions that gate the live panel and Tables 1-3: the package's time cut (then the same
    with no per-file server cost: "Try another setting") and whether it cuts packets or bytes more."""
    no_disk = {**PANEL_SETTING, "file_ms": 0.0}
    time = NumberPrediction(_time_question, answer=_time_cut, unit="%", rel_tol=0.0, abs_tol=10.0,
                            bounds=(-100.0, 100.0), digits=2, setting=[PANEL_SETTING, no_disk],
                            explanation=_time_explanation)
    more = ChoicePrediction(
        "Same page: which does the package cut by the larger share, the **packets** on the hub or the **bytes**?",
        choices=["packets", "bytes", "about the same share of each"], answer=_cut_more, setting=PANEL_SETTING,
        feedback={"bytes": "Every byte of every file is still sent; only the per-connection packets go.",
                  "about the same share of each": "The packets saved are small ones: they carry few bytes."},
        explanation=_cut_explanation)
    return [time, more]


@lru_cache(maxsize=2)
def figure5_rows(mean_file_bytes: int = 10000) -> tuple:
    """Figure 5's sweep (files_sweep over ``SWEEP_N``) at files of ``mean_file_bytes``, computed once."""
    return tuple(files_sweep(replace(REFERENCE, mean_file_bytes=mean_file_bytes), n_files=SWEEP_N))


def _shape() -> str:
    rows = {r["n_files"]: r["response_time_reduction_pct"] for r in figure5_rows()}
    top = max(rows.values())
    if abs(rows[1]) < 5 and rows[10] >= 0.85 * rows[100] and rows[100] >= 0.9 * top:
        return _SHAPES[0]
    if abs(rows[100] - rows[1]) < 5:
        return _SHAPES[2]
    if top > rows[100] + 5:
        return _SHAPES[3]
    return _SHAPES[1]


def _shape_explanation() -> str:
    rows = {r["n_files"]: r["response_time_reduction_pct"] for r in figure5_rows()}
    return (f"Response-time reduction: {rows[1]:.1f} % for 1 file, {rows[2]:.1f} % for 2, {rows[10]:.1f} % for "
            f"10, {rows[100]:.1f} % for 100 (the testbed's runs, 10 KB files). With $N$ files HTTP/1.0 pays $N$ "
            "connections and $N$ file accesses, the package one of each: the saving is about $(N-1)/N$ of that "
            "per-file part, flat once $N$ passes about ten, as the paper says.")


def figure5_predictions() -> list:
    """Predict Figure 5's curve (its shape, and its value at 2 files) before the figure is shown."""
    shape = ChoicePrediction(
        "Files of 10 KB, 1 to 100 of them. How does the package's response-time reduction against HTTP/1.0 "
        "change with the number of files?", choices=list(_SHAPES), answer=lambda: _shape(),
        feedback=_SHAPE_FEEDBACK, explanation=_shape_explanation)
    two = NumberPrediction(
        "And with just **2** files of 10 KB: by how many per cent does the package cut the response time?",
        answer=lambda: next(r["response_time_reduction_pct"] for r in figure5_rows() if r["n_files"] == 2),
        unit="%", rel_tol=0.0, abs_tol=8.0, bounds=(-100.0, 100.0), digits=2,
        explanation=lambda: ("About half the 100-file saving: $(N-1)/N$ = 1/2 of the per-file part. "
                             + _shape_explanation()))
    return [shape, two]


def _closest() -> str:
    r = _res(PANEL_SETTING)
    return SHORT[min(_LATER, key=lambda m: r[m].response_time_s)]


def _methods_explanation() -> str:
    r = _res(PANEL_SETTING)
    times = ", ".join(f"{SHORT[m]} {r[m].response_time_s:.3f} s" for m in ("package", *_LATER))
    return (f"{times} (the testbed's runs, 100 files of 1000 B). Keep-alive saves the handshakes but still waits a "
            "round trip and a disk access per file; pipelining removes the round trips, not the 100 disk accesses "
            "in a row; six parallel connections overlap the accesses (our optimistic assumption: a disk that "
            "serves six at once). Only the package removes the per-file server work itself.")


def methods_prediction() -> ChoicePrediction:
    """Which later method comes closest to the package at the panel's page (gates the methods table)."""
    return ChoicePrediction(
        "HTTP/1.1 keep-alive (1997), six parallel connections (browsers), pipelining, HTTP/2-style multiplexed "
        "streams: on the same page of 100 files of 1000 B, which comes **closest** to the package's response "
        "time?", choices=[SHORT[m] for m in _LATER], answer=lambda: _closest(),
        feedback={SHORT["keepalive"]: "One request at a time: a round trip and a disk access per file remain.",
                  SHORT["pipelined"]: "The round trips go, but the server still reads 100 files one after another.",
                  SHORT["multistream"]: "Streams help against loss (head-of-line blocking); the hub loses nothing, "
                                        "and the 100 file accesses remain."},
        explanation=_methods_explanation)


def _q1_explanation() -> str:
    ours, tb = http10_packets_per_file(SIMCORE, 1000), http10_packets_per_file(TEXTBOOK, 1000)
    return (f"**{ours} packets**, counted by hand (the diagram below is the simulation's): SYN, SYN-ACK, the "
            "client's bare ACK, the GET, the response (180 + 1000 = 1180 bytes, one segment) carrying the "
            "server's FIN, the client's FIN + ACK, the server's last ACK. Chapter 4's textbook convention "
            f"(the GET on the handshake's ACK) counts {tb}; a real stack sends the ACK alone. The paper "
            "averaged 9.4 per file at 1K: its stack sent more packets alone (the deep dive below counts "
            "which).")


def _q2_answer() -> float:
    parts = one_file_breakdown()
    return 100.0 * parts["server's file work (access + copy)"] / sum(parts.values())


def one_file_predictions() -> list:
    """Q1 (packets of one 1000-byte file over HTTP/1.0) and Q2 (the server's share of its time), both worked
    by hand; they gate the one-file diagram."""
    q1 = NumberPrediction(
        "**Q1.** How many packets does one 1000-byte file cost over HTTP/1.0 on the hub, from the client's SYN "
        "to the last ACK? (Chapter 4 counted the textbook's handshake; here the client's stack is a real one.)",
        answer=lambda: float(http10_packets_per_file(SIMCORE, 1000)), unit=("packet", "packets"), rel_tol=0.0,
        abs_tol=0.5, bounds=(1, 100), digits=2, explanation=_q1_explanation)
    q2 = NumberPrediction(
        "**Q2.** That fetch takes a few milliseconds: 10 Mbit/s, frames of IP size + 38 bytes on the medium, "
        "RTT 0.1 ms, a server stack of 50 µs + 80 ns per byte (100 Mbit/s) per packet, and "
        f"{1e3 * REFERENCE.server_file_s:.2f} ms + {1e9 * REFERENCE.server_copy_s_per_byte:.0f} ns per byte of "
        "file work. What **per cent** of the time is the server's file work?",
        answer=lambda: _q2_answer(), unit="%", rel_tol=0.0, abs_tol=10.0, bounds=(0.0, 100.0), digits=2,
        explanation=lambda: one_file_breakdown_text() + " This is why the package helps a slow server most.")
    return [q1, q2]


LOGNORMAL = {**PANEL_SETTING, "distribution": "lognormal", "mean_kb": 10.0}


def _winner(setting: dict) -> str:
    r = _res(setting)
    return "6 parallel" if r["parallel"].response_time_s < r["package"].response_time_s else "package"


def _window_explanation(setting: dict) -> str:
    r = _res(setting)
    pk, par = r["package"].response_time_s, r["parallel"].response_time_s
    tail = ("Both are bound by the wire, and the six connections overlap their file accesses (our optimistic "
            "assumption for them)." if setting["rtt_ms"] < 1 else
            "One connection with a 17520-byte window sends at most 17520 bytes per round trip: about 7 Mbit/s at "
            "20 ms. Six connections have six windows. A package needs a large window (TCP window scaling) to "
            "pay off on a long path.")
    return f"Package {pk:.3f} s, 6 parallel {par:.3f} s (the testbed's runs at this setting). {tail}"


def window_prediction() -> ChoicePrediction:
    """Q4: lognormal sizes, mean 10 kB: the package or six parallel connections, on the LAN and at 20 ms."""
    def question(s: dict) -> str:
        return (f"**Q4.** 100 files, *lognormal* sizes of mean 10 kB, RTT {s['rtt_ms']:g} ms: which finishes "
                "first, the package or six parallel keep-alive connections? (Set the panel to check.)")

    return ChoicePrediction(question, choices=["package", "6 parallel"], answer=_winner,
                            setting=[{**LOGNORMAL, "rtt_ms": 0.1}, {**LOGNORMAL, "rtt_ms": 20.0}],
                            explanation=_window_explanation, title="Predict, then check")
