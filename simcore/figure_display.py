"""Showing a static plotly figure in a JupyterLab kernel without plotly's renderer machinery.

A ``go.Figure`` shown in a cell goes through ``plotly.io``'s renderers: the first display imports
``plotly.io._renderers``, which imports ``nbformat`` (hence ``jsonschema``, whose format checkers build
about forty ``lark`` grammars: ~1.1 s) and, in a kernel started by JupyterLab, ``jupyterlab`` itself to check
its version (~1.4 s): 1.3-2.5 s of a chapter's first static figure, before anything after it runs. For
JupyterLab, plotly then picks the ``plotly_mimetype`` renderer, whose whole output is one mimetype bundle:
``{"application/vnd.plotly.v1+json": <the figure as JSON>}``, drawn by the plotly extension JupyterLab ships.

``install()`` (called by ``simcore.plotting`` in a kernel) registers a display function for ``go.Figure``
with IPython (``ipython_display_formatter.for_type``, IPython's own extension point; a ``FigureWidget`` is
no ``go.Figure`` and still shows as a widget) that sends that same bundle directly, in exactly the case
where plotly would pick ``plotly_mimetype``: an ipykernel shell, none of the environments plotly detects
for another renderer, and plotly's renderers not loaded yet. Once they are loaded (a student set
``pio.renderers.default`` or called ``fig.show()``), or in any other front end, the figure is shown by
plotly's own ``_ipython_display_``, unchanged.
"""

from __future__ import annotations

import json
import os
import sys

from simcore import static

MIMETYPE = "application/vnd.plotly.v1+json"
# The environments in which plotly/io/_renderers.py (plotly 5-7) picks a renderer other than
# plotly_mimetype (tests/test_figure_display.py checks this list against the installed plotly's source).
OTHER_RENDERER_ENV = ("PLOTLY_RENDERER", "COLAB_NOTEBOOK_ID", "AZURE_NOTEBOOKS_HOST", "VSCODE_PID", "NTERACT_EXE",
                      "COCALC_PROJECT_ID", "DATABRICKS_RUNTIME_VERSION")
OTHER_RENDERER_PATHS = ("/kaggle/input",)


def plotly_would_pick_mimetype(shell) -> bool:
    """Return True if plotly's default renderer in this process would be ``plotly_mimetype`` (and it has
    not been loaded and possibly changed since)."""
    if "plotly.io._renderers" in sys.modules or static.is_static():
        return False
    if any(os.environ.get(name) for name in OTHER_RENDERER_ENV):
        return False
    if any(os.path.exists(path) for path in OTHER_RENDERER_PATHS):
        return False
    return type(shell).__name__ == "ZMQInteractiveShell" and type(shell).__module__.startswith("ipykernel.")


def mimebundle(fig) -> dict:
    """Return the bundle plotly's ``plotly_mimetype`` renderer would display for ``fig`` (no config set)."""
    import plotly.graph_objects as go
    from plotly.io import to_json

    if not isinstance(fig, go.Figure):
        raise ValueError(f"fig={type(fig).__name__} object is not a figure: must be a plotly go.Figure (or subclass)")
    return {MIMETYPE: json.loads(to_json(fig.to_dict(), validate=False, remove_uids=False))}


def _display(fig) -> None:
    import plotly.graph_objects as go
    from IPython import get_ipython
    from IPython.display import display

    if plotly_would_pick_mimetype(get_ipython()) and type(fig)._ipython_display_ is go.Figure._ipython_display_:
        display(mimebundle(fig), raw=True)
    else:
        fig._ipython_display_()


def install() -> bool:
    """In an ipykernel shell where plotly would render figures as its mimetype, register ``_display`` for
    plotly figures; return whether it was registered (idempotent)."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    if shell is None or not plotly_would_pick_mimetype(shell):
        return False
    register(shell.display_formatter.ipython_display_formatter)
    return True


def register(formatter) -> None:
    """Register ``_display`` with an IPython ``IPythonDisplayFormatter`` for ``go.Figure`` (and subclasses;
    not ``go.FigureWidget``, which is no ``go.Figure`` and displays as a widget)."""
    import plotly.graph_objects as go

    formatter.for_type(go.Figure, _display)
