"""Messages that wait for two things: "write message j once message k is done AND event E has happened".

``simcore.packet.Message`` waits for one message (``after_message``). An FTP client waits for both the
file's data (end of file on the data connection) and the 226 reply; a server's 150 waits for its
``connect()`` to complete. ``simulate_with_waits`` adds such extra conditions (``Wait``) on top of the
packet simulator without changing it, by a fixed point over ``Message.start_time_s`` (a message is
written at ``max(start_time_s, its after_message's completion + delay_after_s)``):

1. simulate; 2. among the messages written before what they wait for (or held back longer than now
needed by a start time set earlier), take those where the run first departs from the wanted one (all
at that same instant), and set their ``start_time_s`` to the time they should be written; 3. repeat
until every message is consistent.

Why this is exact: moving a message's start time changes nothing before the earlier of its old and new
write times (the event order up to then is the same, and each link draws its losses per packet from its
own stream, in the order packets reach it), so fixing the earliest departure keeps the run before it.
If what it waits for then happens at another time, the next pass catches it; when the event comes
before the new start it no longer depends on it, so the next pass settles. A message whose event never
happens is pushed past the end (it is never written); if a later pass changes the run so that the event
does happen (an association given up in one pass may come up in the next), the message is brought back.
A lossless run usually needs one pass: callers give ``delay_after_s`` the loss-free waiting time. A
message written at the very instant a 'done' event it waits for happens (e.g. the next command, when the
file's last byte and its 226 arrive in one segment) is consistent as it is: the host reads both at that
instant, and moving it a nanosecond would cost a pass and change nothing.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_real
from simcore.packet import Message, PacketResult, Scenario, build_cache, simulate
from simcore.packet.batch import simulate_many

from ._waits_kernel import departures

__all__ = ["Wait", "simulate_with_waits", "simulate_many_with_waits", "EPS_S"]

# A message released by an event is written EPS_S after it, so that at the same instant the host first
# handles the event (e.g. the SYN-ACK that completes connect()) and only then the application writes, as
# on a real host. A nanosecond is far below any packet time here, and far above rounding (a delay
# estimate can differ from the kernel's own sum of the same terms in the last bit).
EPS_S = 1e-9
_NONE = np.zeros(0)  # (no connection's establishment read)


@dataclass(frozen=True)
class Wait:
    """Message ``msg`` is not written before ``delay_s`` after ``kind`` of ``ref``: 'done' = message
    ``ref`` completed at its receiver, 'established' = connection ``ref``'s opener got the SYN-ACK."""

    msg: int
    kind: str
    ref: int
    delay_s: float = 0.0  # ... and this long after it


def _moved(m: Message, start_time_s: float) -> Message:
    """``replace(m, start_time_s=start_time_s)`` with only the field that changes checked (the rest of ``m`` was
    checked when it was made): a full re-check per moved message cost as much as a small session's run."""
    out = copy.copy(m)
    object.__setattr__(out, "start_time_s", check_real("start_time_s", start_time_s, 0.0))
    return out


def _with_messages(sc: Scenario, msgs: tuple, starts: np.ndarray | None = None) -> Scenario:
    """Return ``sc`` with ``msgs``, skipping ``Scenario``'s validation: only start times changed, and
    each changed ``Message`` was validated by ``replace``. (Re-validating the whole scenario on every
    pass cost a quarter of a small session's time.)"""
    out = copy.copy(sc)
    object.__setattr__(out, "messages", msgs)
    build_cache.derive(out, sc, starts)  # only start times changed: its kernel state is made from sc's, not built anew
    return out


