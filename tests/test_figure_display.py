"""simcore.figure_display: a static figure shown in JupyterLab without plotly's renderer imports.

The bundle is compared with plotly's own ``plotly_mimetype`` renderer, and the list of environments in
which plotly picks another renderer with the installed plotly's source, so that a plotly release that
changes either shows here."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import plotly
import plotly.graph_objects as go
import pytest

from simcore import figure_display


class _Shell:
    """Stands for a shell class; its name and module are set per test."""


def _shell(name: str, module: str):
    return type(name, (_Shell,), {"__module__": module})()


def _figure() -> go.Figure:
    fig = go.Figure(go.Scatter(x=np.arange(4.0), y=np.array([1.0, np.nan, 3.5, 2.0]), name="a"))
    fig.add_bar(x=["u", "v"], y=np.array([1, 2], np.int64))
    fig.update_layout(title="t", height=300)
    return fig


def test_bundle_is_plotlys_mimetype_renderers():
    import plotly.io as pio

    fig = _figure()
    ours = figure_display.mimebundle(fig)
    theirs = pio.renderers["plotly_mimetype"].to_mimebundle(fig.to_dict())
    assert ours == theirs
    assert list(ours) == ["application/vnd.plotly.v1+json"]


def test_environments_match_plotlys_detection():
    src = (Path(plotly.__file__).parent / "io" / "_renderers.py").read_text()
    detection = src[src.index("# Set default renderer"):]
    env = set(re.findall(r'"(\w+)" in os\.environ', detection)) | set(
        re.findall(r'os\.environ\.get\(\s*"(\w+)"', detection))
    paths = set(re.findall(r'os\.path\.exists\("([^"]+)"\)', detection))
    assert env == set(figure_display.OTHER_RENDERER_ENV)
    assert paths == set(figure_display.OTHER_RENDERER_PATHS)
    # and plotly still picks plotly_mimetype for an ipykernel ZMQInteractiveShell
    assert re.search(r'shell == "ZMQInteractiveShell"\)[\s\S]{0,200}default_renderer = "plotly_mimetype"\n',
                     detection)


@pytest.fixture
def no_renderers(monkeypatch):
    import sys

    for name in figure_display.OTHER_RENDERER_ENV + ("SIMCORE_STATIC",):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.delitem(sys.modules, "plotly.io._renderers", raising=False)
    monkeypatch.setattr(figure_display, "OTHER_RENDERER_PATHS", ())
    return monkeypatch


def test_only_ipykernel_shells_take_the_fast_path(no_renderers):
    assert figure_display.plotly_would_pick_mimetype(_shell("ZMQInteractiveShell", "ipykernel.zmqshell"))
    assert not figure_display.plotly_would_pick_mimetype(_shell("TerminalInteractiveShell", "IPython.terminal"))
    assert not figure_display.plotly_would_pick_mimetype(_shell("ZMQInteractiveShell", "other.zmqshell"))
    assert not figure_display.plotly_would_pick_mimetype(None)


@pytest.mark.parametrize("env", figure_display.OTHER_RENDERER_ENV + ("SIMCORE_STATIC",))
def test_other_environments_keep_plotlys_path(no_renderers, env):
    no_renderers.setenv(env, "1")
    assert not figure_display.plotly_would_pick_mimetype(_shell("ZMQInteractiveShell", "ipykernel.zmqshell"))


def test_loaded_renderers_keep_plotlys_path(no_renderers):
    import sys

    no_renderers.setitem(sys.modules, "plotly.io._renderers", object())
    assert not figure_display.plotly_would_pick_mimetype(_shell("ZMQInteractiveShell", "ipykernel.zmqshell"))


def test_display_sends_the_bundle_or_defers(no_renderers):
    shown = []
    no_renderers.setattr("IPython.display.display", lambda obj, raw=False: shown.append((obj, raw)))
    zmq = _shell("ZMQInteractiveShell", "ipykernel.zmqshell")
    no_renderers.setattr("IPython.get_ipython", lambda: zmq)
    fig = _figure()
    figure_display._display(fig)
    assert shown == [(figure_display.mimebundle(fig), True)]
    deferred = []
    no_renderers.setattr(go.Figure, "_ipython_display_", lambda self: deferred.append(self))
    term = _shell("TerminalInteractiveShell", "IPython.terminal")
    no_renderers.setattr("IPython.get_ipython", lambda: term)
    figure_display._display(fig)
    assert deferred == [fig] and len(shown) == 1


def test_registered_for_figures_not_widgets():
    from IPython.core.formatters import IPythonDisplayFormatter

    formatter = IPythonDisplayFormatter()
    figure_display.register(formatter)
    assert formatter.lookup(_figure()) is figure_display._display
    with pytest.raises(KeyError):  # a FigureWidget still displays as a widget
        formatter.lookup(go.FigureWidget())


def test_a_kernel_shows_a_figure_without_plotlys_renderers():
    """In a real ipykernel, importing simcore.plotting makes a figure cell's output plotly's mimetype bundle,
    and plotly's renderer module (the 1-2.5 s import) is never loaded."""
    import nbformat
    from nbclient import NotebookClient

    nb = nbformat.v4.new_notebook()
    nb.cells = [
        nbformat.v4.new_code_cell("import plotly.graph_objects as go\nimport simcore.plotting\n"
                                  "go.Figure(go.Scatter(y=[1, 3, 2], name='a'))"),
        nbformat.v4.new_code_cell("import sys\nprint('plotly.io._renderers' in sys.modules)"),
    ]
    NotebookClient(nb, timeout=120, kernel_name="python3").execute()
    (shown,) = nb.cells[0].outputs
    assert set(shown["data"]) == {figure_display.MIMETYPE}
    assert shown["data"][figure_display.MIMETYPE]["data"][0]["name"] == "a"
    assert nb.cells[1].outputs[0]["text"].strip() == "False"


def test_mimebundle_refuses_what_is_not_a_figure():
    with pytest.raises(ValueError, match=r"fig=dict object is not a figure: must be a plotly go.Figure"):
        figure_display.mimebundle({"data": []})
