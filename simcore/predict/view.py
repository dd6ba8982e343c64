"""The prediction as widgets: the question, an entry (a number with its unit, or one choice), a commit
button, and the feedback line the answer appears in.

Plain ipywidgets 8 (HTMLMath, Text, RadioButtons, Button) and CSS classes, so it works alike in JupyterLab,
Notebook 7 and Voila, and in a page that cannot load any extension's front end. The widgets share one layout
and one style per type across the kernel (sizes and visibility come from CSS classes), so a prediction costs
the page seven or eight widget models rather than 25, which matters while Run All draws a chapter's first
live plot. The lab's CSS (``STYLE``) travels inside the widgets themselves as a ``<style>`` element in one
hidden HTML widget per kernel (ipywidgets' HTML widget writes its value as is): no extension needed.
A click never raises into the kernel: a bad entry or a failing answer is shown in the feedback line.
"""

from __future__ import annotations

import html
import re

import ipywidgets as widgets
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_string import HTMLMathStyle, HTMLStyle, TextStyle

from simcore.predict.markup import to_html
from simcore.predict.question import nice_number
from simcore.shared_models import shared

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
.simcore-prediction {{ width: 100%; }}
.simcore-prediction .widget-radio {{ width: auto; }}
.simcore-prediction .widget-radio-box label {{ white-space: normal; height: auto;
  min-height: var(--jp-widgets-radio-item-height, 24px); }}
