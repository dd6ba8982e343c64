"""Parameter validation shared by every public model.

Every check raises ``ValueError`` whose message names the parameter, the value it got and the allowed
range, e.g. ``"arrival_rate_per_s=-1.0 is out of range: must be a finite number in (0, inf)"``.
Checks run before any state is created, so a rejected call leaves nothing half-written.

numpy scalars are numbers like any other (``np.int64(10240)`` is the integer 10240, ``np.bool_(True)`` is
True) and are stored as Python's: every parameter dataclass calls ``store_python_numbers(self)`` first in
its ``__post_init__``, so no numpy type leaks into a kernel's arguments, a ``len()`` or a cache key.
"""

from __future__ import annotations

import dataclasses
import math
import numbers
from collections.abc import Iterable

import numpy as np

__all__ = [
    "check_real",
    "check_int",
    "check_choice",
    "check_bool",
    "check_order",
    "check_sequence",
    "check_instance",
    "check_column",
    "MEMORY_BUDGET_BYTES",
    "most_within_memory",
    "python_number",
    "store_python_numbers",
]


def _fmt_bound(lo: float, hi: float, lo_open: bool, hi_open: bool) -> str:
    left = "(" if lo_open else "["
    right = ")" if hi_open else "]"
    lo_s = "-inf" if lo == -math.inf else f"{lo:g}"
    hi_s = "inf" if hi == math.inf else f"{hi:g}"
    return f"{left}{lo_s}, {hi_s}{right}"


def check_real(
    name: str,
    value: object,
    lo: float = -math.inf,
    hi: float = math.inf,
    *,
    lo_open: bool = False,
    hi_open: bool = False,
    why: str = "",
) -> float:
    """Return ``value`` as a float if it is a finite real number in the given interval, else raise.

    ``lo_open``/``hi_open`` make the bound exclusive. Infinite bounds are always exclusive. ``why`` (if
    given) is added to the message in parentheses: where a bound comes from (e.g. memory).
    """
    lo_open = lo_open or lo == -math.inf
    hi_open = hi_open or hi == math.inf
    # (the message is made only for a value refused: validating a scenario's records checks thousands of fields)
    if type(value) is not float and type(value) is not int and (isinstance(value, bool)
                                                                or not isinstance(value, numbers.Real)):
        raise ValueError(f"{name}={value!r} is not a real number: {_real_allowed(lo, hi, lo_open, hi_open, why)}")
    v = float(value)
    if not math.isfinite(v) or (v < lo) or (lo_open and v == lo) or (v > hi) or (hi_open and v == hi):
        raise ValueError(f"{name}={value!r} is out of range: {_real_allowed(lo, hi, lo_open, hi_open, why)}")
    return v


def _real_allowed(lo: float, hi: float, lo_open: bool, hi_open: bool, why: str) -> str:
    return f"must be a finite number in {_fmt_bound(lo, hi, lo_open, hi_open)}" + (f" ({why})" if why else "")


def check_int(name: str, value: object, lo: int | None = None, hi: int | None = None, *, why: str = "") -> int:
    """Return ``value`` as an int if it is an integer in ``[lo, hi]`` (None means unbounded), else raise.
    ``why`` (if given) is added to the message in parentheses: where a bound comes from (e.g. memory)."""
    if type(value) is not int and (isinstance(value, bool) or not isinstance(value, numbers.Integral)):
        raise ValueError(f"{name}={value!r} is not an integer: {_int_allowed(lo, hi, why)}")
    v = int(value)
    if (lo is not None and v < lo) or (hi is not None and v > hi):
        raise ValueError(f"{name}={value!r} is out of range: {_int_allowed(lo, hi, why)}")
    return v


def _int_allowed(lo: int | None, hi: int | None, why: str) -> str:
    lo_s = "-inf" if lo is None else str(lo)
    hi_s = "inf" if hi is None else str(hi)
    return f"must be an integer in [{lo_s}, {hi_s}]" + (f" ({why})" if why else "")


def check_choice(name: str, value: object, choices: Iterable[object]) -> object:
    """Return ``value`` (a numpy scalar as Python's) if it is one of ``choices``, else raise naming the
    allowed values."""
    options = tuple(choices)
    try:
        ok = value in options
    except (TypeError, ValueError):  # e.g. an array: its comparison has no single truth value
        ok = False
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed: must be one of {list(options)!r}")
    return python_number(value)


def check_bool(name: str, value: object) -> bool:
    """Return ``value`` as a bool if it is one (``numpy.bool_`` included), else raise."""
    if not isinstance(value, bool | np.bool_):
        raise ValueError(f"{name}={value!r} is not allowed: must be True or False")
    return bool(value)


