"""``BulkScenario``: a TCP scenario given as columns, for runs of 10^5 short connections and more.

A ``Scenario`` holds one validated Python object per connection and message; at 2.7 x 10^5 requests
(chapter 2's highest load) building and validating those objects, then reading them back into the
kernel's arrays, cost several times the simulation itself. A ``BulkScenario`` holds the same information
as numpy columns (one row per connection or message), checked column-wise, and ``simulate`` reads it
directly. It runs exactly what ``to_scenario()`` (the equivalent ``Scenario``) runs: same result arrays,
bit for bit (tested).

What it covers: plain TCP connections (no SCTP, no per-stream delivery, no per-connection header size,
no CBR sources), messages with a size, pools. Its ``after_message`` / ``open_after_message`` must name an
*earlier* message (so no chain can loop), which is how a scenario built in time order reads anyway.
Columns (``n`` connections, ``m`` messages; units in names):

- connections: ``conn_client``, ``conn_server`` (nodes), ``conn_tcp`` (index into ``tcps``, the distinct
  ``TcpParams``), ``conn_open_time_s``, ``conn_open_after`` (-1 none), ``conn_closer`` (0 client,
  1 server, -1 none);
- messages: ``msg_conn`` (-1 when pooled), ``msg_pool`` (-1 none), ``msg_sender`` (0 client, 1 server),
  ``msg_size_bytes``, ``msg_start_s``, ``msg_after`` (-1 none), ``msg_delay_s``, ``msg_relay_of`` (-1 none).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_column, check_int, check_real, check_sequence, store_python_numbers

from .params import Connection, ConnectionPool, Message, Network, Scenario, TcpParams

__all__ = ["BulkScenario"]

_CONN_COLS = ("conn_client", "conn_server", "conn_tcp", "conn_open_after", "conn_closer")
_MSG_INT_COLS = ("msg_conn", "msg_pool", "msg_sender", "msg_size_bytes", "msg_after", "msg_relay_of")
_CLOSERS = {0: "client", 1: "server", -1: "none"}


def _bad(name: str, a: np.ndarray, ok: np.ndarray, allowed: str) -> None:
    if not ok.all():
        i = int(np.flatnonzero(~ok)[0])
        raise ValueError(f"{name}[{i}]={a[i]!r} is not allowed: {allowed}")


@dataclass(frozen=True, eq=False)
class BulkScenario:
    """Connections and messages as columns (see the module docstring); ``simulate`` runs it like a ``Scenario``."""

    network: Network
    tcps: tuple[TcpParams, ...]
    conn_client: np.ndarray
    conn_server: np.ndarray
    conn_tcp: np.ndarray
    conn_open_time_s: np.ndarray
    conn_open_after: np.ndarray
    conn_closer: np.ndarray
    msg_conn: np.ndarray
    msg_pool: np.ndarray
    msg_sender: np.ndarray
    msg_size_bytes: np.ndarray
    msg_start_s: np.ndarray
    msg_after: np.ndarray
    msg_delay_s: np.ndarray
    msg_relay_of: np.ndarray
    duration_s: float = 10.0
    tcpip_header_bytes: int = 40
    pools: tuple[ConnectionPool, ...] = ()

    def __post_init__(self):
        store_python_numbers(self)
        if not isinstance(self.network, Network):
            raise ValueError(f"network={self.network!r} is not allowed: must be a Network")
        tcps = check_sequence("tcps", self.tcps, "TcpParams")
        if not tcps or not all(isinstance(t, TcpParams) for t in tcps):
            raise ValueError(f"tcps={self.tcps!r} is not allowed: must be a non-empty tuple of TcpParams")
        object.__setattr__(self, "tcps", tcps)
        object.__setattr__(self, "pools", check_sequence("pools", self.pools, "ConnectionPool"))
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_int("tcpip_header_bytes", self.tcpip_header_bytes, 0, 10**4)
        for name in _CONN_COLS + _MSG_INT_COLS:
            object.__setattr__(self, name, check_column(name, getattr(self, name), np.int64))
        for name in ("conn_open_time_s", "msg_start_s", "msg_delay_s"):
            object.__setattr__(self, name, check_column(name, getattr(self, name), np.float64))
        nc, nm = self.n_connections, self.n_messages
        for name in _CONN_COLS + ("conn_open_time_s",):
            if getattr(self, name).shape != (nc,):
                raise ValueError(f"{name} has shape {getattr(self, name).shape}: must be ({nc},), one per connection")
        for name in _MSG_INT_COLS + ("msg_start_s", "msg_delay_s"):
            if getattr(self, name).shape != (nm,):
                raise ValueError(f"{name} has shape {getattr(self, name).shape}: must be ({nm},), one per message")
        self._check_connections()
        self._check_messages()

    @property
    def n_connections(self) -> int:
        """Return the number of connections."""
        return int(np.shape(self.conn_client)[0])

    @property
    def n_messages(self) -> int:
        """Return the number of messages."""
        return int(np.shape(self.msg_conn)[0])

    def _check_connections(self) -> None:
        n, nm = self.network.n_nodes, self.n_messages
        cl, sv = self.conn_client, self.conn_server
        _bad("conn_client", cl, (cl >= 0) & (cl < n), f"must be a node in [0, {n - 1}]")
        _bad("conn_server", sv, (sv >= 0) & (sv < n) & (sv != cl), f"must be a node in [0, {n - 1}], not the client")
        _bad("conn_tcp", self.conn_tcp, (self.conn_tcp >= 0) & (self.conn_tcp < len(self.tcps)),
             f"must index tcps, in [0, {len(self.tcps) - 1}]")
        t = self.conn_open_time_s
        _bad("conn_open_time_s", t, np.isfinite(t) & (t >= 0.0), "must be finite and >= 0")
        oa = self.conn_open_after
        _bad("conn_open_after", oa, (oa >= -1) & (oa < nm), f"must be -1 or a message in [0, {nm - 1}]")
        _bad("conn_closer", self.conn_closer, np.isin(self.conn_closer, (-1, 0, 1)), "must be 0, 1 or -1")
        nc = self.n_connections
        for k, p in enumerate(self.pools):
            if not isinstance(p, ConnectionPool):
                raise ValueError(f"pools[{k}]={p!r} is not allowed: must be a ConnectionPool")
            c = np.asarray(p.conns, np.int64)
            if (c >= nc).any():
                raise ValueError(f"pools[{k}].conns={p.conns!r} is out of range: must be in [0, {nc - 1}]")
            if (cl[c] != cl[c[0]]).any() or (sv[c] != sv[c[0]]).any() or (self.conn_closer[c] != -1).any():
                raise ValueError(f"pools[{k}].conns={p.conns!r} is not allowed: a pool's connections must join the "
                                 "same client and server and never close (closer -1)")

    def _conn_in_pool(self, conn: np.ndarray, pool: np.ndarray) -> np.ndarray:
        """Return, elementwise, whether connection ``conn`` belongs to pool ``pool`` (False if pool < 0)."""
        out = np.zeros(conn.shape, bool)
        for k, p in enumerate(self.pools):
            sel = pool == k
            out[sel] = np.isin(conn[sel], np.asarray(p.conns, np.int64))
        return out

    def _check_messages(self) -> None:
        nc, nm, npo = self.n_connections, self.n_messages, len(self.pools)
        c, po, i = self.msg_conn, self.msg_pool, np.arange(nm)
        _bad("msg_pool", po, (po >= -1) & (po < npo), f"must be -1 or a pool in [0, {npo - 1}]")
        _bad("msg_conn", c, ((c >= 0) & (c < nc) & (po < 0)) | ((c == -1) & (po >= 0)),
             f"must be a connection in [0, {nc - 1}], or -1 with msg_pool >= 0 (exactly one of them)")
        _bad("msg_sender", self.msg_sender, np.isin(self.msg_sender, (0, 1)), "must be 0 (client) or 1 (server)")
        s = self.msg_size_bytes
        _bad("msg_size_bytes", s, (s >= 1) & (s <= 2**50), "must be in [1, 2**50]")
        for name in ("msg_start_s", "msg_delay_s"):
            a = getattr(self, name)
            _bad(name, a, np.isfinite(a) & (a >= 0.0), "must be finite and >= 0")
        _bad("msg_after", self.msg_after, (self.msg_after >= -1) & (self.msg_after < i),
             "must be -1 or an earlier message")
        oa = self.conn_open_after
        on = oa >= 0
        own = np.zeros(on.shape, bool)
        own[on] = (c[oa[on]] == np.flatnonzero(on)) | self._conn_in_pool(np.flatnonzero(on), po[oa[on]])
        _bad("conn_open_after", oa, ~own, "that message travels on the connection itself, which would never open")
        r = self.msg_relay_of
        has = r >= 0
        _bad("msg_relay_of", r, (r >= -1) & (r < i), "must be -1 or an earlier message")
        k, j = r[has], np.flatnonzero(has)
        if np.unique(k).size != k.size:
            raise ValueError("msg_relay_of is not allowed: a message may be relayed by one message only")
        _bad("msg_relay_of", r[has], s[k] == s[j], "a relay must have the size of the message it relays")
        first = np.array([q.conns[0] for q in self.pools] or [0], np.int64)  # a pool's first connection
        ck = np.where(c[k] >= 0, c[k], first[np.maximum(po[k], 0)])
        ci = np.where(c[j] >= 0, c[j], first[np.maximum(po[j], 0)])
        arrives = np.where(self.msg_sender[k] == 0, self.conn_server[ck], self.conn_client[ck])
        leaves = np.where(self.msg_sender[j] == 0, self.conn_client[ci], self.conn_server[ci])
        same = ((c[k] >= 0) & (c[k] == c[j])) | ((po[k] >= 0) & (po[k] == po[j]))
        same |= (c[k] >= 0) & self._conn_in_pool(c[k], po[j]) | (c[j] >= 0) & self._conn_in_pool(c[j], po[k])
        _bad("msg_relay_of", r[has], (arrives == leaves) & ~same,
             "a relay must leave, on another connection, from the node where the message it relays arrives")

    def to_scenario(self) -> Scenario:
        """Return the equivalent ``Scenario`` (one object per connection and message; for tests and captures)."""
        tcps = self.tcps
        conns = tuple(Connection(int(a), int(b), tcps[k], open_time_s=float(t), open_after_message=int(o),
                                 closer=_CLOSERS[int(cl)])
                      for a, b, k, t, o, cl in zip(self.conn_client, self.conn_server, self.conn_tcp,
                                                   self.conn_open_time_s, self.conn_open_after, self.conn_closer,
                                                   strict=True))
        msgs = tuple(Message(None if c < 0 else int(c), int(s), "client" if d == 0 else "server",
                             start_time_s=float(t), after_message=int(a), delay_after_s=float(dl),
                             relay_of=int(r), pool=int(p))
                     for c, p, d, s, t, a, dl, r in zip(self.msg_conn, self.msg_pool, self.msg_sender,
                                                        self.msg_size_bytes, self.msg_start_s, self.msg_after,
                                                        self.msg_delay_s, self.msg_relay_of, strict=True))
        return Scenario(self.network, conns, msgs, duration_s=self.duration_s,
                        tcpip_header_bytes=self.tcpip_header_bytes, pools=self.pools)
