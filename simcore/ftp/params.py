"""``FtpParams``: one FTP ``mget`` session on the paper's testbed (client - Dummynet router - server).

Designs (``design``) are message patterns; ``transport`` says what carries them. The paper's four:

=================  ==========================  =======================================================
paper design       ``design``                  ``transport``
=================  ==========================  =======================================================
1 FTP over TCP     ``"ftp"``                   ``"tcp"``
2 FTP over SCTP    ``"ftp"``                   ``"sctp"`` (an association where TCP had a connection)
3 multistream      ``"single"``                ``"sctp"`` (one association, stream 0 control, 1 data;
                                                ``"tcp_streams"`` = the same pattern on TCP with
                                                per-stream delivery, NOT SCTP, kept as a contrast)
4 + pipelining     ``"single_pipelined"``      ``"sctp"`` (``"tcp_streams"`` as above)
=================  ==========================  =======================================================

The paper's section 3 TCP alternatives: A = ``"single"`` on ``"tcp"`` (control and data share one byte
stream: head-of-line blocking), B = ``"persistent_data"``, C = ``"persistent_data_pipelined"``; and
``"parallel"``: ``n_parallel`` FTP sessions (design 1 each) sharing the files round robin.

Testbed (paper sec. 6): 1 Mbit/s and 35 ms each way, 50-packet drop-tail queue, random loss (by default
in both directions: ``loss_direction``). ``loss`` is a probability per packet (0.1 = 10%); the paper's
"0, 0.1 and 0.3" carry no unit and no direction: see ``simcore/ftp/LOSS_READING.md``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from simcore._validate import check_choice, check_int, check_order, check_real, store_python_numbers
from simcore.packet import LinkParams, SctpParams, TcpParams

__all__ = ["DESIGNS", "TRANSPORTS", "MODES", "PAPER_DESIGNS", "TCP_ASSUMED", "SCTP_ASSUMED", "LOSS_WHERE",
           "LOSS_DIRECTIONS", "FtpParams", "paper_design"]

DESIGNS = ("ftp", "persistent_data", "persistent_data_pipelined", "single", "single_pipelined", "parallel")
TRANSPORTS = ("tcp", "tcp_streams", "sctp")
MODES = ("active", "passive")
PAPER_DESIGNS = {1: ("ftp", "tcp"), 2: ("ftp", "sctp"), 3: ("single", "sctp"), 4: ("single_pipelined", "sctp")}

# FreeBSD 4.6 TCP (docs/tcp_presets.md): NewReno, initial window 1 segment, delayed ACKs 100 ms, 10 ms
# timer ticks, RTO 3 s initial / 1 s floor / 64 s cap, RFC 1323 timestamps; SYNs retransmitted on BSD's
# tcp_syn_backoff table, connect() given up after 75 s, a connection dropped after 12 timeouts in a row
# (what FreeBSD 4.6 did: an aborted transfer is a result the chapter shows). One override, an assumption:
# the 32 KB send buffer (net.inet.tcp.sendspace) caps the data in flight below the 64 KB receive window,
# and the model has no send buffer, so the window is set to 32768 bytes instead.
TCP_ASSUMED = TcpParams.preset("freebsd46", rwnd_bytes=32768)
# KAME SCTP of October 2002 (docs/sctp_presets.md): the rfc2960 preset, because that stack implemented
# RFC 2960 plus the implementers' guide (the paper cites both, and blames the guide's Max.Burst rule), years
# before RFC 4960 (2007) brought HTNA, Fast Recovery, the 4-MTU ssthresh floor and the 3rd-miss fast
# retransmit. One override, an assumption, as for TCP: the window is 32768 bytes (the same socket-buffer
# cap as TCP_ASSUMED, so that the designs differ by protocol, not by buffer). Max.Init.Retransmits stays at
# 8, RFC 2960's value and KAME's (SCTP_DEF_MAX_INIT 8 in KAME's sctp_constants.h, 2002-2003): at high loss
# an association may be given up, and the session with it (``Transfer.gave_up``), a result the chapter shows.
# Association.Max.Retrans 10 (RFC 2960 sec. 14; KAME's SCTP_DEF_MAX_SEND 10): after 10 T3-rtx expiries in a row
# the association is given up, as FreeBSD's TCP drops a connection after 12 (TCP_ASSUMED, the freebsd46 preset).
SCTP_ASSUMED = SctpParams.preset("rfc2960", rwnd_bytes=32768, max_retransmits=10)
LOSS_WHERE = ("arrival", "after_transmission")
# Which of the router's two pipes loses packets. The paper (sec. 6) gives bandwidth and delay "for the link
# from the client to the server and vice versa", and a loss ratio without saying for which direction.
LOSS_DIRECTIONS = ("both", "client_to_server", "server_to_client")


def paper_design(n: int) -> dict:
    """Return ``{"design": ..., "transport": ...}`` for the paper's design ``n`` (1-4)."""
    check_int("n", n, 1, 4)
    d, t = PAPER_DESIGNS[n]
    return {"design": d, "transport": t}


