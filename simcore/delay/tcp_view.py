"""Part 2 of chapter 4: the same page download over real TCP (``simcore.packet``), beside the textbook.

A page is one base HTML file and ``n_objects`` embedded objects, fetched by a browser over one duplex link
(rate ``link_rate_bps`` each way, one-way delay ``rtt_ms / 2``) with real TCP: three-way handshake (with
``handshake="textbook"`` the GET rides on the third packet, as Kurose & Ross count it; ``"real"`` sends that ACK
bare and the GET as its own segment, as real stacks do), MSS segmentation with 40-byte TCP/IP headers, slow start from
``initial_window_segments``, ACK clocking, FIN exchange. Modes:

- ``"non-persistent"``: one connection per object, closed by the server. The base comes first; the
  embedded objects then use ``parallel`` (1..6) connection slots: slot j fetches objects j, j + n, ...,
  each on a fresh connection opened when the slot's previous object has arrived;
- ``"persistent"``: one connection (closed by the client at the end), each request sent when the previous
  response has arrived;
- ``"pipelined"``: one connection; once the base has arrived, all embedded requests are sent at once.

Optional cross traffic shares the server -> client link (the bottleneck for responses): a fluid that is
on at the full link rate or off in slots of ``cross_slot_ms`` (on with probability ``cross_load``, drawn
from ``seed``), so its mean load is ``cross_load`` x R and its bursts build queues. A client cache answers
a fraction ``hit_ratio`` of the embedded objects with a small 304 Not Modified (``simcore.delay.params.
hit_mask`` picks which, evenly and deterministically). The page response time runs from the first SYN to
the last byte of the last object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from simcore._validate import check_choice, check_instance, check_int, check_order, check_real, store_python_numbers
from simcore.delay.params import DelayParams, hit_mask
from simcore.delay.tcp_textbook import FORMULA_MODES, page_time_s, page_time_slow_start_s
from simcore.packet import (
    Connection,
    FluidBackground,
    LinkParams,
    Message,
    Network,
    PacketResult,
    Scenario,
    TcpParams,
    simulate,
)
from simcore.rng import SeedLike, make_generator

__all__ = ["TCP_MODES", "HANDSHAKES", "TcpPageParams", "TcpPageResult", "from_delay_params", "build_scenario",
           "simulate_page_tcp", "formula_times_s", "compare_modes"]

TCP_MODES = FORMULA_MODES  # ("non-persistent", "persistent", "pipelined")
HANDSHAKES = ("textbook", "real")  # TcpPageParams.handshake
BOTTLENECK_LINK = 1  # the server -> client link of the duplex pair (node 0 client, node 1 server)
_CROSS_SLOTS = 4000


@dataclass(frozen=True)
class TcpPageParams:
    """One page download over real TCP (every field a slider or a fixed textbook choice).

    Sizes are application bytes (HTTP headers included in ``request_bytes`` / ``not_modified_bytes``);
    ``header_bytes`` is the TCP/IP header of every packet.
    """

    rtt_ms: float = 100.0  # round-trip propagation delay (2 x one-way), ms
    link_rate_bps: float = 1e6  # rate of each direction of the link, bit/s
    object_size_bytes: int = 10_000  # every embedded object
    n_objects: int = 5  # embedded objects (besides the base file)
    base_size_bytes: int | None = None  # the base HTML; None = object_size_bytes
    mode: str = "non-persistent"
    parallel: int = 1  # non-persistent only: connections in parallel for the embedded objects
    mss_bytes: int = 1460
    initial_window_segments: int = 1
    cross_load: float = 0.0  # mean load of the cross traffic on the server -> client link, fraction of R
    cross_slot_ms: float = 20.0  # on/off slot length of the cross traffic, ms
    hit_ratio: float = 0.0  # fraction of embedded objects answered 304 by the client cache
    request_bytes: int = 200  # one GET (or conditional GET)
    not_modified_bytes: int = 150  # one 304 Not Modified
    header_bytes: int = 40  # TCP/IP header per packet
    rwnd_bytes: int = 1 << 24  # receiver window (large: the textbook's server is never window-limited)
    queue_packets: int = 200  # drop-tail buffer of each direction, packets
    # "textbook": the GET rides on the handshake's third packet (Kurose & Ross count it so); "real": the
    # client's ACK goes bare and the GET follows as its own segment, as real stacks send it (one packet more
    # per connection, the same round trips)
    handshake: str = "textbook"

    def __post_init__(self):
        store_python_numbers(self)
        check_real("rtt_ms", self.rtt_ms, 0.0, 5000.0)
        check_real("link_rate_bps", self.link_rate_bps, 1e3, 1e10)
        check_int("object_size_bytes", self.object_size_bytes, 1, 10**8)
        check_int("n_objects", self.n_objects, 0, 200)
        if self.base_size_bytes is not None:
            check_int("base_size_bytes", self.base_size_bytes, 1, 10**8)
        check_choice("mode", self.mode, TCP_MODES)
        check_int("parallel", self.parallel, 1, 6)
        check_int("mss_bytes", self.mss_bytes, 100, 65_000)
        check_int("initial_window_segments", self.initial_window_segments, 1, 1000)
        check_real("cross_load", self.cross_load, 0.0, 0.95)
        check_real("cross_slot_ms", self.cross_slot_ms, 0.1, 10_000.0)
        check_real("hit_ratio", self.hit_ratio, 0.0, 1.0)
        check_int("request_bytes", self.request_bytes, 1, 10**6)
        check_int("not_modified_bytes", self.not_modified_bytes, 1, 10**6)
        check_int("header_bytes", self.header_bytes, 0, 1000)
        check_int("rwnd_bytes", self.rwnd_bytes, 100, 2**30)
        check_order("mss_bytes", self.mss_bytes, "rwnd_bytes", self.rwnd_bytes)
        check_int("queue_packets", self.queue_packets, 2, 10**6)
        check_choice("handshake", self.handshake, HANDSHAKES)

    @property
    def base_bytes(self) -> int:
        """Return the base file's size, bytes."""
        return self.object_size_bytes if self.base_size_bytes is None else self.base_size_bytes

    @property
    def rtt_s(self) -> float:
        """Return the round-trip propagation delay, seconds."""
        return self.rtt_ms / 1000.0

    def hits(self) -> np.ndarray:
        """Return a bool array over the embedded objects: True where the cache's 304 answers it."""
        return hit_mask(self.n_objects, self.hit_ratio)

    def response_sizes(self) -> list[int]:
        """Return the response size of every object, base first (304 size for hits), bytes."""
        emb = [self.not_modified_bytes if h else self.object_size_bytes for h in self.hits()]
        return [self.base_bytes, *emb]


