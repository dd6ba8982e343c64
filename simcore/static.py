"""Static output for the book: with ``SIMCORE_STATIC=1`` set, live panels and figures render as plain HTML.

A live panel is sliders plus live figures (``simcore.livefigure.LiveFigure``, or plotly's ``FigureWidget``):
it needs a running kernel. In a static page (the Jupyter Book build of the chapters) a widget view renders
as nothing: the widget manager's script comes from a CDN, a widget's saved state can carry its own copy of
plotly.js (5 MB for a FigureWidget), and the sliders could not re-run anything anyway. So the book's
execution step (``simcore.book``) sets ``SIMCORE_STATIC=1`` in the kernel's environment, and then:

- ``LivePanel`` displays a snapshot instead of the widget: its title, the control settings it was drawn
  with, each figure as an interactive plotly chart (zoom, hover, legend), and its status line;
- a plain ``go.Figure`` shown in a cell renders through the ``simcore_static`` renderer: the same kind of
  ``<div>``, with no copy of plotly.js inside (the book loads ``plotly.min.js`` once per page).

In JupyterLab (the variable unset) nothing changes: panels are widgets and figures use plotly's renderer.
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
import plotly.io as pio

from simcore._page_plotly import STATIC_ENV_VAR, is_static

__all__ = ["ENV_VAR", "RENDERER", "is_static", "figure_html", "panel_html", "use_static_renderer"]

ENV_VAR = STATIC_ENV_VAR
RENDERER = "simcore_static"
_PLOT_CONFIG = {"displaylogo": False, "responsive": True}


def figure_html(fig: go.Figure | Mapping) -> str:
    """Return ``fig`` as an HTML ``<div>`` + script drawing it with the page's plotly.js (not embedded)."""
    return pio.to_html(fig, include_plotlyjs=False, full_html=False, default_width="100%",
                       config=_PLOT_CONFIG, validate=False)


def _format_value(value) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def panel_html(title: str, settings: Sequence[tuple[str, object]], figures: Sequence[go.Figure],
               status_html: str = "") -> str:
    """Return a live panel's static snapshot: title, the settings it was drawn with, figures, status line.

    settings: (label, value) pairs in display order; status_html is trusted HTML made by the panel itself.
    """
    shown = ", ".join(f"{html.escape(label)} <b>{html.escape(_format_value(value))}</b>" for label, value in settings)
    parts = ["<div class='simcore-static-panel'>"]
    if title:
        parts.append(f"<p><b>{html.escape(title)}</b></p>")
    parts.append(
        "<p style='color:#555'><i>Live panel, shown here as a snapshot at its opening settings "
        f"({shown}). Launch the chapter on Binder (the rocket button at the top) to move the sliders.</i></p>"
    )
    parts += [figure_html(fig) for fig in figures]
    if status_html:
        parts.append(f"<p>{status_html}</p>")
    parts.append("</div>")
    return "\n".join(parts)


def use_static_renderer() -> None:
    """Register the ``simcore_static`` plotly renderer and make it the default."""
    # imported here: plotly's renderers import kaleido (~0.15-0.4 s), which a chapter's first live plot
    # does not need
    from plotly.io.base_renderers import MimetypeRenderer

    class _StaticHtmlRenderer(MimetypeRenderer):
        """plotly renderer for the book: an HTML ``<div>`` only (no plotly.js, no JSON mimetype copy)."""

        def to_mimebundle(self, fig_dict):
            return {"text/html": figure_html(fig_dict)}

    pio.renderers[RENDERER] = _StaticHtmlRenderer()
    pio.renderers.default = RENDERER
