"""The message pattern of one ``mget`` session for each design, as a ``simcore.packet`` scenario.

Hosts: node 0 is the FTP client, node 1 the FTP server, joined by the bottleneck in both directions
(the Dummynet router's two pipes; the 100 Mbit/s Ethernet hops either side are left out). What each
side waits for before it writes, per BSD ``ftp``/``ftpd`` (see ``commands`` for the bytes):

- client: each command after the reply it needs; the next file's first command after BOTH the file's
  last byte (end of file) and its 226 reply (``_waits``); ``pipelined``: every SIZE at once after the
  listing, each RETR as its 213 arrives (paper sec. 5).
- server: replies as commands arrive; active mode: ``connect()`` first, the 150 once it returns
  (``dataconn()``); the file written at once; the 226 once ``send_data()`` returns, i.e. once all but
  ``sndbuf_bytes`` of what was written on that data connection is acknowledged (modelled as: the client
  holds the stream up to that offset, plus the ACK's one-way trip on an idle path); then it closes the
  data connection (-> TIME-WAIT at the server); one transfer at a time (a pipelined RETR waits for
  the previous 226).

Modelling choices that differ from the real stacks (stated, and in the chapter): the send buffer
counts data only (not the replies on a shared connection); the data connection's FIN leaves as soon as
the file is written, just before the 226 (ftpd closes after replying: one header-only packet earlier);
no host processing time; no Nagle on the
control connection (ftpd does not set TCP_NODELAY; with Nagle the 226 would wait for the 150's ACK);
SIZE precedes RETR per file as the issue lists (the BSD client sends SIZE before PORT; same round
trips); TYPE I once at login, so NLST runs in binary (the BSD client switches to TYPE A for NLST and
back, two more round trips in every design); no framing bytes for design A's markers.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from simcore.packet import Connection, LinkParams, Message, Scenario, chain
from simcore.packet.params import TIMESTAMP_OPTION_BYTES

from . import commands as C
from ._waits import EPS_S, Wait
from .params import FtpParams

__all__ = ["Plan", "build_plan", "CLIENT", "SERVER"]

CLIENT, SERVER = 0, 1
SCTP_SACK_BYTES = 20 + 12 + 16  # IPv4 + common header + SACK chunk without gap blocks (RFC 4960 sec. 3.3.4)


@dataclass
class Plan:
    """A session's scenario plus what each message and connection is (for results and diagrams)."""

    params: FtpParams
    conns: list = field(default_factory=list)
    conn_role: list = field(default_factory=list)  # "control" | "data" | "single"
    msgs: list = field(default_factory=list)
    label: list = field(default_factory=list)  # e.g. "RETR file01", "226", "data file01"
    kind: list = field(default_factory=list)  # "command" | "reply" | "data"
    file: list = field(default_factory=list)  # 1..N, 0 = the listing, -1 = login / quit
    waits: list = field(default_factory=list)
    first_mget: int = -1  # the first command after ``mget`` (the timing starts when it is sent)
    reply_226: dict = field(default_factory=dict)  # file (0 = listing) -> its 226 message
    last_data: dict = field(default_factory=dict)  # file -> its last data message
    next_port: int = C.FIRST_DATA_PORT
    sched: dict = field(default_factory=dict)  # connection -> [(transfer, size)] of the data it carries
    cut_msg: dict = field(default_factory=dict)  # transfer -> data piece its 226 waits for (send buffer)

    def carries(self, conn: int, transfers: list[int]) -> int:
        """Record the transfers (0 = the listing) that connection ``conn`` carries, in order."""
        p = self.params
        self.sched[conn] = [(k, len(C.listing_bytes(p.n_files)) if k == 0 else p.file_size_bytes)
                            for k in transfers]
        return conn

    def conn(self, opener: int, role: str, **kw) -> int:
        """Add a connection opened by host ``opener``; return its index."""
        p = self.params
        sctp = {"transport": "sctp", "sctp": p.sctp} if p.transport == "sctp" else {}
        self.conns.append(Connection(opener, 1 - opener, p.tcp, **{**kw, **sctp}))
        self.conn_role.append(role)
        return len(self.conns) - 1

    def msg(self, conn: int, payload, host: int, after: int = -1, delay: float = 0.0, *, label: str,
            kind: str, file: int = -1, stream: int = 0, waits: tuple = ()) -> int:
        """Add a message from ``host`` (bytes, or a size for data); return its index."""
        size = payload if isinstance(payload, int) else len(payload)
        sender = "client" if self.conns[conn].client == host else "server"
        self.msgs.append(Message(conn, size, sender, after_message=after, delay_after_s=delay, stream=stream))
        self.label.append(label)
        self.kind.append(kind)
        self.file.append(file)
        k = len(self.msgs) - 1
        self.waits += [Wait(k, *w) for w in waits]
        return k

    def scenario(self) -> Scenario:
        """Return the packet scenario: the two hosts joined by the testbed's bottleneck both ways."""
        p = self.params
        def link(lossy: bool) -> LinkParams:
            return LinkParams(rate_bps=p.rate_bps, delay_s=p.one_way_delay_s, queue_packets=p.queue_packets,
                              loss_prob=p.loss if lossy else 0.0, loss_where=p.loss_where,
                              spared_retransmissions=p.spared_retransmissions if lossy else ())

        # link 0 is node 0 (CLIENT) -> node 1 (SERVER), link 1 the way back
        net = chain(1, link(p.loss_direction != "server_to_client"), link(p.loss_direction != "client_to_server"))
        return Scenario(net, tuple(self.conns), tuple(self.msgs), duration_s=p.max_time_s,
                        tcpip_header_bytes=p.header_bytes)


