"""Parameters and results of the chapter-4 delay model (Vu & Vu 2017, after Kurose & Ross).

One frozen dataclass, :class:`DelayParams`, holds every slider of the chapter: propagation delay,
transmission delay per byte, the document tree (``n_parents`` parent files each embedding ``n_children``
children), packet sizes, the HTTP mode, the client cache and its hit ratio. The same object is meant to
drive both halves of the chapter: ``model="ideal"`` (this package: every packet costs propagation +
size x per-byte transmission delay) and ``model="packet"`` (part 2, real TCP in ``simcore.packet``); the
properties ``link_rate_bps`` and ``prop_delay_s`` translate the ideal world's knobs into a link's.

Modes (the report's names):

- ``"1.0"``: HTTP/1.0, non-persistent: one TCP connection (SYN, ACK) per object;
- ``"1.1"``: HTTP/1.1, persistent: one connection for the whole page, never closed;
- ``"1.2"``: the report's "HTTP/1.2" multiplexing: one connection for the list of parents, then one
  connection per parent for the list of its children, each closed after its last object.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from simcore._validate import check_bool, check_choice, check_int, check_real, store_python_numbers

__all__ = [
    "MODES",
    "MODE_NAMES",
    "MODELS",
    "PACKET_KINDS",
    "DelayParams",
    "PacketTrace",
    "IdealResult",
    "hit_mask",
]

MODES = ("1.0", "1.1", "1.2")
MODE_NAMES = {"1.0": "non-persistent", "1.1": "persistent", "1.2": "multiplexed"}
MODELS = ("ideal", "packet")
# packet kinds, as numbered in the kernel and the trace
PACKET_KINDS = ("SYN", "ACK", "GET", "data", "304")

MAX_OBJECTS = 100_000


@dataclass(frozen=True)
class DelayParams:
    """One configuration of the report's ideal world (every field is a slider of the chapter).

    Defaults are the report's correctness setting (section III.1): 200 ms propagation, 2 ms per byte,
    2 parents with 2 children each, 33-byte control packets, 269-byte data packets.
    """

    prop_delay_ms: float = 200.0  # one-way propagation delay of every packet, ms
    trans_ms_per_byte: float = 2.0  # transmission delay per byte, ms
    n_parents: int = 2  # P: parent files requested by the client
    n_children: int = 2  # C: children embedded in every parent
    ctrl_size_bytes: float = 33.0  # GET, conditional GET, 304 (and SYN/ACK unless handshake_size_bytes)
    data_size_bytes: float = 269.0  # a 200 OK response carrying an object
    mode: str = "1.1"  # "1.0" non-persistent, "1.1" persistent, "1.2" multiplexed
    cache: bool = False  # client cache on: every GET is conditional
    hit_ratio: float = 1.0  # with the cache on: fraction of objects answered 304 Not Modified
    handshake_size_bytes: float | None = None  # SYN and ACK size; None = ctrl_size_bytes (the report)
    mux_header_bytes: float = 0.0  # extra bytes on every HTTP/1.2 GET (its Close-after-this header)
    pipelining: bool = False  # 1.1/1.2: send a list's GETs back to back instead of one by one
    warm_connection: bool = False  # 1.1 only: the persistent connection is already open (no handshake)
    model: str = "ideal"  # "ideal" (this package) or "packet" (simcore.packet, part 2 of the chapter)

    def __post_init__(self):
        store_python_numbers(self)
        check_real("prop_delay_ms", self.prop_delay_ms, 0.0, 1e7)
        check_real("trans_ms_per_byte", self.trans_ms_per_byte, 0.0, 1e6)
        check_int("n_parents", self.n_parents, 1, 10_000)
        check_int("n_children", self.n_children, 0, 10_000)
        n = self.n_parents * (1 + self.n_children)
        if n > MAX_OBJECTS:
            raise ValueError(
                f"n_parents * (1 + n_children)={n} is out of range: must be an integer in [1, {MAX_OBJECTS}]"
            )
        check_real("ctrl_size_bytes", self.ctrl_size_bytes, 0.0, 1e9)
        check_real("data_size_bytes", self.data_size_bytes, 0.0, 1e9)
        check_choice("mode", self.mode, MODES)
        check_bool("cache", self.cache)
        check_real("hit_ratio", self.hit_ratio, 0.0, 1.0)
        if self.handshake_size_bytes is not None:
            check_real("handshake_size_bytes", self.handshake_size_bytes, 0.0, 1e9)
        check_real("mux_header_bytes", self.mux_header_bytes, 0.0, 1e9)
        check_bool("pipelining", self.pipelining)
        check_bool("warm_connection", self.warm_connection)
        check_choice("model", self.model, MODELS)

    # derived quantities -------------------------------------------------------------------------
    @property
    def n_objects(self) -> int:
        """Return N = P (1 + C), the number of objects on the page."""
        return self.n_parents * (1 + self.n_children)

    @property
    def n_hits(self) -> int:
        """Return H, the number of objects answered 304 (0 with the cache off)."""
        return int(hit_mask(self.n_objects, self.hit_ratio if self.cache else 0.0).sum())

    @property
    def syn_size_bytes(self) -> float:
        """Return the size of a SYN or ACK, bytes."""
        return self.ctrl_size_bytes if self.handshake_size_bytes is None else float(self.handshake_size_bytes)

    @property
    def get_size_bytes(self) -> float:
        """Return the size of one GET in this mode, bytes (1.2 adds ``mux_header_bytes``)."""
        return self.ctrl_size_bytes + (self.mux_header_bytes if self.mode == "1.2" else 0.0)

    @property
    def prop_delay_s(self) -> float:
        """Return the propagation delay in seconds (for the packet-level model)."""
        return self.prop_delay_ms / 1000.0

    @property
    def link_rate_bps(self) -> float:
        """Return the link rate in bit/s equivalent to ``trans_ms_per_byte`` (inf when it is 0)."""
        if self.trans_ms_per_byte == 0:
            return math.inf
        return 8.0 / (self.trans_ms_per_byte / 1000.0)

    @property
    def mode_name(self) -> str:
        """Return the plain name of the mode: non-persistent, persistent or multiplexed."""
        return MODE_NAMES[self.mode]


def hit_mask(n_objects: int, hit_ratio: float) -> np.ndarray:
    """Return a bool array over objects in document order: True where the object is answered 304.

    The hits are spread evenly and deterministically: object ``i`` is a hit when
    ``floor((i + 1) h) > floor(i h)``, so exactly ``floor(N h)`` objects hit (h = 1: all, h = 0: none).
    """
    check_int("n_objects", n_objects, 0, MAX_OBJECTS)
    check_real("hit_ratio", hit_ratio, 0.0, 1.0)
    i = np.arange(n_objects + 1, dtype=np.float64)
    # the small epsilon makes e.g. 3 * (1/3) count as 1 despite rounding
    k = np.floor(i * hit_ratio + 1e-9)
    return np.diff(k) > 0


@dataclass(frozen=True)
class PacketTrace:
    """Every packet of one page download, in send order (for the space-time diagram).

    ``from_server`` is False for client->server packets. ``kind`` indexes ``PACKET_KINDS``.
    A packet occupies its sender's link from ``send_ms`` to ``tx_end_ms`` and is fully received at
    ``arrive_ms = tx_end_ms + prop_delay_ms``.
    """

    send_ms: np.ndarray  # float64, start of transmission, ms
    tx_end_ms: np.ndarray  # float64, end of transmission, ms
    arrive_ms: np.ndarray  # float64, last bit received, ms
    from_server: np.ndarray  # bool
    kind: np.ndarray  # int64 index into PACKET_KINDS
    size_bytes: np.ndarray  # float64
    object_id: np.ndarray  # int64, object in document order, -1 for SYN/ACK
    connection: np.ndarray  # int64, connection number (0, 1, ...)

    @property
    def n_packets(self) -> int:
        """Return the number of packets."""
        return int(self.send_ms.shape[0])

    def kind_names(self) -> list[str]:
        """Return the kind of every packet as a label (SYN, ACK, GET, data, 304)."""
        return [PACKET_KINDS[k] for k in self.kind]

    def records(self) -> list[dict]:
        """Return the trace as plain records (one dict per packet; times in ms)."""
        names = self.kind_names()
        return [
            {
                "send_ms": float(self.send_ms[i]),
                "tx_end_ms": float(self.tx_end_ms[i]),
                "arrive_ms": float(self.arrive_ms[i]),
                "from": "server" if self.from_server[i] else "client",
                "to": "client" if self.from_server[i] else "server",
                "kind": names[i],
                "size_bytes": float(self.size_bytes[i]),
                "object_id": int(self.object_id[i]),
                "connection": int(self.connection[i]),
            }
            for i in range(self.n_packets)
        ]


@dataclass(frozen=True)
class IdealResult:
    """The outcome of one simulated page download in the ideal world."""

    params: DelayParams
    response_time_ms: float  # from the first SYN (or GET) to the last object's arrival, ms
    trace: PacketTrace
    n_connections: int
    n_ctrl_packets: int  # SYN, ACK, GET, 304
    n_data_packets: int  # 200 OK with an object
