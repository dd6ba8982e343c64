"""``PacketResult`` of a small run, assembled field by field when first read.

A small run (the 10-file session: ~25 us in the kernel) spent several times its kernel time assembling every
field of its ``PacketResult`` (per-half reshapes, link ratios, CBR records, the captures' initial sequence
numbers), most of which its caller never reads. ``LazyPacketResult`` is a ``PacketResult`` that keeps the run's
state and computes a field on first access, with the fields that come from the same rows (per connection half, per
message, the scalars, the captures' numbers) computed together. Any other field (per link, CBR, traces, and any
field added to ``PacketResult`` later) is computed by ``simulate._result`` itself, once, on its first access: so
every field is what ``simulate._result`` gives, bit for bit (``tests/packet/test_lazy_result.py`` compares them
all, field by field, over scenarios of every kind).

It is used only for runs whose kernel state is small (``build_cache.MAX_STATE_BYTES``), since it holds the state
until every field it covers has been read; it pickles as a plain ``PacketResult`` (all fields computed); it is
frozen like ``PacketResult``; ``dataclasses.replace`` on it gives a result with every field set.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from .kernel import layout as L
from .results import PacketResult

__all__ = ["LazyPacketResult", "lazy_result"]


def _isn(seed_vals: np.ndarray, n_conn: int, n_nodes: int) -> dict:
    """The captures' initial sequence numbers, then the hosts' timestamp clock offsets (``simulate``'s order)."""
    isn_rng = np.random.default_rng(seed_vals)
    isn = isn_rng.integers(0, 2**32, size=(n_conn, 2), dtype=np.uint64)
    return {"tcp_isn": isn, "tcp_ts_offset": isn_rng.integers(0, 2**32, size=n_nodes, dtype=np.uint64)}


def _halves(src) -> dict:
    """The per-half and per-connection fields (as ``simulate._result`` computes them)."""
    from .simulate import _by_connection, _nan_before_zero

    sc, S, nc = src["sc"], src["S"], src["nc"]
    half, timewait = _by_connection(S, nc)
    T = sc.duration_s

    def per_half(a):
        return a.reshape(nc, 2) if nc else np.zeros((0, 2), a.dtype)

    delivered = np.maximum(half["rcv_nxt"] - 1 - half["fin_rcvd"], 0) * (half["rcv_started"] == 1)
    fin_acked = per_half(half["fin_acked_t"])
    closed = np.where(np.isnan(fin_acked).any(axis=1), np.nan, np.nanmax(fin_acked, axis=1, initial=-np.inf)) \
        if nc else np.zeros(0)
    return dict(
        delivered_bytes=per_half(delivered), goodput_bps=per_half(delivered * 8.0 / T),
        segments_sent=per_half(half["n_segs"]), retransmits=per_half(half["n_retx"]),
        timeouts=per_half(half["n_timeout"]), fast_retransmits=per_half(half["n_fretx"]),
        cwnd_bytes=per_half(half["cwnd"]), ssthresh_bytes=per_half(half["ssthresh"]),
        srtt_s=per_half(_nan_before_zero(half["srtt"])), rto_s=per_half(half["rto"]),
        established_s=half["est_t"][0::2].copy(), timewait_s=timewait, closed_s=closed,
        aborted_s=np.fmin(half["abort_t"][0::2], half["abort_t"][1::2]), ecn_reductions=per_half(half["n_ecn"]))


def _messages(src) -> dict:
    msg = src["S"].msg[:src["nm"]]
    return dict(message_write_s=msg["write"].copy(), message_done_s=msg["done"].copy(),
                message_latency_s=msg["done"] - msg["write"], message_conn=msg["conn"].copy(),
                message_ssn=msg["ssn"].copy())


def _scalars(src) -> dict:
    st = src["S"].st[0]
    return dict(duration_s=src["sc"].duration_s, events=int(st["events"]), packets_created=int(st["created"]),
                packets_delivered=int(st["delivered"]), packets_dropped_queue=int(st["drop_q"]),
                packets_dropped_loss=int(st["drop_l"]), packets_in_flight=int(st["pkt_hw"] - st["free_n"]),
                scenario=src["sc"])


def _captures(src) -> dict:
    return _isn(src["seed_vals"], src["nc"], src["sc"].network.n_nodes)


_GROUPS = (_halves, _messages, _scalars, _captures)
_GROUP_FIELDS = {
    _halves: ("delivered_bytes", "goodput_bps", "segments_sent", "retransmits", "timeouts", "fast_retransmits",
              "cwnd_bytes", "ssthresh_bytes", "srtt_s", "rto_s", "established_s", "timewait_s", "closed_s",
              "aborted_s", "ecn_reductions"),
    _messages: ("message_write_s", "message_done_s", "message_latency_s", "message_conn", "message_ssn"),
    _scalars: ("duration_s", "events", "packets_created", "packets_delivered", "packets_dropped_queue",
               "packets_dropped_loss", "packets_in_flight", "scenario"),
    _captures: ("tcp_isn", "tcp_ts_offset"),
}
_GROUP_OF = {name: g for g, names in _GROUP_FIELDS.items() for name in names}


class _Field:
    """A non-data descriptor: computes its field (and its group's) on first access; the instance's ``__dict__``
    then holds the value and is read directly from then on."""

    def __init__(self, name: str, default):
        self.name = name
        self.default = default

    def __get__(self, obj, cls=None):
        if obj is None:
            return self.default
        d = obj.__dict__
        src = d.get("_src")
        if src is None:  # built by dataclasses.replace / __init__: every field is in __dict__
            raise AttributeError(self.name)
        group = _GROUP_OF.get(self.name)
        if group is not None:
            for k, v in group(src).items():
                d.setdefault(k, v)
        else:
            _materialize(obj)
        if all(n in d for n in _ALL_FIELDS):
            d.pop("_src", None)  # every field read: the run's state can go
        return d[self.name]


def _materialize(obj) -> None:
    """Set every field not yet computed from ``simulate._result`` (which computes all of them)."""
    from .simulate import _result

    d = obj.__dict__
    src = d.get("_src")
    if src is None:
        return
    cap = _isn(src["seed_vals"], src["nc"], src["sc"].network.n_nodes)
    full = _result(src["sc"], src["S"], cap["tcp_isn"], cap["tcp_ts_offset"])
    for name in _ALL_FIELDS:
        d.setdefault(name, getattr(full, name))
    d.pop("_src", None)


class LazyPacketResult(PacketResult):
    """A ``PacketResult`` whose fields are computed when first read (see the module's docstring)."""

    def __reduce__(self):
        _materialize(self)
        return (PacketResult, tuple(getattr(self, n) for n in _ALL_FIELDS))


_ALL_FIELDS = tuple(f.name for f in fields(PacketResult))
for _f in fields(PacketResult):
    setattr(LazyPacketResult, _f.name, _Field(_f.name, getattr(PacketResult, _f.name, None)))


def lazy_result(sc, S: L.State, seed_vals: np.ndarray, n_conn: int, n_msg: int) -> LazyPacketResult:
    """Return the lazily assembled result of the run ``S`` of ``sc`` (its links seeded with ``seed_vals``)."""
    out = object.__new__(LazyPacketResult)
    out.__dict__["_src"] = {"sc": sc, "S": S, "seed_vals": seed_vals, "nc": n_conn, "nm": n_msg}
    return out