def _hdr_s(p: FtpParams) -> float:
    """Return the one-way time of a header-only packet on an idle path (SYN, pure ACK; SCTP: a SACK
    without gap blocks, 20 + 12 + 16 bytes), seconds."""
    if p.transport == "sctp":
        return SCTP_SACK_BYTES * 8.0 / p.rate_bps + p.one_way_delay_s
    options = TIMESTAMP_OPTION_BYTES if p.tcp.timestamps else 0  # every segment carries it (RFC 7323)
    return (p.header_bytes + options) * 8.0 / p.rate_bps + p.one_way_delay_s


def _connect_s(p: FtpParams) -> float:
    """Return a lower bound of connect() on idle links: SYN + SYN-ACK (TCP); SCTP: INIT, INIT-ACK,
    COOKIE-ECHO, COOKIE-ACK (the initiator is ESTABLISHED on the COOKIE-ACK), taken as header-only."""
    return (4.0 if p.transport == "sctp" else 2.0) * _hdr_s(p) + EPS_S


def _login(pl: Plan, ctl: int) -> int:
    """Greeting, USER / PASS / TYPE I (before ``mget``: not timed). Return the last reply."""
    r = pl.msg(ctl, C.GREETING, SERVER, label="220", kind="reply")
    for verb, arg, code, text in (("USER", C.USER, 331, f"Password required for {C.USER}."),
                                  ("PASS", C.PASSWORD, 230, f"User {C.USER} logged in."),
                                  ("TYPE", "I", 200, "Type set to I.")):
        q = pl.msg(ctl, C.command(verb, arg), CLIENT, r, label=f"{verb} {arg}", kind="command")
        r = pl.msg(ctl, C.reply(code, text), SERVER, q, label=str(code), kind="reply")
    return r


def _cmd(pl: Plan, ctl: int, verb: str, arg: str | None, after: int, k: int, delay: float = 0.0,
         waits: tuple = ()) -> int:
    label = verb if arg is None or verb == "PORT" else f"{verb} {arg}"
    return pl.msg(ctl, C.command(verb, arg), CLIENT, after, delay, label=label, kind="command", file=k,
                  waits=waits)


