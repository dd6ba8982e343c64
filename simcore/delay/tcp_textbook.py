"""The textbook's response-time formulas for HTTP over TCP (Kurose & Ross, "Computer Networking").

All times are seconds, sizes bytes, rates bit/s. The formulas ignore headers, the FIN exchange, the
client's ACKs and any queueing: a page is one base HTML file of ``base_bytes`` followed by the embedded
objects ``sizes`` (bytes each), fetched over one path of round-trip time ``rtt_s`` and rate ``rate_bps``.

Simple formulas (a window large enough never to stall the server):

- non-persistent, serial: every object costs a handshake RTT, a request RTT and its transmission,
  ``2 RTT + O/R``; with ``parallel`` connections the embedded objects go in rounds of ``parallel``
  objects sharing the link (a round costs ``2 RTT + (sum of its objects)/R``);
- persistent without pipelining: one handshake, then one RTT + O/R per object;
- persistent with pipelining: one handshake, the base, then a single RTT for all embedded objects.

Slow start (K&R's "latency with slow start"): the server starts with a window of ``w`` segments of
``mss_bytes`` and doubles it every round trip; after each window it may stall, idle, waiting for the
first ACK. :func:`slow_start_stalls_s` sums those stalls for any initial window and returns the window
reached, and :func:`kr_slow_start_latency_s` is the textbook's closed form for ``w = 1``:
``2 RTT + O/R + P (RTT + S/R) - (2^P - 1) S/R`` with ``P = min(Q, K - 1)``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from simcore._validate import check_int, check_real

__all__ = [
    "FORMULA_MODES",
    "kr_slow_start_latency_s",
    "slow_start_stalls_s",
    "nonpersistent_s",
    "persistent_s",
    "pipelined_s",
    "page_time_s",
    "page_time_slow_start_s",
]

FORMULA_MODES = ("non-persistent", "persistent", "pipelined")


def _check_path(rtt_s: float, rate_bps: float) -> None:
    check_real("rtt_s", rtt_s, 0.0)
    check_real("rate_bps", rate_bps, 0.0, lo_open=True)


def _check_sizes(base_bytes: float, sizes: Sequence[float]) -> list[float]:
    check_real("base_bytes", base_bytes, 0.0)
    return [float(check_real(f"sizes[{i}]", s, 0.0)) for i, s in enumerate(sizes)]


def kr_slow_start_latency_s(object_bytes: float, rtt_s: float, rate_bps: float, mss_bytes: int) -> float:
    """Return K&R's latency with slow start for one object over a new connection, seconds.

    ``2 RTT + O/R + P (RTT + S/R) - (2^P - 1) S/R`` with ``K = ceil(log2(O/S + 1))`` windows cover the
    object, ``Q = floor(log2(1 + RTT / (S/R))) + 1`` stalls for an infinite object, ``P = min(Q, K - 1)``
    stalls. Initial window one segment, no loss, no headers.
    """
    _check_path(rtt_s, rate_bps)
    check_real("object_bytes", object_bytes, 0.0)
    check_int("mss_bytes", mss_bytes, 1)
    s_r = 8.0 * mss_bytes / rate_bps
    o_r = 8.0 * object_bytes / rate_bps
    k = math.ceil(math.log2(object_bytes / mss_bytes + 1.0)) if object_bytes > 0 else 0
    q = math.floor(math.log2(1.0 + rtt_s / s_r)) + 1
    p = max(0, min(q, k - 1))
    return 2.0 * rtt_s + o_r + p * (rtt_s + s_r) - (2.0**p - 1.0) * s_r


def slow_start_stalls_s(object_bytes: float, rtt_s: float, rate_bps: float, mss_bytes: int,
                        window_segments: float) -> tuple[float, float]:
    """Return ``(stall_s, window_segments_after)``: the time the server idles waiting for ACKs while it
    sends ``object_bytes`` from a window of ``window_segments`` (doubling each window), and the window then.

    Window k holds ``w 2^(k-1)`` segments and takes ``w 2^(k-1) S/R`` to send; the first ACK for it is back
    ``S/R + RTT`` after its first segment left, so the server stalls ``max(0, S/R + RTT - w 2^(k-1) S/R)``
    after every window but the last. Every ACKed segment adds one segment to the window (slow start).
    """
    _check_path(rtt_s, rate_bps)
    check_real("object_bytes", object_bytes, 0.0)
    check_int("mss_bytes", mss_bytes, 1)
    check_real("window_segments", window_segments, 1.0)
    s_r = 8.0 * mss_bytes / rate_bps
    left = math.ceil(object_bytes / mss_bytes)
    w = float(window_segments)
    stall = 0.0
    while left > 0:
        sent = min(left, math.floor(w))
        left -= sent
        if left > 0:
            stall += max(0.0, s_r + rtt_s - w * s_r)
        w += sent
    return stall, w


def nonpersistent_s(rtt_s: float, rate_bps: float, base_bytes: float, sizes: Sequence[float],
                    parallel: int = 1) -> float:
    """Return the non-persistent page time, seconds: ``2 RTT + O_base/R`` plus, per round of ``parallel``
    embedded objects sharing the link, ``2 RTT + (their bytes)/R`` (K&R: about 2 RTT + O/R per object)."""
    _check_path(rtt_s, rate_bps)
    sizes = _check_sizes(base_bytes, sizes)
    check_int("parallel", parallel, 1)
    t = 2.0 * rtt_s + 8.0 * base_bytes / rate_bps
    for start in range(0, len(sizes), parallel):
        t += 2.0 * rtt_s + 8.0 * sum(sizes[start:start + parallel]) / rate_bps
    return t


def persistent_s(rtt_s: float, rate_bps: float, base_bytes: float, sizes: Sequence[float]) -> float:
    """Return the persistent page time without pipelining, seconds: ``2 RTT + O_base/R`` then
    ``RTT + O/R`` per embedded object (one handshake for the page)."""
    _check_path(rtt_s, rate_bps)
    sizes = _check_sizes(base_bytes, sizes)
    return 2.0 * rtt_s + 8.0 * base_bytes / rate_bps + sum(rtt_s + 8.0 * s / rate_bps for s in sizes)


def pipelined_s(rtt_s: float, rate_bps: float, base_bytes: float, sizes: Sequence[float]) -> float:
    """Return the persistent page time with pipelining, seconds: ``2 RTT + O_base/R``, then one RTT for
    all embedded objects plus their transmission (``RTT + sum O/R``; none without embedded objects)."""
    _check_path(rtt_s, rate_bps)
    sizes = _check_sizes(base_bytes, sizes)
    t = 2.0 * rtt_s + 8.0 * base_bytes / rate_bps
    if sizes:
        t += rtt_s + 8.0 * sum(sizes) / rate_bps
    return t


def page_time_s(mode: str, rtt_s: float, rate_bps: float, base_bytes: float, sizes: Sequence[float],
                parallel: int = 1) -> float:
    """Return the simple formula's page time of ``mode`` (non-persistent | persistent | pipelined), s."""
    if mode == "non-persistent":
        return nonpersistent_s(rtt_s, rate_bps, base_bytes, sizes, parallel)
    if mode == "persistent":
        return persistent_s(rtt_s, rate_bps, base_bytes, sizes)
    if mode == "pipelined":
        return pipelined_s(rtt_s, rate_bps, base_bytes, sizes)
    raise ValueError(f"mode={mode!r} is not allowed: must be one of {list(FORMULA_MODES)!r}")


