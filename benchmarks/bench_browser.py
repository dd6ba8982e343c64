"""What a student waits for in the browser: every live panel of every chapter, driven in JupyterLab.

JupyterLab runs on loopback (no token) from a copy of a checkout's ``labs/``; Playwright drives Debian's
Chromium (headless) at 1400 x 1000 px. For each chapter: open it, run all cells, then move every control of
every live panel (an output holding both controls and a plotly plot): each slider is dragged with the mouse
to K positions across its range (default 15, ``--quick`` 4) in a fixed shuffled order, each dropdown set to
up to K of its options, each checkbox toggled; after a control's moves its start value is restored. Predictions that
veil a panel (``simcore.predict``) are committed first, as a student would (``--veiled``: move under the veil).

Per move, in the page's own clock: from the input event (pointerup / change) until the panel's plots have
stopped changing (last DOM mutation inside a ``.js-plotly-plot``) and the kernel is idle again (last
busy -> idle transition, nothing for ``QUIET_MS`` after). Reported per panel: p50, p95, max; the Python
side (the panel's grey "(re-ran in N ms)" / "Python N ms" note) p50; kernel exceptions (tracebacks the
kernel writes to its log, where widget-message handlers' errors land) during the moves; console errors
(console.error + uncaught page errors) over the whole chapter; bytes the page received over the
websockets until the chapter had run; time from opening the chapter to its first live plot (> 0 px tall).

"First live plot" is timed two ways, printed side by side, with the steps in between (notebook shown,
kernel idle, each cell of Run All, the panel's controls shown, plotly.js ready, plot drawn):
- fresh page: the clock starts when a new page navigates to the notebook's URL (JupyterLab's whole app load
  and a kernel start included: a student following a Binder link, or ``make lab`` opening start-here) and
  stops when the first output holding both controls and a plotly plot shows that plot (> 0 px tall);
- running lab (the usual case in a class: the lab is open, the student opens the next chapter from the file
  browser): one page loads JupyterLab once, then each chapter is opened with ``docmanager:open`` (its
  kernel starts), timed from that command to its first live plot, then closed with its kernel shut down.
"Run all cells" is issued as soon as the notebook's kernel is connected and idle, as a student clicking Run
All at once would (a "Select Kernel" dialog, if one appears, is accepted first). The numba cache is warm
(``python -m simcore warm`` runs first unless ``--no-warm``). ``--first-plot-only`` skips the moves.

Reusable on any checkout: ``--checkout PATH`` serves PATH/labs with PATH/.venv's Python as the kernel.
Usage: ``.venv/bin/python benchmarks/bench_browser.py [--quick] [--chapters 00_start_here ...]
[--json out.json]``. Numbers are wall-clock on a shared machine: report medians and the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHAPTERS = ["00_start_here", "00b_tcp_primer", "01_admission_control", "04_delay_model"]
CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                  "--disable-background-networking", "--disable-component-update", "--disable-sync",
                  "--disable-dev-shm-usage"]
QUIET_MS = 400  # a move is over when neither the plots nor the kernel did anything for this long
MOVE_TIMEOUT_S = 60.0

# Installed in every page before JupyterLab loads: timestamps of input events and of plot mutations.
_INIT_JS = """
window.__bench = {t0: 0, lastPlotMut: 0, firstLivePlot: 0, kstat: [], kerr: [], hooked: false,
                  phase: {}, cells: []};
