"""What a prediction is, without any widget: the question, the answer, the scoring and the outcome.

``NumberPrediction`` (a number with a unit, right within a tolerance) and ``ChoicePrediction`` (one of
several options, each wrong option optionally with the misconception it stands for) share ``Prediction``:
the commit rule (final for the round, see ``try_another``), the settings it is asked at, the gates it
holds shut (``simcore.predict.gate``) and the listeners told when it changes. ``simcore.predict.view``
draws it as widgets; ``simcore.predict.static_html`` as the book's HTML.
"""

from __future__ import annotations

import abc
import html
import math
import numbers
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from simcore._validate import check_choice, check_int, check_real
from simcore.predict.markup import to_html

__all__ = ["Prediction", "NumberPrediction", "ChoicePrediction", "Outcome", "nice_number"]

Setting = Mapping[str, object]


def nice_number(x: float, digits: int = 3) -> str:
    """Return ``x`` rounded to ``digits`` significant digits, without trailing zeros, and without an
    exponent between 1e-4 and 1e9 (``10.8``, ``0.673``, ``4,300``, ``9``, ``1.2e-5``)."""
    if x == 0 or not math.isfinite(x):
        return "0" if x == 0 else str(x)
    mag = math.floor(math.log10(abs(x)))
    if not -4 <= mag < 9:
        mant, exp = f"{x:.{digits - 1}e}".split("e")
        return f"{_trim(mant)}e{int(exp)}"
    r = round(x, digits - 1 - mag)  # 4321 -> 4320 at 3 digits
    decimals = max(0, digits - 1 - mag)
    return _trim(f"{r:,.{decimals}f}" if abs(r) >= 1000 else f"{r:.{decimals}f}")


def _trim(text: str) -> str:
    """``9.00`` -> ``9``, ``10.80`` -> ``10.8``: trailing zeros say nothing to a student."""
    return text.rstrip("0").rstrip(".") if "." in text else text


@dataclass(frozen=True)
class Outcome:
    """What a committed prediction came to.

    guess: the student's number or option. answer: the right number or option. correct: within tolerance
    (numbers) or the right option (choices). abs_error: guess - answer in the answer's unit (numbers; None
    for choices). rel_error: (guess - answer) / |answer| (None for choices or a zero answer). tolerance:
    the rule used, in words. setting: the setting the question was asked at. html: the feedback shown
    (verdict, answer, error, explanation).
    """

    guess: float | str
    answer: float | str
    correct: bool
    abs_error: float | None
    rel_error: float | None
    tolerance: str
    setting: dict = field(default_factory=dict)
    html: str = ""


def _check_text(name: str, value: object, *, allow_callable: bool = True, empty: bool = True) -> None:
    if allow_callable and callable(value):
        return
    if not isinstance(value, str) or (not empty and not value.strip()):
        kind = "a string or a callable of the setting" if allow_callable else "a string"
        raise ValueError(f"{name}={value!r} is not allowed: must be {kind}{'' if empty else ' (not empty)'}")


