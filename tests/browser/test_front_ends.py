"""The live panels in the other front ends a course uses, and where a front end cannot load them.

- The classic Notebook interface (Notebook 7, /notebooks/...) and Voila (/voila/render/..., chapters as apps
  without code, for lecture demos), served by the same Jupyter server as the lab test's: start-here and the
  TCP primer open, run, every panel's plots are drawn (> 0 px tall, no "trace N" legend), and one slider of
  each panel, moved, redraws its plots without an error in the panel, in the page or in the kernel's log.
  Voila's page asks public CDNs for MathJax and Font Awesome; those requests are refused here (nothing leaves
  loopback) and their console errors are the only ones allowed.
  Start-here's panel waits for a prediction (simcore.predict): veiled after Run All, revealed by committing
  it through the widgets, as test_lab.py checks in JupyterLab.
- A front end that cannot load LiveFigure's module (custom widgets off, as in Colab or some VS Code
  versions), played by JupyterLab with anywidget's extension blocked: once the kernel has been quiet for a
  few seconds (SIMCORE_LIVE_FALLBACK_S=3 here), each live plot comes back below its panel as a plain plotly
  figure saying why (before the prediction is committed, only the veil's words), and a slider move redraws it.

Each front end's check is one chapter page; together they cost about a minute and a half, so they live in
this file (a worker of their own under pytest-xdist's loadfile) rather than in test_lab.py.
"""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest

from simcore.live_fallback import NOTE
from simcore.predict.view import VEIL_TEXT

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
_spec = importlib.util.spec_from_file_location("bench_browser", ROOT / "benchmarks" / "bench_browser.py")
lab = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(lab)
_spec = importlib.util.spec_from_file_location("test_lab", Path(__file__).with_name("test_lab.py"))
_lab_test = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_lab_test)

# Voila's lab template links these from public CDNs (the page works without them: math stays TeX source)
CDN = re.compile(r"Failed to load resource: net::ERR_(NAME_NOT_RESOLVED|FAILED|BLOCKED_BY_CLIENT)")
# Notebook 7.6.5's own keyboard-shortcut settings code (with JupyterLab 4.6.6) throws this at times while the
# page loads: seen on a plain `jupyter notebook` (clean home and config, nothing of ours installed) when its
# file browser page is loaded a second time. Not the lab's; allowed in the Notebook 7 pages only.
NOTEBOOK7_OWN = "pageerror: Cannot read properties of undefined (reading 'schema')"


@pytest.fixture(scope="module")
def browser():
    executable = _lab_test._chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=lab.CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


@pytest.fixture(scope="module")
def server(browser, tmp_path_factory):
    # one Jupyter server for the three front ends; the fallback's wait shortened for the blocked-module check
    proc, url, log_path = lab.start_lab(ROOT, tmp_path_factory.mktemp("front-ends"), sys.executable,
                                        env={"SIMCORE_LIVE_FALLBACK_S": "3"})
    yield url, log_path
    lab.stop_lab(proc)


def _loopback_only(page) -> None:
    page.route(re.compile(r"^https?://(?!127\.0\.0\.1[:/]).*"), lambda route: route.abort())


@pytest.mark.parametrize("app", ["notebook", "voila"])
@pytest.mark.parametrize("notebook", ["00_start_here", "00b_tcp_primer"])
def test_live_panels_work_in_notebook7_and_voila(server, browser, app, notebook):
    url, log_path = server
    ARTIFACTS.mkdir(exist_ok=True)
    before = lab._tracebacks(log_path)
    log: dict = {}
    wait = lab.wait_redraw if app == "voila" else None  # Voila's kernel is not watchable from the page
    page = lab.open_app(_Routed(browser), url, app, notebook, log)
    try:
        # as in JupyterLab: a gated panel is veiled after Run All and committing every prediction reveals it
        _lab_test._check_predictions_hold_answers_back(page, notebook)
        panels = lab.find_panels(page)
        assert panels, f"{app}: no live panel (controls + plot) rendered"
        for panel in panels:
            where = f"{app}, {notebook}, panel {panel['title']!r}"
            state = lab.panel_state(page, panel["index"])
            assert state["heights"] and min(state["heights"]) > 0, f"{where}: a plot is 0 px tall: {state}"
            defaults = [n for n in lab.legend_names(page, panel["index"]) if re.fullmatch(r"trace \d+", n)]
            assert not defaults, f"{where}: legend shows plotly's default names {defaults}"
            slider = next((c for c in panel["controls"] if c["kind"] == "slider" and not c["disabled"]), None)
            control = slider or next(c for c in panel["controls"] if not c["disabled"])
            result = lab.move_once(page, control, wait)
            assert result is not None and result["drawn"], f"{where}: moving {control['label']!r} redrew nothing"
            after = lab.panel_state(page, panel["index"])
            assert "Cannot run with these settings" not in after["status"], (where, after["status"])
            assert min(after["heights"]) > 0, f"{where}: a plot is 0 px tall after a move"
        # the page loaded the live figures' module: no plain copy below any panel (one shown while the page was
        # slow would have been emptied by the figures' hello)
        assert not page.evaluate(_FALLBACK_JS, NOTE[:40]), f"{app}: plain plotly copies shown beside live figures"
        page.screenshot(path=str(ARTIFACTS / f"{app}-{notebook}.png"), full_page=False)
        errors = [e for e in log["console_errors"]
                  if not CDN.search(e) and not (app == "notebook" and e == NOTEBOOK7_OWN)]
        assert not errors, errors[:5]
        if app == "notebook":
            assert not lab.kernel_messages(page), lab.kernel_messages(page)[:3]
        assert lab._tracebacks(log_path) == before, log_path.read_text(errors="replace")[-3000:]
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"{app}-{notebook}-failed.png"), full_page=True)
        raise
    finally:
        page.close()


