"""What a live panel shows where the page cannot load ``LiveFigure``'s front end: plain plotly figures.

A ``LiveFigure`` is drawn by its own small JavaScript module (``_livefigure.js``, loaded through anywidget).
Some front ends cannot load such a module: custom widgets are off (Colab without its custom widget manager)
or anywidget is not registered (some VS Code versions: "No version of module anywidget is registered"). The
page then shows an error or nothing where the plot should be. Every figure's module says "hello" to the
kernel as soon as the page has it (``LiveFigure.on_ready``), so the kernel can tell.

``attach(panel)`` (``LivePanel`` calls it when it is displayed) puts an empty ``ipywidgets.Output`` below the
panel (a core widget: it works wherever the sliders do) and waits: once the kernel has run no cell for
``SIMCORE_LIVE_FALLBACK_S`` seconds (default 20; counted from the end of the last cell, so a Run All or
Voila's execution of the whole notebook is never mistaken for a silent page) and no figure has said hello,
the output gets each live figure as a plain plotly figure, in plotly's own bundle for that front end, with a
line under its title saying why (while the panel is veiled, waiting for a prediction, only the veil's
words). From then on every update of the panel redraws them in full (a whole figure
per move, slower than a live figure's patches, but working). The figures are set as the output widget's
state, not printed into it: a message printed from a slider's callback or a timer may not reach the page's
output area (JupyterLab routes them by the request they answer), a widget's state always does. Should a
figure's module say hello after all (a page that was only slow), the output is emptied again.

Outside a kernel with an event loop (plain Python, a static book build) nothing is attached.
"""

from __future__ import annotations

import os

import ipywidgets as widgets
import plotly.graph_objects as go
from IPython.display import display

from simcore import figure_display
from simcore.livefigure import LiveFigure

__all__ = ["attach", "Fallback", "NOTE", "wait_s"]

NOTE = ("This page could not load the live figure's module (custom widgets are off here): a plain plotly copy, "
        "redrawn in full after each move")


def wait_s() -> float:
    """Return the seconds without a cell run after which a silent page gets the plain figures
    (``SIMCORE_LIVE_FALLBACK_S``, default 20)."""
    try:
        return max(0.5, float(os.environ.get("SIMCORE_LIVE_FALLBACK_S", "20")))
    except ValueError:
        return 20.0


def plain_copy(fig: go.Figure) -> go.Figure:
    """Return ``fig`` as a plain ``go.Figure`` (not live) whose title says why it is shown."""
    out = go.Figure(fig.to_dict())
    title = out.layout.title.text or ""
    out.update_layout(title_text=f"{title}<br><sup>{NOTE}</sup>" if title else f"<sup>{NOTE}</sup>")
    return out


class Fallback:
    """The plain copies of one panel's live figures (see the module's docstring)."""

    def __init__(self, panel, shell, loop):
        self.panel = panel
        self.live = [f for f in panel.figures if isinstance(f, LiveFigure)]
        self.output = widgets.Output(layout=widgets.Layout(width="100%"))
        display(self.output)
        self.shown = False
        self.done = False
        self._shell, self._loop, self._timer = shell, loop, None
        for fig in self.live:
            fig.on_ready(self.hide)
        shell.events.register("post_run_cell", self._arm)
        self._arm()

    def _arm(self, *_args) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = self._loop.call_later(wait_s(), self._check)

    def _stop_watching(self) -> None:
        self.done = True
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        try:
            self._shell.events.unregister("post_run_cell", self._arm)
        except ValueError:
            pass

    def _check(self) -> None:
        self._timer = None
        if self.done:
            return
        self._stop_watching()
        if not any(f._ready for f in self.live):
            self.shown = True
            self.redraw()

    def redraw(self) -> None:
        """Show the figures as they are now (the panel calls this after every update)."""
        if self.shown and self.panel.veiled:  # a prediction not committed yet: the copies hold the answer back
            from simcore.predict.view import VEIL_TEXT

            self.output.outputs = ({"output_type": "display_data", "metadata": {},
                                    "data": {"text/plain": VEIL_TEXT,
                                             "text/html": f"<p><i>{VEIL_TEXT}.</i></p>"}},)
        elif self.shown:
            # plotly's own bundle for this front end's renderer (Colab: HTML, VS Code and JupyterLab: plotly's
            # mimetype), or plotly's mimetype where its default renderer is not a mimetype one
            copies = [plain_copy(fig) for fig in self.live]
            self.output.outputs = tuple(
                {"output_type": "display_data", "data": c._repr_mimebundle_() or figure_display.mimebundle(c),
                 "metadata": {}} for c in copies)

    def hide(self) -> None:
        """A figure's module said hello: the page draws live figures after all; empty the plain copies."""
        self._stop_watching()
        if self.shown:
            self.shown = False
            self.output.outputs = ()


def attach(panel) -> Fallback | None:
    """Watch ``panel``'s live figures from below it (in a kernel with an event loop); return the watcher,
    or None where there is nothing to watch."""
    import asyncio

    from IPython import get_ipython

    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    if not any(isinstance(f, LiveFigure) for f in panel.figures):
        return None
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        try:
            loop = asyncio.get_event_loop()
        except RuntimeError:
            return None
    return Fallback(panel, shell, loop)