class Prediction(abc.ABC):
    """A "predict, then check" question a student answers before a result is shown.

    question: markdown (math allowed) or ``question(setting) -> str``.
    answer: the right answer, or a callable computing it when the student commits: ``answer()``, or
        ``answer(setting)`` when ``setting`` is given (a closed form, or a run at the stated setting).
    explanation: one paragraph of markdown (math allowed) shown with the answer, or a callable like answer.
    setting: the control values the question is asked at (a dict, name -> value), or several of them: the
        first is asked first, and "Try another setting" moves to the next once the current one is
        committed. On commit, every gated ``LivePanel`` is set to the setting's values for the controls it
        has, so what it reveals is what the question asked about.
    title: a few words shown in bold before the question.

    A commit is final for its round (commit again: RuntimeError): the answer has been seen. The state lives
    in the kernel: a new kernel (or Run All, which builds new objects) starts with nothing committed.
    """

    kind = "prediction"

    def __init__(self, question, *, answer, explanation="", setting: Setting | Sequence[Setting] | None = None,
                 title: str = "Predict, then check"):
        _check_text("question", question, empty=False)
        _check_text("explanation", explanation)
        _check_text("title", title, allow_callable=False)
        if setting is None:
            settings: list[dict] = []
        elif isinstance(setting, Mapping):
            settings = [dict(setting)]
        elif isinstance(setting, Sequence) and not isinstance(setting, str) and setting \
                and all(isinstance(s, Mapping) for s in setting):
            settings = [dict(s) for s in setting]
        else:
            raise ValueError(f"setting={setting!r} is not allowed: must be a dict of control values, "
                             "or a non-empty list of such dicts")
        for s in settings:
            bad = [k for k in s if not isinstance(k, str)]
            if bad:
                raise ValueError(f"setting={s!r} is not allowed: its keys must be control names (strings)")
        self.question = question
        self.answer = answer
        self.explanation = explanation
        self.title = title
        self.settings = settings
        self.round = 0
        self.history: list[Outcome] = []
        self._outcome: Outcome | None = None
        self._listeners: list[Callable[[Prediction], None]] = []
        self._panels: list = []  # gated LivePanels: set to the setting on commit
        self._view = None

    # -- state ---------------------------------------------------------------------------------------------
    @property
    def setting(self) -> dict:
        """The setting of the current round ({} if none)."""
        return dict(self.settings[self.round]) if self.settings else {}

    @property
    def committed(self) -> bool:
        """Whether the current round's prediction is committed (and its answer shown)."""
        return self._outcome is not None

    @property
    def outcome(self) -> Outcome | None:
        """The current round's outcome, or None before the commit."""
        return self._outcome

    @property
    def can_try_another(self) -> bool:
        """Whether this round is committed and another setting is left to try."""
        return self.committed and self.round + 1 < len(self.settings)

    def on_change(self, callback: Callable[[Prediction], None]) -> None:
        """Call ``callback(prediction)`` after every commit and every ``try_another``."""
        self._listeners.append(callback)

    def _notify(self) -> None:
        for callback in list(self._listeners):
            callback(self)

    def _call(self, f):
        """Return ``f`` evaluated for this round: ``f(setting)`` if settings are given, else ``f()``; a
        non-callable as it is."""
        if not callable(f):
            return f
        return f(self.setting) if self.settings else f()

    def question_text(self) -> str:
        """The current round's question (markdown)."""
        text = self._call(self.question)
        _check_text("question", text, allow_callable=False, empty=False)
        return text

    def explanation_text(self) -> str:
        """The current round's explanation (markdown)."""
        text = self._call(self.explanation)
        _check_text("explanation", text, allow_callable=False)
        return text

    # -- committing ----------------------------------------------------------------------------------------
    def commit(self, value) -> Outcome:
        """Commit the student's prediction ``value`` for this round; return the outcome (also shown).

        Raises ValueError (naming ``prediction``) for a value of the wrong type or out of range, and
        RuntimeError if this round is already committed. Nothing changes when it raises."""
        if self.committed:
            raise RuntimeError("this prediction is already committed: a commit is final once the answer is shown"
                               + (" (try_another() moves to the next setting)" if self.can_try_another else ""))
        guess = self._check_guess(value)
        for panel in self._panels:  # the revealed panel shows the setting the question was about
            values = {k: v for k, v in self.setting.items() if k in panel.controls}
            if values:
                panel.set(**values)
        answer = self._check_answer(self._call(self.answer))
        outcome = self._score(guess, answer)
        outcome = Outcome(**{**outcome.__dict__, "setting": self.setting,
                             "html": self._feedback_html(outcome)})
        self._outcome = outcome
        self.history.append(outcome)
        self._notify()
        return outcome

    def try_another(self) -> None:
        """Move to the next setting (after this round's commit): the gates close again until it is committed."""
        if not self.can_try_another:
            why = "commit this round first" if not self.committed else "no other setting is left"
            raise RuntimeError(f"cannot try another setting: {why}")
        self.round += 1
        self._outcome = None
        self._notify()

    def reset(self) -> None:
        """Forget every commit and go back to the first setting (for tests and instructors)."""
        self.round = 0
        self._outcome = None
        self.history = []
        self._notify()

    # -- provided by each kind (abstract: a kind that forgets one cannot be built) ------------------------------
    @abc.abstractmethod
    def _check_guess(self, value):
        """Provided by each kind of prediction."""

    @abc.abstractmethod
    def _check_answer(self, value):
        """Provided by each kind of prediction."""

    @abc.abstractmethod
    def _score(self, guess, answer) -> Outcome:
        """Provided by each kind of prediction."""

    @abc.abstractmethod
    def _verdict_html(self, outcome: Outcome) -> str:
        """Provided by each kind of prediction."""

    def answer_html(self) -> str:
        """The answer and its explanation as HTML (the book shows it behind a toggle)."""
        answer = self._check_answer(self._call(self.answer))
        return f"<p><b>Answer:</b> {self._answer_words(answer)}</p>{to_html(self.explanation_text())}"

    @abc.abstractmethod
    def _answer_words(self, answer) -> str:
        """Provided by each kind of prediction."""

    def _feedback_html(self, outcome: Outcome) -> str:
        return (f"<div class='simcore-verdict'>{self._verdict_html(outcome)}</div>"
                f"{to_html(self.explanation_text())}")

    # -- display ---------------------------------------------------------------------------------------------
    @property
    def widget(self):
        """The prediction's widget (built on first use)."""
        if self._view is None:
            from simcore.predict.view import PredictionView

            self._view = PredictionView(self)
        return self._view.widget

    def _repr_mimebundle_(self, **kwargs):
        from simcore import static

        if static.is_static():
            from simcore.predict.static_html import prediction_html

            return {"text/html": prediction_html(self), "text/plain": f"<{type(self).__name__}>"}
        return self.widget._repr_mimebundle_(**kwargs)


