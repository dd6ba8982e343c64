"""Gates: what a prediction holds back until it is committed.

``gate(target, *predictions)`` veils ``target`` until every one of ``predictions`` is committed (for its
current round); ``try_another`` on one of them veils it again. A target is

- a ``LivePanel``: its controls and settings stay usable, its plots are blurred past reading under an
  overlay and its status line (which prints numbers) is replaced by a note, while it keeps redrawing
  underneath (a slider move costs the same, and the reveal is instant); a committed prediction's setting
  is applied to the panel first, so it reveals what the question asked about. In the book the panel's
  snapshot sits behind a toggle.
- a ``GatedOutput`` (``gated_output(render, ...)``): ``render()`` runs when the gate opens and its output
  (a table, a printout, a figure) appears in place; in the book it is rendered at build time behind a toggle.
- any other ipywidget: blurred under the same overlay until the gate opens.
"""

from __future__ import annotations

import hashlib
import html
from collections.abc import Callable

import ipywidgets as widgets
from ipywidgets.widgets.widget_string import HTMLStyle

from simcore import static
from simcore._validate import check_bool
from simcore.predict.markup import to_html
from simcore.predict.question import Prediction
from simcore.predict.static_html import RESULT_SUMMARY, veiled_html
from simcore.predict.view import VEIL_TEXT, style_widget
from simcore.shared_models import shared

__all__ = ["Gate", "GatedOutput", "gate", "gated_output", "held_back_text", "HELD_BACK"]

# What a stored notebook holds for a checked gated output: the answer's fingerprint, never the answer. JupyterLab
# shows a widget output's text/plain when the widget's model is gone (a chapter opened before its cells run),
# and GitHub or nbviewer show it always.
HELD_BACK = "Hidden until you run the cells and commit your prediction above."


def held_back_text(answer_text: str) -> str:
    """Return the ``text/plain`` of a checked gated output: a note and the SHA-256 fingerprint (16 hex digits)
    of ``answer_text``, so nbval still sees any change in the answer while the stored notebook reveals none."""
    digest = hashlib.sha256(answer_text.encode("utf-8")).hexdigest()[:16]
    return f"{HELD_BACK} [answer fingerprint {digest}]"



class Gate:
    """Keeps ``target`` veiled while any of ``predictions`` is uncommitted (see the module docstring)."""

    def __init__(self, target, predictions: tuple[Prediction, ...]):
        if not predictions:
            raise ValueError("predictions=() is not allowed: a gate needs at least one Prediction")
        bad = [p for p in predictions if not isinstance(p, Prediction)]
        if bad:
            raise ValueError(f"predictions={bad!r} is not allowed: must be simcore.predict Prediction objects")
        if not (hasattr(target, "set_veiled") or isinstance(target, widgets.Widget)):
            raise ValueError(f"target={target!r} is not allowed: must be a LivePanel, a GatedOutput or an ipywidget")
        self.target = target
        self.predictions = tuple(predictions)
        if isinstance(target, widgets.Widget) and not hasattr(target, "set_veiled"):
            target.add_class("simcore-result")
        for p in self.predictions:
            if hasattr(target, "controls") and target not in p._panels:
                p._panels.append(target)
            p.on_change(lambda _p: self.update())
        self.update()

    @property
    def open(self) -> bool:
        """Whether every prediction is committed (the target shows its result)."""
        return all(p.committed for p in self.predictions)

    def update(self) -> None:
        """Veil or reveal the target to match the predictions' state."""
        veiled = not self.open
        if hasattr(self.target, "set_veiled"):
            self.target.set_veiled(veiled)
        elif veiled:
            self.target.add_class("simcore-veiled")
        else:
            self.target.remove_class("simcore-veiled")


def gate(target, *predictions: Prediction) -> Gate:
    """Hold ``target`` (a LivePanel, GatedOutput or ipywidget) back until every prediction is committed."""
    return Gate(target, predictions)