@dataclass(frozen=True)
class TcpPageResult:
    """One simulated page download over TCP (times from the first SYN, seconds)."""

    params: TcpPageParams
    response_time_s: float  # last byte of the last object (nan if the page did not finish)
    object_done_s: np.ndarray  # (1 + n_objects,) when each object's last byte arrived, base first
    object_latency_s: np.ndarray  # (1 + n_objects,) request written -> response complete
    n_connections: int
    retransmits: int  # segments sent again (both directions, all connections)
    timeouts: int
    packet: PacketResult  # the packet simulator's result (with traces if asked)


def from_delay_params(dp: DelayParams, **overrides) -> TcpPageParams:
    """Return the Part-2 page of Part 1's ``DelayParams`` (its ``model="packet"`` view).

    RTT = 2 x ``prop_delay_ms``; link rate = ``link_rate_bps`` (8 bits per ``trans_ms_per_byte``, which must
    be > 0); the first parent is the base file and the other P (1 + C) - 1 objects are embedded, all of
    ``data_size_bytes``; HTTP/1.0 -> non-persistent, 1.1 -> persistent (pipelined with ``pipelining``);
    the cache's hit ratio if the cache is on. The report's "1.2" has no textbook counterpart (ValueError).
    ``overrides`` set any other field (MSS, initial window, cross traffic...).
    """
    if not isinstance(dp, DelayParams):
        raise ValueError(f"dp={dp!r} is not allowed: must be a DelayParams")
    if dp.mode == "1.2":
        raise ValueError("mode='1.2' is not allowed here: the report's multiplexing has no textbook formula; "
                         "use '1.0' or '1.1'")
    if dp.trans_ms_per_byte <= 0:
        raise ValueError(f"trans_ms_per_byte={dp.trans_ms_per_byte!r} is out of range: a real link needs a "
                         "finite rate, must be > 0")
    size = max(1, int(round(dp.data_size_bytes)))
    mode = "non-persistent" if dp.mode == "1.0" else ("pipelined" if dp.pipelining else "persistent")
    fields = dict(rtt_ms=2.0 * dp.prop_delay_ms, link_rate_bps=dp.link_rate_bps, object_size_bytes=size,
                  n_objects=dp.n_objects - 1, mode=mode, hit_ratio=dp.hit_ratio if dp.cache else 0.0)
    fields.update(overrides)
    return TcpPageParams(**fields)


