"""The prediction as widgets: the question, an entry (a number with its unit, or one choice), a commit
button, and the feedback line the answer appears in.

The question and the feedback are ipywidgets ``HTMLMath`` (the page's MathJax typesets them); the entry row
is one small anywidget (``_entry.js``), so a prediction costs the page seven widget models rather than 25,
which matters while Run All draws a chapter's first live plot. It works alike in JupyterLab, Notebook 7 and
Voila. The lab's CSS (``STYLE``) travels inside the widgets themselves as a ``<style>`` element in one
hidden HTML widget per kernel (ipywidgets' HTML widget writes its value as is): no extension needed.
A click never raises into the kernel: a bad entry or a failing answer is shown in the feedback line.
"""

from __future__ import annotations

import html
import re
from pathlib import Path

import anywidget
import ipywidgets as widgets
import traitlets
from ipywidgets.widgets.widget_string import HTMLMathStyle

from simcore.predict.markup import to_html
from simcore.predict.question import nice_number

__all__ = ["PredictionView", "STYLE", "style_widget", "parse_number", "VEIL_TEXT"]

VEIL_TEXT = "Commit a prediction to see the result"

# .simcore-result: the part of a panel (its plots) or of an output that holds the answer;
# .simcore-veiled on it or an ancestor: blurred past reading, greyed, no hover, with a short overlay.
STYLE = f"""
.simcore-prediction {{ border-left: 4px solid #0072B2; padding: 2px 10px 6px 10px; margin: 6px 0;
  background: var(--jp-layout-color2, #f3f6fa); }}
.simcore-prediction .simcore-verdict {{ margin: 4px 0; }}
.simcore-result {{ position: relative; }}
.simcore-veiled .simcore-result > *, .simcore-veiled.simcore-result > * {{
  filter: blur(20px) grayscale(1); opacity: 0.2; pointer-events: none; user-select: none; }}
.simcore-veiled .simcore-result::after, .simcore-veiled.simcore-result::after {{
  content: "{VEIL_TEXT}"; position: absolute; inset: 0; display: flex; align-items: center;
  justify-content: center; font-weight: 600; font-size: 1.1em; color: var(--jp-ui-font-color1, #222);
  pointer-events: auto; cursor: not-allowed; z-index: 2; }}
.simcore-gated-output.simcore-revealed > .simcore-note {{ display: none; }}
.simcore-entry-row {{ display: flex; flex-flow: row wrap; align-items: center; gap: 6px; margin: 2px 0; }}
.simcore-entry-text {{ width: 11em; }}
.simcore-entry-choices {{ display: flex; flex-direction: column; }}
.simcore-entry-choices label {{ white-space: normal; margin: 1px 0; }}
"""

_STYLE_WIDGET: list[widgets.HTML] = []


def style_widget() -> widgets.HTML:
    """Return the hidden widget carrying the lab's prediction CSS: one per kernel, put into every prediction,
    veiled panel and gated output (one model shown in many places: the CSS is in the page wherever one of
    them is, and each further use costs a view, not three more models)."""
    if _STYLE_WIDGET and getattr(_STYLE_WIDGET[0], "comm", None) is not None:
        return _STYLE_WIDGET[0]
    w = widgets.HTML(f"<style>{STYLE}</style>", layout=widgets.Layout(display="none"))
    w.add_class("simcore-style")
    _STYLE_WIDGET[:] = [w]
    return w