def _serve(pl: Plan, ctl: int, conn: int, k: int, req: int, code: int, *, delay: float = 0.0, est: int = -1,
           busy: tuple | None = None) -> tuple | None:
    """Server side of transfer ``k`` (0 = the listing) after request ``req`` arrived: the 150/125 reply,
    the data on ``conn`` (stream 1) and the 226 on ``ctl`` (stream 0). ``delay``/``est``: the connect()
    to wait for (est = -1: none). ``busy``: (message, delay) after which the previous 226 went out, when
    the server may still be writing the previous file as this request arrives. Return this transfer's
    ``busy`` (None: its 226 goes out with the data).

    The send buffer: ftpd's write of file k returns (and its 226 goes out) once all but ``sndbuf_bytes``
    of the bytes written on ``conn`` so far are acknowledged, i.e. once the client holds the stream up
    to offset ``end_k - sndbuf`` and its ACK has come back. The data are cut into messages at those
    offsets (the bytes on the wire do not change) so that the 226 can wait for exactly that."""
    p = pl.params
    name = "file list" if k == 0 else C.file_name(k, p.n_files)
    sched = pl.sched[conn]
    ends = dict(zip([j for j, _ in sched], np.cumsum([sz for _, sz in sched]).tolist(), strict=True))
    size = dict(sched)[k]
    begin = ends[k] - size
    after, d = req, delay
    w: tuple = (("established", est),) if est >= 0 else ()
    if busy is not None:
        after, d = busy
        w += (("done", req),)
    opening = C.opening_reply if code == 150 else C.existing_reply
    pl.msg(ctl, opening(name, None if k == 0 else size), SERVER, after, d, label=str(code), kind="reply",
           file=k, waits=w)
    lbl = "listing" if k == 0 else f"data {name}"
    cuts = {j: e - p.sndbuf_bytes for j, e in ends.items()}
    pos = begin
    for x in sorted({c for c in cuts.values() if begin < c < ends[k]} | {ends[k]}):
        piece = pl.msg(conn, x - pos, SERVER, after, d, label=lbl, kind="data", file=k, stream=1, waits=w)
        pl.cut_msg.update({j: piece for j, c in cuts.items() if c == x})
        pos = x
    pl.last_data[k] = piece
    ack = _hdr_s(p)
    if cuts[k] > 0 and (busy is not None or pl.file[pl.cut_msg[k]] == k):
        after, d = pl.cut_msg[k], ack  # later than the data's own start: written behind it
        w += () if busy is not None else (("done", req),)
    elif cuts[k] > 0:  # the cut lies in an earlier file: usually acknowledged before this request came
        w += (("done", pl.cut_msg[k], ack),)
    pl.reply_226[k] = pl.msg(ctl, C.TRANSFER_COMPLETE, SERVER, after, d, label="226", kind="reply", file=k,
                             waits=w)
    return (pl.cut_msg[k], ack) if cuts[k] > 0 else None


def _client_done(pl: Plan, k: int, new_conn: bool) -> tuple[int, tuple]:
    """Return (after_message, waits) for the client's next command: after transfer ``k``'s data AND
    its 226. Either order is exact (``_waits``); the one expected last is made the primary dependency,
    which saves passes: the data when the 226 leaves before the file's end (file > send buffer) or the
    data connection is new and slow-starts; otherwise the 226, which queues behind the data."""
    p = pl.params
    size = p.file_size_bytes if k else len(C.listing_bytes(p.n_files))
    if p.transport == "sctp":
        one_flight = size <= 2 * p.sctp.max_payload_bytes  # RFC 2960's initial cwnd: 2 MTU (a hint only)
    else:
        one_flight = size <= p.tcp.initial_window_segments * p.tcp.segment_bytes
    if size <= p.sndbuf_bytes and (one_flight or not new_conn):
        return pl.reply_226[k], (("done", pl.last_data[k]),)
    return pl.last_data[k], (("done", pl.reply_226[k]),)


def _separate(pl: Plan, files: list[int], listing: bool, after: int, waits: tuple, persistent: bool,
              pipelined: bool) -> None:
    """One control connection and data connections: per transfer (design 1), or one persistent (B, C)."""
    p = pl.params
    ctl = pl.conn(CLIENT, "control", closer="server")
    login = _login(pl, ctl)
    if after >= 0:  # a parallel session: after the listing (another session's) and its own login
        w = waits + (("done", login),)
    else:
        after, w = login, ()
    connect_s = _connect_s(p)
    dc = -1
    busy = None
    todo = ([0] if listing else []) + list(files)
    for i, k in enumerate(todo):
        if i == 0 or not persistent:  # a new data connection: PORT (active) or PASV (passive)
            port = pl.next_port
            pl.next_port += 1
            if p.mode == "active":
                q = _cmd(pl, ctl, "PORT", C.port_command(port)[5:-2].decode(), after, k, waits=w)
                r = pl.msg(ctl, C.reply(200, "PORT command successful."), SERVER, q, label="200", kind="reply",
                           file=k)
            else:
                q = _cmd(pl, ctl, "PASV", None, after, k, waits=w)
                r = pl.msg(ctl, C.pasv_reply(port), SERVER, q, label="227", kind="reply", file=k)
                dc = pl.carries(pl.conn(CLIENT, "data", open_after_message=r, closer="server"),  # connect()
                                [k] if not persistent else todo)
            if pl.first_mget < 0:
                pl.first_mget = q
            after, w = r, ()
        if k > 0 and pipelined:
            break
        if k > 0:
            q = _cmd(pl, ctl, "SIZE", C.file_name(k, p.n_files), after, k, waits=w)
            after, w = pl.msg(ctl, C.size_reply(p.file_size_bytes), SERVER, q, label="213", kind="reply",
                              file=k), ()
        verb, arg = ("NLST", "*") if k == 0 else ("RETR", C.file_name(k, p.n_files))
        if i == 0 or not persistent:
            if p.mode == "active":
                req = _cmd(pl, ctl, verb, arg, after, k, waits=w)
                dc = pl.carries(pl.conn(SERVER, "data", open_after_message=req,  # ftpd closes it (TIME-WAIT)
                                        closer="none" if persistent else "client"), [k] if not persistent else todo)
                busy = _serve(pl, ctl, dc, k, req, 150, delay=connect_s, est=dc)
            else:
                req = _cmd(pl, ctl, verb, arg, after, k, 0.0 if k else connect_s, w + (("established", dc),))
                busy = _serve(pl, ctl, dc, k, req, 150)
        else:
            req = _cmd(pl, ctl, verb, arg, after, k, waits=w)
            busy = _serve(pl, ctl, dc, k, req, 125)
        after, w = _client_done(pl, k, new_conn=not persistent)
    if pipelined:
        _pipeline(pl, ctl, dc, [k for k in todo if k > 0], after, w, 125, busy)
        after, w = _client_done(pl, todo[-1], new_conn=False)
    _quit(pl, ctl, after, w)


