"""A class on its own server, here: a local JupyterHub, N students logging in with a browser each, every one
opening a chapter, running it and moving its sliders at the same time; what each waits for and costs.

The hub is the course's own configuration (deploy/jupyterhub/simcore_course.py: each student's server gets
SIMCORE_STUDENT, the shared compiled kernels, and starts through deploy/image/simcore-start, which copies the
chapters into the student's home), with a test authenticator (JupyterHub's dummy one, one password) and
JupyterHub's simple local spawner (each student a process tree with its own home under a temporary folder,
all as this user: no isolation, testing only). Its proxy is configurable-http-proxy from npm (`make chp`).
Everything listens on 127.0.0.1; nothing here reaches beyond loopback. The numba kernels are compiled for a
generic CPU into this checkout's cache once (as the course image does), and the students' servers link a
copy of it (simcore/_shared_cache.py), so no student compiles.

Each student is a thread driving its own headless Chromium (Debian's, Playwright, the flags of
benchmarks/bench_browser.py, whose page helpers this uses): log in through the hub's login form (the server
spawns), open the chapter, Run All, commit its predictions (a veiled panel, simcore.predict); then, once every
student's chapter has run (a barrier), move the first
live panel's sliders (`--moves` moves each, positions in a fixed shuffled order; as bench_browser measures
a move: from the input event until the plots and the kernel are quiet again). Per N it prints:
- slider latency p50 / p95 / max over every student's moves;
- time to first live plot (from the chapter's URL to its first live plot drawn: the lab's load, the kernel's
  start and Run All up to that panel), median and max over the students;
- memory per student's server: the peak resident memory (VmHWM) of its Jupyter server and of its kernel,
  summed, median and max; and the kernel's resident memory right after Run All;
- CPU seconds per slider move: the CPU time of the student's server and kernel during the moves, divided by
  the moves (server side only: the students' browsers run on their own machines in a class, here they share
  the same 2 cores, which the latency figures include);
and from these a capacity estimate: how many students one core and one GB serve (see `capacity`).

``--memory`` adds the other figure a course server is sized by: one student opening every chapter in turn,
the kernel's resident memory after its Run All and its peak after every control was moved once.

Bounded: at most 8 students, each with its own deadline (``--timeout``, default 600 s per N).
Usage: ``.venv/bin/python benchmarks/bench_class.py [--students 2 4 8] [--chapter 00b_tcp_primer]
[--moves 12] [--memory] [--json out.json]``. Wall-clock figures on a shared machine: the load average is
printed beside them.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bench_browser as lab  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CHP = ROOT / ".venv" / "node" / "node_modules" / ".bin" / "configurable-http-proxy"
PASSWORD = "simulated-class"
MAX_STUDENTS = 8
P95_AIM_MS = 300.0

_CONFIG = """\
# written by benchmarks/bench_class.py: the course's hub settings on loopback, a test login and local spawner
import os
c.JupyterHub.ip = "127.0.0.1"
c.JupyterHub.port = {port}
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = {hub_port}
c.ConfigurableHTTPProxy.command = [{chp!r}]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:{api_port}"
c.ConfigurableHTTPProxy.pid_file = {pid_file!r}
c.JupyterHub.db_url = "sqlite:///{workdir}/hub.sqlite"
c.JupyterHub.cookie_secret_file = {cookie_file!r}
c.JupyterHub.authenticator_class = "dummy"
c.DummyAuthenticator.password = {password!r}
c.Authenticator.allow_all = True
c.JupyterHub.spawner_class = "simple"
c.SimpleLocalProcessSpawner.home_dir_template = {homes!r} + "/{{username}}"
# the service that watches and stops the class's servers
c.JupyterHub.services = [{{"name": "bench", "api_token": {token!r}}}]
c.JupyterHub.load_roles = [{{"name": "bench", "services": ["bench"],
                            "scopes": ["admin:users", "admin:servers", "access:servers", "list:users", "read:users"]}}]
c.JupyterHub.active_server_limit = {max_users}
c.JupyterHub.concurrent_spawn_limit = {max_users}

load_subconfig({course!r})  # deploy/jupyterhub/simcore_course.py, as a course server loads it
_course_hook = c.Spawner.pre_spawn_hook


