"""Feedback for hidden tests: which part is wrong, and which common mistake it looks like.

A hidden test computes the expected answers itself (closed forms, hand arithmetic, or the student's own capture
read with ``simcore.grading.pcap``), then checks the student's values part by part:

    with Feedback("assignment 1") as fb:
        fb.number("mean queueing delay at rho = 0.9 (wq_ms[0.9])", wq_ms[0.9], expected_ms, rel_tol=0.01,
                  unit="ms", mistakes=[*COMMON, factor(2, "the M/D/1 wait is half the M/M/1 wait: which did you use?")])
        fb.choice("why (why_answer)", why_answer, ...)

On leaving the block, every wrong part is reported in one AssertionError (so nbgrader shows all of them), each
saying what was expected, what was found, the tolerance, and, where the value matches a known slip (a factor
of 1000 or 1024, bits for bytes, a factor of 2, a round trip missing), that slip.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from simcore.grading.identity import shuffled, student_id

__all__ = ["Mistake", "factor", "offset", "COMMON", "UNITS", "BITS_BYTES", "FACTOR_2", "PERCENT", "SIGN",
           "one_rtt_missing", "Feedback", "check_number", "choice_letters", "show_choices"]


@dataclass(frozen=True)
class Mistake:
    """A recognisable slip: ``test(got, expected, close)`` is True when ``got`` looks like it; ``says`` names it.
    ``close(a, b)`` is the check's own tolerance test."""

    says: str
    test: Callable[[float, float, Callable[[float, float], bool]], bool]


def factor(k: float, says: str) -> Mistake:
    """The answer multiplied or divided by ``k``."""
    return Mistake(says, lambda got, exp, close: exp != 0 and (close(got, exp * k) or close(got, exp / k)))


def offset(delta: float, says: str) -> Mistake:
    """The answer plus or minus ``delta`` (in its unit)."""
    return Mistake(says, lambda got, exp, close: close(got, exp + delta) or close(got, exp - delta))


def one_rtt_missing(rtt: float, unit: str = "") -> Mistake:
    """The answer off by one round-trip time ``rtt`` (a handshake, the request's round trip)."""
    u = f" {unit}" if unit else ""
    return offset(rtt, f"off by exactly one round-trip time ({rtt:g}{u}): a handshake or the request's round "
                       "trip counted twice or not at all?")


UNITS = factor(1000, "off by a factor of 1000: a unit prefix (s vs ms, bit/s vs kbit/s, bytes vs KB)?")
UNITS_1024 = factor(1024, "off by a factor of 1024: KiB vs KB (1024 vs 1000 bytes)?")
BITS_BYTES = factor(8, "off by a factor of 8: bits vs bytes?")
FACTOR_2 = factor(2, "off by a factor of 2: one way vs a round trip, or half vs all of something?")
PERCENT = factor(100, "off by a factor of 100: a fraction vs a percentage?")
SIGN = Mistake("right size, wrong sign", lambda got, exp, close: exp != 0 and close(got, -exp))
COMMON = (UNITS, UNITS_1024, BITS_BYTES, FACTOR_2, PERCENT, SIGN)


def _fmt(x: float) -> str:
    return f"{x:.6g}"