@dataclass(frozen=True)
class FtpParams:
    """One ``mget`` of ``n_files`` files of ``file_size_bytes`` each.

    Path: ``rate_bps`` and ``one_way_delay_s`` in each direction (RTT = 2 x delay), a drop-tail queue of
    ``queue_packets`` at each end of the bottleneck, random loss ``loss`` (probability per packet, both
    directions). ``mode``: active (PORT: the server opens each data connection) or passive (PASV).
    ``n_parallel``: sessions for ``design="parallel"`` (1 otherwise). ``sndbuf_bytes``: the server's
    socket send buffer; ftpd writes its 226 reply once the rest of the file fits in it (BSD
    ``send_data``). ``time_wait_s``: 2 MSL (FreeBSD: MSL 30 s). ``max_time_s``: simulated-time limit of
    one session (a session not done by then is reported incomplete). ``header_bytes``: IP + TCP header
    per packet (40 = no options). ``sctp``: the SCTP of ``transport="sctp"`` (KAME 2002: ``SCTP_ASSUMED``,
    RFC 2960 preset; SCTP sizes its own headers). ``ci_half_width_s``, ``min_runs``, ``max_runs``: the
    paper's sample-size rule for a point (``simcore.ftp.sample_point``): runs until the 90% interval's
    half-width is at most 0.5 s, capped. ``loss_where``: 'arrival' (default) loses a packet as it
    reaches the router, before its queue, as Dummynet's ``plr`` does; 'after_transmission' loses it on
    the wire after the queue. ``loss_direction``: which pipe loses packets: 'both' (default), or only
    'client_to_server' (commands, ACKs and SACKs of the file data) or only 'server_to_client' (replies
    and file data); the paper does not say (``simcore/ftp/LOSS_READING.md``). ``spared_retransmissions``:
    transports ('tcp', 'sctp') whose retransmitted packets the lossy pipes never lose (the Netbed flaw the
    authors later found in their own 2004 runs: retransmissions sent over the error-free control network).
    """

    n_files: int = 10
    file_size_bytes: int = 10 * 1024
    design: str = "ftp"
    transport: str = "tcp"
    mode: str = "active"
    loss: float = 0.0
    rate_bps: float = 1e6
    one_way_delay_s: float = 0.035
    queue_packets: int = 50
    tcp: TcpParams = field(default_factory=lambda: TCP_ASSUMED)
    sctp: SctpParams = field(default_factory=lambda: SCTP_ASSUMED)
    n_parallel: int = 1
    sndbuf_bytes: int = 32768
    time_wait_s: float = 60.0
    max_time_s: float = 3600.0
    header_bytes: int = 40
    ci_half_width_s: float = 0.5
    min_runs: int = 3
    max_runs: int = 30
    loss_where: str = "arrival"
    loss_direction: str = "both"
    spared_retransmissions: tuple[str, ...] = ()

    def __post_init__(self):
        store_python_numbers(self)
        check_int("n_files", self.n_files, 1, 999)
        check_int("file_size_bytes", self.file_size_bytes, 1, 2**31)
        check_choice("design", self.design, DESIGNS)
        check_choice("transport", self.transport, TRANSPORTS)
        check_choice("mode", self.mode, MODES)
        check_real("loss", self.loss, 0.0, 0.9)
        check_real("rate_bps", self.rate_bps, 1e3, 1e10)
        check_real("one_way_delay_s", self.one_way_delay_s, 0.0, 10.0)
        check_int("queue_packets", self.queue_packets, 1, 10**5)
        if not isinstance(self.tcp, TcpParams):
            raise ValueError(f"tcp={self.tcp!r} is not allowed: must be a simcore.packet.TcpParams")
        if not isinstance(self.sctp, SctpParams):
            raise ValueError(f"sctp={self.sctp!r} is not allowed: must be a simcore.packet.SctpParams")
        if self.transport == "sctp" and self.sctp.n_streams < 2 and self.design.startswith("single"):
            raise ValueError(f"sctp.n_streams={self.sctp.n_streams} is not allowed with design={self.design!r}: "
                             "the multistream designs need 2 streams (0 control, 1 data)")
        if self.transport == "sctp" and self.design == "parallel":
            raise ValueError("transport='sctp' is not allowed with design='parallel': parallel sessions are the "
                             "TCP-unfriendliness comparison (use transport='tcp')")
        check_int("n_parallel", self.n_parallel, 1, 64)
        check_int("sndbuf_bytes", self.sndbuf_bytes, 1, 2**30)
        check_real("time_wait_s", self.time_wait_s, 0.0)
        check_real("max_time_s", self.max_time_s, 1.0, 1e7)
        check_int("header_bytes", self.header_bytes, 0, 1000)
        check_real("ci_half_width_s", self.ci_half_width_s, 0.0, lo_open=True)
        check_int("min_runs", self.min_runs, 2, 10**4)
        check_int("max_runs", self.max_runs, 2, 10**4)
        check_order("min_runs", self.min_runs, "max_runs", self.max_runs)
        check_choice("loss_where", self.loss_where, LOSS_WHERE)
        check_choice("loss_direction", self.loss_direction, LOSS_DIRECTIONS)
        object.__setattr__(self, "spared_retransmissions",
                           LinkParams(spared_retransmissions=self.spared_retransmissions).spared_retransmissions)
        if self.transport == "tcp_streams" and not self.design.startswith("single"):
            raise ValueError(f"transport='tcp_streams' is not allowed with design={self.design!r}: streams "
                             "exist only on the single-connection designs ('single', 'single_pipelined')")
        if self.n_parallel > 1 and self.design != "parallel":
            raise ValueError(f"n_parallel={self.n_parallel} is not allowed with design={self.design!r}: "
                             "only design='parallel' opens several sessions")
        if self.design != "ftp" and self.design != "parallel" and self.mode == "passive":
            raise ValueError(f"mode='passive' is not allowed with design={self.design!r}: only 'ftp' and "
                             "'parallel' open a data connection per file (passive mode is modelled there)")

    @property
    def rtt_s(self) -> float:
        """Return the propagation round-trip time, seconds."""
        return 2.0 * self.one_way_delay_s