def bench_environment(spawner):
    _course_hook(spawner)
    # here: this checkout's sources (simcore-start reads $SIMCORE_HOME/src) and a copy of its warmed cache
    spawner.environment.update(SIMCORE_HOME={simcore_home!r}, SIMCORE_SHARED_NUMBA_CACHE={shared!r},
                               ENVDUMP=os.path.join(spawner.home_dir, "server-environment.txt"))


c.Spawner.pre_spawn_hook = bench_environment
# the image's entry point, then the server; the server's root is the chapters' copy (as labs/ in a checkout)
c.Spawner.cmd = ["sh", "-c", 'env > "$ENVDUMP"; exec "$0" "$@"', {start!r}, {singleuser!r}]
c.Spawner.notebook_dir = "~/simcore-lab"
c.Spawner.default_url = "/lab/tree/labs/00_start_here.ipynb"
c.Spawner.args = ["--allow-root", "--LabApp.expose_app_in_browser=True"]
"""


@dataclass
class Hub:
    proc: subprocess.Popen
    url: str
    token: str
    workdir: Path
    log_path: Path

    def api(self, method: str, path: str, body: dict | None = None) -> dict | None:
        data = json.dumps(body).encode() if body is not None else None
        req = urllib.request.Request(f"{self.url}/hub/api{path}", data=data, method=method,
                                     headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(req, timeout=30) as r:
            text = r.read()
        return json.loads(text) if text else None


def chp_path() -> Path | None:
    """Return configurable-http-proxy (installed by `make chp`), or None if it is not there."""
    found = CHP if CHP.exists() else shutil.which("configurable-http-proxy")
    return Path(found) if found else None


def start_hub(workdir: Path, python: str, shared_cache: Path, max_users: int = MAX_STUDENTS) -> Hub:
    """Start the course's JupyterHub on loopback (config above) with ``python``'s jupyterhub; wait until it
    answers. ``shared_cache``: the compiled kernels each student's server links (SIMCORE_SHARED_NUMBA_CACHE)."""
    chp = chp_path()
    if chp is None:
        raise RuntimeError("configurable-http-proxy not found: `make chp` installs it (npm)")
    workdir.mkdir(parents=True, exist_ok=True)
    simcore_home = workdir / "simcore"
    simcore_home.mkdir(exist_ok=True)
    if not (simcore_home / "src").exists():
        (simcore_home / "src").symlink_to(ROOT)
    bindir = Path(python).parent
    token = secrets.token_hex(16)
    ports = [lab._free_port() for _ in range(3)]
    config = _CONFIG.format(
        port=ports[0], hub_port=ports[1], api_port=ports[2], chp=str(chp), pid_file=str(workdir / "proxy.pid"),
        workdir=workdir, cookie_file=str(workdir / "cookie_secret"), password=PASSWORD,
        homes=str(workdir / "homes"), token=token, max_users=max_users,
        course=str(ROOT / "deploy" / "jupyterhub" / "simcore_course.py"), simcore_home=str(simcore_home),
        shared=str(shared_cache), start=str(ROOT / "deploy" / "image" / "simcore-start"),
        singleuser=str(bindir / "jupyterhub-singleuser"))
    (workdir / "jupyterhub_config.py").write_text(config)
    log_path = workdir / "hub.log"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "SIMCORE_", "JUPYTERHUB_"))}
    env["PATH"] = os.pathsep.join([str(bindir), env.get("PATH", "")])
    proc = subprocess.Popen([python, "-m", "jupyterhub", "-f", str(workdir / "jupyterhub_config.py")],
                            cwd=workdir, env=env, stdout=log_path.open("w"), stderr=subprocess.STDOUT,
                            start_new_session=True)
    hub = Hub(proc, f"http://127.0.0.1:{ports[0]}", token, workdir, log_path)
    deadline = time.monotonic() + 90
    while True:
        try:
            hub.api("GET", "/")
            return hub
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                stop_hub(hub)
                raise RuntimeError(f"JupyterHub did not start:\n{log_path.read_text()[-3000:]}") from None
            time.sleep(0.3)


def stop_hub(hub: Hub) -> None:
    """Stop the hub; it stops every student's server as it exits (and the proxy it started)."""
    if hub.proc.poll() is None:
        hub.proc.send_signal(signal.SIGTERM)
        try:
            hub.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(hub.proc.pid, signal.SIGKILL)
            hub.proc.wait()
    for p in _user_processes(None, hub.workdir):  # anything a server left behind
        try:
            p.kill()
        except psutil.Error:
            pass


