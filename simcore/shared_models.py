"""Layout and style models shared by every widget of a kernel that never changes its own.

Every ipywidgets control or HTML widget creates its own ``Layout`` and style model unless it is given one: each
is a model the page must build (a comm message, a model and a view in the browser) before the widget shows. A
chapter's first live panel and its predictions made ~50-100 such models, and the browser builds them one after
the other while the student waits for the first plot. Widgets whose layout or style never changes after they are
made share one model per kernel per set of values: ``shared(widgets.Layout, width="100%")``.

A shared model must never be changed in place (it would change every widget using it): to change one widget's
layout, give that widget a model of its own (``widget.layout = widgets.Layout(...)``).
"""

from __future__ import annotations

import ipywidgets as widgets

__all__ = ["shared"]

_MODELS: dict[tuple, widgets.Widget] = {}


def shared(kind: type, **traits) -> widgets.Widget:
    """Return this kernel's one model of ``kind`` (a ``Layout`` or style class) with ``traits``; made on first
    use, and again if the one made before was closed."""
    key = (kind.__module__, kind.__qualname__, tuple(sorted(traits.items())))
    w = _MODELS.get(key)
    if w is None or getattr(w, "comm", None) is None:
        w = _MODELS[key] = kind(**traits)
    return w
