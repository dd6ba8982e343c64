"""Every live panel of the lab, found by itself and moved under a memory and a time limit.

The rule (CONTRIBUTING, "safe in every slider position"): no combination of a panel's controls may crash
or hang the kernel, take more than 1 GB, or run for much more than a second; what cannot run is refused
with a reason (a ``ValueError`` shown in the status line). This module is the machinery that checks it,
used by ``tests/test_panel_sweep.py`` (a few moves per panel) and ``benchmarks/sweep_panels.py`` (many).

- ``panel_builders()``: every function of ``simcore.chapters`` annotated to return a ``LivePanel``
  (``make_panel`` and any later one), imported and listed by ``"module:function"``. A new chapter's
  panel is found without registering it; ``live_panel_calls()`` lists every ``LivePanel(...)`` call in
  simcore's sources so a test can check that each sits inside a found builder.
- ``control_space(control)``: the positions a control can take (a slider's grid from min to max by
  step, a dropdown's options, a checkbox's two states, a range slider's ordered pairs), read from the
  widget itself.
- ``PanelWorker(name)``: a child process (``python -m simcore.panel_check NAME``) that builds the panel
  and applies moves, each watched by this process (resident memory above its size before the move plus
  ``memory_gb``: killed; no answer within ``hang_s``: killed) and under an address-space backstop; it
  reports each move's CPU and wall time, peak memory growth and outcome. A move that kills the child (out
  of memory, a crash) is reported, never felt by the caller.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import importlib
import inspect
import json
import os
import pkgutil
import resource
import select
import subprocess
import sys
import tempfile
import time
from pathlib import Path

__all__ = [
    "panel_builders",
    "live_panel_calls",
    "ControlSpace",
    "control_space",
    "MoveReport",
    "PanelWorker",
    "move_problems",
]

_PACKAGE = Path(__file__).resolve().parent


def panel_builders() -> dict[str, object]:
    """Return every live-panel builder of the lab: ``{"module:function": function}`` for each public
    function defined in a ``simcore.chapters`` module whose return annotation is ``LivePanel``."""
    import simcore.chapters as chapters

    found = {}
    for info in sorted(pkgutil.iter_modules(chapters.__path__), key=lambda i: i.name):
        module = importlib.import_module(f"{chapters.__name__}.{info.name}")
        for name, fn in vars(module).items():
            if name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != module.__name__:
                continue
            ret = inspect.signature(fn).return_annotation
            if ret == "LivePanel" or getattr(ret, "__name__", None) == "LivePanel":
                found[f"{module.__name__}:{name}"] = fn
    return found


def live_panel_calls() -> list[tuple[str, str]]:
    """Return ``(module, top-level function)`` for every ``LivePanel(...)`` call in simcore's sources
    (outside ``simcore.plotting``, which defines it); a call outside any function gives ``""``."""
    out = []
    for path in sorted(_PACKAGE.rglob("*.py")):
        rel = path.relative_to(_PACKAGE.parent).with_suffix("")
        module = ".".join(rel.parts)
        if module == "simcore.plotting":
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for top in tree.body:
            owner = top.name if isinstance(top, ast.FunctionDef | ast.AsyncFunctionDef) else ""
            for node in ast.walk(top):
                if isinstance(node, ast.Call):
                    f = node.func
                    name = f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else ""
                    if name == "LivePanel":
                        out.append((module, owner))
    return out


@dataclasses.dataclass(frozen=True)
class ControlSpace:
    """The positions of one control: ``kind`` ('grid', 'options', 'bool' or 'range'), ``n`` positions
    (a 'range' control takes a pair ``(i, j)`` with ``0 <= i <= j < n``)."""

    kind: str
    n: int


def _grid(control) -> list:
    n = round((control.max - control.min) / control.step)
    if all(isinstance(v, int) for v in (control.min, control.max, control.step)):
        return [control.min + k * control.step for k in range(n + 1)]
    return [min(round(control.min + k * control.step, 9), control.max) for k in range(n + 1)]


def control_space(control) -> ControlSpace:
    """Return the positions of an ipywidgets control (raises ``TypeError`` for a kind it does not know,
    so that a new kind of control is added here, not skipped)."""
    import ipywidgets as widgets

    if isinstance(control, widgets.Checkbox | widgets.ToggleButton):
        return ControlSpace("bool", 2)
    if hasattr(control, "options"):
        return ControlSpace("options", len(control.options))
    if isinstance(control, widgets.FloatRangeSlider | widgets.IntRangeSlider):
        return ControlSpace("range", len(_grid(control)))
    if isinstance(control, widgets.FloatSlider | widgets.IntSlider):
        return ControlSpace("grid", len(_grid(control)))
    raise TypeError(f"control {type(control).__name__} has no known positions: add it to control_space")


def _set_position(control, space: ControlSpace, position) -> None:
    if space.kind == "bool":
        control.value = bool(position)
    elif space.kind == "options":
        control.index = int(position)
    elif space.kind == "range":
        grid = _grid(control)
        i, j = sorted(int(p) for p in position)
        control.value = (grid[i], grid[j])
    else:
        control.value = _grid(control)[int(position)]


@dataclasses.dataclass
class MoveReport:
    """What one move did: its positions and the values they set, CPU and wall seconds, peak resident
    memory above the size before the move (MB), and the outcome: ``ok``, ``refused`` (a ValueError, with
    ``message``), ``internal`` (any other exception: a failure, with ``message``), ``killed`` (the child
    died: ``message`` says how) or ``hung`` (no answer within the wall-clock guard)."""

    positions: dict
    values: dict = dataclasses.field(default_factory=dict)
    outcome: str = "ok"
    message: str = ""
    cpu_s: float = 0.0
    wall_s: float = 0.0
    peak_mb: float = 0.0


def move_problems(report: MoveReport, *, cpu_limit_s: float = 2.0) -> list[str]:
    """Return what is wrong with a move (empty: nothing): the child died or hung, an internal error, a
    refusal without a reason, or more than ``cpu_limit_s`` of CPU."""
    out = []
    if report.outcome in ("killed", "hung", "internal"):
        out.append(f"{report.outcome}: {report.message}")
    if report.outcome == "refused" and len(report.message.strip()) < 20:
        out.append(f"refused without a reason a student can read: {report.message!r}")
    if report.cpu_s > cpu_limit_s:
        out.append(f"took {report.cpu_s:.2f} s of CPU (limit {cpu_limit_s} s)")
    return out


# ---------------------------------------------------------------------------------------- the child side
def _vm_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")


def _rss_bytes() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak_rss_bytes() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    return 0


def _reset_peak() -> None:
    with contextlib.suppress(OSError), open("/proc/self/clear_refs", "w") as f:
        f.write("5")  # Linux: reset VmHWM to the current RSS


def _serve(name: str, virtual_gb: float) -> None:
    out = os.fdopen(os.dup(sys.stdout.fileno()), "w", buffering=1)
    sys.stdout = sys.stderr  # whatever a panel prints must not mix with the reports
    module, func = name.split(":")
    t0 = time.perf_counter()
    panel = getattr(importlib.import_module(module), func)()
    spaces = {k: control_space(c) for k, c in panel.controls.items()}
    out.write(json.dumps({"ready": True, "build_s": time.perf_counter() - t0,
                          "error": repr(panel.last_error) if panel.last_error else "",
                          "controls": {k: dataclasses.asdict(s) for k, s in spaces.items()}}) + "\n")
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    for line in sys.stdin:
        msg = json.loads(line)
        positions, values = msg["positions"], msg["values"]
        report = MoveReport(positions)
        rss0 = _rss_bytes()
        _reset_peak()
        resource.setrlimit(resource.RLIMIT_AS, (_vm_bytes() + int(virtual_gb * 2**30), hard))
        c0, w0 = time.process_time(), time.perf_counter()
        try:
            with panel.held():
                for k, pos in positions.items():
                    _set_position(panel.controls[k], spaces[k], pos)
                panel.set(**values)
        except MemoryError as exc:  # outside the panel's own guard (setting a widget): still a failure
            report.outcome, report.message = "internal", f"MemoryError outside the update: {exc}"
        finally:
            report.cpu_s = time.process_time() - c0
            report.wall_s = time.perf_counter() - w0
            resource.setrlimit(resource.RLIMIT_AS, (soft, hard))
        report.peak_mb = max(0, _peak_rss_bytes() - rss0) / 2**20
        report.values = {k: c.value for k, c in panel.controls.items()}
        err = panel.last_error
        if report.outcome == "ok" and err is not None:
            report.outcome = "refused" if isinstance(err, ValueError) else "internal"
            report.message = str(err) if isinstance(err, ValueError) else (panel.last_traceback or repr(err))
        out.write(json.dumps(dataclasses.asdict(report), default=str) + "\n")


# --------------------------------------------------------------------------------------- the parent side
class PanelWorker:
    """A child process holding one live panel (``"module:function"``), moved by ``move(positions)``.

    ``memory_gb``: how much the child's resident memory may grow during one move (polled by this process;
    above it the child is killed); ``virtual_gb``: a backstop, the child's address-space limit during a
    move is its size before it plus this (numpy's zeroed tables are mapped lazily: reserving is not
    using, so this is larger); ``hang_s``: wall-clock seconds after which a move counts as hung and
    the child is killed (a generous guard: the time limit itself is checked on the reported CPU time);
    ``build_s``: seconds allowed to build the panel (a cold numba cache compiles first).
    The child is restarted by the next ``move`` after it died."""

    def __init__(self, name: str, *, memory_gb: float = 1.0, virtual_gb: float = 4.0, hang_s: float = 60.0,
                 build_s: float = 900.0, env: dict | None = None):
        self.name, self.memory_gb, self.virtual_gb = name, memory_gb, virtual_gb
        self.hang_s, self.build_s = hang_s, build_s
        self.env = env
        self.proc: subprocess.Popen | None = None
        self.controls: dict[str, ControlSpace] = {}
        self.build_error = ""
        self.start()

    def start(self) -> None:
        self.close()
        self._stderr = tempfile.TemporaryFile("w+")
        self.proc = subprocess.Popen([sys.executable, "-m", "simcore.panel_check", self.name, str(self.virtual_gb)],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
                                     text=True, env=self.env)
        line = self._read(self.build_s)
        if line is None:
            raise RuntimeError(f"{self.name}: the panel could not be built ({self._death()})")
        ready = json.loads(line)
        self.build_error = ready["error"]
        self.controls = {k: ControlSpace(**v) for k, v in ready["controls"].items()}

    def _read(self, timeout: float) -> str | None:
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            return None
        line = self.proc.stdout.readline()
        return line or None

    def _death(self) -> str:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
            return f"no answer within {self.hang_s:g} s: killed"
        rc = self.proc.returncode
        self._stderr.seek(0)
        tail = self._stderr.read()[-600:].strip()
        return (f"the child process died (exit code {rc}{', killed by a signal' if rc < 0 else ''})"
                + (f"; its last words: {tail}" if tail else ""))

    def _rss(self) -> int:
        try:
            with open(f"/proc/{self.proc.pid}/statm") as f:
                return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
        except (OSError, IndexError):
            return 0

    def move(self, positions: dict | None = None, values: dict | None = None) -> MoveReport:
        """Apply one move and report it: ``positions`` (control name -> position index, a pair for a range
        control) and ``values`` (control name -> value, set as given), all in one run of the panel.

        While the child works, its resident size is polled every few ms; above its size before the move
        plus ``memory_gb`` it is killed (a numba kernel holds the GIL: no thread inside it could stop it)."""
        positions, values = dict(positions or {}), dict(values or {})
        if self.proc is None or self.proc.poll() is not None:
            self.start()
        rss0 = self._rss()
        limit = rss0 + int(self.memory_gb * 2**30)
        peak = rss0
        try:
            self.proc.stdin.write(json.dumps({"positions": positions, "values": values}) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            pass
        deadline = time.perf_counter() + self.hang_s
        line, why = None, ""
        while time.perf_counter() < deadline:
            ready, _, _ = select.select([self.proc.stdout], [], [], 0.005)
            if ready:
                line = self.proc.stdout.readline() or None
                break
            rss = self._rss()
            peak = max(peak, rss)
            if rss > limit:
                why = f"grew by {(rss - rss0) / 2**20:.0f} MB (limit {self.memory_gb:g} GB): killed"
                break
            if self.proc.poll() is not None:
                break
        if line is None:
            alive = self.proc.poll() is None
            outcome = "killed" if why or not alive else "hung"
            death = self._death()
            report = MoveReport(positions, outcome=outcome, message=why or death,
                                peak_mb=(peak - rss0) / 2**20)
            self.proc = None
            return report
        report = MoveReport(**json.loads(line))
        report.peak_mb = max(report.peak_mb, (peak - rss0) / 2**20)
        return report

    def close(self) -> None:
        if self.proc is not None:
            if self.proc.poll() is None:
                self.proc.stdin.close()
                try:
                    self.proc.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()
            self.proc = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


if __name__ == "__main__":
    _serve(sys.argv[1], float(sys.argv[2]) if len(sys.argv) > 2 else 4.0)