class _FixedPoint:
    """One run's fixed point (see the module's doc), a pass at a time: ``sc`` is the scenario to simulate next,
    ``step(result)`` takes that pass's result and returns True once it is consistent (``sc`` is then the settled
    scenario, ``result`` its run and ``passes`` their number)."""

    def __init__(self, sc: Scenario, waits: tuple[Wait, ...], max_passes: int, like: _FixedPoint | None = None):
        self.sc = sc
        self.waits = waits
        self.max_passes = max_passes
        self.passes = 0
        self.result = None
        if not waits:
            return
        self.msgs = list(sc.messages)
        if like is not None:  # another run's of the same scenario and waits: the same arrays (never written)
            self.never, self.waited, self.group, self.is_done = like.never, like.waited, like.group, like.is_done
            self.ref, self.delay, self.lag, self.base = like.ref, like.delay, like.lag, like.base
            self.by_conn, self.starts = like.by_conn, like.starts
            self.start = self.base.copy()
            return
        self.never = sc.duration_s * 2.0 + 1.0
        # the waits as arrays, grouped by the message that waits (a pass is then one call of ``departures``)
        order = sorted(range(len(waits)), key=lambda i: waits[i].msg)
        ws = [waits[i] for i in order]
        self.waited = np.array(sorted({w.msg for w in ws}), np.int64)
        self.group = np.flatnonzero(np.r_[True, np.diff([w.msg for w in ws]) != 0])  # first wait of each message
        is_done = self.is_done = np.array([w.kind == "done" for w in ws])
        self.ref = np.array([w.ref for w in ws], np.int64)
        self.delay = np.array([w.delay_s for w in ws], np.float64)
        self.lag = np.where(is_done, 0.0, EPS_S)  # a 'done' event may coincide with the write; a connect() may not
        self.by_conn = not is_done.all()  # some wait on a connection's establishment
        self.starts = np.array([m.start_time_s for m in self.msgs], np.float64)  # every message's, now
        self.base = self.starts[self.waited]
        self.start = self.base.copy()  # the waiting messages' start times now

    def step(self, res: PacketResult) -> bool:
        self.passes += 1
        self.result = res
        if not self.waits:
            return True
        # (``_waits_kernel.departures``: the comparisons of the module's doc, step 2, wait by wait)
        est = res.established_s if self.by_conn else _NONE
        move, new = departures(res.message_done_s, est, res.message_write_s, self.ref, self.is_done, self.delay,
                               self.lag, self.group, self.base, self.start, self.waited, self.never, EPS_S)
        if not move.size:
            return True
        if self.passes >= self.max_passes:
            raise RuntimeError(f"simulate_with_waits: no fixed point after {self.max_passes} passes")
        msgs, start = self.msgs, self.start
        starts = self.starts = self.starts.copy()  # (the last scenario's are its own)
        for i, when in zip(move.tolist(), new.tolist(), strict=True):  # the earliest departure, and any other at that
            j = int(self.waited[i])  # same instant (e.g. pipelined SIZEs)
            msgs[j] = _moved(msgs[j], when)
            start[i] = starts[j] = msgs[j].start_time_s
        self.sc = _with_messages(self.sc, tuple(msgs), starts)
        return False


def simulate_with_waits(sc: Scenario, waits: tuple[Wait, ...], seed, max_passes: int = 10_000,
                        first: PacketResult | None = None) -> tuple[PacketResult, Scenario, int]:
    """Return (result, the scenario with the start times that satisfy ``waits``, number of passes). ``first``:
    the first pass's result if it was run already (``simulate(sc, seed)``, e.g. in a ``simulate_many`` batch)."""
    fp = _FixedPoint(sc, waits, max_passes)
    res = first if first is not None else simulate(sc, seed=seed)
    while not fp.step(res):
        res = simulate(fp.sc, seed=seed)
    return fp.result, fp.sc, fp.passes


def simulate_many_with_waits(sc: Scenario, waits: tuple[Wait, ...], seeds: list, max_passes: int = 10_000,
                             firsts: list | None = None) -> list[tuple[PacketResult, Scenario, int]]:
    """Return ``[simulate_with_waits(sc, waits, s) for s in seeds]``, the same runs bit for bit, each pass of every
    run not yet settled run together (``simcore.packet.simulate_many``: one call of the event loop per pass, the
    runs' scenarios all made from ``sc``'s kept state). ``firsts``: the first passes' results, if run already."""
    fps = [_FixedPoint(sc, waits, max_passes)] if seeds else []
    fps += [_FixedPoint(sc, waits, max_passes, fps[0]) for _ in seeds[1:]]
    results = firsts if firsts is not None else simulate_many(sc, list(seeds))
    todo = list(range(len(seeds)))
    while todo:
        todo = [k for k, res in zip(todo, results, strict=True) if not fps[k].step(res)]
        if todo:
            results = simulate_many([fps[k].sc for k in todo], [seeds[k] for k in todo])
    return [(fp.result, fp.sc, fp.passes) for fp in fps]
