"""A panel whose page never loads the live figures' module gets plain plotly copies below it, after a quiet spell
of the kernel, redrawn on every move; a page that does load it (a hello) never sees them, or sees them go.

The kernel is stood in for: the event loop's timer is called by hand, the IPython events are a small
registry, and the output widget below the panel is read directly (the real display path is in
tests/browser/test_front_ends.py, where the module is blocked in a real JupyterLab).
"""

from __future__ import annotations

import json

import pytest

import simcore.live_fallback as fb
from simcore.livefigure import LiveFigure
from simcore.plotting import LivePanel, float_slider


class _Loop:
    def __init__(self):
        self.timers = []

    def call_later(self, delay, func):
        timer = _Timer(delay, func)
        self.timers.append(timer)
        return timer

    def fire(self):
        live = [t for t in self.timers if not t.cancelled]
        assert len(live) == 1, "exactly one timer armed"
        self.timers = []
        live[0].func()


class _Timer:
    def __init__(self, delay, func):
        self.delay, self.func, self.cancelled = delay, func, False

    def cancel(self):
        self.cancelled = True


class _Events:
    def __init__(self):
        self.callbacks = {}

    def register(self, name, cb):
        self.callbacks.setdefault(name, []).append(cb)

    def unregister(self, name, cb):
        self.callbacks[name].remove(cb)

    def trigger(self, name):
        for cb in list(self.callbacks.get(name, [])):
            cb(None)


class _Shell:
    def __init__(self):
        self.events = _Events()


@pytest.fixture
def panel_and_outputs(monkeypatch):
    shown = []
    monkeypatch.setattr(fb, "display", lambda obj: shown.append(obj))  # the panel's output widget, below it
    fig = LiveFigure()
    fig.add_scatter(x=[0, 1], y=[0, 1], name="delay")
    fig.update_layout(title_text="Delay")
    slider = float_slider("load", 0.5, 0.1, 0.9, 0.1)
    panel = LivePanel({"load": slider}, lambda v: fig.data[0].update(y=[0, v["load"]]) and None, [fig])
    loop, shell = _Loop(), _Shell()
    panel._fallback = fb.Fallback(panel, shell, loop)
    assert shown == [panel._fallback.output]
    return panel, fig, panel._fallback.output, loop, shell


def _y(output):
    (shown,) = output.outputs
    assert shown["output_type"] == "display_data"
    fig = json.loads(json.dumps(shown["data"]["application/vnd.plotly.v1+json"]))
    return fig["data"][0]["y"], fig["layout"]["title"]["text"]


def test_a_silent_page_gets_plain_copies_that_follow_the_sliders(panel_and_outputs):
    panel, fig, output, loop, shell = panel_and_outputs
    assert output.outputs == ()  # an empty output widget below the panel, nothing in it yet
    assert loop.timers[0].delay == fb.wait_s() == 20.0
    shell.events.trigger("post_run_cell")  # a cell ran since: the quiet spell starts again
    assert sum(not t.cancelled for t in loop.timers) == 1
    loop.fire()  # quiet, and no hello: the plain copy, saying why
    y, title = _y(output)
    assert y == [0, 0.5] and title.startswith("Delay<br><sup>") and fb.NOTE in title
    assert shell.events.callbacks["post_run_cell"] == []  # no longer watching the cells
    panel.set(load=0.8)
    assert _y(output)[0] == [0, 0.8]  # redrawn with the move
    fig.widget.send = lambda *a, **k: None
    fig._on_msg(None, {"type": "hello"}, [])  # the module loaded after all (a slow page)
    assert output.outputs == ()
    panel.set(load=0.3)
    assert output.outputs == ()  # live figures again: the copies stay away


def test_a_page_that_loads_the_module_never_sees_the_copies(panel_and_outputs):
    panel, fig, output, loop, shell = panel_and_outputs
    fig.widget.send = lambda *a, **k: None
    fig._on_msg(None, {"type": "hello"}, [])
    assert all(t.cancelled for t in loop.timers) and shell.events.callbacks["post_run_cell"] == []
    panel.set(load=0.7)
    assert output.outputs == ()


def test_the_wait_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("SIMCORE_LIVE_FALLBACK_S", "3")
    assert fb.wait_s() == 3.0
    monkeypatch.setenv("SIMCORE_LIVE_FALLBACK_S", "soon")
    assert fb.wait_s() == 20.0
    monkeypatch.setenv("SIMCORE_LIVE_FALLBACK_S", "0")
    assert fb.wait_s() == 0.5


def test_nothing_is_attached_outside_a_kernel():
    fig = LiveFigure()
    panel = LivePanel({"load": float_slider("load", 0.5, 0.1, 0.9, 0.1)}, lambda v: None, [fig])
    assert fb.attach(panel) is None


def test_plain_copy_without_a_title_still_says_why():
    fig = LiveFigure()
    fig.add_bar(x=[1], y=[2])
    copy = fb.plain_copy(fig)
    assert not isinstance(copy, LiveFigure) and fb.NOTE in copy.layout.title.text
    assert fig.layout.title.text is None  # the live figure itself is untouched


def test_plain_copies_hold_the_answer_back_while_the_panel_is_veiled(panel_and_outputs):
    panel, fig, output, loop, shell = panel_and_outputs
    from simcore.predict.view import VEIL_TEXT

    panel.set_veiled(True)
    loop.fire()
    (shown,) = output.outputs
    assert shown["data"]["text/plain"] == VEIL_TEXT and "application/vnd.plotly.v1+json" not in shown["data"]
    panel.set(load=0.8)
    assert "application/vnd.plotly.v1+json" not in output.outputs[0]["data"]  # moves redraw nothing visible
    panel.set_veiled(False)  # committed: the copy appears, at the current setting
    assert _y(output)[0] == [0, 0.8]