def _tcp(p: TcpPageParams) -> TcpParams:
    # initial RTO 3 s (RFC 2988's value) so that a long RTT does not fire spurious SYN retransmissions
    # the rfc5681 preset (the textbook's TCP: one ACK per segment, exact timers) with the panel's IW
    # handshake "textbook": the GET on the handshake's ACK; "real": a bare ACK, then the GET
    return TcpParams.preset("rfc5681", mss_bytes=p.mss_bytes, rwnd_bytes=p.rwnd_bytes,
                            initial_window_segments=p.initial_window_segments, initial_rto_s=3.0,
                            request_on_handshake_ack=(p.handshake == "textbook"))


def _cross_background(p: TcpPageParams, rng: np.random.Generator) -> FluidBackground | None:
    """Draw the on/off cross traffic: ``_CROSS_SLOTS`` slots, each on (rate R) with probability load."""
    if p.cross_load <= 0.0:
        return None
    on = rng.random(_CROSS_SLOTS) < p.cross_load
    slot = p.cross_slot_ms / 1000.0
    times = tuple(float(i * slot) for i in range(_CROSS_SLOTS)) + (_CROSS_SLOTS * slot,)
    rates = tuple(float(p.link_rate_bps) if o else 0.0 for o in on) + (p.cross_load * p.link_rate_bps,)
    return FluidBackground(times, rates, packet_bytes=p.mss_bytes + p.header_bytes)


def _duration_s(p: TcpPageParams) -> float:
    sizes = p.response_sizes()
    simple = page_time_slow_start_s("non-persistent", p.rtt_s, p.link_rate_bps, sizes[0], sizes[1:],
                                    p.mss_bytes, 1, 1)
    return 60.0 + 10.0 * simple / (1.0 - p.cross_load)