_NUMBER = re.compile(r"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


def parse_number(text: str, *units: str) -> float:
    """Return the number a student typed: ``9``, ``10.8``, ``1.2e3``, ``1,200``, ``-3``, ``0,5`` (a decimal
    comma), optionally followed by one of ``units``; raise ValueError saying what to type otherwise."""
    s = str(text).strip().replace("\u2212", "-").replace("\u2009", "").replace("\u202f", "").replace("_", "")
    for unit in sorted((u for u in units if u), key=len, reverse=True):
        if s.lower().endswith(unit.lower()):
            s = s[: -len(unit)].strip()
            break
    unit = units[0] if units else ""
    s = s.replace(" ", "")
    if re.fullmatch(r"[+-]?\d{1,3}(,\d{3})+(\.\d*)?", s):
        s = s.replace(",", "")  # 1,200 or 12,000.5: thousands
    elif s.count(",") == 1 and "." not in s:
        s = s.replace(",", ".")  # 0,5: a decimal comma
    if not _NUMBER.fullmatch(s):
        raise ValueError(f"{text!r} is not a number: type one, e.g. 9, 10.8 or 1.2e3"
                         + (f" (in {unit})" if unit else ""))
    return float(s)


def _plain(text: str) -> bool:
    return not re.search(r"[$`*\\<]", text)


class _EntryRow(anywidget.AnyWidget):
    """The entry row of a prediction as one widget model (front end: ``_entry.js``): the student's number
    (``text``) or choice (``choice``, -1 for none), the commit button and "Try another setting"."""

    _esm = Path(__file__).with_name("_entry.js")
    kind = traitlets.Unicode("number").tag(sync=True)
    labels = traitlets.List(traitlets.Unicode()).tag(sync=True)
    unit = traitlets.Unicode("").tag(sync=True)
    text = traitlets.Unicode("").tag(sync=True)
    choice = traitlets.Int(-1).tag(sync=True)
    disabled = traitlets.Bool(False).tag(sync=True)
    button_text = traitlets.Unicode("Commit prediction").tag(sync=True)
    show_another = traitlets.Bool(False).tag(sync=True)


class PredictionView:
    """The widgets of one ``Prediction`` (``.widget``); kept in step with it through ``on_change``.

    Seven widget models in all (a box, the question and the feedback as ``HTMLMath`` sharing one layout and
    one style, and the entry row, ``_EntryRow``) plus the page's one CSS carrier: every model is a message
    and a view the page builds while Run All is drawing the chapter's first live plot."""

    def __init__(self, pred):
        self.pred = pred
        shared_layout, shared_style = widgets.Layout(), HTMLMathStyle()
        self.heading = widgets.HTMLMath(layout=shared_layout, style=shared_style)
        self.feedback = widgets.HTMLMath(layout=shared_layout, style=shared_style)
        if pred.kind == "number":
            self.row = _EntryRow(kind="number", unit=pred.unit, layout=shared_layout)
        else:
            plain = all(_plain(c) for c in pred.choices)
            labels = [f"({chr(65 + i)}) {c}" if plain else f"({chr(65 + i)})" for i, c in enumerate(pred.choices)]
            self.row = _EntryRow(kind="choice", labels=labels, layout=shared_layout)
            self._choices_html = "" if plain else "<ol type='A'>" + "".join(
                f"<li>{to_html(c, inline=True)}</li>" for c in pred.choices) + "</ol>"
        self.row.on_msg(self._on_msg)
        self.widget = widgets.VBox([style_widget(), self.heading, self.row, self.feedback],
                                   layout=widgets.Layout(width="100%"))
        self.widget.add_class("simcore-prediction")
        pred.on_change(lambda _p: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Show the prediction's current round: its question, and its outcome once committed."""
        p = self.pred
        extra = getattr(self, "_choices_html", "")
        rounds = f" <span style='color:#777'>(setting {p.round + 1} of {len(p.settings)})</span>" \
            if len(p.settings) > 1 else ""
        self.heading.value = (f"<b>{html.escape(p.title)}.</b>{rounds} "
                              f"{to_html(p.question_text(), inline=True)}{extra}")
        done = p.committed
        with self.row.hold_sync():
            self.row.disabled = done
            self.row.button_text = "Committed" if done else "Commit prediction"
            if done:
                self.feedback.value = p.outcome.html
                if p.kind == "number":
                    self.row.text = nice_number(p.outcome.guess, p.digits)
                else:
                    self.row.choice = p.choices.index(p.outcome.guess)
            else:
                self.feedback.value = ""
                self.row.text, self.row.choice = "", -1
            self.row.show_another = bool(p.can_try_another)

    def _error(self, message: str) -> None:
        self.feedback.value = f"<span style='color:#b00020'>{html.escape(message)}</span>"

    def _on_msg(self, _widget, content, _buffers) -> None:
        if not isinstance(content, dict):
            return
        if content.get("event") == "commit":
            if self.pred.kind == "number":
                self.row.text = str(content.get("text", ""))
            else:
                choice = content.get("choice", -1)
                self.row.choice = choice if isinstance(choice, int) else -1
            self.commit()
        elif content.get("event") == "another":
            self.try_another()

    def commit(self) -> None:
        """Commit what the row holds (what the commit button does); a bad entry or a failing answer is shown
        in the feedback line, never raised."""
        p = self.pred
        try:
            if p.kind == "number":
                value = parse_number(self.row.text, p.unit, p.unit_one)
            else:
                if not 0 <= self.row.choice < len(p.choices):
                    raise ValueError("pick one of the choices first")
                value = self.row.choice
            p.commit(value)
        except (ValueError, RuntimeError) as exc:
            self._error(str(exc))
        except Exception as exc:  # the answer's own computation failed: say so, never raise into the kernel
            self._error(f"could not compute the answer: {type(exc).__name__}: {exc}")

    def try_another(self) -> None:
        """Start the next setting (what "Try another setting" does); an error is shown, never raised."""
        try:
            self.pred.try_another()
        except RuntimeError as exc:
            self._error(str(exc))
