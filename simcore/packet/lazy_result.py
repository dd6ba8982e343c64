"""``PacketResult`` of a small run, assembled field by field when first read.

A small run (the 10-file session: ~25 us in the kernel) spent several times its kernel time assembling every
field of its ``PacketResult`` (per-half reshapes, link ratios, CBR records, the captures' initial sequence
numbers), most of which its caller never reads. ``LazyPacketResult`` is a ``PacketResult`` that keeps the run's
state and computes a field on first access: alone (a per-half field from the halves' rows, gathered once; a
message field; a counter), or with the field drawn from the same generator (the captures' numbers). Any other field
(per link, CBR, traces, queue disciplines, and any field added to ``PacketResult`` later) is computed by
``simulate._result`` itself, once, on its first access: so every field is what ``simulate._result`` gives, bit for
bit (``tests/packet/test_build_cache.py`` compares them all, field by field, in a random order, over the golden
check's scenarios).

A traced run's result (``traced_result``) has every field but its traces set at once, and keeps only the used
rows of the trace tables (``trace_result``): each trace is made when first read.

It is used only for runs whose kernel state is small (``build_cache.MAX_STATE_BYTES``), since it holds the state
until every field it covers has been read; it pickles as a plain ``PacketResult`` (all fields computed); it is
frozen like ``PacketResult``; ``dataclasses.replace`` on it gives a result with every field set.
"""

from __future__ import annotations

from dataclasses import fields

import numpy as np

from simcore.rng import generator_of_words

from .halves import by_connection, nan_before_zero
from .kernel import layout as L
from .results import PacketResult
from .trace_result import TRACE_GROUPS

__all__ = ["LazyPacketResult", "lazy_result", "traced_result"]


def capture_numbers(seed_vals: np.ndarray, n_conn: int, n_nodes: int) -> dict:
    """The captures' initial sequence numbers, then the hosts' timestamp clock offsets (``simulate``'s order)."""
    isn_rng = generator_of_words(seed_vals)
    isn = isn_rng.integers(0, 2**32, size=(n_conn, 2), dtype=np.uint64)
    return {"tcp_isn": isn, "tcp_ts_offset": isn_rng.integers(0, 2**32, size=n_nodes, dtype=np.uint64)}


def _half_rows(src) -> tuple:
    """Every half's ``L.HALF_OUT`` row and every connection's ``timewait_t`` (``halves.by_connection``), once."""
    rows = src.get("half")
    if rows is None:
        rows = src["half"] = by_connection(src["S"], src["nc"])
    return rows


def _per_half(src, a: np.ndarray) -> np.ndarray:
    nc = src["nc"]
    return a.reshape(nc, 2) if nc else np.zeros((0, 2), a.dtype)


def _delivered(half: np.ndarray) -> np.ndarray:
    return np.maximum(half["rcv_nxt"] - 1 - half["fin_rcvd"], 0) * (half["rcv_started"] == 1)


def _closed(src, half, _tw):
    fin_acked = _per_half(src, half["fin_acked_t"])
    return np.where(np.isnan(fin_acked).any(axis=1), np.nan, np.nanmax(fin_acked, axis=1, initial=-np.inf)) \
        if src["nc"] else np.zeros(0)


def _srtt(src, half, _tw):
    return _per_half(src, nan_before_zero(half["srtt"]))


def _column(name: str):
    return lambda src, half, _tw: _per_half(src, half[name])


# the per-half and per-connection fields, each computed alone (as ``simulate._result`` computes it) from the rows
_HALF_FIELDS = {
    "delivered_bytes": lambda src, half, _tw: _per_half(src, _delivered(half)),
    "goodput_bps": lambda src, half, _tw: _per_half(src, _delivered(half) * 8.0 / src["sc"].duration_s),
    "segments_sent": _column("n_segs"), "retransmits": _column("n_retx"), "timeouts": _column("n_timeout"),
    "fast_retransmits": _column("n_fretx"), "cwnd_bytes": _column("cwnd"), "ssthresh_bytes": _column("ssthresh"),
    "srtt_s": _srtt, "rto_s": _column("rto"), "ecn_reductions": _column("n_ecn"),
    "established_s": lambda src, half, _tw: half["est_t"][0::2].copy(),
    "timewait_s": lambda src, half, tw: tw,
    "closed_s": _closed,
    "aborted_s": lambda src, half, _tw: np.fmin(half["abort_t"][0::2], half["abort_t"][1::2]),
}


