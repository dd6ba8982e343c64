"""Whose assignment this is, and the numbers that student gets.

``student_id()`` reads, in order: ``SIMCORE_STUDENT`` (set it from the JupyterHub user or nbgrader's student
id, see instructor/README.md); during ``nbgrader autograde`` (``NBGRADER_EXECUTION=autograde``) the student
folder nbgrader runs the notebook in (``.../autograded/<student>/<assignment>``); ``JUPYTERHUB_USER``; the
login name. ``student_params(assignment, spec)`` draws that student's parameters from the ranges and choices
the assignment gives: deterministically (SHA-256 of assignment, student and parameter name; never Python's
salted ``hash()``), one draw per parameter (adding a parameter changes no other), and on a grid of "nice"
values a student can type.
"""

from __future__ import annotations

import getpass
import hashlib
import math
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from simcore._validate import check_int, check_real, store_python_numbers

__all__ = ["ENV_VAR", "student_id", "student_params", "Grid", "Choice", "Nice", "draw_fraction", "shuffled"]

ENV_VAR = "SIMCORE_STUDENT"


def student_id() -> str:
    """Return the student whose numbers to use (see the module docstring for the order)."""
    sid = os.environ.get(ENV_VAR, "").strip()
    if sid:
        return sid
    if os.environ.get("NBGRADER_EXECUTION") == "autograde":
        parts = Path.cwd().parts
        if "autograded" in parts:
            i = len(parts) - 1 - parts[::-1].index("autograded")
            if i + 1 < len(parts):
                return parts[i + 1]
    hub = os.environ.get("JUPYTERHUB_USER", "").strip()
    if hub:
        return hub
    try:
        return getpass.getuser()
    except Exception:  # no login name (some containers): everyone is the same student
        return "student"


def draw_fraction(*key: str) -> float:
    """Return a number in [0, 1) fixed by ``key`` (SHA-256 of its parts: the same on every machine and run)."""
    digest = hashlib.sha256("\x1f".join(key).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") / 2.0**64


@dataclass(frozen=True)
class Grid:
    """A value on ``lo, lo + step, ..., hi`` (all equally likely); ints if all three are ints."""

    lo: float
    hi: float
    step: float

    def __post_init__(self):
        store_python_numbers(self)
        check_real("lo", self.lo)
        check_real("hi", self.hi, self.lo)
        check_real("step", self.step, 0, lo_open=True)
        if self.n > 100_000:
            raise ValueError(f"step={self.step!r} is too fine: (hi - lo) / step must be at most 100000")

    @property
    def n(self) -> int:
        return int(math.floor((self.hi - self.lo) / self.step + 1e-9)) + 1

    def pick(self, u: float):
        k = min(int(u * self.n), self.n - 1)
        if all(isinstance(v, int) for v in (self.lo, self.hi, self.step)):
            return self.lo + k * self.step
        decimals = max(0, -math.floor(math.log10(self.step)) + 2) if self.step < 1 else 6
        return round(self.lo + k * self.step, decimals)


@dataclass(frozen=True)
class Nice:
    """A value between ``lo`` and ``hi`` > 0, spread evenly on a log scale, with ``digits`` significant digits."""

    lo: float
    hi: float
    digits: int = 2

    def __post_init__(self):
        store_python_numbers(self)
        check_real("lo", self.lo, 0, lo_open=True)
        check_real("hi", self.hi, self.lo)
        check_int("digits", self.digits, 1, 6)

    def pick(self, u: float):
        x = math.exp(math.log(self.lo) + u * (math.log(self.hi) - math.log(self.lo)))
        mag = math.floor(math.log10(x))
        r = round(x, self.digits - 1 - mag)
        r = min(max(r, self.lo), self.hi)
        return int(r) if r == int(r) and abs(r) < 2**53 else r


@dataclass(frozen=True)
class Choice:
    """One of ``options`` (all equally likely)."""

    options: tuple

    def __init__(self, options: Sequence):
        if isinstance(options, (str, bytes)) or not isinstance(options, Sequence) or len(options) < 1:
            raise ValueError(f"options={options!r} is not allowed: must be a non-empty list")
        object.__setattr__(self, "options", tuple(options))

    def pick(self, u: float):
        return self.options[min(int(u * len(self.options)), len(self.options) - 1)]


def student_params(assignment: str, spec: Mapping[str, Grid | Nice | Choice], *, student: str | None = None) -> dict:
    """Return ``{name: value}``: each parameter of ``spec`` drawn for ``student`` (default ``student_id()``)
    in ``assignment`` (a name unique in the course, e.g. "00_start_here/1_mm1_delay")."""
    if not isinstance(assignment, str) or not assignment.strip():
        raise ValueError(f"assignment={assignment!r} is not allowed: must be a non-empty name")
    if not isinstance(spec, Mapping) or not spec:
        raise ValueError(f"spec={spec!r} is not allowed: must be a non-empty dict of Grid, Nice or Choice")
    bad = {k: v for k, v in spec.items() if not isinstance(v, (Grid, Nice, Choice)) or not isinstance(k, str)}
    if bad:
        raise ValueError(f"spec={bad!r} is not allowed: each parameter must be a Grid, Nice or Choice, "
                         "named by a string")
    who = student_id() if student is None else student
    if not isinstance(who, str) or not who.strip():
        raise ValueError(f"student={student!r} is not allowed: must be a non-empty string")
    return {name: s.pick(draw_fraction("simcore-params-v1", assignment, who, name)) for name, s in spec.items()}


def shuffled(items: Sequence, *key: str) -> list:
    """Return ``items`` in an order fixed by ``key`` (e.g. a student's order of a question's choices)."""
    order = sorted(range(len(items)), key=lambda i: draw_fraction("simcore-shuffle-v1", *key, str(i)))
    return [items[i] for i in order]
