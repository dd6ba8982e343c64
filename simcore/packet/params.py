"""Parameters of the packet simulator: links, topology, TCP, connections, messages, CBR sources, scenario.

All are frozen dataclasses validated on construction; a bad value raises ``ValueError`` naming the
parameter, the value and the allowed range. Sizes are bytes, rates bits/s, times seconds.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field

import numpy as np

from simcore._validate import (
    check_bool,
    check_choice,
    check_int,
    check_order,
    check_real,
    check_sequence,
    python_number,
    store_python_numbers,
)

from .sctp_params import MAX_WINDOW_SEGMENTS, WINDOW_WHY, SctpParams
from .tcp.cc.registry import NAMES as CONGESTION_CONTROLS

__all__ = [
    "FluidBackground",
    "LinkParams",
    "Link",
    "Network",
    "TcpParams",
    "Connection",
    "Message",
    "ConnectionPool",
    "POOL_RULES",
    "LOSS_WHERE",
    "CbrSource",
    "Scenario",
    "VARIANTS",
    "RECOVERIES",
    "CONGESTION_CONTROLS",
    "TIMEOUT_SSTHRESH",
    "SYN_BACKOFFS",
    "TRANSPORTS",
]

RECOVERIES = ("reno", "newreno", "sack")  # loss recovery (TcpParams.recovery)
VARIANTS = RECOVERIES  # the older name: ``variant`` is the shorthand of ``recovery`` (chapter 1's dropdown uses it)
TIMEOUT_SSTHRESH = ("once_per_window", "flight_size")
SYN_BACKOFFS = ("exponential", "bsd")
TIMESTAMP_OPTION_BYTES = 12  # RFC 7323 sec. 3: 10-byte option, padded with two NOPs
POOL_RULES = ("fewest_outstanding", "round_robin")
LOSS_WHERE = ("after_transmission", "arrival")

TRANSPORTS = ("tcp", "tcp_streams", "sctp")


def _check_profile(times_s, rates_bps, what: str) -> tuple[tuple[float, ...], tuple[float, ...]]:
    """Validate a piecewise-constant profile (vectorised: profiles may have thousands of pieces)."""
    arrays = {}
    for name, values in (("times_s", times_s), ("rates_bps", rates_bps)):
        check_sequence(f"{what}.{name}", values, "non-negative real numbers")
        try:
            a = np.asarray(values, dtype=float).ravel()
        except (TypeError, ValueError):
            a = None
        if a is None or any(isinstance(v, bool) for v in values):
            for i, v in enumerate(values):  # slow path only to name the offending element
                check_real(f"{what}.{name}[{i}]", v, 0.0)
            raise ValueError(f"{what}.{name}={values!r} is not allowed: must be non-negative real numbers")
        bad = np.flatnonzero(~np.isfinite(a) | (a < 0.0))
        if bad.size:
            i = int(bad[0])
            check_real(f"{what}.{name}[{i}]", list(values)[i], 0.0)  # raises with the standard message
        arrays[name] = a
    times, rates = arrays["times_s"], arrays["rates_bps"]
    if times.size == 0 or times.size != rates.size:
        raise ValueError(f"{what}: times_s and rates_bps must be non-empty and of equal length, "
                         f"got {times.size} and {rates.size}")
    if times[0] != 0.0:
        raise ValueError(f"{what}.times_s[0]={float(times[0])!r} is not allowed: the first piece must start at 0")
    if np.any(np.diff(times) <= 0.0):
        raise ValueError(f"{what}.times_s={tuple(times.tolist())!r} is not allowed: must be strictly increasing")
    return tuple(times.tolist()), tuple(rates.tolist())


@dataclass(frozen=True)
class FluidBackground:
    """Fluid background traffic on a link: rate ``rates_bps[i]`` (on-wire bits/s) from ``times_s[i]`` on.

    The fluid shares the link's FIFO buffer: its backlog delays packets and counts against the queue
    limit; fluid that finds the buffer full is dropped. ``granularity``: "packets" (the fluid enters
    the buffer in ``packet_bytes`` chunks at its rate, admitted by the drop-tail rule like packets but
    without events) or "continuous" (a reflected fluid backlog, counted as backlog / packet_bytes
    packets; it takes every byte freed at a full buffer). See ``simcore.packet.kernel.link``.
    """

    times_s: tuple[float, ...] = (0.0,)
    rates_bps: tuple[float, ...] = (0.0,)
    packet_bytes: int = 1500
    granularity: str = "packets"

    def __post_init__(self):
        store_python_numbers(self)
        t, r = _check_profile(self.times_s, self.rates_bps, "FluidBackground")
        object.__setattr__(self, "times_s", t)
        object.__setattr__(self, "rates_bps", r)
        check_int("packet_bytes", self.packet_bytes, 1)
        check_choice("granularity", self.granularity, ("packets", "continuous"))

    @classmethod
    def constant(cls, rate_bps: float, packet_bytes: int = 1500, granularity: str = "packets") -> FluidBackground:
        """Return a background of constant ``rate_bps`` bits/s."""
        return cls((0.0,), (rate_bps,), packet_bytes, granularity)


@dataclass(frozen=True)
class LinkParams:
    """One direction of a point-to-point link.

    ``queue_packets`` counts every packet in the buffer including the one being transmitted;
    ``queue_bytes`` (optional) adds a byte limit. ``loss_prob`` loses each packet with that
    probability (its own random stream per link); ``drop_sequence`` loses the packets offered to the
    link with those numbers (0 = the first packet that arrives at it, queue drops included).
    ``loss_where`` says where these losses strike: "after_transmission" (the default: the packet
    took its place in the buffer and its time on the link, then vanishes, as on a noisy wire) or
    "arrival" (before the queue, as Dummynet and netem apply loss: a lost packet uses no buffer and no
    link time). ``header_bytes`` is the link-layer header added to every IP packet on this link.
    ``spared_retransmissions``: transports ('tcp', 'sctp') whose retransmitted packets this link never
    loses at random (a retransmission takes no draw from the loss stream, as if it went another way:
    the testbed flaw that Natarajan, Amer, Bickhart and Ladha corrected, retransmissions sent over an
    error-free control network); drop_sequence and queue drops still apply.

    ``queue`` is the buffer's queue discipline (see ``docs/aqm.md``): 'droptail' (the default: a packet that
    finds the buffer full is dropped), 'red' (Random Early Detection, Floyd & Jacobson 1993, gentle), 'codel'
    (CoDel, RFC 8289) or 'fq_codel' (FQ-CoDel, RFC 8290), each with its defaults, or its parameters
    (``RedParams``, ``CoDelParams``, ``FqCoDelParams``). ``queue_packets`` / ``queue_bytes`` stay the buffer's
    size under every discipline. RFC 7567 recommends an AQM on every buffer that can fill (CoDel or FQ-CoDel
    need no tuning; RED's thresholds do). A fluid ``background`` is modelled with drop-tail only.
    """

    rate_bps: float = 10e6
    delay_s: float = 0.01
    queue_packets: int = 100
    queue_bytes: int | None = None
    loss_prob: float = 0.0
    header_bytes: int = 0
    background: FluidBackground | None = None
    drop_sequence: tuple[int, ...] = ()
    loss_where: str = "after_transmission"
    spared_retransmissions: tuple[str, ...] = ()
    queue: object = "droptail"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rate_bps", self.rate_bps, 0.0, lo_open=True)
        check_real("delay_s", self.delay_s, 0.0)
        check_int("queue_packets", self.queue_packets, 1, 10**7)
        if self.queue_bytes is not None:
            check_int("queue_bytes", self.queue_bytes, 1)
        check_real("loss_prob", self.loss_prob, 0.0, 1.0, hi_open=True)
        check_choice("loss_where", self.loss_where, LOSS_WHERE)
        check_int("header_bytes", self.header_bytes, 0, 10**4)
        if self.background is not None and not isinstance(self.background, FluidBackground):
            raise ValueError(f"background={self.background!r} is not allowed: must be a FluidBackground or None")
        drops = check_sequence("drop_sequence", self.drop_sequence, "packet numbers")
        drops = tuple(check_int(f"drop_sequence[{i}]", d, 0) for i, d in enumerate(drops))
        if any(b <= a for a, b in zip(drops[:-1], drops[1:], strict=True)):
            raise ValueError(f"drop_sequence={drops!r} is not allowed: must be strictly increasing")
        object.__setattr__(self, "drop_sequence", drops)
        if isinstance(self.spared_retransmissions, str) or not isinstance(self.spared_retransmissions, (tuple, list)):
            raise ValueError(f"spared_retransmissions={self.spared_retransmissions!r} is not allowed: must be a "
                             "tuple of transports, e.g. ('sctp',)")
        spared = [check_choice(f"spared_retransmissions[{i}]", v, ("tcp", "sctp"))
                  for i, v in enumerate(self.spared_retransmissions)]
        object.__setattr__(self, "spared_retransmissions", tuple(sorted(set(spared))))
        _check_queue(self.queue)
        if self.background is not None and self.queue != "droptail":
            raise ValueError(f"background and queue={self.queue!r} cannot be combined: a fluid background is "
                             "modelled with the drop-tail queue only (queue='droptail')")


def _check_queue(queue: object) -> None:
    """Raise unless ``queue`` names a queue discipline or is one's parameters."""
    from .kernel.qdisc.dispatch import NAMES, PARAMS

    if isinstance(queue, str):
        check_choice("queue", queue, NAMES)
    elif not isinstance(queue, tuple(PARAMS.values())):
        kinds = ", ".join(c.__name__ for c in PARAMS.values())
        raise ValueError(f"queue={queue!r} is not allowed: must be one of {', '.join(map(repr, NAMES))} or the "
                         f"parameters of one ({kinds})")


@dataclass(frozen=True)
class Link:
    """A directed link from node ``src`` to node ``dst``."""

    src: int
    dst: int
    params: LinkParams = field(default_factory=LinkParams)

    def __post_init__(self):
        if type(self.src) is int and type(self.dst) is int and type(self.params) is LinkParams \
                and 0 <= self.src != self.dst >= 0:
            return  # valid as given (a star of thousands of links builds one per slot and direction)
        store_python_numbers(self)
        check_int("src", self.src, 0)
        check_int("dst", self.dst, 0)
        if self.src == self.dst:
            raise ValueError(f"Link src={self.src} and dst={self.dst} must differ")
        if not isinstance(self.params, LinkParams):
            raise ValueError(f"params={self.params!r} is not allowed: must be a LinkParams")


@dataclass(frozen=True)
class Network:
    """Nodes ``0..n_nodes-1`` joined by directed links; routes are fewest-hop (ties: lowest link index)."""

    n_nodes: int
    links: tuple[Link, ...]

    def __post_init__(self):
        # n_nodes alone may be a numpy scalar: links must be Links (each stores Python numbers itself), and
        # looking through thousands of them for numpy scalars cost a star network ~1 ms
        object.__setattr__(self, "n_nodes", python_number(self.n_nodes))
        check_int("n_nodes", self.n_nodes, 2)
        links = check_sequence("links", self.links, "Link")
        object.__setattr__(self, "links", links)
        for i, lk in enumerate(links):
            if not isinstance(lk, Link):
                raise ValueError(f"links[{i}]={lk!r} is not allowed: must be a Link")
            if lk.src >= self.n_nodes or lk.dst >= self.n_nodes:
                raise ValueError(f"links[{i}] joins nodes {lk.src}->{lk.dst}: must be in [0, {self.n_nodes - 1}]")

    @staticmethod
    def duplex(a: int, b: int, forward: LinkParams, reverse: LinkParams | None = None) -> tuple[Link, Link]:
        """Return the two links a->b (``forward``) and b->a (``reverse``, default the same: then one
        ``LinkParams``, loss settings included, describes both directions)."""
        return Link(a, b, forward), Link(b, a, forward if reverse is None else reverse)

    def route(self, src: int, dst: int) -> tuple[int, ...]:
        """Return the link indices of the fewest-hop path from ``src`` to ``dst`` (ValueError if none).

        One breadth-first search per source over adjacency lists (links in index order, so ties go to
        the lowest link index), cached on the network: a scenario with many connections pays for each
        source once, not once per connection."""
        check_int("src", src, 0, self.n_nodes - 1)
        check_int("dst", dst, 0, self.n_nodes - 1)
        if src == dst:
            raise ValueError(f"route: src={src} and dst={dst} must differ")
        paths = self._route_cache.get((src, dst))
        if paths is None:
            prev = self._tree(src)
            if prev[dst] < 0:
                raise ValueError(f"route: no path from node {src} to node {dst}")
            path = []
            v = dst
            while v != src:
                i = prev[v]
                path.append(i)
                v = self.links[i].src
            paths = self._route_cache[(src, dst)] = tuple(reversed(path))
        return paths

    @property
    def _route_cache(self) -> dict:
        cache = self.__dict__.get("_routes")
        if cache is None:
            cache = {}
            object.__setattr__(self, "_routes", cache)  # a cache, not a field: eq/hash/repr ignore it
        return cache

    def _tree(self, src: int) -> list[int]:
        """Return, per node, the link by which the fewest-hop search from ``src`` reached it (-1: none)."""
        trees = self.__dict__.get("_trees")
        if trees is None:
            adj: list[list[int]] = [[] for _ in range(self.n_nodes)]
            for i, lk in enumerate(self.links):
                adj[lk.src].append(i)
            trees = {"adj": adj}
            object.__setattr__(self, "_trees", trees)
        prev = trees.get(src)
        if prev is None:
            adj = trees["adj"]
            prev = [-1] * self.n_nodes
            seen = [False] * self.n_nodes
            seen[src] = True
            todo = deque([src])
            while todo:
                u = todo.popleft()
                for i in adj[u]:
                    v = self.links[i].dst
                    if not seen[v]:
                        seen[v] = True
                        prev[v] = i
                        todo.append(v)
            trees[src] = prev
        return prev


@dataclass(frozen=True)
class TcpParams:
    """TCP of one connection (both directions).

    Loss recovery and congestion control are chosen apart, as ns-3 separates ``TcpRecoveryOps`` from
    ``TcpCongestionOps``:

    recovery: 'reno' (RFC 5681 fast retransmit and fast recovery), 'newreno' (RFC 6582: partial ACKs keep
        recovery going) or 'sack' (RFC 6675 loss recovery: entry at the ``dupack_threshold``-th duplicate ACK
        or as soon as IsLost(HighACK + 1), the first hole retransmitted on entry (step 4.3), then NextSeg rules
        1-4 while cwnd - pipe >= 1 SMSS). Default 'newreno'.
    congestion_control: 'reno' (RFC 5681: slow start, +1 SMSS per window in congestion avoidance, ssthresh =
        FlightSize / 2 at a loss), 'cubic' (RFC 9438: the cubic window function, C = 0.4, beta = 0.7, the
        Reno-friendly region, fast convergence; no HyStart) or 'bbr' (BBR v1, Cardwell et al. 2016: the sender
        paces at a gain times the bottleneck bandwidth it measures, cwnd = 2 x its bandwidth-delay product; no
        window cut at a loss); see ``simcore.packet.tcp.cc``. Default 'reno'. Any congestion control works with
        any recovery.
    variant: the older name of ``recovery``, kept as its shorthand (``TcpParams(variant='sack')`` is
        ``TcpParams(recovery='sack')``, congestion control 'reno' unless given: the three classic TCPs). Give
        one of the two; ``dataclasses.replace`` may change either. ``TcpParams.preset(name, variant=v)``
        replaces the preset's recovery and keeps its congestion control (``preset('linux', variant='newreno')``
        is CUBIC with NewReno recovery).
    mss_bytes: the MSS of the path (1460 on a 1500-byte MTU); with ``timestamps`` every segment carries
        12 bytes of option, so it holds ``mss_bytes - 12`` data bytes (1448) and its header is 12 bytes
        longer (52 with the default 40-byte TCP/IP header).
    rwnd_bytes: the receiver's advertised window (fixed: the application reads at once).
    initial_window_segments: cwnd at start, in MSS (1 if the SYN had to be retransmitted).
    min_rto_s / max_rto_s / initial_rto_s: RFC 6298 timer bounds and the RTO before any RTT sample. If
        the SYN (or SYN-ACK) timed out and ``initial_rto_s`` < 3 s, the RTO is re-initialized to 3 s
        when data transmission begins (RFC 6298 sec. 5.7).
    delayed_ack: ACK at least every second full-sized segment (2 MSS of in-order data received), or
        ``delayed_ack_timeout_s`` after the first unacknowledged segment (RFC 5681 sec. 4.2).
    restart_after_idle: RFC 5681 sec. 4.1, cwnd := min(cwnd, IW) after an idle period longer than RTO.
    initial_ssthresh_bytes: None = arbitrarily high (RFC 5681).
    dupack_threshold: duplicate ACKs that trigger fast retransmit (DupThresh; RFC 5681: 3).
    limited_transmit: RFC 3042: on each of the first ``dupack_threshold - 1`` duplicate ACKs, send one
        new segment if the receive window allows (at most cwnd + (dupack_threshold - 1) SMSS
        outstanding); cwnd is unchanged, and these segments are not counted in the FlightSize that
        sets ssthresh (RFC 5681 sec. 3.2).
    timestamps: RFC 7323 timestamps option on every segment (header + 12 bytes, data per segment
        ``mss_bytes - 12``). Only its size is modelled: RTT samples are still taken once per round
        trip with Karn's rule, not from every echoed timestamp.
    timer_granularity_s: 0 (exact timers) or the period G of a coarse TCP clock, as BSD's 500 ms
        slow timer: an RTT sample is G times the clock ticks between sending and the ACK, the RTO is
        rounded up to whole ticks, and a timer of n ticks expires at the n-th tick after it is set
        (between (n - 1) G and n G later). All hosts' clocks tick at multiples of G from time 0.
    delayed_ack_on_ticks: the delayed ACK leaves at the next multiple of ``delayed_ack_timeout_s``
        (BSD's 200 ms fast timer: 0 to 200 ms after the segment) rather than exactly that long after.
    timeout_ssthresh: how a retransmission timeout sets ssthresh. 'once_per_window' (default): ssthresh =
        max(FlightSize / 2, 2 SMSS) (RFC 5681 eq. 4) when the timeout starts a loss episode; within one that is
        not over (snd_una below ``recover``, which a fast retransmit sets, and a timeout too, RFC 6582 sec. 3.2
        step 4) its window was reduced already, so ssthresh is not raised: the smaller of its value and eq. 4
        (eq. 4 is an upper bound, "no more than"). A repeated timeout of the same segment so keeps ssthresh
        (RFC 5681 sec. 3.1: "held constant"), and a timeout during fast recovery keeps what the fast
        retransmit set, as Linux does (``tcp_enter_loss``: "Reduce ssthresh if it has not yet been made inside
        this window"). 'flight_size': eq. 4 at every timeout (RFC 5681 read literally), with FlightSize all
        data sent and not acknowledged: during NewReno's or Reno's recovery that includes the new data the
        inflated cwnd let out, so a bulk flow with a large receive window gets an ssthresh far above the path,
        overshoots in slow start and times out again (4.4BSD's and FreeBSD 4's min(snd_wnd, cwnd) / 2 with
        the inflated cwnd behave alike).
    request_on_handshake_ack: True (the default): when the client has data ready as the SYN-ACK arrives, its
        first segment carries the handshake's ACK, the textbook's convention (Kurose & Ross count the request
        with the third segment of the handshake; chapter 4's formulas do). False, as real stacks do: connect()
        returns on the SYN-ACK and the kernel sends a bare ACK at once; the application's first write leaves
        as its own segment (4.4BSD's TF_ACKNOW in SYN_SENT, Linux's tcp_rcv_synsent_state_process). An
        HTTP/1.0 fetch then costs one packet more. The era presets ('bsd44lite', 'freebsd46', 'linux') set False.
    syn_backoff: how the SYN's retransmission timer grows: 'exponential' (doubling, RFC 6298 sec. 5.5) or
        'bsd' (BSD's tcp_syn_backoff: the initial RTO times 1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64 for the 1st,
        2nd ... retransmission, within [min_rto, max_rto]).
    connect_timeout_s: the opener gives the connection up if it is not established this long after its
        first SYN (BSD's connection-establishment timer, TCPTV_KEEP_INIT = 75 s); None: never.
    max_retransmits: the connection is given up when its retransmission timer expires this many times
        more in a row without new data acknowledged (BSD's TCP_MAXRXTSHIFT = 12: the 13th expiry drops
        it; RFC 1122's R2); None: never.
    synack_retries: the passive side retransmits its SYN-ACK on its own timer at most this many times
        (BSD's SYN cache, SYNCACHE_MAXREXMTS = 3), then forgets the half-open connection: a SYN arriving
        later is still answered, but if the opener already took the connection as made (its ACK of the
        SYN-ACK was lost), the connection is given up (a RST, or a wait forever, in BSD). None: no limit.
    A connection given up sends nothing more and ``PacketResult.aborted_s`` gives the time.
    ecn: Explicit Congestion Notification (RFC 3168), off by default. On, both ends negotiate it (the SYN carries
        ECE and CWR, the SYN-ACK ECE: both ends of a connection share these parameters), new data segments
        leave ECN-capable (ECT(0); never retransmissions, pure ACKs or the handshake, sec. 6.1.1-6.1.5), a
        link's AQM may mark them CE instead of dropping them (``LinkParams.queue``), the receiver echoes ECE on
        its ACKs until a segment with CWR arrives, and the sender answers ECE as it answers a loss, at most once
        per window of data (ssthresh = max(FlightSize / 2, 2 SMSS), cwnd = ssthresh, no retransmission), setting
        CWR on its next new segment (``simcore.packet.tcp.ecn``).

    ``TcpParams.preset(name)`` gives documented era presets ('bsd44lite', 'freebsd46', 'rfc5681',
    'linux'; see ``simcore.packet.presets``).
    """

    variant: str | None = field(default=None, repr=False)
    mss_bytes: int = 1460
    rwnd_bytes: int = 65535
    initial_window_segments: int = 2
    min_rto_s: float = 1.0
    max_rto_s: float = 60.0
    initial_rto_s: float = 1.0
    delayed_ack: bool = False
    delayed_ack_timeout_s: float = 0.2
    restart_after_idle: bool = True
    initial_ssthresh_bytes: int | None = None
    dupack_threshold: int = 3
    limited_transmit: bool = False
    timestamps: bool = False
    timer_granularity_s: float = 0.0
    delayed_ack_on_ticks: bool = False
    timeout_ssthresh: str = "once_per_window"
    request_on_handshake_ack: bool = True
    syn_backoff: str = "exponential"
    connect_timeout_s: float | None = None
    max_retransmits: int | None = None
    synack_retries: int | None = None
    ecn: bool = False
    recovery: str | None = None
    congestion_control: str = "reno"
    # the recovery this instance was built with: tells ``dataclasses.replace``'s change of ``variant`` or of
    # ``recovery`` (it copies the other one unchanged) from two names given at once that disagree
    _recovery_was: str | None = field(default=None, repr=False, compare=False)

    def __post_init__(self):
        store_python_numbers(self)
        self._settle_recovery()
        check_choice("congestion_control", self.congestion_control, CONGESTION_CONTROLS)
        check_bool("timestamps", self.timestamps)
        check_int("mss_bytes", self.mss_bytes, 13 if self.timestamps else 1, 10**6)
        check_int("rwnd_bytes", self.rwnd_bytes, 1, 2**30)
        if self.rwnd_bytes < self.mss_bytes:
            raise ValueError(f"rwnd_bytes={self.rwnd_bytes!r} is out of range: must be at least one segment "
                             f"(mss_bytes={self.mss_bytes})")
        check_int("rwnd_bytes", self.rwnd_bytes, 1, min(2**30, MAX_WINDOW_SEGMENTS * self.segment_bytes),
                  why=f"{WINDOW_WHY}, here of {self.segment_bytes} bytes")
        check_int("initial_window_segments", self.initial_window_segments, 1, 1000)
        check_real("min_rto_s", self.min_rto_s, 0.0, lo_open=True)
        check_real("max_rto_s", self.max_rto_s, 0.0, lo_open=True)
        check_order("min_rto_s", self.min_rto_s, "max_rto_s", self.max_rto_s)
        check_real("initial_rto_s", self.initial_rto_s, 0.0, lo_open=True)
        check_bool("delayed_ack", self.delayed_ack)
        check_real("delayed_ack_timeout_s", self.delayed_ack_timeout_s, 0.0, lo_open=True)
        check_bool("restart_after_idle", self.restart_after_idle)
        if self.initial_ssthresh_bytes is not None:
            check_int("initial_ssthresh_bytes", self.initial_ssthresh_bytes, 2 * self.mss_bytes)
        check_int("dupack_threshold", self.dupack_threshold, 1, 1000)
        check_bool("limited_transmit", self.limited_transmit)
        check_real("timer_granularity_s", self.timer_granularity_s, 0.0, 10.0)
        check_bool("delayed_ack_on_ticks", self.delayed_ack_on_ticks)
        check_choice("timeout_ssthresh", self.timeout_ssthresh, TIMEOUT_SSTHRESH)
        check_bool("request_on_handshake_ack", self.request_on_handshake_ack)
        check_choice("syn_backoff", self.syn_backoff, SYN_BACKOFFS)
        if self.connect_timeout_s is not None:
            check_real("connect_timeout_s", self.connect_timeout_s, 0.0, 1e6, lo_open=True)
        if self.max_retransmits is not None:
            check_int("max_retransmits", self.max_retransmits, 0, 1000)
        if self.synack_retries is not None:
            check_int("synack_retries", self.synack_retries, 0, 1000)
        check_bool("ecn", self.ecn)

    @classmethod
    def preset(cls, name: str, **overrides) -> TcpParams:
        """Return the TcpParams of era preset ``name`` ('bsd44lite', 'freebsd46', 'rfc5681', 'linux'),
        with any field replaced by ``overrides``. Every value and its source: ``simcore.packet.presets``."""
        from .presets import preset_fields  # a plain table; imported here to keep params free of it

        fields = preset_fields(name)
        if "variant" in overrides and "recovery" not in overrides:
            fields.pop("recovery", None)  # variant, the shorthand of recovery, replaces the preset's recovery
        return cls(**{**fields, **overrides})

    def _settle_recovery(self) -> None:
        """Store the loss recovery under both its names (``variant`` is the shorthand of ``recovery``)."""
        v, r, was = self.variant, self.recovery, self._recovery_was
        if was is not None:
            check_choice("_recovery_was", was, RECOVERIES)  # set by TcpParams itself; None when building one
        if v is not None and r is not None and v != r:
            if was is None or (v != was and r != was):
                raise ValueError(f"variant={v!r} and recovery={r!r} are not allowed together: variant is the older "
                                 "name of recovery; give one of them")
            name, rec = ("variant", v) if r == was else ("recovery", r)  # replace() changed the one that moved
        elif r is not None:
            name, rec = "recovery", r
        elif v is not None:
            name, rec = "variant", v
        else:
            name, rec = "recovery", "newreno"
        check_choice(name, rec, RECOVERIES)
        for f in ("variant", "recovery", "_recovery_was"):
            object.__setattr__(self, f, rec)

    @property
    def segment_bytes(self) -> int:
        """Data bytes in a full-sized segment (SMSS): ``mss_bytes``, less 12 with timestamps."""
        return self.mss_bytes - (TIMESTAMP_OPTION_BYTES if self.timestamps else 0)


@dataclass(frozen=True)
class Connection:
    """A TCP connection from ``client`` to ``server`` node.

    The client sends its SYN at ``open_time_s``, or, if ``open_after_message`` >= 0, when that message
    completes (whichever is later). Completion happens at the message's receiving host, so for a causal
    model let that host be this connection's client (e.g. non-persistent HTTP: open after the previous
    response). ``closer`` ('client', 'server' or 'none') sends the first FIN once it
    has written every message it sends and received every message it is sent (e.g. an HTTP/1.0 server
    closes right behind its response); it records TIME-WAIT when the peer's FIN arrives. Messages
    written after the FIN are ignored (they never complete).

    ``transport``: 'tcp' (the default); 'tcp_streams', TCP with per-stream delivery at the receiver, *not* SCTP: TCP's
    handshake, segments and congestion control, but each message completes as soon as all its bytes have arrived and the
    previous message of the same ``Message.stream`` is complete, so a loss holds up only its own stream (no head-of-line
    blocking across streams; an HTTP/2-like idealisation). 'sctp': an SCTP association (``sctp=SctpParams(...)``,
    default ``SctpParams()``; ``simcore.packet.sctp.sender``): messages go as DATA chunks on ``Message.stream`` (below
    ``n_streams``), delivered in order per stream (or each on arrival with ``SctpParams.unordered``); the closer
    ends the association with SHUTDOWN (no TIME-WAIT). ``multistream=True`` is the old name of 'tcp_streams'
    (kept for older code; prefer ``transport``). ``header_bytes`` overrides the scenario's per-packet header size (TCP).
    """

    client: int
    server: int
    tcp: TcpParams = field(default_factory=TcpParams)
    open_time_s: float = 0.0
    open_after_message: int = -1
    closer: str = "none"
    multistream: bool = False
    header_bytes: int | None = None
    transport: str = "tcp"
    sctp: SctpParams | None = None

    def __post_init__(self):
        store_python_numbers(self)
        check_int("client", self.client, 0)
        check_int("server", self.server, 0)
        if self.client == self.server:
            raise ValueError(f"Connection client={self.client} and server={self.server} must differ")
        if not isinstance(self.tcp, TcpParams):
            raise ValueError(f"tcp={self.tcp!r} is not allowed: must be a TcpParams")
        check_real("open_time_s", self.open_time_s, 0.0)
        check_int("open_after_message", self.open_after_message, -1)
        check_choice("closer", self.closer, ("client", "server", "none"))
        check_bool("multistream", self.multistream)
        if self.header_bytes is not None:
            check_int("header_bytes", self.header_bytes, 0, 10**4)
        check_choice("transport", self.transport, TRANSPORTS)
        if self.multistream and self.transport != "tcp_streams":
            if self.transport != "tcp":
                raise ValueError(f"multistream=True is not allowed with transport={self.transport!r}: it is the "
                                 "old name of transport='tcp_streams'")
            object.__setattr__(self, "transport", "tcp_streams")
        object.__setattr__(self, "multistream", self.transport == "tcp_streams")
        if self.sctp is not None and not isinstance(self.sctp, SctpParams):
            raise ValueError(f"sctp={self.sctp!r} is not allowed: must be an SctpParams or None")
        if self.transport == "sctp":
            if self.sctp is None:
                object.__setattr__(self, "sctp", SctpParams())
        elif self.sctp is not None:
            raise ValueError(f"sctp=SctpParams(...) is not allowed with transport={self.transport!r}: it "
                             "configures transport='sctp'")


@dataclass(frozen=True)
class Message:
    """An application message of ``size_bytes`` (None = bulk: an endless sender) on connection ``conn``.

    ``sender`` is 'client' (a request) or 'server' (a response). It is written at ``start_time_s`` or,
    if ``after_message`` >= 0, ``delay_after_s`` after that message completes (whichever is later);
    completion happens at that message's receiving host, which should be this message's sender.
    A message completes when its last byte reaches the receiving application in order (per ``stream``
    on a multistream connection).

    ``relay_of=k`` makes this message a relay (a split-TCP proxy, an application gateway): it carries
    the bytes of message ``k`` (same size; None if ``k`` is bulk), which travels on another connection
    to this message's sending host; each byte becomes available to send as soon as it has arrived
    there in order (cut-through), rather than after the whole of ``k`` (use ``after_message=k`` for
    store-and-forward).

    ``pool=k`` (with ``conn=None``) sends the message on one connection of ``Scenario.pools[k]``, chosen
    by the pool's rule when the message is written (``PacketResult.message_conn`` records which).
    Exactly one of ``conn`` and ``pool`` is given.
    """

    conn: int | None
    size_bytes: int | None
    sender: str = "client"
    start_time_s: float = 0.0
    after_message: int = -1
    delay_after_s: float = 0.0
    stream: int = 0
    relay_of: int = -1
    pool: int = -1

    def __post_init__(self):
        store_python_numbers(self)
        check_int("pool", self.pool, -1)
        if self.conn is None:
            if self.pool < 0:
                raise ValueError("conn=None is not allowed without a pool: give conn >= 0 or pool >= 0")
        else:
            check_int("conn", self.conn, 0)
            if self.pool >= 0:
                raise ValueError(f"conn={self.conn!r} and pool={self.pool!r} are not allowed together: "
                                 "give exactly one of them (conn=None to use a pool)")
        check_int("stream", self.stream, 0, 2**16 - 1)
        check_int("relay_of", self.relay_of, -1)
        if self.size_bytes is not None:
            check_int("size_bytes", self.size_bytes, 1, 2**50)
        check_choice("sender", self.sender, ("client", "server"))
        check_real("start_time_s", self.start_time_s, 0.0)
        check_int("after_message", self.after_message, -1)
        check_real("delay_after_s", self.delay_after_s, 0.0)


@dataclass(frozen=True)
class ConnectionPool:
    """A pool of persistent connections between the same client and server (e.g. a proxy multiplexing
    replies over N connections); a ``Message(pool=k)`` goes on one of them, chosen when it is written.

    ``rule``: 'fewest_outstanding' picks the connection with the fewest bytes written but not yet
    acknowledged in the message's direction (ties: the earliest in ``conns``); 'round_robin' takes
    ``conns`` in turn, one message each. The connections must not close (``closer='none'``).
    """

    conns: tuple[int, ...]
    rule: str = "fewest_outstanding"

    def __post_init__(self):
        store_python_numbers(self)
        conns = check_sequence("conns", self.conns, "connection indices")
        conns = tuple(check_int(f"conns[{i}]", c, 0) for i, c in enumerate(conns))
        if len(conns) == 0 or len(set(conns)) != len(conns):
            raise ValueError(f"conns={conns!r} is not allowed: must name at least one connection, each once")
        object.__setattr__(self, "conns", conns)
        check_choice("rule", self.rule, POOL_RULES)


@dataclass(frozen=True)
class CbrSource:
    """Constant-bit-rate packets (UDP-like, no reaction to loss) from node ``src`` to ``dst``.

    The rate is piecewise constant: ``rates_bps[i]`` (IP bits/s) from ``times_s[i]`` on; packets of
    ``packet_bytes`` (IP size) are sent between ``start_s`` and ``stop_s``. One-way delays are recorded.
    """

    src: int
    dst: int
    rates_bps: tuple[float, ...] = (1e6,)
    times_s: tuple[float, ...] = (0.0,)
    packet_bytes: int = 1500
    start_s: float = 0.0
    stop_s: float = math.inf

    def __post_init__(self):
        store_python_numbers(self)
        check_int("src", self.src, 0)
        check_int("dst", self.dst, 0)
        t, r = _check_profile(self.times_s, self.rates_bps, "CbrSource")
        object.__setattr__(self, "times_s", t)
        object.__setattr__(self, "rates_bps", r)
        check_int("packet_bytes", self.packet_bytes, 1, 10**6)
        check_real("start_s", self.start_s, 0.0)
        if not (isinstance(self.stop_s, (int, float)) and self.stop_s > self.start_s):
            raise ValueError(f"stop_s={self.stop_s!r} is out of range: must be > start_s={self.start_s}")

    @classmethod
    def from_background(cls, src: int, dst: int, bg: FluidBackground, **kw) -> CbrSource:
        """Return the packet twin of fluid background ``bg`` (same rate profile and packet size)."""
        return cls(src, dst, bg.rates_bps, bg.times_s, bg.packet_bytes, **kw)


@dataclass(frozen=True)
class Scenario:
    """Everything one run needs: network, connections, messages, CBR sources, duration, header size, and
    the connection pools that ``Message(pool=k)`` refers to."""

    network: Network
    connections: tuple[Connection, ...] = ()
    messages: tuple[Message, ...] = ()
    cbr: tuple[CbrSource, ...] = ()
    duration_s: float = 10.0
    tcpip_header_bytes: int = 40
    pools: tuple[ConnectionPool, ...] = ()

    def conn_of(self, i: int) -> int:
        """Return the connection index of message ``i``: its own, or its pool's first connection."""
        m = self.messages[i]
        return m.conn if m.pool < 0 else self.pools[m.pool].conns[0]

    def conns_of(self, i: int) -> tuple[int, ...]:
        """Return the connection indices message ``i`` may travel on."""
        m = self.messages[i]
        return (m.conn,) if m.pool < 0 else self.pools[m.pool].conns

    def __post_init__(self):
        store_python_numbers(self)
        if not isinstance(self.network, Network):
            raise ValueError(f"network={self.network!r} is not allowed: must be a Network")
        for name, what in (("connections", "Connection"), ("messages", "Message"), ("cbr", "CbrSource"),
                           ("pools", "ConnectionPool")):
            object.__setattr__(self, name, check_sequence(name, getattr(self, name), what))
        check_real("duration_s", self.duration_s, 0.0, lo_open=True)
        check_int("tcpip_header_bytes", self.tcpip_header_bytes, 0, 10**4)
        n = self.network.n_nodes
        for i, c in enumerate(self.connections):
            if not isinstance(c, Connection):
                raise ValueError(f"connections[{i}]={c!r} is not allowed: must be a Connection")
            if c.client >= n or c.server >= n:
                raise ValueError(f"connections[{i}] uses node >= n_nodes={n}")
            if c.open_after_message >= len(self.messages):
                raise ValueError(f"connections[{i}].open_after_message={c.open_after_message} "
                                 f"is out of range: must be in [-1, {len(self.messages) - 1}]")
        self._check_pools()
        for i, m in enumerate(self.messages):
            if not isinstance(m, Message):
                raise ValueError(f"messages[{i}]={m!r} is not allowed: must be a Message")
            if m.pool >= len(self.pools):
                raise ValueError(f"messages[{i}].pool={m.pool} is out of range: "
                                 f"must be in [-1, {len(self.pools) - 1}]")
            if m.conn is not None and m.conn >= len(self.connections):
                raise ValueError(f"messages[{i}].conn={m.conn} is out of range: "
                                 f"must be in [0, {len(self.connections) - 1}]")
            for k in self.conns_of(i) if m.conn is not None or m.pool < len(self.pools) else ():
                sp = self.connections[k].sctp
                if sp is not None and m.stream >= sp.n_streams:
                    raise ValueError(f"messages[{i}].stream={m.stream} is out of range: connection {k} is an SCTP "
                                     f"association with n_streams={sp.n_streams}")
            if m.after_message >= len(self.messages) or m.after_message == i:
                raise ValueError(f"messages[{i}].after_message={m.after_message} is not allowed: must be -1 or "
                                 f"another message index in [0, {len(self.messages) - 1}]")
        for i, c in enumerate(self.connections):
            if c.open_after_message >= 0 and i in self.conns_of(c.open_after_message):
                raise ValueError(f"connections[{i}].open_after_message={c.open_after_message} is not allowed: "
                                 "that message travels on the connection itself, which would never open")
        relayed: set[int] = set()
        for i, m in enumerate(self.messages):
            k = m.relay_of
            if k < 0:
                continue
            if k >= len(self.messages) or k == i or k in relayed:
                raise ValueError(f"messages[{i}].relay_of={k} is not allowed: must be another message index in "
                                 f"[0, {len(self.messages) - 1}], relayed by one message only")
            relayed.add(k)
            src = self.messages[k]
            if src.size_bytes != m.size_bytes:
                raise ValueError(f"messages[{i}].size_bytes={m.size_bytes} must equal that of the message it "
                                 f"relays (messages[{k}].size_bytes={src.size_bytes})")
            ck, ci = self.connections[self.conn_of(k)], self.connections[self.conn_of(i)]
            arrives_at = ck.server if src.sender == "client" else ck.client
            leaves_from = ci.client if m.sender == "client" else ci.server
            if arrives_at != leaves_from or set(self.conns_of(k)) & set(self.conns_of(i)):
                raise ValueError(f"messages[{i}] relays messages[{k}], which arrives at node {arrives_at} on "
                                 f"connection(s) {self.conns_of(k)}: it must leave from that node on another "
                                 f"connection (it leaves from node {leaves_from} on {self.conns_of(i)})")
        ok = [False] * len(self.messages)  # after_message chains must end (no cycle); linear time
        for i in range(len(self.messages)):
            chain, on_chain, k = [], set(), i
            while k >= 0 and not ok[k]:
                if k in on_chain:
                    raise ValueError(f"messages[{i}].after_message forms a cycle: no message of it would start")
                chain.append(k)
                on_chain.add(k)
                k = self.messages[k].after_message
            for k in chain:
                ok[k] = True
        for i, s in enumerate(self.cbr):
            if not isinstance(s, CbrSource):
                raise ValueError(f"cbr[{i}]={s!r} is not allowed: must be a CbrSource")
            if s.src >= n or s.dst >= n:
                raise ValueError(f"cbr[{i}] uses node >= n_nodes={n}")

    def _check_pools(self) -> None:
        nc = len(self.connections)
        for k, p in enumerate(self.pools):
            if not isinstance(p, ConnectionPool):
                raise ValueError(f"pools[{k}]={p!r} is not allowed: must be a ConnectionPool")
            for c in p.conns:
                if c >= nc:
                    raise ValueError(f"pools[{k}].conns={p.conns!r} is out of range: connection {c} must be in "
                                     f"[0, {nc - 1}]")
            first = self.connections[p.conns[0]]
            for c in p.conns:
                cc = self.connections[c]
                if (cc.client, cc.server) != (first.client, first.server):
                    raise ValueError(f"pools[{k}].conns={p.conns!r} is not allowed: connection {c} joins "
                                     f"{cc.client}->{cc.server}, connection {p.conns[0]} joins "
                                     f"{first.client}->{first.server}; a pool's connections must have the "
                                     "same client and server")
                if cc.closer != "none":
                    raise ValueError(f"pools[{k}].conns={p.conns!r} is not allowed: connection {c} has "
                                     f"closer={cc.closer!r}; pooled connections are persistent (closer='none')")