class _Routed:
    """The browser, whose new pages never reach beyond loopback."""

    def __init__(self, browser, block: re.Pattern | None = None):
        self.browser, self.block = browser, block

    def new_page(self, **kwargs):
        page = self.browser.new_page(**kwargs)
        _loopback_only(page)
        if self.block is not None:
            page.route(self.block, lambda route: route.abort())
        return page


# outputs that are a plain plotly plot (JupyterLab's plotly renderer: the output element is the plot; inside the
# panel's output widget) saying why
_FALLBACK_JS = """(note) => Array.from(document.querySelectorAll('.jp-OutputArea-output.js-plotly-plot'))
  .filter(o => o.textContent.includes(note)).map(o => Math.round(o.getBoundingClientRect().height))"""
# the numbers the plain copies show (plotly keeps them on the plot element)
_FALLBACK_DATA_JS = """(note) => JSON.stringify(Array.from(
  document.querySelectorAll('.jp-OutputArea-output.js-plotly-plot'))
  .filter(o => o.textContent.includes(note)).map(o => (o.data || []).map(t => [t.x, t.y])))"""


def test_without_the_live_figures_module_panels_fall_back_to_plain_plotly(server, browser):
    url, log_path = server
    ARTIFACTS.mkdir(exist_ok=True)
    log: dict = {}
    blocked = re.compile(r".*/extensions/anywidget/.*")  # the lab cannot load anywidget's front end at all
    page = lab.open_chapter(_Routed(browser, blocked), url, "00_start_here", log)
    try:
        note = NOTE[:40]  # "This page could not load the live figure" (plotly sets the rest in its own text runs)
        # start-here's panel waits for a prediction: its plain copy holds the answer back too, until the commit
        page.wait_for_function("() => Array.from(document.querySelectorAll('.jp-OutputArea-output')).some(o => "
                               f"o.textContent.includes({VEIL_TEXT!r}) && !o.querySelector('.simcore-prediction'))",
                               timeout=60_000)
        assert not page.evaluate(_FALLBACK_JS, note)
        # the predictions' widget views render after the plain veiled note may have: wait for one to commit
        page.locator(".jp-OutputArea-output .simcore-prediction button", has_text="Commit prediction").first.wait_for(
            timeout=60_000)
        assert lab.commit_predictions(page) > 0
        page.wait_for_function(f"() => ({_FALLBACK_JS})({note!r}).length > 0", timeout=60_000)
        heights = page.evaluate(_FALLBACK_JS, note)
        assert heights and min(heights) > 0, heights
        # the sliders (core widgets) still work: a move redraws the plain copy with the new numbers
        before = page.evaluate(_FALLBACK_DATA_JS, note)
        slider = page.locator(".widget-slider").first
        slider.scroll_into_view_if_needed()
        readout = slider.locator(".widget-readout")
        value = readout.inner_text()
        handle = slider.locator(".noUi-handle").last
        track = slider.locator(".noUi-base").first.bounding_box()
        box = handle.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        page.mouse.move(track["x"] + 0.8 * track["width"], box["y"] + box["height"] / 2, steps=4)
        page.mouse.up()
        assert readout.inner_text() != value
        page.wait_for_function(f"() => ({_FALLBACK_DATA_JS})({note!r}) !== {json.dumps(before)}", timeout=60_000)
        page.screenshot(path=str(ARTIFACTS / "fallback-00_start_here.png"), full_page=False)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / "fallback-00_start_here-failed.png"), full_page=True)
        raise
    finally:
        page.close()