def _pipeline(pl: Plan, ctl: int, conn: int, files: list[int], after: int, waits: tuple, code: int,
              busy: tuple | None) -> None:
    """Paper sec. 5: every SIZE at once; each RETR as soon as its 213 arrives; the server serves the
    RETRs one after another."""
    p = pl.params
    sizes = [_cmd(pl, ctl, "SIZE", C.file_name(k, p.n_files), after, k, waits=waits) for k in files]
    replies = [pl.msg(ctl, C.size_reply(p.file_size_bytes), SERVER, q, label="213", kind="reply", file=k)
               for q, k in zip(sizes, files, strict=True)]
    reqs = [_cmd(pl, ctl, "RETR", C.file_name(k, p.n_files), r, k) for r, k in zip(replies, files, strict=True)]
    for req, k in zip(reqs, files, strict=True):
        busy = _serve(pl, ctl, conn, k, req, code, busy=busy)


def _quit(pl: Plan, ctl: int, after: int, waits: tuple) -> None:
    q = pl.msg(ctl, C.command("QUIT"), CLIENT, after, label="QUIT", kind="command", waits=waits)
    pl.msg(ctl, C.reply(221, "Goodbye."), SERVER, q, label="221", kind="reply")


def _single(pl: Plan, pipelined: bool) -> None:
    """One connection (TCP: design A) or association (designs 3, 4) for control (stream 0) and data
    (stream 1)."""
    p = pl.params
    streams = p.transport != "tcp"
    conn = pl.carries(pl.conn(CLIENT, "single", closer="server", transport=p.transport),
                      list(range(p.n_files + 1)))
    req = _cmd(pl, conn, "NLST", "*", _login(pl, conn), 0)
    pl.first_mget = req
    _serve(pl, conn, conn, 0, req, 150)
    files = list(range(1, p.n_files + 1))

    def done(k):  # on one byte stream the 226 follows the data, so it alone is enough to wait for
        return _client_done(pl, k, new_conn=False) if streams else (pl.reply_226[k], ())

    if pipelined:
        _pipeline(pl, conn, conn, files, *done(0), 150, None)
    else:
        for k in files:
            after, w = done(k - 1)
            q = _cmd(pl, conn, "SIZE", C.file_name(k, p.n_files), after, k, waits=w)
            r = pl.msg(conn, C.size_reply(p.file_size_bytes), SERVER, q, label="213", kind="reply", file=k)
            _serve(pl, conn, conn, k, _cmd(pl, conn, "RETR", C.file_name(k, p.n_files), r, k), 150)
    _quit(pl, conn, *done(p.n_files))


def build_plan(p: FtpParams) -> Plan:
    """Return the ``Plan`` (scenario, waits, labels) of one ``mget`` session with parameters ``p``."""
    pl = Plan(p)
    if p.design in ("single", "single_pipelined"):
        _single(pl, p.design == "single_pipelined")
    elif p.design == "parallel":
        files = list(range(1, p.n_files + 1))
        _separate(pl, files[0::p.n_parallel], True, -1, (), False, False)
        listed = (pl.last_data[0], (("done", pl.reply_226[0]),))
        for s in range(1, p.n_parallel):
            if files[s::p.n_parallel]:
                _separate(pl, files[s::p.n_parallel], False, *listed, False, False)
    else:
        _separate(pl, list(range(1, p.n_files + 1)), True, -1, (), p.design != "ftp",
                  p.design == "persistent_data_pipelined")
    return pl