// page-clock times of the steps to the first live plot (notebook shown, panel's widgets shown, plotly.js
// ready in the page); `cells` (filled by the kernel hook): [t, 'start' | 'done', execution count]
const __mark = (k) => { if (!window.__bench.phase[k]) window.__bench.phase[k] = performance.now(); };
for (const type of ['pointerup', 'change']) {
  document.addEventListener(type, () => { window.__bench.t0 = performance.now(); }, true);
}
new MutationObserver(muts => {
  for (const m of muts) {
    const el = m.target.nodeType === 1 ? m.target : m.target.parentElement;
    if (el && el.closest && el.closest('.js-plotly-plot')) { window.__bench.lastPlotMut = performance.now(); return; }
  }
}).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
setInterval(() => {
  if (window.__bench.firstLivePlot) return;
  if (document.querySelector('.jp-Notebook .jp-Cell')) __mark('notebook');
  if (document.querySelector('.jp-OutputArea-output .widget-slider')) __mark('widgets');
  const live = globalThis.__simcoreLive;
  if (live && live.plotly && !window.__bench.phase.plotlyHooked) {
    window.__bench.phase.plotlyHooked = 1; live.plotly.then(() => __mark('plotly'));
  }
  let drawn = 0;  // static plots (outputs without controls) drawn so far: the page draws them in order
  for (const el of document.querySelectorAll('.js-plotly-plot')) {  // a static plot is its output element
    const out = el.closest('.jp-OutputArea-output');
    if (!out) continue;
    const shown = el.getBoundingClientRect().height > 0 && el.querySelector('.main-svg');
    if (out.querySelector('.widget-slider, .widget-dropdown')) {
      if (shown) { window.__bench.firstLivePlot = performance.now(); return; }
    } else if (shown) drawn++;
  }
  const st = window.__bench.staticPlots || (window.__bench.staticPlots = []);
  while (st.length < drawn) st.push(performance.now());
}, 50);
"""

# Hook the notebook's kernel status (JupyterLab started with --LabApp.expose_app_in_browser=True).
_HOOK_KERNEL_JS = """() => {
  const b = window.__bench; if (b.hooked) return true;
  const w = window.jupyterapp && window.jupyterapp.shell.currentWidget;
  const k = w && w.sessionContext && w.sessionContext.session && w.sessionContext.session.kernel;
  if (!k) return false;
  k.statusChanged.connect((_, s) => b.kstat.push([performance.now(), s]));
  // stderr / errors caused by widget messages (not by a cell): where a failing comm handler's
  // traceback goes (JupyterLab shows it only in the log console). Counted from Run All on: before it,
  // a fresh kernel without ipywidgets imported answers the widget manager's state request with
  // "No such comm target registered: jupyter.widget.control" / "No such comm: ..." (harmless, every time).
  // Under load the widget manager's request can reach the kernel after Run All started, so those two
  // notices (the kernel dropping a message to a comm it does not hold, whichever message it was: the
  // fresh-clone check once saw one whose parent was not comm_open or comm_msg) are never counted.
  k.iopubMessage.connect((_, m) => {
    const t = m.header.msg_type, parent = (m.parent_header || {}).msg_type;
    const pid = (m.parent_header || {}).msg_id;
    if (t === 'execute_input') b.cells.push([performance.now(), 'start', pid, m.content.code.slice(0, 40)]);
    if (t === 'status' && parent === 'execute_request' && m.content.execution_state === 'idle')
      b.cells.push([performance.now(), 'done', pid, '']);
    if (parent === 'execute_request' || !b.running) return;
    if (t === 'stream' && /^No such comm( target registered)?:/.test(m.content.text)) return;
    if (t === 'error' || (t === 'stream' && m.content.name === 'stderr'))
      b.kerr.push(t === 'error' ? `${m.content.ename}: ${m.content.evalue}` : m.content.text.slice(0, 2000));
  });
  b.kstat.push([performance.now(), k.status]); b.hooked = true; return true;
}"""

# Mark live panels (outputs holding controls and a plot) and their controls; return their descriptions.
_FIND_PANELS_JS = """() => {
  const panels = [];
  for (const out of document.querySelectorAll('.jp-OutputArea-output')) {
    if (!out.querySelector('.js-plotly-plot')) continue;
    const ctls = out.querySelectorAll('.widget-slider, .widget-dropdown, .widget-checkbox');
    if (!ctls.length) continue;
    const p = panels.length; out.dataset.benchPanel = p;
    const title = (out.querySelector('.widget-html b') || {}).textContent || `panel ${p}`;
    const controls = [];
    ctls.forEach((c, j) => {
      c.dataset.benchCtl = `${p}-${j}`;
      const kind = c.classList.contains('widget-dropdown') ? 'dropdown'
        : c.classList.contains('widget-checkbox') ? 'checkbox' : 'slider';
      const label = (c.querySelector('.widget-label') || c).textContent.trim();
      const sel = c.querySelector('select');
      const disabled = !!c.querySelector(':disabled') || c.querySelector('.noUi-target[disabled]') !== null;
      controls.push({id: `${p}-${j}`, kind, label, disabled, options: sel ? sel.options.length : 0,
                     range: c.querySelectorAll('.noUi-handle').length > 1});
    });
    panels.push({index: p, title, controls});
  }
  return panels;
}"""

_PANEL_STATE_JS = """(p) => {
  const out = document.querySelector(`[data-bench-panel="${p}"]`);
  const plots = Array.from(out.querySelectorAll('.js-plotly-plot'));
  const html = Array.from(out.querySelectorAll('.widget-html')).map(e => e.textContent).join(' ');
  return {heights: plots.map(e => Math.round(e.getBoundingClientRect().height)), status: html,
          width: Math.round(out.getBoundingClientRect().width),
          overflow: Math.max(0, ...Array.from(out.querySelectorAll('.widget-slider, .widget-dropdown'))
              .map(e => Math.round(e.getBoundingClientRect().right - out.getBoundingClientRect().right)))};
}"""

_READ_JS = """(id) => {
  const c = document.querySelector(`[data-bench-ctl="${id}"]`);
  const r = c.querySelector('.widget-readout'); const s = c.querySelector('select');
  const i = c.querySelector('input[type=checkbox]');
  return r ? r.textContent : s ? String(s.selectedIndex) : i ? String(i.checked) : '';
}"""

_SNAPSHOT_JS = "() => ({now: performance.now(), t0: window.__bench.t0, mut: window.__bench.lastPlotMut, " \
               "kstat: window.__bench.kstat.slice(-50)})"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_settings(settings: Path) -> None:
    def put(plugin: str, name: str, value: dict) -> None:
        d = settings / "@jupyterlab" / plugin
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{name}.jupyterlab-settings").write_text(json.dumps(value))

    put("notebook-extension", "tracker", {"windowingMode": "defer"})  # keep off-screen cells in the page
    put("apputils-extension", "notification", {"fetchNews": "false", "checkForUpdates": False})
    put("docmanager-extension", "plugin", {"autosave": False})


def _env(checkout: Path, python: str) -> dict:
    """Environment of the lab and kernel: numba's cache in the checkout (as `make lab` sets it); a checkout
    without its own .venv is put first on PYTHONPATH so its simcore is the one imported."""
    env = dict(os.environ)
    # as on a student's machine, Binder or a hub: Python keeps the bytecode it compiles (a sandbox's
    # PYTHONDONTWRITEBYTECODE would make every kernel compile simcore's sources again, ~0.3 s a chapter)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.setdefault("NUMBA_CACHE_DIR", str(checkout / ".numba_cache"))
    if not str(python).startswith(str(checkout)):
        env["PYTHONPATH"] = os.pathsep.join([str(checkout), env.get("PYTHONPATH", "")]).rstrip(os.pathsep)
    return env


MEASURE_CPU = False  # --cpu: CPU seconds to the first live plot (Chromium's Performance domain, /proc)
_SERVER_PIDS: list[int] = []  # the JupyterLab servers this process started (their kernels are their children)


def _cpu_s(pid: int) -> float:
    """Return the CPU seconds (user + system) process ``pid`` has used, 0 if it is gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return 0.0


