"""``run_transfer(params, seed) -> Transfer``: one ``mget`` session, timed as the paper timed it.

The paper (sec. 6): "The starting time was taken as the time the client sends out the first packet to
the server following the user mget command. The end time was chosen as the time the 226 control reply
from the server reaches the client for the last transfer." ``Transfer.time_s`` is exactly that;
``complete_s`` also waits for the last data byte (for small files the last 226 can overtake the data).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from simcore.packet import PacketResult, simulate
from simcore.rng import SeedLike

from ._waits import simulate_many_with_waits, simulate_with_waits
from .params import FtpParams
from .sampling import Sample, runs_needed, sequential_sample
from .session import SERVER, Plan, build_plan

__all__ = ["Transfer", "run_transfer", "run_transfers", "run_traced", "transfer", "sample_point"]


@dataclass(frozen=True)
class Transfer:
    """One session's result. Times in seconds from the first packet after ``mget`` (nan if the session
    did not finish: within ``max_time_s``, or at all because a transport gave up a connection, ``gave_up``:
    an aborted transfer, which a real ``ftp`` reports as an error). Per-connection arrays are indexed
    [connection, direction], direction 0 = FTP client -> server, 1 = server -> client; ``conn_role`` says
    what each one is."""

    time_s: float  # the paper's measure: to the arrival of the last file's 226
    complete_s: float  # to when the client holds every file and every 226
    completed: bool
    gave_up: bool  # the session did not finish because a transport gave a connection or association up
    gave_up_s: float  # when a transport first gave a connection up: from the first packet after mget (from the
    # session's start if the control connection never came up); nan: none given up (a session that finished
    # may still have one given up after its last 226, e.g. while closing)
    start_s: float  # absolute simulated time of the first packet after mget (login came before)
    file_data_s: np.ndarray  # (n_files,) each file's last byte at the client
    file_226_s: np.ndarray  # (n_files,) each file's 226 at the client
    control_bytes: np.ndarray  # (2,) command / reply payload bytes from mget to the end, per direction
    data_bytes: int  # file bytes delivered (listing excluded)
    conn_role: tuple[str, ...]
    conn_segments: np.ndarray  # (n_conn, 2) segments sent, retransmissions included
    conn_bytes: np.ndarray  # (n_conn, 2) application bytes delivered
    conn_retransmits: np.ndarray  # (n_conn, 2)
    conn_timeouts: np.ndarray  # (n_conn, 2)
    n_connections: int
    retransmits: int
    timeouts: int
    server_time_wait: int  # data connections the server closed, in TIME-WAIT when the last one enters it
    passes: int  # simulator runs the wait fixed point needed


@lru_cache(maxsize=64)
def _plan_facts(params: FtpParams) -> tuple[np.ndarray, np.ndarray, tuple]:
    """What ``_record`` reads of the plan alone (not of the run), made once per plan: the command and reply bytes
    from mget on per direction, which connections are data connections the server closes, and the (index, size) of
    the file messages (the listing excluded)."""
    pl = _plan(params)[0]
    ctrl = np.zeros(2, np.int64)
    for i, m in enumerate(pl.msgs):
        if pl.kind[i] != "data" and pl.file[i] >= 0:  # commands and replies from mget on
            c = pl.conns[m.conn]
            ctrl[int((c.client if m.sender == "client" else c.server) == SERVER)] += m.size_bytes
    closed_by_server = np.array([pl.conn_role[i] == "data" and c.closer != "none"
                                 and (c.closer == "client") == (c.client == SERVER) for i, c in enumerate(pl.conns)])
    data_msgs = tuple((i, m.size_bytes) for i, m in enumerate(pl.msgs) if pl.kind[i] == "data" and pl.file[i] > 0)
    return ctrl, closed_by_server, data_msgs


def _record(p: FtpParams, pl: Plan, res, passes: int) -> Transfer:
    n = p.n_files
    done = res.message_done_s
    t0 = float(res.message_write_s[pl.first_mget])
    data_at = np.array([done[pl.last_data[k]] for k in range(1, n + 1)]) - t0
    at_226 = np.array([done[pl.reply_226[k]] for k in range(1, n + 1)]) - t0
    completed = bool(np.all(np.isfinite(data_at)) and np.all(np.isfinite(at_226)))
    time_s = float(at_226.max()) if completed else float("nan")  # the last 226 to arrive
    complete_s = float(max(data_at.max(), at_226.max())) if completed else float("nan")
    ctrl, closed_by_server, data_msgs = _plan_facts(p)
    tw = res.timewait_s
    tw_data = tw[closed_by_server & ~np.isnan(tw)]
    at = tw_data.max() if tw_data.size else np.nan  # when the last data connection the server closed is done
    in_tw = tw_data[(tw_data <= at) & (tw_data + p.time_wait_s > at)]
    ab = res.aborted_s[np.isfinite(res.aborted_s)] - (t0 if np.isfinite(t0) else 0.0)
    return Transfer(
        time_s=time_s, complete_s=complete_s, completed=completed, start_s=t0,
        gave_up=bool(ab.size) and not completed, gave_up_s=float(ab.min()) if ab.size else float("nan"),
        file_data_s=data_at, file_226_s=at_226, control_bytes=ctrl.copy(),
        data_bytes=int(sum(size for i, size in data_msgs if np.isfinite(done[i]))),
        conn_role=tuple(pl.conn_role), conn_segments=res.segments_sent, conn_bytes=res.delivered_bytes,
        conn_retransmits=res.retransmits, conn_timeouts=res.timeouts, n_connections=len(pl.conns),
        retransmits=int(res.retransmits.sum()), timeouts=int(res.timeouts.sum()),
        server_time_wait=int(in_tw.size), passes=passes)


def run_transfer(params: FtpParams, seed: SeedLike = 0) -> Transfer:
    """Return the ``Transfer`` of one ``mget`` session with ``params`` (same seed: same result)."""
    if not isinstance(params, FtpParams):
        raise ValueError(f"params={params!r} is not allowed: must be an FtpParams")
    pl, sc, waits = _plan(params)
    res, _, passes = simulate_with_waits(sc, waits, seed)
    return _record(params, pl, res, passes)


def run_transfers(params: FtpParams, seeds) -> list[Transfer]:
    """Return ``[run_transfer(params, s) for s in seeds]``, the same sessions bit for bit, run together: each pass of
    the wait fixed point of every session not yet settled in one call of the event loop (``simulate_many_with_waits``).
    """
    if not isinstance(params, FtpParams):
        raise ValueError(f"params={params!r} is not allowed: must be an FtpParams")
    seeds = list(seeds)
    pl, sc, waits = _plan(params)
    return [_record(params, pl, res, passes) for res, _, passes in simulate_many_with_waits(sc, waits, seeds)]


@lru_cache(maxsize=64)
def _plan(params: FtpParams) -> tuple[Plan, object, tuple]:
    """Return the session's plan, scenario and waits: they depend on the parameters only, not the seed,
    so a sweep over seeds builds them once (building costs more than simulating a small session)."""
    pl = build_plan(params)
    return pl, pl.scenario(), tuple(pl.waits)


def run_traced(params: FtpParams, seed: SeedLike = 0) -> tuple[Transfer, PacketResult, Plan]:
    """Return (``Transfer``, the traced ``PacketResult``, the ``Plan``) of one session: the same run as
    ``run_transfer`` (the settled scenario simulated once more with traces on), for diagrams and captures."""
    if not isinstance(params, FtpParams):
        raise ValueError(f"params={params!r} is not allowed: must be an FtpParams")
    pl, sc, waits = _plan(params)
    res, settled, passes = simulate_with_waits(sc, waits, seed)
    traced = simulate(settled, seed=seed, trace=True)
    return _record(params, pl, traced, passes), traced, pl


def transfer(seed: int = 0, **params) -> Transfer:
    """Return ``run_transfer(FtpParams(**params), seed)``: a module-level function for ``run_sweep`` (which hands
    the seeds of a grid point to ``transfer.seeds_at_once`` in one call: ``run_transfers``)."""
    return run_transfer(FtpParams(**params), seed)


def _transfers(seeds, **params) -> list[Transfer]:
    return run_transfers(FtpParams(**params), seeds)


transfer.seeds_at_once = _transfers


def sample_point(params: FtpParams, first_seed: int = 0) -> Sample:
    """Return the paper's sample for one point: ``time_s`` of sessions with seeds ``first_seed``,
    ``first_seed + 1``, ... until the 90% confidence half-width is <= ``params.ci_half_width_s``
    (between ``params.min_runs`` and ``params.max_runs`` sessions; ``Sample.reached`` says if it was).
    A session a transport gave up is counted in ``Sample.discarded`` and left out, as an experimenter
    would repeat an ``mget`` that failed."""
    if not isinstance(params, FtpParams):
        raise ValueError(f"params={params!r} is not allowed: must be an FtpParams")

    # the sessions are run in batches ahead of the rule (``run_transfers``: each pass of every session of a batch in
    # one call of the event loop): the min_runs it needs first, then as many as the values so far say it needs (from
    # their spread; at least one, at most as many again as it has: a session run ahead and not drawn is wasted); the
    # rule draws them in order, so the sample is the same as one drawn a session at a time
    pl, sc, waits = _plan(params)
    ahead: dict[int, Transfer] = {}
    vals: list[float] = []

    def draw(i):
        if i not in ahead:
            n = params.min_runs - len(vals)
            if n <= 0:
                need = runs_needed(float(np.std(vals, ddof=1)), params.ci_half_width_s) \
                    if len(vals) >= 2 and all(map(math.isfinite, vals)) else 1
                n = min(max(need - len(vals), 1), i)
            n = min(max(n, 1), params.max_runs - i)
            seeds = list(range(first_seed + i, first_seed + i + n))
            ahead.update(zip(range(i, i + n), (_record(params, pl, res, passes) for res, _, passes
                                               in simulate_many_with_waits(sc, waits, seeds)), strict=True))
        t = ahead.pop(i)
        if t.gave_up:
            return None
        vals.append(t.time_s)
        return t.time_s

    return sequential_sample(draw, params.ci_half_width_s, params.min_runs, params.max_runs)