def spawn(hub: Hub, name: str, timeout_s: float = 120) -> str:
    """Create user ``name`` (if new) and start its server through the hub's API; return the server's URL."""
    try:
        hub.api("POST", f"/users/{name}")
    except urllib.error.HTTPError as e:
        if e.code != 409:  # 409: exists already
            raise
    hub.api("POST", f"/users/{name}/server")
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        server = (hub.api("GET", f"/users/{name}") or {}).get("servers", {}).get("", {})
        if server.get("ready"):
            return f"{hub.url}/user/{name}"
        time.sleep(0.3)
    raise TimeoutError(f"{name}'s server did not start:\n{hub.log_path.read_text()[-3000:]}")


def _user_processes(name: str | None, workdir: Path) -> list[psutil.Process]:
    """Return the processes of student ``name``'s server (its Jupyter server and kernels: they carry
    JUPYTERHUB_USER), or with None every student's server of this hub (their HOME is under ``workdir``)."""
    out = []
    for p in psutil.process_iter():
        try:
            env = p.environ()
        except psutil.Error:
            continue
        user = env.get("JUPYTERHUB_USER")
        if user and env.get("HOME", "").startswith(str(workdir)) and (name is None or user == name):
            out.append(p)
    return out


def _status_kb(p: psutil.Process, key: str) -> int:
    try:
        for line in Path(f"/proc/{p.pid}/status").read_text().splitlines():
            if line.startswith(key + ":"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def _is_kernel(p: psutil.Process) -> bool:
    try:
        return any("ipykernel" in part for part in p.cmdline())
    except psutil.Error:
        return False


def memory(name: str, workdir: Path) -> dict:
    """Return student ``name``'s server and kernel memory now: resident (VmRSS) and peak (VmHWM), MB."""
    out = {"server_rss": 0.0, "server_peak": 0.0, "kernel_rss": 0.0, "kernel_peak": 0.0}
    for p in _user_processes(name, workdir):
        kind = "kernel" if _is_kernel(p) else "server"
        out[f"{kind}_rss"] += _status_kb(p, "VmRSS") / 1024
        out[f"{kind}_peak"] += _status_kb(p, "VmHWM") / 1024
    return out


def cpu_seconds(name: str, workdir: Path) -> float:
    total = 0.0
    for p in _user_processes(name, workdir):
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.Error:
            pass
    return total


class _Context:
    """A logged-in browser context where bench_browser's helpers expect a browser (they call new_page)."""

    def __init__(self, context):
        self.context = context

    def new_page(self, **_kwargs):
        return self.context.new_page()


def login(context, hub_url: str, name: str, timeout_s: float = 180) -> float:
    """Log ``name`` in through the hub's login form (its server spawns); return the seconds until its lab
    answered."""
    page = context.new_page()
    t0 = time.monotonic()
    page.goto(f"{hub_url}/hub/login", wait_until="domcontentloaded")
    page.fill("#username_input", name)
    page.fill("#password_input", PASSWORD)
    page.click("#login_submit")
    page.wait_for_url(f"**/user/{name}/lab**", timeout=timeout_s * 1000)
    page.wait_for_selector(".jp-LabShell", timeout=timeout_s * 1000)
    seconds = time.monotonic() - t0
    page.close()
    return seconds


def _student(chromium: str, hub: Hub, name: str, chapter: str, moves: int, seed: int, barrier: threading.Barrier,
             deadline: float, out: dict) -> None:
    from playwright.sync_api import sync_playwright

    res: dict = {"name": name, "latency_ms": [], "errors": []}
    out[name] = res
    waited = False
    try:
        with sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=chromium, args=lab.CHROMIUM_FLAGS, headless=True)
            context = browser.new_context(viewport={"width": 1400, "height": 1000})
            res["login_s"] = login(context, hub.url, name)
            log: dict = {}
            page = lab.open_chapter(_Context(context), f"{hub.url}/user/{name}", chapter, log)
            res["first_live_plot_s"] = log["first_live_plot_s"]
            res["committed"] = lab.commit_predictions(page)  # a veiled panel: commit first, as a student would
            res["after_run_all"] = memory(name, hub.workdir)
            res["console_errors"] = log["console_errors"][:5]
            waited = True
            barrier.wait(timeout=max(1.0, deadline - time.monotonic()))
            sliders = [c for p in lab.find_panels(page)[:1] for c in p["controls"]
                       if c["kind"] == "slider" and not c["disabled"]]
            if not sliders or res["first_live_plot_s"] != res["first_live_plot_s"]:
                # Run All ended (no cell busy, kernel idle) without a live panel drawn in the page: a failure
                res["errors"].append("no live panel drawn when Run All had ended")
            rng = random.Random(seed)
            cpu0, t0, made = cpu_seconds(name, hub.workdir), time.monotonic(), 0
            while made < moves and sliders and time.monotonic() < deadline:
                control = sliders[made % len(sliders)]
                r = lab.move_control(page, control, rng.choice([0.1, 0.3, 0.5, 0.7, 0.9]))
                if r is not None:
                    res["latency_ms"].append(r["latency_ms"])
                made += 1
            res["moves_s"] = time.monotonic() - t0
            res["cpu_s"] = cpu_seconds(name, hub.workdir) - cpu0
            res["end"] = memory(name, hub.workdir)
            res["kernel_messages"] = lab.kernel_messages(page)[:3]
            page.close()
            browser.close()
    except Exception as e:  # one student's failure is reported, not hidden; the others go on
        res["errors"].append(f"{type(e).__name__}: {str(e)[:300]}")
        if not waited:  # let the others start moving without this one
            try:
                barrier.wait(timeout=max(1.0, deadline - time.monotonic()))
            except threading.BrokenBarrierError:
                pass