def _children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def lab_cpu_s() -> dict:
    """CPU seconds used so far by the servers this process started and by their kernels (Linux /proc)."""
    kernels = [c for s in _SERVER_PIDS for c in _children(s)]
    return {"server": sum(_cpu_s(s) for s in _SERVER_PIDS), "kernel": sum(_cpu_s(k) for k in kernels)}


def start_lab(checkout: Path, workdir: Path, python: str,
              env: dict | None = None) -> tuple[subprocess.Popen, str, Path]:
    """Start JupyterLab on loopback serving a copy of ``checkout/labs`` (and data/); return (process, url,
    log path). The log holds the kernel's stderr, where exceptions in widget-message handlers land. The same
    server serves the classic Notebook interface (Notebook 7, /notebooks/...) and Voila (/voila/render/...).
    ``env``: variables to add to the server's (and so the kernels') environment."""
    served = workdir / "served"
    shutil.copytree(checkout / "labs", served / "labs")
    if (checkout / "data").is_dir():
        shutil.copytree(checkout / "data", served / "data")
    settings = workdir / "settings"
    _write_settings(settings)
    port = _free_port()
    log_path = workdir / "lab.log"
    env = {**_env(checkout, python), **(env or {})}
    proc = subprocess.Popen(
        [python, "-m", "jupyter", "lab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}",
         "--ServerApp.token=", "--ServerApp.password=", f"--ServerApp.root_dir={served}",
         f"--LabApp.user_settings_dir={settings}", f"--LabApp.workspaces_dir={workdir / 'ws'}",
         "--LabApp.expose_app_in_browser=True", "--JupyterNotebookApp.expose_app_in_browser=True",
         "--ServerApp.disable_check_xsrf=True", "--allow-root"],
        stdout=log_path.open("w"), stderr=subprocess.STDOUT, cwd=served, env=env)
    _SERVER_PIDS.append(proc.pid)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 120
    while True:
        try:
            urllib.request.urlopen(f"{url}/api/status", timeout=2)
            return proc, url, log_path
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                raise RuntimeError(f"JupyterLab did not start; see {log_path}") from None
            time.sleep(0.5)


def shutdown_sessions(url: str) -> None:
    """Shut down every session (and its kernel) of the lab at ``url``: a page closed by the benchmark leaves
    its notebook's kernel running, and opening that notebook again would reuse it, imports done."""
    with urllib.request.urlopen(f"{url}/api/sessions", timeout=10) as r:
        sessions = json.load(r)
    for s in sessions:
        req = urllib.request.Request(f"{url}/api/sessions/{s['id']}", method="DELETE")
        urllib.request.urlopen(req, timeout=30).close()