.simcore-entry-row {{ flex-flow: row wrap; align-items: center; }}
.simcore-prediction .simcore-entry-text {{ width: 11em; }}
.simcore-prediction .simcore-hidden {{ display: none; }}
"""

_STYLE_WIDGET: list[widgets.HTML] = []


def style_widget() -> widgets.HTML:
    """Return the hidden widget carrying the lab's prediction CSS: one per kernel, put into every prediction,
    veiled panel and gated output (one model shown in many places: the CSS is in the page wherever one of
    them is, and each further use costs a view, not three more models)."""
    if _STYLE_WIDGET and getattr(_STYLE_WIDGET[0], "comm", None) is not None:
        return _STYLE_WIDGET[0]
    w = widgets.HTML(f"<style>{STYLE}</style>", layout=widgets.Layout(display="none"), _dom_classes=("simcore-style",))
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


def _shared(kind: type) -> widgets.Widget:
    """One layout or style model of ``kind`` per kernel (``simcore.shared_models``), for the prediction widgets
    that never change theirs (their sizes and visibility come from ``STYLE``'s CSS classes)."""
    return shared(kind)


class PredictionView:
    """The widgets of one ``Prediction`` (``.widget``); kept in step with it through ``on_change``.

    Core ipywidgets only, so a prediction works in a page that cannot load any extension's front end (a
    prediction that cannot be committed would keep its panel veiled for good). Seven or eight widget models
    (a box, the question, the entry row and its parts, the feedback) plus models shared by the whole kernel:
    one layout, one style per widget type, the CSS carrier. Every model is a message and a view the page
    builds while Run All is drawing the chapter's first live plot."""

    def __init__(self, pred):
        self.pred = pred
        lay = _shared(widgets.Layout)
        self.feedback = widgets.HTMLMath(layout=lay, style=_shared(HTMLMathStyle))
        # (each widget's CSS classes given as it is made: an add_class after it would be one more message, and the
        # page handles a Run All's messages one after another while the chapter's first plot waits)
        self.button = widgets.Button(description="Commit prediction", button_style="primary", layout=lay,
                                     style=_shared(widgets.ButtonStyle),
                                     tooltip="Final for this setting: the answer appears at once",
                                     _dom_classes=("simcore-commit",))
        self.button.on_click(self._on_commit)
        if pred.kind == "number":
            self.entry = widgets.Text(placeholder="your prediction", continuous_update=False, layout=lay,
                                      style=_shared(TextStyle), _dom_classes=("simcore-entry-text",))
            row = [self.entry, widgets.HTML(html.escape(pred.unit), layout=lay, style=_shared(HTMLStyle)),
                   self.button]
        else:
            plain = all(_plain(c) for c in pred.choices)
            labels = [f"({chr(65 + i)}) {c}" if plain else f"({chr(65 + i)})" for i, c in enumerate(pred.choices)]
            self.entry = widgets.RadioButtons(options=list(zip(labels, range(len(labels)), strict=True)),
                                              value=None, layout=lay, style=_shared(DescriptionStyle))
            self._choices_html = "" if plain else "<ol type='A'>" + "".join(
                f"<li>{to_html(c, inline=True)}</li>" for c in pred.choices) + "</ol>"
            row = [self.entry, self.button]
        entry_row = widgets.HBox(row, layout=lay, _dom_classes=("simcore-entry-row",))
        # (made with its text: set afterwards, it would be one more message)
        self.heading = widgets.HTMLMath(value=self._heading_html(), layout=lay, style=_shared(HTMLMathStyle))
        children = [style_widget(), self.heading, entry_row, self.feedback]
        self.another = None
        if len(pred.settings) > 1:  # only then is there another setting to try
            self.another = widgets.Button(description="Try another setting", layout=lay,
                                          style=_shared(widgets.ButtonStyle),
                                          _dom_classes=("simcore-another",) if pred.can_try_another
                                          else ("simcore-another", "simcore-hidden"))
            self.another.on_click(self._on_another)
            children.append(self.another)
        self.widget = widgets.VBox(children, layout=lay, _dom_classes=("simcore-prediction",))
        pred.on_change(lambda _p: self.refresh())
        self.refresh()

    def refresh(self) -> None:
        """Show the prediction's current round: its question, and its outcome once committed."""
        p = self.pred
        done = p.committed
        self.entry.disabled = done
        self.button.disabled = done
        self.button.description = "Committed" if done else "Commit prediction"
        if done:
            self.feedback.value = p.outcome.html
            if p.kind == "number":
                self.entry.value = nice_number(p.outcome.guess, p.digits)
            else:
                self.entry.value = p.choices.index(p.outcome.guess)
        else:
            self.feedback.value = ""
            self.entry.value = "" if p.kind == "number" else None
        if self.another is not None:  # shown by a class: its layout is the shared one
            if p.can_try_another:
                self.another.remove_class("simcore-hidden")
            else:
                self.another.add_class("simcore-hidden")
        # the heading last: each widget's update reaches the page as its own message, so a reader who sees the
        # new round's heading also sees its controls already reset
        self.heading.value = self._heading_html()

    def _heading_html(self) -> str:
        """The current round's question, with its title, its round and, for choices with markup, the choices."""
        p = self.pred
        extra = getattr(self, "_choices_html", "")
        rounds = f" <span style='color:#777'>(setting {p.round + 1} of {len(p.settings)})</span>" \
            if len(p.settings) > 1 else ""
        return f"<b>{html.escape(p.title)}.</b>{rounds} {to_html(p.question_text(), inline=True)}{extra}"

    def _error(self, message: str) -> None:
        self.feedback.value = f"<span style='color:#b00020'>{html.escape(message)}</span>"

    def _on_commit(self, _button) -> None:
        p = self.pred
        try:
            if p.kind == "number":
                value = parse_number(self.entry.value, p.unit, p.unit_one)
            else:
                if self.entry.value is None:
                    raise ValueError("pick one of the choices first")
                value = self.entry.value
            p.commit(value)
        except (ValueError, RuntimeError) as exc:
            self._error(str(exc))
        except Exception as exc:  # the answer's own computation failed: say so, never raise into the kernel
            self._error(f"could not compute the answer: {type(exc).__name__}: {exc}")

    def _on_another(self, _button) -> None:
        try:
            self.pred.try_another()
        except RuntimeError as exc:
            self._error(str(exc))