def _msg(src) -> np.ndarray:
    return src["S"].msg[:src["nm"]]


def _st(src, name: str) -> int:
    return int(src["S"].st[0][name])


def _of_halves(f):
    return lambda src: f(src, *_half_rows(src))


def _captures(src) -> dict:
    return capture_numbers(src["seed_vals"], src["nc"], src["sc"].network.n_nodes)


# every other field computed alone, from its rows (as ``simulate._result`` computes it)
_ONE = {
    **{name: _of_halves(f) for name, f in _HALF_FIELDS.items()},
    "message_write_s": lambda src: _msg(src)["write"].copy(),
    "message_done_s": lambda src: _msg(src)["done"].copy(),
    "message_latency_s": lambda src: _msg(src)["done"] - _msg(src)["write"],
    "message_conn": lambda src: _msg(src)["conn"].copy(),
    "message_ssn": lambda src: _msg(src)["ssn"].copy(),
    "duration_s": lambda src: src["sc"].duration_s,
    "events": lambda src: _st(src, "events"),
    "packets_created": lambda src: _st(src, "created"),
    "packets_delivered": lambda src: _st(src, "delivered"),
    "packets_dropped_queue": lambda src: _st(src, "drop_q"),
    "packets_dropped_loss": lambda src: _st(src, "drop_l"),
    "packets_in_flight": lambda src: int(src["S"].st[0]["pkt_hw"] - src["S"].st[0]["free_n"]),
    "scenario": lambda src: src["sc"],
}
def _traces(src, make, names) -> dict:
    views = src.get("traces")
    return make(views) if views is not None else dict.fromkeys(names)  # a run without traces: None


# fields computed together: the captures' numbers (drawn in this order from one generator)
_GROUP_FIELDS = {_captures: ("tcp_isn", "tcp_ts_offset"),
                 # a traced run's traces (``trace_result``), from the views ``traced_result`` keeps
                 **{(lambda src, make=make, names=names: _traces(src, make, names)): names
                    for make, names in TRACE_GROUPS.items()}}
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
        one = _ONE.get(self.name)
        if one is not None:
            d[self.name] = one(src)
        else:
            group = _GROUP_OF.get(self.name)
            if group is not None:
                for k, v in group(src).items():
                    d.setdefault(k, v)
            else:
                _materialize(obj)
        value = d[self.name]
        if len(d) > len(_ALL_FIELDS):  # every field read (``__dict__`` holds "_src" and fields only): the state can go
            d.pop("_src", None)
        return value


def _materialize(obj) -> None:
    """Set every field not yet computed from ``simulate._result`` (which computes all of them)."""
    from .simulate import _result

    d = obj.__dict__
    src = d.get("_src")
    if src is None:
        return
    if "traces" in src:  # a traced run: every other field is set; the traces not read yet
        for group, names in _GROUP_FIELDS.items():
            if any(n not in d for n in names):
                for k, v in group(src).items():
                    d.setdefault(k, v)
        d.pop("_src", None)
        return
    cap = capture_numbers(src["seed_vals"], src["nc"], src["sc"].network.n_nodes)
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


def traced_result(full: PacketResult, views: dict) -> LazyPacketResult:
    """Return ``full`` (a result computed without its traces) whose traces are assembled from ``views``
    (``trace_result.trace_views``) when first read."""
    out = object.__new__(LazyPacketResult)
    d = out.__dict__
    d.update((name, getattr(full, name)) for name in _ALL_FIELDS if name not in _TRACED)
    d["_src"] = {"traces": views}
    return out


_TRACED = frozenset(n for names in TRACE_GROUPS.values() for n in names)