class GatedOutput:
    """An output that appears once its gate opens: what ``render()`` displays or prints (a return value that
    is not None is displayed too).

    Live: a widget with a short note until the gate opens, then ``render``'s output. By default ``render``
    runs when the gate opens (each time, after a ``try_another``). ``check=True`` is for a cell nbval checks:
    ``render`` runs at once, the fingerprint of its plain text goes into the cell's ``text/plain``
    (``held_back_text``: nbval compares it, so any change in the answer fails the check, while the stored
    notebook reveals nothing; ``text()`` gives the answer itself), and the gate replays what it captured.
    Book (``SIMCORE_STATIC=1``): ``render``'s output captured at build time, behind a toggle.
    """

    def __init__(self, render: Callable[[], object], *, note: str = VEIL_TEXT, summary: str = RESULT_SUMMARY,
                 check: bool = False):
        if not callable(render):
            raise ValueError(f"render={render!r} is not allowed: must be a callable with no arguments")
        check_bool("check", check)
        self.render = render
        self.summary = summary
        self.check = check
        self.veiled = False
        self.rendered = False
        self._captured = _capture(render) if check else None
        # four widget models and the kernel's shared ones (one layout for the three, the CSS carrier, the
        # note's style): a chapter shows a dozen of these, and Run All builds them while the first plot draws
        layout = shared(widgets.Layout, width="100%")
        self.out = widgets.Output(layout=layout)
        # (CSS classes given as each is made: an add_class afterwards is one more message in the Run All)
        self.note = widgets.HTML(f"<i style='color:#555'>{html.escape(note)}.</i>", layout=layout,
                                 style=_note_style(), _dom_classes=("simcore-note",))
        self.widget = widgets.VBox([style_widget(), self.note, self.out], layout=layout,
                                   _dom_classes=("simcore-gated-output",))

    def set_veiled(self, veiled: bool) -> None:
        """Show the note (veiled) or render the output (revealed)."""
        self.veiled = veiled
        if static.is_static():  # a book build shows static_html(); an Output's clear_output message there
            return              # breaks nbclient (no widget state is kept: KeyError in its output hook)
        if veiled:  # the note shows while veiled (STYLE hides it in a revealed output)
            self.widget.remove_class("simcore-revealed")
        else:
            self.widget.add_class("simcore-revealed")
        self.out.clear_output()
        self.rendered = False
        if not veiled:
            with self.out:
                if self._captured is not None:
                    self._captured.show()
                else:
                    _show(self.render)
            self.rendered = True

    def text(self) -> str:
        """The output as plain text (``check=True``: captured at display; else rendered now)."""
        cap = self._captured or _capture(self.render)
        return cap.stdout + "".join(o.data.get("text/plain", "") for o in cap.outputs)

    def static_html(self) -> str:
        """Return ``render``'s output as HTML behind a toggle (for the book)."""
        cap = self._captured or _capture(self.render)
        parts = []
        if cap.stdout:
            parts.append(f"<pre>{html.escape(cap.stdout)}</pre>")
        for out in cap.outputs:
            data = out.data
            if "text/html" in data:
                parts.append(data["text/html"])
            elif "text/markdown" in data:
                parts.append(to_html(data["text/markdown"]))
            elif "text/plain" in data:
                parts.append(f"<pre>{html.escape(data['text/plain'])}</pre>")
        return veiled_html("\n".join(parts), self.summary)

    def _repr_mimebundle_(self, **kwargs):
        if static.is_static():
            return {"text/html": self.static_html(), "text/plain": "<GatedOutput>"}
        bundle = self.widget._repr_mimebundle_(**kwargs)
        if self.check:  # for nbval: the answer's fingerprint, never the answer (a stored notebook shows it)
            bundle = {**bundle, "text/plain": held_back_text(self.text())}
        return bundle


def _note_style() -> HTMLStyle:
    """The one style model every gated output's note shares (never changed, so one per kernel is enough)."""
    return shared(HTMLStyle)


def _show(render: Callable[[], object]) -> None:
    value = render()
    if value is not None:
        from IPython.display import display

        display(value)


def _capture(render: Callable[[], object]):
    """Run ``render`` and return what it printed and displayed (IPython's CapturedIO: ``show()`` replays it)."""
    from IPython.utils.capture import capture_output

    with capture_output() as cap:
        _show(render)
    return cap


def gated_output(render: Callable[[], object], *predictions: Prediction, note: str = VEIL_TEXT,
                 check: bool = False) -> GatedOutput:
    """Return an output that shows ``render()``'s output once every prediction is committed (``check``: see
    ``GatedOutput``, for a cell nbval checks)."""
    out = GatedOutput(render, note=note, check=check)
    gate(out, *predictions)
    return out