class NumberPrediction(Prediction):
    """Predict a number (with a unit); right within ``rel_tol`` of the answer (or ``abs_tol``, whichever
    is wider).

    unit: shown after the entry and the numbers ("ms"; "" for none), or (singular, plural) for a unit that
        is a word: ("transmission time", "transmission times").
    rel_tol: relative tolerance in [0, 10] (0.2: within 20 % of the answer). abs_tol: absolute
    tolerance in the unit, >= 0 (for answers near zero). bounds: (lo, hi), the range a prediction may
    take (a probability: (0, 1)); outside it a commit is refused. digits: significant digits shown.
    """

    kind = "number"

    def __init__(self, question, *, answer, unit: str | tuple[str, str] = "", rel_tol: float = 0.2,
                 abs_tol: float = 0.0,
                 bounds: tuple[float, float] = (-math.inf, math.inf), digits: int = 3, **kwargs):
        super().__init__(question, answer=answer, **kwargs)
        if isinstance(unit, tuple) and len(unit) == 2 and all(isinstance(u, str) for u in unit):
            unit_one, unit = unit
        else:
            _check_text("unit", unit, allow_callable=False)
            unit_one = unit
        check_real("rel_tol", rel_tol, 0.0, 10.0)
        check_real("abs_tol", abs_tol, 0.0)
        if rel_tol == 0 and abs_tol == 0:
            raise ValueError("rel_tol=0 and abs_tol=0 is not allowed: give a tolerance, a prediction is never exact")
        if not (isinstance(bounds, Sequence) and len(bounds) == 2
                and all(isinstance(b, numbers.Real) and not isinstance(b, bool) for b in bounds)
                and bounds[0] < bounds[1]):
            raise ValueError(f"bounds={bounds!r} is not allowed: must be (lo, hi) with lo < hi")
        check_int("digits", digits, 1, 8)
        if not callable(answer):
            self._check_answer(answer)
        self.unit = unit
        self.unit_one = unit_one
        self.rel_tol = float(rel_tol)
        self.abs_tol = float(abs_tol)
        self.bounds = (float(bounds[0]), float(bounds[1]))
        self.digits = digits

    def _check_guess(self, value) -> float:
        lo, hi = self.bounds
        return check_real("prediction", value, lo, hi)

    def _check_answer(self, value) -> float:
        return check_real("answer", value)

    def fmt(self, x: float) -> str:
        """``x`` with the prediction's digits and unit."""
        text = nice_number(x, self.digits)
        unit = self.unit_one if text in ("1", "-1") else self.unit
        return f"{text} {unit}" if unit else text

    def tolerance_text(self, answer: float) -> str:
        """The tolerance rule at ``answer``, in words."""
        parts = []
        if self.rel_tol > 0:
            parts.append(f"&plusmn;{nice_number(100 * self.rel_tol, 2)} %")
        if self.abs_tol > 0:
            parts.append(f"&plusmn;{self.fmt(self.abs_tol)}")
        return "within " + " or ".join(parts) + " of the answer"

    def _score(self, guess: float, answer: float) -> Outcome:
        err = guess - answer
        rel = err / abs(answer) if answer != 0 else None
        allowed = max(self.abs_tol, self.rel_tol * abs(answer))
        return Outcome(guess=guess, answer=answer, correct=abs(err) <= allowed * (1 + 1e-12), abs_error=err,
                       rel_error=rel, tolerance=self.tolerance_text(answer))

    def _answer_words(self, answer: float) -> str:
        return self.fmt(answer)

    def _verdict_html(self, o: Outcome) -> str:
        head = ("<b style='color:#1a7f37'>Close: right within the tolerance.</b>" if o.correct
                else "<b style='color:#b35900'>Not within the tolerance.</b>")
        off = f"off by {'+' if o.abs_error >= 0 else '&minus;'}{self.fmt(abs(o.abs_error))}"
        if o.rel_error is not None:
            off += f" ({'+' if o.rel_error >= 0 else '&minus;'}{nice_number(100 * abs(o.rel_error), 2)} %)"
        ratio = ""
        if o.answer != 0 and o.guess != 0 and (o.guess / o.answer >= 2 or 0 < o.guess / o.answer <= 0.5):
            f = o.guess / o.answer
            ratio = (f", a factor of {nice_number(f, 2)} too high" if f > 1
                     else f", a factor of {nice_number(1 / f, 2)} too low")
        return (f"{head} Your prediction: {html.escape(self.fmt(o.guess))}; the answer: "
                f"<b>{html.escape(self.fmt(o.answer))}</b>; {off}{ratio}. Counted as right {o.tolerance}.")


