"""What parallel FTP sessions take from a competing flow: the paper's "TCP-unfriendly" argument (sec. 1,
sec. 3, after Floyd & Fall 1999) made measurable.

One long-lived TCP flow (bulk, server -> client, started with the session's login, the same FreeBSD 4.6
TCP) shares the testbed's bottleneck with an ``mget`` run as ``n_parallel`` FTP sessions (design 1 each,
files shared round robin; ``n_parallel = 1`` is plain design 1). Measured over the ``mget`` (from its
first packet to the last 226): the bytes each side got to its receiver. A TCP-fair application with one
connection would get about half; ``n`` connections tend to take about n / (n + 1).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from simcore._validate import check_int
from simcore.packet import Connection, Message, simulate
from simcore.rng import SeedLike

from ._waits import simulate_with_waits
from .params import FtpParams
from .session import CLIENT, SERVER, build_plan

__all__ = ["Competition", "compete"]


@dataclass(frozen=True)
class Competition:
    """One run: the ``mget`` time (s), the bytes the FTP data and the competing flow delivered during it,
    and the FTP side's share of those bytes (0..1)."""

    n_parallel: int
    time_s: float
    ftp_bytes: int
    competitor_bytes: int
    ftp_share: float
    competitor_rate_bps: float


def _acked_at(res, conn: int, direction: int, t: float) -> float:
    """Return the bytes of ``conn`` acknowledged by time ``t`` (last snd_una sample at or before t)."""
    tt = res.tcp_trace
    m = (tt.conn == conn) & (tt.direction == direction) & (tt.time_s <= t)
    return float(tt.snd_una[m][-1]) if m.any() else 0.0


def compete(n_parallel: int, params: FtpParams | None = None, seed: SeedLike = 0) -> Competition:
    """Return the ``Competition`` of ``n_parallel`` FTP sessions (1..16) against one bulk TCP flow, on
    ``params``'s testbed and files (default: 10 x 100 KB, no loss, 300 s simulated at most)."""
    check_int("n_parallel", n_parallel, 1, 16)
    p = params or FtpParams(file_size_bytes=100 * 1024, max_time_s=300.0)
    if not isinstance(p, FtpParams):
        raise ValueError(f"params={p!r} is not allowed: must be an FtpParams")
    p = replace(p, design="parallel" if n_parallel > 1 else "ftp", n_parallel=n_parallel, transport="tcp")
    pl = build_plan(p)
    sc = pl.scenario()
    comp = len(sc.connections)
    conns = (*sc.connections, Connection(CLIENT, SERVER, p.tcp))
    msgs = (*sc.messages, Message(comp, None, "server"))
    sc = replace(sc, connections=conns, messages=msgs)
    _, settled, _ = simulate_with_waits(sc, tuple(pl.waits), seed)
    res = simulate(settled, seed=seed, trace=True)
    t0 = float(res.message_write_s[pl.first_mget])
    t1 = max(float(res.message_done_s[pl.reply_226[k]]) for k in range(1, p.n_files + 1))
    if not np.isfinite(t1):
        raise ValueError(f"the mget did not finish within max_time_s={p.max_time_s}: raise it or lower the loss")
    got = _acked_at(res, comp, 1, t1) - _acked_at(res, comp, 1, t0)
    ftp = p.n_files * p.file_size_bytes
    return Competition(n_parallel=n_parallel, time_s=t1 - t0, ftp_bytes=ftp, competitor_bytes=int(got),
                       ftp_share=ftp / (ftp + got), competitor_rate_bps=8.0 * got / (t1 - t0))