def stop_lab(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()


def _tracebacks(log_path: Path, page=None) -> int:
    """Count tracebacks in the server's log (the kernel's stderr) and, with ``page``, in the stderr /
    error messages widget messages caused in the kernel."""
    n = log_path.read_text(errors="replace").count("Traceback (most recent call last)")
    if page is not None:
        n += sum(("Traceback" in t or "Error" in t) for t in page.evaluate("() => window.__bench.kerr"))
    return n


def _kernel_settled(snap: dict, t0: float, quiet_ms: float) -> float | None:
    """Return the time the move was over (ms, page clock) or None if it is not over yet."""
    kstat = [(t, s) for t, s in snap["kstat"]]
    if not kstat or kstat[-1][1] != "idle":
        return None
    busy_after = [t for t, s in kstat if t >= t0 and s == "busy"]
    if not busy_after:  # the kernel has not even started on the move yet
        return None if snap["now"] - t0 < 5000 else t0
    idle_at = kstat[-1][0]
    done = max(idle_at, snap["mut"] if snap["mut"] >= t0 else t0)
    return done if snap["now"] - done >= quiet_ms else None


def wait_move(page, since_ms: float, quiet_ms: float = QUIET_MS, timeout_s: float = MOVE_TIMEOUT_S) -> dict:
    """Wait until a move made after ``since_ms`` (page clock) is over: return {'t0', 'done', 'drawn'}."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        snap = page.evaluate(_SNAPSHOT_JS)
        t0 = snap["t0"] if snap["t0"] >= since_ms else None
        if t0 is not None:
            done = _kernel_settled(snap, t0, quiet_ms)
            if done is not None:
                return {"t0": t0, "done": done, "drawn": snap["mut"] >= t0}
        time.sleep(0.05)
    raise TimeoutError("a move did not settle")


def wait_redraw(page, since_ms: float, quiet_ms: float = QUIET_MS, timeout_s: float = MOVE_TIMEOUT_S) -> dict:
    """Wait until a move made after ``since_ms`` (page clock) has redrawn the plots and they have been quiet
    for ``quiet_ms``, for pages whose kernel this page cannot watch (Voila): {'t0', 'done', 'drawn'}."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        snap = page.evaluate(_SNAPSHOT_JS)
        if snap["t0"] >= since_ms and snap["mut"] >= snap["t0"] and snap["now"] - snap["mut"] >= quiet_ms:
            return {"t0": snap["t0"], "done": snap["mut"], "drawn": True}
        time.sleep(0.05)
    raise TimeoutError("a move did not redraw the plots")


def open_app(browser, url: str, app: str, notebook: str, log: dict):
    """Open a chapter in the classic Notebook interface (``app="notebook"``: Notebook 7, then Run All, as in
    JupyterLab) or in Voila (``app="voila"``: the server runs every cell, the page shows the outputs); wait
    until done. Fills ``log`` as ``open_chapter`` does (no timings for Voila's steps) and returns the page."""
    if app == "lab":
        return open_chapter(browser, url, notebook, log)
    if app not in ("notebook", "voila"):
        raise ValueError(f"app={app!r} is not allowed: must be 'lab', 'notebook' or 'voila'")
    page = _new_page(browser, log)
    t_open = time.monotonic()
    if app == "notebook":
        page.goto(f"{url}/notebooks/labs/{notebook}.ipynb", wait_until="domcontentloaded")
        page.wait_for_selector(".jp-Notebook", timeout=120_000)
        _wait_kernel_idle(page)
        page.evaluate("() => { window.__bench.running = true; "
                      "return window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        _wait_cells_done(page, 600)
    else:
        page.goto(f"{url}/voila/render/labs/{notebook}.ipynb", wait_until="domcontentloaded")
        page.wait_for_function("() => window.__bench.firstLivePlot > 0", timeout=600_000)
        # Voila shows the page once every cell has run; its widgets then draw: wait until the plots are quiet
        page.wait_for_function(f"() => performance.now() - window.__bench.lastPlotMut > {QUIET_MS}",
                               timeout=120_000)
    log["load_s"] = time.monotonic() - t_open
    first = page.evaluate("() => window.__bench.firstLivePlot")
    log["first_live_plot_s"] = first / 1000 if first else float("nan")
    return page


def _new_page(browser, log: dict):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(_INIT_JS)
    log.update(console_errors=[], ws_bytes=[])
    page.on("console", lambda m: m.type == "error" and log["console_errors"].append(m.text[:300]))
    page.on("pageerror", lambda e: log["console_errors"].append(f"pageerror: {str(e)[:300]}"))
    return page


def open_chapter(browser, url: str, notebook: str, log: dict):
    """Open a chapter in a fresh page, run all its cells, wait until done. Fills ``log`` (bytes, errors,
    timings) and returns the page."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(_INIT_JS)
    log.update(console_errors=[], ws_bytes=[])
    page.on("console", lambda m: m.type == "error" and log["console_errors"].append(m.text[:300]))
    page.on("pageerror", lambda e: log["console_errors"].append(f"pageerror: {str(e)[:300]}"))

    def on_ws(ws):
        def count(payload):
            log["ws_bytes"].append((time.monotonic(), len(payload) if isinstance(payload, bytes)
                                    else len(payload.encode())))
        ws.on("framereceived", count)

    page.on("websocket", on_ws)
    # CPU to the first live plot, which a busy machine stretches less than wall time: the page's main thread
    # (Chromium's TaskDuration in thread time), the JupyterLab server and the chapter's kernel
    cdp = page.context.new_cdp_session(page) if MEASURE_CPU else None
    if cdp:
        cdp.send("Performance.enable", {"timeDomain": "threadTicks"})
    cpu0 = lab_cpu_s()
    t_open = time.monotonic()
    page.goto(f"{url}/lab/tree/labs/{notebook}.ipynb?reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-Notebook", timeout=120_000)
    _wait_kernel_idle(page)
    log["run_all_s"] = page.evaluate("() => (window.__bench.runAllAt = performance.now())") / 1000
    page.evaluate("() => { window.__bench.running = true; "
                  "return window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
    try:
        if not cdp:
            raise LookupError("not asked (--cpu)")
        page.wait_for_function("() => window.__bench.firstLivePlot > 0", timeout=600_000, polling=50)
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        cpu1 = lab_cpu_s()
        log["cpu_to_first_plot_s"] = {"page": metrics.get("TaskDuration", float("nan")),
                                      "server": cpu1["server"] - cpu0["server"], "kernel": cpu1["kernel"]}
    except Exception as exc:  # not asked, or a chapter without a live plot: no figure
        if cdp:
            print(f"  no CPU figure to the first live plot: {type(exc).__name__}: {str(exc)[:200]}", flush=True)
        log["cpu_to_first_plot_s"] = None
    _wait_cells_done(page, 600)
    log["load_s"] = time.monotonic() - t_open
    log["load_bytes"] = sum(n for _, n in log["ws_bytes"])
    first = page.evaluate("() => window.__bench.firstLivePlot")
    log["first_live_plot_s"] = first / 1000 if first else float("nan")
    log["phases"] = phases(page, 0.0)
    return page


def phases(page, since_ms: float) -> dict:
    """Return the steps to the first live plot, in seconds after ``since_ms`` (page clock): 'notebook'
    (its cells shown), 'kernel' (idle, Run All issued: ``run_all_ms`` set by the caller), 'cells' (each
    executed cell's [start, end] up to the first plot), 'widgets' (a panel's controls shown), 'plotly'
    (plotly.js ready in the page), 'plot' (first live plot drawn)."""
    b = page.evaluate("() => ({phase: window.__bench.phase, cells: window.__bench.cells, "
                      "plot: window.__bench.firstLivePlot, run: window.__bench.runAllAt || 0, "
                      "static: window.__bench.staticPlots || []})")
    sec = lambda t: round((t - since_ms) / 1000, 2) if t else float("nan")  # noqa: E731
    out = {k: sec(b["phase"].get(k, 0)) for k in ("notebook", "widgets", "plotly")}
    out["kernel"], out["plot"] = sec(b["run"]), sec(b["plot"])
    cells: dict = {}
    for t, kind, pid, code in b["cells"]:
        if kind == "start" and not (b["plot"] and t > b["plot"]):
            cells[pid] = [sec(t), float("nan"), code]
        elif kind == "done" and pid in cells:
            cells[pid][1] = sec(t)
    out["cells"] = list(cells.values())
    out["static"] = [sec(t) for t in b["static"]]
    return out


def phase_text(ph: dict) -> str:
    """Return ``phases()`` as one line."""
    cells = " ".join(f"[{a:.1f}-{b:.1f}]" for a, b, _code in ph["cells"])
    static = ph.get("static", [])
    drawn = (f"{len(static)} static plots drawn before it ({static[0]:.1f}-{static[-1]:.1f} s), " if static
             else "")
    return (f"notebook shown {ph['notebook']:.1f} s, kernel idle {ph['kernel']:.1f} s, cells {cells}, "
            f"controls shown {ph['widgets']:.1f} s, plotly.js ready {ph['plotly']:.1f} s, {drawn}"
            f"plot {ph['plot']:.1f} s")


_RESET_JS = """() => { const b = window.__bench; b.firstLivePlot = 0; b.phase = {}; b.cells = []; b.kstat = [];
  b.kerr = []; b.hooked = false; b.running = false; b.runAllAt = 0; b.staticPlots = []; return performance.now(); }"""


def _wait_kernel_idle(page, timeout_s: float = 120) -> None:
    """Hook the current notebook's kernel (accepting a kernel dialog if one comes) and wait until it is idle."""
    deadline = time.monotonic() + timeout_s
    while not page.evaluate(_HOOK_KERNEL_JS):  # no fixed wait for a dialog that may never come
        _accept_kernel_dialog(page, wait_s=0.0)
        if time.monotonic() > deadline:
            raise RuntimeError("no kernel")
        time.sleep(0.1)
    page.wait_for_function("() => { const s = window.__bench.kstat; return s.length && s[s.length-1][1] === 'idle'; }",
                           timeout=timeout_s * 1000)


def open_in_running_lab(browser, url: str, notebooks: list[str]) -> dict:
    """The other way a student opens a chapter: JupyterLab is open already (``make lab``), the chapter is
    opened from the file browser (``docmanager:open``), its kernel starts, Run All is issued as soon as it
    is idle. Returns {'lab_load_s', 'chapters': {name: {'first_live_plot_s', 'phases'}}}; each chapter is
    closed and its kernel shut down before the next is opened (plotly.js stays in the page, as it would)."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.add_init_script(_INIT_JS)
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)[:200]))
    t = time.monotonic()
    page.goto(f"{url}/lab/tree/labs?reset", wait_until="domcontentloaded")
    page.wait_for_selector(".jp-DirListing-item", timeout=120_000)
    out: dict = {"lab_load_s": time.monotonic() - t, "chapters": {}}
    time.sleep(2.0)  # let the lab settle (extensions, settings) before the first open
    for nb in notebooks:
        t0 = page.evaluate(_RESET_JS)
        page.evaluate(f"() => {{ window.jupyterapp.commands.execute('docmanager:open', "
                      f"{{path: 'labs/{nb}.ipynb'}}); }}")
        _wait_kernel_idle(page)
        page.evaluate("() => { window.__bench.runAllAt = performance.now(); window.__bench.running = true; "
                      "return window.jupyterapp.commands.execute('notebook:run-all-cells'); }")
        page.wait_for_function("() => window.__bench.firstLivePlot > 0", timeout=300_000)
        first = page.evaluate("() => window.__bench.firstLivePlot")
        out["chapters"][nb] = {"first_live_plot_s": (first - t0) / 1000, "phases": phases(page, t0)}
        _wait_cells_done(page, 600)
        page.evaluate("""async () => { const w = window.jupyterapp.shell.currentWidget;
                         await w.sessionContext.shutdown(); w.dispose(); }""")
        time.sleep(1.0)
    out["page_errors"] = errors
    page.close()
    return out


def _accept_kernel_dialog(page, wait_s: float = 5.0) -> None:
    dialog = page.locator(".jp-Dialog", has_text="Select Kernel")
    deadline = time.monotonic() + wait_s
    while True:
        if dialog.count():
            dialog.locator("button", has_text="Select").last.click()
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(0.25)


def _wait_cells_done(page, timeout_s: float) -> None:
    deadline = time.monotonic() + timeout_s
    time.sleep(1.0)
    while time.monotonic() < deadline:
        busy = page.locator(".jp-InputPrompt", has_text="[*]").count()
        ks = page.evaluate("() => { const s = window.__bench.kstat; return s.length ? s[s.length-1] : null; }")
        now = page.evaluate("() => performance.now()")
        if busy == 0 and ks and ks[1] == "idle" and now - ks[0] > 1000:
            return
        time.sleep(0.3)
    raise TimeoutError("the notebook did not finish running")


def find_panels(page) -> list[dict]:
    return page.evaluate(_FIND_PANELS_JS)


def _drag_to(page, ctl_id: str, fraction: float) -> None:
    ctl = page.locator(f'[data-bench-ctl="{ctl_id}"]')
    handles = ctl.locator(".noUi-handle")
    handle = handles.nth(handles.count() - 1)  # a range slider: its upper handle
    handle.scroll_into_view_if_needed()
    track = ctl.locator(".noUi-base").first.bounding_box()
    box = handle.bounding_box()
    y = box["y"] + box["height"] / 2
    page.mouse.move(box["x"] + box["width"] / 2, y)
    page.mouse.down()
    page.mouse.move(track["x"] + fraction * track["width"], y, steps=4)
    page.mouse.up()


def _set_readout(page, ctl_id: str, text: str) -> None:
    readout = page.locator(f'[data-bench-ctl="{ctl_id}"] .widget-readout').first
    readout.scroll_into_view_if_needed()
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(text)
    page.keyboard.press("Enter")


def _moves(control: dict, k: int, rng: random.Random) -> list:
    if control["kind"] == "slider":
        fr = [i / (k - 1) for i in range(k)] if k > 1 else [0.5]
        rng.shuffle(fr)
        return fr
    if control["kind"] == "dropdown":
        opts = list(range(control["options"]))
        rng.shuffle(opts)
        return opts[:k]
    return ["toggle", "toggle"]


def move_control(page, control: dict, move, wait=None) -> dict | None:
    """Make one move of ``control``; return {'latency_ms', 'drawn', 'python_ms'} or None if the value
    did not change (nothing to wait for). ``wait``: how to tell the move is over (default ``wait_move``,
    which watches the kernel; ``wait_redraw`` watches only the plots)."""
    cid = control["id"]
    before = page.evaluate(_READ_JS, cid)
    since = page.evaluate("() => performance.now()")
    if control["kind"] == "slider":
        _drag_to(page, cid, move)
    elif control["kind"] == "dropdown":
        sel = page.locator(f'[data-bench-ctl="{cid}"] select')
        sel.scroll_into_view_if_needed()
        sel.select_option(index=move)
    else:
        page.locator(f'[data-bench-ctl="{cid}"] input[type=checkbox]').click()
    if page.evaluate(_READ_JS, cid) == before:
        time.sleep(0.3)
        return None
    res = (wait or wait_move)(page, since)
    return {"latency_ms": res["done"] - res["t0"], "drawn": res["drawn"]}


def restore(page, control: dict, start: str) -> None:
    cid = control["id"]
    if page.evaluate(_READ_JS, cid) == start:
        return
    since = page.evaluate("() => performance.now()")
    if control["kind"] == "slider" and not control["range"]:
        _set_readout(page, cid, start)
    elif control["kind"] == "dropdown":
        page.locator(f'[data-bench-ctl="{cid}"] select').select_option(index=int(start))
    else:
        return
    try:
        wait_move(page, since)
    except TimeoutError:
        pass


_LEGEND_JS = """(p) => Array.from(document.querySelectorAll(`[data-bench-panel="${p}"] .legendtext`))
    .map(e => e.textContent)"""


def legend_names(page, panel: int) -> list[str]:
    """Return the legend entries of a panel's plots as drawn."""
    return page.evaluate(_LEGEND_JS, panel)


def panel_state(page, panel: int) -> dict:
    """Return a panel's plot heights (px), status text, width and how far controls stick out (px)."""
    return page.evaluate(_PANEL_STATE_JS, panel)


def kernel_messages(page) -> list[str]:
    """Return stderr / error output the kernel sent for widget messages (not for a cell) so far."""
    return page.evaluate("() => window.__bench.kerr")


def move_once(page, control: dict, wait=None) -> dict | None:
    """Move ``control`` once to a value other than its current one (slider: 30 % or 70 % of its range;
    dropdown: the next option; checkbox: toggled) and wait until the move is over (``wait``: as for
    ``move_control``)."""
    if control["kind"] == "slider":
        r = move_control(page, control, 0.7, wait)
        return r if r is not None else move_control(page, control, 0.3, wait)
    if control["kind"] == "dropdown":
        current = int(page.evaluate(_READ_JS, control["id"]))
        return move_control(page, control, (current + 1) % max(1, control["options"]), wait)
    return move_control(page, control, "toggle", wait)


# Predictions (simcore.predict): each veiled panel or gated output, how it looks, and the prediction widgets.
_VEIL_JS = """() => Array.from(document.querySelectorAll(
    '.jp-OutputArea-output .simcore-live-panel.simcore-veiled, .jp-OutputArea-output .simcore-gated-output'))
  .map(p => {
    const res = p.querySelector('.simcore-result'), first = res && res.firstElementChild;
    const plot = p.querySelector('.js-plotly-plot'), cs = first ? getComputedStyle(first) : null;
    const note = p.querySelector('.simcore-gated-output > .widget-html:not(.simcore-style)');  // not the CSS carrier
    return {kind: p.classList.contains('simcore-gated-output') ? 'output' : 'panel',
            veiled: p.classList.contains('simcore-veiled')
                    || (!!note && getComputedStyle(note).display !== 'none'),
            filter: cs ? cs.filter : '', pointer: cs ? cs.pointerEvents : '',
            overlay: res ? getComputedStyle(res, '::after').content : '',
            plot_height: plot ? Math.round(plot.getBoundingClientRect().height) : 0,
            status: res && res.nextElementSibling ? res.nextElementSibling.innerText : '',
            text: p.innerText.slice(0, 400)};
  })"""


def veil_state(page) -> list[dict]:
    """Return every veiled panel and every gated output in the page: {'kind': 'panel' | 'output', 'veiled',
    'filter' and 'pointer' (computed style of the veiled plots), 'overlay' (the veil's text), 'plot_height',
    'status' (a panel's status line), 'text' (what a student can read in it)}."""
    return page.evaluate(_VEIL_JS)


def commit_predictions(page, number: str = "1") -> int:
    """Commit every prediction of the page as a student would (type ``number`` or pick the first choice, click
    "Commit prediction"); wait until each shows its verdict. Return how many were committed."""
    preds = page.locator(".jp-OutputArea-output .simcore-prediction")
    n = 0
    for i in range(preds.count()):
        w = preds.nth(i)
        button = w.locator("button", has_text="Commit prediction")
        if not button.count() or button.first.is_disabled():
            continue
        w.scroll_into_view_if_needed()
        text = w.locator("input[type=text]")
        if text.count():
            text.first.fill(number)
            text.first.press("Tab")  # the value reaches the kernel on blur (continuous_update off)
        else:
            w.locator("input[type=radio]").first.check()
        button.first.click()
        w.locator(".simcore-verdict").first.wait_for(timeout=60_000)
        n += 1
    return n


_PY_MS = re.compile(r"(?:re-ran in|Python)\s+(\d+(?:\.\d+)?)\s*ms")


def bench_chapter(browser, url: str, log_path: Path, notebook: str, k: int, seed: int = 1,
                  veiled: bool = False) -> dict:
    log: dict = {}
    tb_before_open = _tracebacks(log_path)
    page = open_chapter(browser, url, notebook, log)
    tb_load = _tracebacks(log_path, page) - tb_before_open
    committed = 0 if veiled or k == 0 else commit_predictions(page)  # as a student would, before moving
    rng = random.Random(seed)
    panels = find_panels(page)
    out = {"chapter": notebook, "panels": [], "load_s": log["load_s"], "load_bytes": log["load_bytes"],
           "first_live_plot_s": log["first_live_plot_s"], "run_all_s": log["run_all_s"],
           "phases": log["phases"], "predictions_committed": committed,
           "cpu_to_first_plot_s": log.get("cpu_to_first_plot_s"),
           "kernel_exceptions_load": tb_load}
    for panel in panels if k > 0 else []:
        state0 = page.evaluate(_PANEL_STATE_JS, panel["index"])
        lat, py, undrawn, per_control = [], [], 0, {}
        tb0 = _tracebacks(log_path, page)
        for control in panel["controls"]:
            if control["disabled"]:
                continue
            start = page.evaluate(_READ_JS, control["id"])
            for move in _moves(control, k, rng):
                r = move_control(page, control, move)
                if r is None:
                    continue
                lat.append(r["latency_ms"])
                per_control.setdefault(control["label"], []).append(r["latency_ms"])
                undrawn += not r["drawn"]
                m = _PY_MS.findall(page.evaluate(_PANEL_STATE_JS, panel["index"])["status"])
                if m:
                    py.append(float(m[-1]))
            restore(page, control, start)
        state1 = page.evaluate(_PANEL_STATE_JS, panel["index"])
        out["panels"].append({
            "title": panel["title"], "n_moves": len(lat), "latency_ms": lat, "python_ms": py,
            "undrawn_moves": undrawn, "kernel_exceptions": _tracebacks(log_path, page) - tb0,
            "plot_heights_px": state0["heights"], "plot_heights_after_px": state1["heights"],
            "controls_overflow_px": state0["overflow"],
            "per_control_p50_ms": {c: statistics.median(v) for c, v in per_control.items()},
        })
    out["console_errors"] = log["console_errors"]
    out["kernel_messages"] = page.evaluate("() => window.__bench.kerr")[:20]
    out["total_bytes"] = sum(n for _, n in log["ws_bytes"])
    page.close()
    return out


def _pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, int(round(q * (len(s) - 1)))))]