class Feedback:
    """Collects the checks of one graded cell; ``done()`` (or leaving the ``with`` block) raises one
    AssertionError listing every wrong part, or prints how many parts are right."""

    def __init__(self, title: str = ""):
        self.title = title
        self.wrong: list[str] = []
        self.right: list[str] = []

    def _report(self, ok: bool, part: str, message: str) -> bool:
        (self.right if ok else self.wrong).append(part if ok else f"{part}: {message}")
        return ok

    def number(self, part: str, got, expected: float, *, rel_tol: float = 0.01, abs_tol: float = 0.0,
               unit: str = "", mistakes: Sequence[Mistake] = COMMON) -> bool:
        """Check a number: right if within ``rel_tol`` of ``expected`` (or ``abs_tol``, whichever is wider)."""
        u = f" {unit}" if unit else ""
        if isinstance(got, bool) or not isinstance(got, numbers.Real) or not math.isfinite(float(got)):
            return self._report(False, part, f"expected a number (in {unit or 'the stated unit'}), found {got!r}")
        got, expected = float(got), float(expected)

        def close(a: float, b: float) -> bool:
            return abs(a - b) <= max(abs_tol, rel_tol * abs(b))

        if close(got, expected):
            return self._report(True, part, "")
        tol = " or ".join(t for t in (f"{100 * rel_tol:g} %" if rel_tol else "", f"{abs_tol:g}{u}" if abs_tol else "")
                          if t)
        message = f"expected {_fmt(expected)}{u} (within {tol}), found {_fmt(got)}{u}"
        hints = [m.says for m in mistakes if m.test(got, expected, close)]
        if hints:
            message += f"; {hints[0]}"
        return self._report(False, part, message)

    def equal(self, part: str, got, expected, *, hint: str = "") -> bool:
        """Check a value that must be exactly ``expected`` (a count, a name, a sequence number)."""
        ok = got == expected
        return self._report(ok, part, f"expected {expected!r}, found {got!r}" + (f"; {hint}" if hint else ""))

    def true(self, part: str, condition: bool, message: str) -> bool:
        """Check a condition; ``message`` says what is wrong when it fails."""
        return self._report(bool(condition), part, message)

    def choice(self, part: str, got, *, question: str, choices: Sequence[str], right: str,
               why: Mapping[str, str] | None = None, student: str | None = None) -> bool:
        """Check a multiple-choice answer ``got`` (a letter) against the student's own order of ``choices``
        (``show_choices(question, choices)``); a wrong pick is told the misconception ``why[choice]`` names."""
        letters = choice_letters(question, choices, student=student)
        if right not in choices:
            raise ValueError(f"right={right!r} is not allowed: must be one of the choices")
        pick = str(got).strip().upper().strip("()") if isinstance(got, str) else got
        if pick not in letters:
            return self._report(False, part, f"expected one letter of {sorted(letters)}, found {got!r}")
        chosen = letters[pick]
        if chosen == right:
            return self._report(True, part, "")
        note = (why or {}).get(chosen, "")
        return self._report(False, part, f"({pick}) is not the reason" + (f": {note}" if note else ""))

    def done(self) -> None:
        """Raise one AssertionError listing every wrong part, or print that all parts are right."""
        head = f"{self.title}: " if self.title else ""
        if self.wrong:
            raise AssertionError(f"{head}{len(self.wrong)} of {len(self.wrong) + len(self.right)} parts wrong:\n- "
                                 + "\n- ".join(self.wrong))
        print(f"{head}all {len(self.right)} parts right")

    def __enter__(self) -> Feedback:
        return self

    def __exit__(self, exc_type, exc, tb) -> bool:
        if exc_type is None:
            self.done()
        return False


def check_number(part: str, got, expected: float, **kwargs) -> None:
    """Check one number at once (see ``Feedback.number``): AssertionError with the feedback if wrong."""
    fb = Feedback()
    fb.number(part, got, expected, **kwargs)
    if fb.wrong:
        raise AssertionError(fb.wrong[0])


def choice_letters(question: str, choices: Sequence[str], *, student: str | None = None) -> dict[str, str]:
    """Return {letter: choice} in the student's own order of ``choices`` for ``question`` (a key unique in the
    course): answers cannot be passed on as "B"."""
    if len(choices) < 2 or len(set(choices)) != len(choices) or len(choices) > 26:
        raise ValueError(f"choices={choices!r} is not allowed: must be 2 to 26 distinct strings")
    who = student_id() if student is None else student
    return {chr(65 + i): c for i, c in enumerate(shuffled(list(choices), question, who))}


def show_choices(question: str, choices: Sequence[str], *, student: str | None = None):
    """Display the choices of ``question`` as a lettered list in the student's order (a Markdown object in
    a notebook; its text otherwise)."""
    text = "\n".join(f"- **({k})** {c}" for k, c in choice_letters(question, choices, student=student).items())
    try:
        from IPython.display import Markdown

        return Markdown(text)
    except ImportError:  # no IPython: plain text
        return text