def _pct(values: list[float], q: float) -> float:
    return lab._pct(values, q)


def run_class(hub: Hub, chromium: str, n: int, chapter: str, moves: int, timeout_s: float) -> dict:
    """N students at once (see the module's docstring); return their results and the summary."""
    names = [f"student{i + 1:02d}-n{n}" for i in range(n)]
    barrier = threading.Barrier(n)
    out: dict = {}
    deadline = time.monotonic() + timeout_s
    load0 = os.getloadavg()[0]
    threads = [threading.Thread(target=_student, args=(chromium, hub, name, chapter, moves, i, barrier, deadline,
                                                       out), daemon=True) for i, name in enumerate(names)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(1.0, deadline - time.monotonic()) + 60)
    for name in names:  # free the machine for the next N
        try:
            hub.api("DELETE", f"/users/{name}/server")
        except OSError:
            pass
    students = [out.get(name, {"name": name, "errors": ["did not report"], "latency_ms": []}) for name in names]
    return {"n": n, "chapter": chapter, "students": students, "load_before": load0,
            "load_after": os.getloadavg()[0], "summary": summarize(students)}


def summarize(students: list[dict]) -> dict:
    ok = [s for s in students if not s["errors"] and "end" in s]
    lat = [x for s in ok for x in s["latency_ms"]]
    n_moves = sum(len(s["latency_ms"]) for s in ok)
    peak = [s["end"]["server_peak"] + s["end"]["kernel_peak"] for s in ok]
    return {
        "ok": len(ok), "moves": n_moves,
        "p50_ms": _pct(lat, 0.5), "p95_ms": _pct(lat, 0.95), "max_ms": max(lat) if lat else float("nan"),
        "first_plot_median_s": statistics.median([s["first_live_plot_s"] for s in ok]) if ok else float("nan"),
        "first_plot_max_s": max([s["first_live_plot_s"] for s in ok], default=float("nan")),
        "login_median_s": statistics.median([s["login_s"] for s in ok]) if ok else float("nan"),
        "peak_mb_median": statistics.median(peak) if peak else float("nan"),
        "peak_mb_max": max(peak, default=float("nan")),
        "kernel_after_run_all_mb": statistics.median([s["after_run_all"]["kernel_rss"] for s in ok]) if ok
        else float("nan"),
        "cpu_s_per_move": sum(s["cpu_s"] for s in ok) / n_moves if n_moves else float("nan"),
        "errors": [f"{s['name']}: {e}" for s in students for e in s["errors"]],
    }