def _ms(v: float) -> str:
    if v != v:
        return "-"
    return f"{v / 1000:.2f} s" if v >= 1000 else f"{v:.0f} ms"


def table(results: list[dict]) -> str:
    """Return the results as a markdown table, one row per panel (chapter-wide columns on its first)."""
    head = ["chapter, panel", "moves", "p50", "p95", "max", "Python p50", "kernel exc.", "console err.",
            "MB to page (load)", "first live plot", "plot heights (px)"]
    lines = ["| " + " | ".join(head) + " |", "| " + " | ".join(["---"] * len(head)) + " |"]
    for ch in results:
        for i, p in enumerate(ch["panels"]):
            lat, py = p["latency_ms"], p["python_ms"]
            chapter_wide = [str(len(ch["console_errors"])), f"{ch['load_bytes'] / 1e6:.1f}",
                            f"{ch['first_live_plot_s']:.1f} s"] if i == 0 else ["", "", ""]
            row = [f"{ch['chapter']}: {p['title'][:40]}", str(p["n_moves"]), _ms(_pct(lat, .5)),
                   _ms(_pct(lat, .95)), _ms(max(lat) if lat else float("nan")),
                   _ms(statistics.median(py) if py else float("nan")), str(p["kernel_exceptions"]),
                   *chapter_wide, str(p["plot_heights_px"])]
            lines.append("| " + " | ".join(row) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--checkout", type=Path, default=ROOT, help="checkout whose labs/ and .venv to use")
    ap.add_argument("--chapters", nargs="*", default=None, help="notebook names without .ipynb")
    ap.add_argument("--positions", type=int, default=15, help="positions per slider (K)")
    ap.add_argument("--quick", action="store_true", help="4 positions per slider")
    ap.add_argument("--json", type=Path, default=None, help="write raw results here")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--lab-log", type=Path, default=None, help="copy JupyterLab's (and the kernel's) log here")
    ap.add_argument("--no-warm", action="store_true", help="do not run `python -m simcore warm` first")
    ap.add_argument("--first-plot-only", action="store_true", help="time the first live plots, move nothing")
    ap.add_argument("--cpu", action="store_true",
                    help="also measure CPU seconds to the first live plot (page main thread, server, kernel)")
    ap.add_argument("--veiled", action="store_true",
                    help="move the controls of panels a prediction veils without committing it first")
    ap.add_argument("--no-running-lab", action="store_true",
                    help="skip the second figure (chapters opened one after another in one running lab)")
    args = ap.parse_args(argv)
    global MEASURE_CPU
    MEASURE_CPU = args.cpu
    k = 0 if args.first_plot_only else 4 if args.quick else args.positions
    checkout = args.checkout.resolve()
    venv_py = checkout / ".venv" / "bin" / "python"
    python = str(venv_py) if venv_py.exists() else sys.executable
    chapters = args.chapters or sorted(p.stem for p in (checkout / "labs").glob("*.ipynb"))
    from playwright.sync_api import sync_playwright

    env = _env(checkout, python)
    if not args.no_warm:  # the aims are for a warm numba cache (as on Binder after postBuild)
        subprocess.run([python, "-m", "simcore", "warm"], cwd=checkout, env=env, check=False)
    print(f"checkout {checkout}, kernel {python}, K = {k}, load average {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} cores", flush=True)
    results, in_lab = [], None
    with tempfile.TemporaryDirectory(prefix="bench-browser-") as tmp:
        proc, url, log_path = start_lab(checkout, Path(tmp), python)
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=args.chromium, args=CHROMIUM_FLAGS, headless=True)
                for nb in chapters:
                    t = time.monotonic()
                    res = bench_chapter(browser, url, log_path, nb, k, veiled=args.veiled)
                    shutdown_sessions(url)
                    results.append(res)
                    print(f"{nb}: {time.monotonic() - t:.0f} s, {res['predictions_committed']} predictions committed "
                          f"before the moves, {len(res['console_errors'])} console errors, "
                          f"load {res['load_s']:.1f} s, {res['total_bytes'] / 1e6:.1f} MB in all", flush=True)
                if not args.no_running_lab:
                    in_lab = open_in_running_lab(browser, url, chapters)
                    in_lab["load_average"] = os.getloadavg()[0]
                browser.close()
        finally:
            stop_lab(proc)
            if args.lab_log:
                shutil.copy(log_path, args.lab_log)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    print(table(results))
    for ch in results:
        print(f"  {ch['chapter']} first live plot {ch['first_live_plot_s']:.1f} s = page and kernel ready "
              f"{ch['run_all_s']:.1f} s + Run All to the plot {ch['first_live_plot_s'] - ch['run_all_s']:.1f} s")
        print(f"  {ch['chapter']} steps: {phase_text(ch['phases'])}")
        if ch.get("cpu_to_first_plot_s"):
            c = ch["cpu_to_first_plot_s"]
            print(f"  {ch['chapter']} CPU to the first live plot: page main thread {c['page']:.2f} s, "
                  f"JupyterLab server {c['server']:.2f} s, kernel {c['kernel']:.2f} s")
        for e in sorted(set(ch["console_errors"]))[:5]:
            print(f"  {ch['chapter']} console: {e[:160]}")
        for e in ch["kernel_messages"][:2]:
            print(f"  {ch['chapter']} kernel stderr: {e.strip().splitlines()[-1][:160] if e.strip() else ''}")
        for p in ch["panels"]:
            slow = sorted(p["per_control_p50_ms"].items(), key=lambda kv: -kv[1])[:3]
            print(f"  {ch['chapter']} / {p['title'][:30]}: slowest controls (p50) "
                  + ", ".join(f"{c} {v:.0f} ms" for c, v in slow)
                  + f"; moves with no plot change {p['undrawn_moves']}; controls past the panel's right edge "
                  f"{p['controls_overflow_px']} px")
    if in_lab is not None:
        print(f"First live plot with the lab already open (loaded in {in_lab['lab_load_s']:.1f} s), each chapter "
              f"opened from the file browser, Run All once its kernel is idle (load average "
              f"{in_lab['load_average']:.2f}; fresh page per chapter, JupyterLab's load included, beside it):")
        fresh = {ch["chapter"]: ch["first_live_plot_s"] for ch in results}
        for nb, r in in_lab["chapters"].items():
            print(f"  {nb}: {r['first_live_plot_s']:.1f} s in the running lab, {fresh.get(nb, float('nan')):.1f} s "
                  f"in a fresh page; steps: {phase_text(r['phases'])}")
        for e in in_lab["page_errors"][:5]:
            print(f"  running lab page error: {e}")
    if args.json:
        args.json.write_text(json.dumps({"fresh_page": results, "running_lab": in_lab}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