def build_scenario(p: TcpPageParams, seed: SeedLike = 0) -> Scenario:
    """Return the packet ``Scenario`` of the page download (messages 2k, 2k+1: request, response of
    object k; object 0 is the base). The cross traffic's on/off slots are drawn from ``seed``."""
    if not isinstance(p, TcpPageParams):
        raise ValueError(f"params={p!r} is not allowed: must be a TcpPageParams")
    rng = make_generator(seed)
    link = LinkParams(rate_bps=p.link_rate_bps, delay_s=p.rtt_s / 2.0, queue_packets=p.queue_packets)
    down = LinkParams(rate_bps=p.link_rate_bps, delay_s=p.rtt_s / 2.0, queue_packets=p.queue_packets,
                      background=_cross_background(p, rng))
    net = Network(2, Network.duplex(0, 1, link, down))
    tcp = _tcp(p)
    sizes = p.response_sizes()
    conns: list[Connection] = []
    msgs: list[Message] = []
    for k, size in enumerate(sizes):
        if p.mode == "non-persistent":
            if k == 0:
                after = -1
            elif k <= p.parallel:
                after = 1  # the base's response names the embedded objects
            else:
                after = 2 * (k - p.parallel) + 1  # the slot's previous object
            conns.append(Connection(0, 1, tcp, open_after_message=after, closer="server"))
            msgs.append(Message(k, p.request_bytes, "client", after_message=after))
            msgs.append(Message(k, size, "server", after_message=2 * k))
        else:
            if k == 0:
                conns.append(Connection(0, 1, tcp, closer="client"))
                after = -1
            else:
                after = 1 if p.mode == "pipelined" else 2 * k - 1
            msgs.append(Message(0, p.request_bytes, "client", after_message=after))
            msgs.append(Message(0, size, "server", after_message=2 * k))
    return Scenario(net, tuple(conns), tuple(msgs), (), _duration_s(p), p.header_bytes)


def simulate_page_tcp(p: TcpPageParams, seed: SeedLike = 0, trace: bool = False) -> TcpPageResult:
    """Return the simulated page download over TCP (response time in seconds, per-object times).

    ``seed`` draws the cross traffic (and fixes the packet simulator's streams): same seed, same
    result. ``trace=True`` keeps the packet trace for the space-time diagram.
    """
    gen = make_generator(seed)
    sc = build_scenario(p, gen)
    res = simulate(sc, seed=gen, trace=trace)
    done = np.asarray(res.message_done_s[1::2], dtype=np.float64)
    lat = np.asarray(res.message_latency_s[1::2], dtype=np.float64)
    total = float(done.max()) if np.all(np.isfinite(done)) else math.nan
    return TcpPageResult(params=p, response_time_s=total, object_done_s=done, object_latency_s=lat,
                         n_connections=len(sc.connections), retransmits=int(res.retransmits.sum()),
                         timeouts=int(res.timeouts.sum()), packet=res)


def formula_times_s(p: TcpPageParams, mode: str | None = None) -> dict[str, float]:
    """Return the textbook's page times for ``mode`` (default ``p.mode``) at ``p``, seconds:
    ``{"simple_s", "slow_start_s"}`` (object sizes with 304s for cache hits; no headers, no queueing)."""
    check_instance("p", p, TcpPageParams)
    mode = p.mode if mode is None else check_choice("mode", mode, TCP_MODES)
    sizes = p.response_sizes()
    args = (p.rtt_s, p.link_rate_bps, sizes[0], sizes[1:])
    par = p.parallel if mode == "non-persistent" else 1
    return {"simple_s": page_time_s(mode, *args, parallel=par),
            "slow_start_s": page_time_slow_start_s(mode, *args, p.mss_bytes, p.initial_window_segments, par)}


def compare_modes(p: TcpPageParams, seed: SeedLike = 0, trace_mode: str | None = None) -> list[dict]:
    """Return one record per mode at ``p``'s other values: simulated and formula page times (s).

    Fields: ``mode``, ``simulated_s``, ``simple_s``, ``slow_start_s``, ``n_connections``, ``retransmits``,
    ``timeouts`` and ``result`` (the :class:`TcpPageResult`; with the packet trace for ``trace_mode``).
    Every mode uses the same ``seed`` (the same cross-traffic pattern).
    """
    out = []
    for mode in TCP_MODES:
        q = replace(p, mode=mode)
        res = simulate_page_tcp(q, seed=seed, trace=(mode == trace_mode))
        out.append({"mode": mode, "simulated_s": res.response_time_s, **formula_times_s(q),
                    "n_connections": res.n_connections, "retransmits": res.retransmits,
                    "timeouts": res.timeouts, "result": res})
    return out