def capacity(rows: list[dict], cores: int) -> dict:
    """Students per core and per GB. Per core, two readings: measured (the most students of this run whose
    slider p95 stayed under 300 ms while all of them moved sliders without pause, divided by the cores; a
    class in which everyone drags at once) and from the CPU cost of a move, for students who move a slider
    every 10 s on average and a core kept at most half busy (queueing keeps the p95 low below that):
    0.5 / (cpu_s_per_move / 10 s). Per GB: 1024 MB over the largest peak of a student's server."""
    fine = [r["n"] for r in rows if r["summary"]["p95_ms"] < P95_AIM_MS and r["summary"]["ok"] == r["n"]]
    cpu = [r["summary"]["cpu_s_per_move"] for r in rows if r["summary"]["cpu_s_per_move"] == r["summary"][
        "cpu_s_per_move"]]
    peak = max((r["summary"]["peak_mb_max"] for r in rows), default=float("nan"))
    per_move = statistics.median(cpu) if cpu else float("nan")
    return {"measured_per_core": max(fine) / cores if fine else 0.0, "measured_n": max(fine, default=0),
            "cpu_s_per_move": per_move, "per_core_at_1_move_per_10_s": 0.5 / (per_move / 10.0),
            "peak_mb": peak, "per_gb": 1024.0 / peak}


def chapter_memory(hub: Hub, chromium: str, chapters: list[str], timeout_s: float) -> list[dict]:
    """One student opens every chapter in turn: the kernel's memory after Run All, and its peak after every
    control of every live panel was moved once (as the browser test does); each kernel is shut down after."""
    from playwright.sync_api import sync_playwright

    name = "memory-probe"
    rows = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=lab.CHROMIUM_FLAGS, headless=True)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        login(context, hub.url, name)
        for chapter in chapters:
            t0 = time.monotonic()
            log: dict = {}
            page = lab.open_chapter(_Context(context), f"{hub.url}/user/{name}", chapter, log)
            after = memory(name, hub.workdir)
            lab.commit_predictions(page)
            moved = 0
            for panel in lab.find_panels(page):
                for control in panel["controls"]:
                    if not control["disabled"] and time.monotonic() - t0 < timeout_s:
                        moved += lab.move_once(page, control) is not None
            end = memory(name, hub.workdir)
            rows.append({"chapter": chapter, "kernel_after_run_all_mb": after["kernel_rss"],
                         "kernel_peak_mb": end["kernel_peak"], "server_peak_mb": end["server_peak"],
                         "moves": moved, "first_live_plot_s": log["first_live_plot_s"]})
            page.evaluate("async () => { await window.jupyterapp.serviceManager.sessions.shutdownAll(); }")
            page.close()
            deadline = time.monotonic() + 30
            while any(_is_kernel(p) for p in _user_processes(name, hub.workdir)) and time.monotonic() < deadline:
                time.sleep(0.5)
            print(f"  {chapter}: kernel {after['kernel_rss']:.0f} MB after Run All, peak {end['kernel_peak']:.0f} MB "
                  f"after {moved} moves; server peak {end['server_peak']:.0f} MB", flush=True)
        browser.close()
    try:
        hub.api("DELETE", f"/users/{name}/server")
    except OSError:
        pass
    return rows


def warm_generic_cache(python: str, workdir: Path) -> Path:
    """Compile (or load) every kernel for a generic CPU into this checkout's cache, as the course image does
    into its shared folder, and return a copy of that cache for the students' servers to link."""
    cache = Path(os.environ.get("NUMBA_CACHE_DIR") or ROOT / ".numba_cache")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), NUMBA_CPU_NAME="generic")
    env.pop("SIMCORE_SHARED_NUMBA_CACHE", None)
    subprocess.run([python, "-m", "simcore", "warm"], env=env, check=True, cwd=ROOT)
    shared = workdir / "numba-cache"
    shutil.copytree(cache, shared, symlinks=True)
    return shared


def _f(v: float, unit: str = "", digits: int = 0) -> str:
    return "-" if v != v else f"{v:.{digits}f}{unit}"