#: what one run may allocate for what grows with a size-like parameter (the lab's rule: no setting takes
#: more than 1 GB); each model states its bytes per unit beside the parameter
MEMORY_BUDGET_BYTES = 2**30


def most_within_memory(bytes_each: int, what: str) -> tuple[int, str]:
    """Return ``(largest count, reason)`` for a size-like parameter whose run needs about ``bytes_each``
    bytes per unit (``what``, e.g. "customer"): the count that fits ``MEMORY_BUDGET_BYTES``, and the
    sentence a check's ``why=`` adds to its message."""
    n = MEMORY_BUDGET_BYTES // bytes_each
    return n, f"about {bytes_each} bytes per {what}: at most 1 GiB"


def check_order(lo_name: str, lo: float, hi_name: str, hi: float, *, strict: bool = False) -> None:
    """Raise naming both parameters if ``lo`` exceeds ``hi`` (or equals it, if ``strict``); call it after
    both were checked on their own, before a check whose range depends on the other (which would name
    only one of them, often the one left at its default)."""
    if lo > hi or (strict and lo == hi):
        rel = "below" if strict else "at most"
        raise ValueError(f"{lo_name}={lo!r} and {hi_name}={hi!r} are out of order: {lo_name} must be {rel} "
                         f"{hi_name} (change either)")


def check_sequence(name: str, value: object, what: str = "values") -> tuple:
    """Return ``value`` as a tuple if it is a sequence (tuple, list, range or 1-D numpy array), else raise
    naming it: ``None``, a number or a string is not a sequence of ``what``."""
    ok = isinstance(value, tuple | list | range) or (isinstance(value, np.ndarray) and value.ndim == 1)
    if not ok:
        raise ValueError(f"{name}={value!r} is not allowed: must be a sequence (tuple or list) of {what}")
    return tuple(value)


def check_instance(name: str, value: object, cls: type | tuple[type, ...]) -> object:
    """Return ``value`` if it is an instance of ``cls``, else raise naming the parameter and the type(s)."""
    if not isinstance(value, cls):
        kinds = " or ".join(c.__name__ for c in (cls if isinstance(cls, tuple) else (cls,)))
        raise ValueError(f"{name}={value!r} is not allowed: must be a {kinds}")
    return value


def check_column(name: str, value: object, dtype: type) -> np.ndarray:
    """Return ``value`` as a contiguous 1-D array of ``dtype`` (np.int64 or np.float64), else raise naming
    the column: a value that is not a sequence of numbers, an integer column holding a non-integer."""
    kind = "integers" if dtype is np.int64 else "numbers"
    allowed = f"must be a 1-D sequence of {kind}"
    if isinstance(value, str | bytes) or value is None or isinstance(value, numbers.Number):
        raise ValueError(f"{name}={value!r} is not allowed: {allowed}")
    try:
        a = np.asarray(value)
        if a.ndim != 1:
            raise ValueError
        if dtype is np.int64 and a.size and not (a.dtype.kind in "iu" or (
                a.dtype.kind == "f" and np.all(np.isfinite(a)) and np.all(a == np.round(a)))):
            raise ValueError
        if a.dtype.kind not in "iuf" and a.size:
            raise ValueError
        return np.ascontiguousarray(a, dtype)
    except (TypeError, ValueError, OverflowError):
        raise ValueError(f"{name}={value!r} is not allowed: {allowed}") from None


_PLAIN = frozenset((int, float, str, bool, type(None)))  # types python_number returns as they are, at once


def python_number(value: object) -> object:
    """Return a numpy scalar (bool, integer, floating, str) as the Python bool, int, float or str it is,
    and a tuple or list holding some with those converted; anything else as it is (the same object)."""
    if type(value) in _PLAIN:
        return value
    if isinstance(value, np.bool_ | np.integer | np.floating | np.str_):
        return value.item()
    if type(value) in (tuple, list):
        items = [python_number(v) for v in value]
        if any(a is not b for a, b in zip(items, value, strict=True)):
            return type(value)(items)
    return value


def store_python_numbers(obj: object) -> None:
    """Replace, in the (frozen) dataclass ``obj``, every field holding numpy scalars (alone, or in a tuple
    or list) by Python numbers. Call it first in ``__post_init__``: the checks and the stored values then
    see only Python types."""
    names = _FIELD_NAMES.get(type(obj))
    if names is None:  # a class's fields are fixed once it is made: look them up once
        names = _FIELD_NAMES[type(obj)] = tuple(f.name for f in dataclasses.fields(obj))
    for name in names:
        value = getattr(obj, name)
        if type(value) in _PLAIN:
            continue
        new = python_number(value)
        if new is not value:
            object.__setattr__(obj, name, new)


_FIELD_NAMES: dict[type, tuple[str, ...]] = {}  # store_python_numbers: each dataclass's field names