class ChoicePrediction(Prediction):
    """Predict by picking one of ``choices`` (two or more distinct strings, markdown allowed).

    answer: the right choice (one of ``choices``), or a callable returning it (see ``Prediction``).
    feedback: optional {choice: markdown} shown when that choice is picked (for a wrong choice, the
        misconception it stands for and why it fails; for the right one, what makes it right).
    A commit takes a choice's text or its index (0 for the first).
    """

    kind = "choice"

    def __init__(self, question, *, choices: Sequence[str], answer, feedback: Mapping[str, str] | None = None,
                 **kwargs):
        super().__init__(question, answer=answer, **kwargs)
        if (isinstance(choices, str) or not isinstance(choices, Sequence) or len(choices) < 2
                or not all(isinstance(c, str) and c.strip() for c in choices) or len(set(choices)) != len(choices)):
            raise ValueError(f"choices={choices!r} is not allowed: must be a list of two or more distinct, "
                             "non-empty strings")
        self.choices = list(choices)
        feedback = dict(feedback or {})
        unknown = [k for k in feedback if k not in self.choices]
        if unknown or not all(isinstance(v, str) for v in feedback.values()):
            raise ValueError(f"feedback={feedback!r} is not allowed: keys must be among the choices "
                             f"{self.choices!r}, values markdown strings")
        self.feedback = feedback
        if not callable(answer):
            self._check_answer(answer)

    def _check_guess(self, value) -> str:
        if isinstance(value, numbers.Integral) and not isinstance(value, bool):
            check_int("prediction", value, 0, len(self.choices) - 1)
            return self.choices[int(value)]
        return check_choice("prediction", value, self.choices)

    def _check_answer(self, value) -> str:
        return check_choice("answer", value, self.choices)

    def _score(self, guess: str, answer: str) -> Outcome:
        return Outcome(guess=guess, answer=answer, correct=guess == answer, abs_error=None, rel_error=None,
                       tolerance="the one right choice")

    def _answer_words(self, answer: str) -> str:
        return f"{_letter(self.choices.index(answer))} {to_html(answer, inline=True)}"

    def _verdict_html(self, o: Outcome) -> str:
        head = ("<b style='color:#1a7f37'>Right.</b>" if o.correct
                else f"<b style='color:#b35900'>Not this one.</b> The answer is "
                     f"<b>{self._answer_words(o.answer)}</b>.")
        note = self.feedback.get(o.guess)
        return head + (f" {to_html(note, inline=True)}" if note else "")


def _letter(i: int) -> str:
    return f"({chr(ord('A') + i)})"