def table(rows: list[dict]) -> str:
    head = ["students", "slider p50", "p95", "max", "first live plot (median / max)", "login to lab (median)",
            "server + kernel peak MB (median / max)", "kernel MB after Run All", "CPU s per move", "load avg"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        s = r["summary"]
        lines.append("| " + " | ".join([
            f"{r['n']}" + ("" if s["ok"] == r["n"] else f" ({s['ok']} ok)"), _f(s["p50_ms"], " ms"),
            _f(s["p95_ms"], " ms"), _f(s["max_ms"], " ms"),
            f"{_f(s['first_plot_median_s'], ' s', 1)} / {_f(s['first_plot_max_s'], ' s', 1)}",
            _f(s["login_median_s"], " s", 1), f"{_f(s['peak_mb_median'])} / {_f(s['peak_mb_max'])}",
            _f(s["kernel_after_run_all_mb"]), _f(s["cpu_s_per_move"], "", 3),
            f"{r['load_before']:.1f} -> {r['load_after']:.1f}"]) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--students", type=int, nargs="*", default=[2, 4, 8])
    ap.add_argument("--chapter", default="00b_tcp_primer")
    ap.add_argument("--moves", type=int, default=12, help="slider moves per student")
    ap.add_argument("--timeout", type=float, default=600.0, help="seconds per class size, at most")
    ap.add_argument("--memory", action="store_true", help="also: every chapter's kernel memory, one student")
    ap.add_argument("--memory-only", action="store_true", help="only the per-chapter memory")
    ap.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    ap.add_argument("--json", type=Path, default=None)
    args = ap.parse_args(argv)
    if any(n < 1 or n > MAX_STUDENTS for n in args.students):
        ap.error(f"--students: each between 1 and {MAX_STUDENTS}")
    python = str(ROOT / ".venv" / "bin" / "python") if (ROOT / ".venv" / "bin" / "python").exists() else sys.executable
    cores = os.cpu_count() or 1
    rows, mem = [], None
    with tempfile.TemporaryDirectory(prefix="bench-class-") as tmp:
        workdir = Path(tmp)
        shared = warm_generic_cache(python, workdir)
        hub = start_hub(workdir / "hub", python, shared)
        try:
            print(f"JupyterHub at {hub.url} (loopback), {cores} cores, load average {os.getloadavg()[0]:.2f}",
                  flush=True)
            if not args.memory_only:
                for n in args.students:
                    r = run_class(hub, args.chromium, n, args.chapter, args.moves, args.timeout)
                    rows.append(r)
                    s = r["summary"]
                    print(f"{n} students: p50 {_f(s['p50_ms'], ' ms')}, p95 {_f(s['p95_ms'], ' ms')}, "
                          f"{s['moves']} moves, load {r['load_before']:.1f} -> {r['load_after']:.1f}"
                          + (f"; errors: {s['errors']}" if s["errors"] else ""), flush=True)
            if args.memory or args.memory_only:
                print("Kernel memory per chapter (one student, each chapter in turn):", flush=True)
                chapters = sorted(p.stem for p in (ROOT / "labs").glob("*.ipynb"))
                mem = chapter_memory(hub, args.chromium, chapters, args.timeout)
        finally:
            stop_hub(hub)
    if rows:
        print(f"\nChapter {args.chapter}, {args.moves} slider moves per student, all students moving at once; "
              f"{cores} cores:")
        print(table(rows))
        cap = capacity(rows, cores)
        print(f"Capacity: measured, {cap['measured_n']} students moving at once with p95 < {P95_AIM_MS:.0f} ms on "
              f"{cores} cores = {cap['measured_per_core']:.1f} students per core; from the CPU cost of a move "
              f"({cap['cpu_s_per_move']:.3f} s), {cap['per_core_at_1_move_per_10_s']:.0f} students per core moving "
              f"a slider every 10 s on average (a core at most half busy); memory, "
              f"{cap['per_gb']:.1f} students per GB (largest server + kernel peak {cap['peak_mb']:.0f} MB).")
    if mem:
        print("\n| chapter | kernel MB after Run All | kernel peak MB after every control moved once | "
              "server peak MB |\n|---|---|---|---|")
        for m in mem:
            print(f"| {m['chapter']} | {m['kernel_after_run_all_mb']:.0f} | {m['kernel_peak_mb']:.0f} | "
                  f"{m['server_peak_mb']:.0f} |")
    if args.json:
        args.json.write_text(json.dumps({"classes": rows, "chapters": mem}, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
