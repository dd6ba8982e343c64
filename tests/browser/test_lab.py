"""Drive the real lab: JupyterLab on loopback, headless Chromium (Debian's), Playwright's Python API.

For each chapter listed in CHAPTERS: open the notebook, run all cells, drag the first slider, and check
that the live plot changed and that no cell shows an error. A screenshot of each is kept in
``test-artifacts/``. Under CI (CI=true) a missing browser is a failure, never a skip.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

pytestmark = pytest.mark.browser

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = ROOT / "test-artifacts"
CHAPTERS = ["00_start_here.ipynb", "00b_tcp_primer.ipynb", "01_admission_control.ipynb", "04_delay_model.ipynb"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]


def _chromium() -> str:
    for name in ("chromium", "chromium-browser"):
        path = shutil.which(name)
        if path:
            return path
    if os.environ.get("CI") == "true":
        pytest.fail("Chromium is missing under CI: `make test` installs Debian's chromium")
    pytest.skip("Chromium not installed (make chromium installs it on Debian/Ubuntu)")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def lab_url(tmp_path_factory):
    # Serve a copy of labs/: JupyterLab saves notebooks it runs, and the stored ones must stay as they are.
    served = tmp_path_factory.mktemp("served")
    shutil.copytree(ROOT / "labs", served / "labs")
    settings = tmp_path_factory.mktemp("lab-settings")
    tracker = settings / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    # Off-screen cells must stay in the page (JupyterLab 4 virtualises notebooks by default).
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "defer"}))
    notes = settings / "@jupyterlab" / "apputils-extension"
    notes.mkdir(parents=True)  # no "get news?" pop-up over the page (and no network calls for it)
    (notes / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    docs = settings / "@jupyterlab" / "docmanager-extension"
    docs.mkdir(parents=True)
    (docs / "plugin.jupyterlab-settings").write_text(json.dumps({"autosave": False}))
    port = _free_port()
    log = (tmp_path_factory.mktemp("lab-log") / "lab.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1",
         f"--ServerApp.port={port}", "--ServerApp.token=", "--ServerApp.password=",
         f"--ServerApp.root_dir={served}", f"--LabApp.user_settings_dir={settings}",
         f"--LabApp.workspaces_dir={tmp_path_factory.mktemp('ws')}", "--allow-root"],
        stdout=log, stderr=subprocess.STDOUT, cwd=served,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 90
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"JupyterLab did not start (exit {proc.poll()})")
            time.sleep(0.5)
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="module")
def browser():
    executable = _chromium()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=executable, args=CHROMIUM_FLAGS, headless=True)
        yield b
        b.close()


_PLOT_STATE = """() => Array.from(document.querySelectorAll('.js-plotly-plot')).map(
    el => JSON.stringify((el.data || []).map(t => [t.x, t.y])))"""


def _wait_kernel_idle(page, timeout_s: float):
    """Wait until the status bar shows the kernel connected and idle."""
    page.locator(".jp-StatusBar-TextItem", has_text="Idle").first.wait_for(timeout=timeout_s * 1000)


def _accept_kernel_dialog(page, wait_s: float = 5.0):
    """If JupyterLab asks which kernel to start (it may under load), accept its default (Python 3)."""
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    deadline = time.monotonic() + wait_s
    while time.monotonic() < deadline:
        if dialog.count():
            dialog.locator("button", has_text="Select").last.click()
            return
        time.sleep(0.25)


def _run_all(page):
    """Run all cells from the Run menu; retry once if the kernel ignored the first request."""
    for _attempt in range(2):
        page.locator(".lm-MenuBar-itemLabel", has_text="Run").first.click()
        page.locator(".lm-Menu-itemLabel", has_text="Run All Cells").first.click()
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if page.locator(".jp-InputPrompt", has_text="[*]").count() or page.locator(
                    ".jp-InputPrompt", has_text="[1]").count():
                return
            time.sleep(0.5)
    raise AssertionError("Run All Cells did not start the cells")


def _wait_idle(page, timeout_s: float):
    """Wait until no cell is queued or running ('[*]') and the kernel reports idle."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        busy = page.locator(".jp-InputPrompt", has_text="[*]").count()
        idle = page.locator(".jp-Notebook-ExecutionIndicator[data-status='idle']").count()
        if busy == 0 and idle > 0:
            return
        time.sleep(0.5)
    raise AssertionError("notebook did not finish running")


CAPTURE_CHAPTERS = ("00b_tcp_primer.ipynb", "04_delay_model.ipynb")


def _save_capture(page):
    """Click the panel's "save this run as a capture" button; its link must download a pcapng file."""
    page.locator("button", has_text="Save this run as a capture").first.click()
    link = page.locator("a[download][href*='/files/'][href*='.pcapng']").first
    link.wait_for(timeout=60_000)
    href = link.get_attribute("href")
    # the notebook resolved it to the file beside it, e.g. .../files/labs/captures/<run>.pcapng?_xsrf=...
    body = page.request.get(href).body()
    assert body[:4] == bytes.fromhex("0a0d0d0a") and len(body) > 1000  # a pcapng Section Header Block


@pytest.mark.parametrize("notebook", CHAPTERS)
def test_chapter_runs_and_slider_redraws(lab_url, browser, notebook):
    ARTIFACTS.mkdir(exist_ok=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    # ?reset: a fresh workspace, so tabs from the previous chapter are not restored beside this one.
    page.goto(f"{lab_url}/lab/tree/labs/{notebook}?reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook", timeout=90_000)
    _accept_kernel_dialog(page)
    _wait_kernel_idle(page, 120)
    _run_all(page)
    try:
        page.wait_for_selector(".js-plotly-plot", timeout=180_000, state="attached")
        _wait_idle(page, 240)
    except Exception:
        page.screenshot(path=str(ARTIFACTS / f"{Path(notebook).stem}-failed.png"), full_page=True)
        raise
    before = page.evaluate(_PLOT_STATE)
    assert before and any(before), "no plot data rendered"

    handle = page.locator(".widget-slider .noUi-handle, .jupyter-widgets.widget-slider .noUi-handle").first
    handle.scroll_into_view_if_needed()
    box = handle.bounding_box()
    assert box, "slider handle not visible"
    page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    page.mouse.down()
    page.mouse.move(box["x"] + box["width"] / 2 + 120, box["y"] + box["height"] / 2, steps=8)
    page.mouse.up()

    deadline = time.monotonic() + 60
    after = before
    while time.monotonic() < deadline and after == before:
        time.sleep(0.5)
        after = page.evaluate(_PLOT_STATE)
    page.screenshot(path=str(ARTIFACTS / f"{Path(notebook).stem}.png"), full_page=False)
    assert after != before, "dragging the slider did not change the plot"

    if notebook in CAPTURE_CHAPTERS:
        _save_capture(page)

    errors = page.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
    texts = [errors.nth(i).inner_text() for i in range(errors.count())]
    assert not [t for t in texts if "Error" in t or "Traceback" in t], texts
    assert page.locator("text=Cannot run with these settings").count() == 0
    page.close()
