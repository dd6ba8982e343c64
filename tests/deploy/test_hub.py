"""The course's JupyterHub settings start a hub, and a student's server spawns with what the lab needs.

The hub is the one benchmarks/bench_class.py load-tests (deploy/jupyterhub/simcore_course.py on loopback,
JupyterHub's test login and simple local spawner, configurable-http-proxy from npm). One student's server is
started through the hub's API; then its environment (written by the spawn command before the server starts)
must name the student and the shared compiled kernels, the image's entry point must have copied the chapters
into the student's home, and the server must answer through the proxy. Without npm's proxy the test is
skipped, except under CI=true (`make test` installs it: `make chp`).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("bench_class", ROOT / "benchmarks" / "bench_class.py")
bench = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("bench_class", bench)  # its dataclass looks itself up there
_spec.loader.exec_module(bench)


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    if bench.chp_path() is None:
        if os.environ.get("CI") == "true":
            pytest.fail("configurable-http-proxy is missing under CI: `make test` installs it (make chp)")
        pytest.skip("configurable-http-proxy not installed (make chp)")
    work = tmp_path_factory.mktemp("hub")
    shared = work / "shared-cache"
    shared.mkdir()
    h = bench.start_hub(work / "hub", sys.executable, shared, max_users=2)
    yield h, shared
    bench.stop_hub(h)


def test_a_students_server_spawns_with_the_courses_settings(hub):
    h, shared = hub
    url = bench.spawn(h, "ada")
    home = h.workdir / "homes" / "ada"
    env = dict(line.split("=", 1) for line in (home / "server-environment.txt").read_text().splitlines()
               if "=" in line)
    assert env["SIMCORE_STUDENT"] == "ada"  # the assignments' own numbers for this student
    assert env["SIMCORE_SHARED_NUMBA_CACHE"] == str(shared) and env["NUMBA_CPU_NAME"] == "generic"
    assert "NUMBA_CACHE_DIR" not in env  # simcore makes the student's own: ~/.cache/simcore/numba
    assert env["HOME"] == str(home) and env["JUPYTERHUB_USER"] == "ada"
    # simcore-start copied the chapters and the papers' numbers into the student's home, as in the image
    assert (home / "simcore-lab" / "labs" / "00_start_here.ipynb").is_file()
    assert (home / "simcore-lab" / "data").is_dir()
    # the server answers through the hub's proxy, with the student's landing page as the course sets it
    req = urllib.request.Request(f"{url}/api/status", headers={"Authorization": f"token {h.token}"})
    with urllib.request.urlopen(req, timeout=30) as r:
        assert "started" in json.load(r)
    user = h.api("GET", "/users/ada")
    assert user["servers"][""]["ready"]
    h.api("DELETE", "/users/ada/server")