def page_time_slow_start_s(mode: str, rtt_s: float, rate_bps: float, base_bytes: float,
                           sizes: Sequence[float], mss_bytes: int, initial_window_segments: int = 1,
                           parallel: int = 1) -> float:
    """Return the page time of ``mode`` with slow start added to the simple formula, seconds.

    Non-persistent: every connection starts again from ``initial_window_segments`` (a round of ``n``
    parallel connections is one slow start at rate R/n, the stalls of its largest object). Persistent:
    the window keeps growing across objects (no idle restart), so later objects stall less or not at
    all. Pipelined: the embedded objects are one stream of bytes behind the base's window.
    """
    check_int("initial_window_segments", initial_window_segments, 1)
    base = page_time_s(mode, rtt_s, rate_bps, base_bytes, sizes, parallel)
    sizes = _check_sizes(base_bytes, sizes)
    w0 = float(initial_window_segments)
    stall, w = slow_start_stalls_s(base_bytes, rtt_s, rate_bps, mss_bytes, w0)
    if mode == "non-persistent":
        check_int("parallel", parallel, 1)
        for start in range(0, len(sizes), parallel):
            group = sizes[start:start + parallel]
            share = rate_bps / len(group)
            stall += max(slow_start_stalls_s(s, rtt_s, share, mss_bytes, w0)[0] for s in group)
        return base + stall
    if mode == "persistent":
        for s in sizes:
            extra, w = slow_start_stalls_s(s, rtt_s, rate_bps, mss_bytes, w)
            stall += extra
        return base + stall
    if mode == "pipelined":
        if sizes:
            stall += slow_start_stalls_s(sum(sizes), rtt_s, rate_bps, mss_bytes, w)[0]
        return base + stall
    raise ValueError(f"mode={mode!r} is not allowed: must be one of {list(FORMULA_MODES)!r}")
