"""A numba cache warmed once and shared read-only (a course server, deploy/): numba itself will not read it,
simcore's links make it read it, and nothing is ever written into it.

The first two tests use a one-function module of their own in a temporary folder (a second to compile),
so they show numba's behaviour, not simcore's; the last runs every simcore kernel from a read-only copy of
the warmed cache, as the course image's build checks it.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from simcore._cache_guard import STAMP_NAME, kernel_digest, numba_cache_subdir
from simcore._shared_cache import link_shared_cache

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("readonly", Path(__file__).with_name("readonly.py"))
readonly = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(readonly)

TINY = """
from numba import njit


@njit(cache=True)
def twice(x):
    return 2 * x
"""
# prints: result, cache hits, cache misses, the folder numba's cache for the function lives in
PROBE = """
import sys
sys.path.insert(0, sys.argv[1])
if len(sys.argv) > 3:
    from simcore._shared_cache import link_shared_cache
    print("linked", link_shared_cache(sys.argv[3], sys.argv[2], digest="tiny"))
import tiny
print(tiny.twice({arg}), sum(tiny.twice.stats.cache_hits.values()), sum(tiny.twice.stats.cache_misses.values()),
      tiny.twice.stats.cache_path)
"""


def _tree(folder: Path) -> dict[str, str]:
    """Return every file under ``folder`` with the SHA-256 of its bytes (links: where they point)."""
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_symlink():
            out[str(p.relative_to(folder))] = "-> " + os.readlink(p)
        elif p.is_file():
            out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


def _probe(tmp: Path, cache: Path, arg: str = "21", shared: Path | None = None, ro: list[Path] = ()) -> list[str]:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), HOME=str(tmp / "home"))
    cmd = [sys.executable, "-c", PROBE.format(arg=arg), str(tmp / "src"), str(cache)]
    if shared is not None:
        cmd.append(str(shared))
    run = readonly.run if ro else (lambda _ro, c, **kw: subprocess.run(c, **kw))
    res = run(list(ro), cmd, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stderr[-3000:]
    return res.stdout.split()


@pytest.fixture
def tiny(tmp_path):
    why = readonly.available()
    if why:
        pytest.skip(why)
    (tmp_path / "src").mkdir()
    (tmp_path / "home").mkdir()
    (tmp_path / "src" / "tiny.py").write_text(TINY)
    shared = tmp_path / "shared"
    assert _probe(tmp_path, shared)[:3] == ["42", "0", "1"]  # compiled and saved: the "build"
    sub = shared / numba_cache_subdir(tmp_path / "src")
    assert any(sub.glob("*.nbi"))
    (sub / STAMP_NAME).write_text("tiny")
    return tmp_path, shared


def test_numba_will_not_read_a_cache_folder_it_cannot_write(tiny):
    tmp, shared = tiny
    before = _tree(shared)
    out = _probe(tmp, shared, ro=[shared])
    # the warmed copy is right there, yet numba compiles again and keeps the result elsewhere
    assert out[:3] == ["42", "0", "1"], out
    assert not out[3].startswith(str(shared)), out
    assert _tree(shared) == before


def test_a_read_only_shared_cache_is_loaded_through_links(tiny):
    tmp, shared = tiny
    before = _tree(shared)
    own = tmp / "own"
    out = _probe(tmp, own, shared=shared, ro=[shared])
    assert out[:5] == ["linked", "2", "42", "1", "0"], out  # index + data linked; loaded, not compiled
    assert out[5].startswith(str(own)), out
    # a signature nobody warmed: compiled and saved among the user's own files, the shared ones untouched
    out = _probe(tmp, own, arg="1.5", shared=shared, ro=[shared])
    assert out[:5] == ["linked", "0", "3.0", "0", "1"], out
    sub = own / numba_cache_subdir(tmp / "src")
    assert any(p.suffix == ".nbi" and not p.is_symlink() for p in sub.iterdir())  # the user's new index
    assert _tree(shared) == before
    # and the next process finds both: the shared int64 version and its own float64 one
    assert _probe(tmp, own, arg="1.5", shared=shared, ro=[shared])[:5] == ["linked", "0", "3.0", "1", "0"]


def _fake_shared(tmp_path: Path, stamp: str) -> Path:
    shared = tmp_path / "shared"
    for folder, stamped in (("packet_abc", True), ("simcore-web", False)):
        (shared / folder).mkdir(parents=True)
        (shared / folder / ("f-1.py311.nbi" if stamped else "plotly-7.min.js.gz")).write_bytes(b"x")
        if stamped:
            (shared / folder / "f-1.py311.1.nbc").write_bytes(b"y")
            (shared / folder / STAMP_NAME).write_text(stamp)
    return shared


def test_links_only_what_is_fresh_and_missing(tmp_path):
    shared = _fake_shared(tmp_path, kernel_digest())
    own = tmp_path / "own"
    assert link_shared_cache(shared, own) == 3  # index, data, and the version-named plotly.js
    assert (own / "packet_abc" / "f-1.py311.nbi").resolve() == (shared / "packet_abc" / "f-1.py311.nbi").resolve()
    assert not (own / "packet_abc" / STAMP_NAME).exists()  # the user's folder keeps its own stamp
    assert link_shared_cache(shared, own) == 0  # already there
    # the user's own file (numba replaced the link) stays; a link pointing elsewhere is redone
    (own / "packet_abc" / "f-1.py311.nbi").unlink()
    (own / "packet_abc" / "f-1.py311.nbi").write_bytes(b"mine")
    (own / "packet_abc" / "f-1.py311.1.nbc").unlink()
    (own / "packet_abc" / "f-1.py311.1.nbc").symlink_to(tmp_path / "elsewhere")
    assert link_shared_cache(shared, own) == 1
    assert (own / "packet_abc" / "f-1.py311.nbi").read_bytes() == b"mine"
    assert os.readlink(own / "packet_abc" / "f-1.py311.1.nbc") == str(shared / "packet_abc" / "f-1.py311.1.nbc")


def test_a_stale_shared_cache_is_not_linked(tmp_path):
    shared = _fake_shared(tmp_path, "0" * 64)  # warmed from other kernel sources
    own = tmp_path / "own"
    assert link_shared_cache(shared, own) == 1  # only the plotly.js, named by its version
    assert not (own / "packet_abc").exists()


def test_nothing_to_do_without_both_folders(tmp_path, monkeypatch):
    shared = _fake_shared(tmp_path, kernel_digest())
    monkeypatch.delenv("SIMCORE_SHARED_NUMBA_CACHE", raising=False)
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "own"))
    assert link_shared_cache() == 0
    monkeypatch.setenv("SIMCORE_SHARED_NUMBA_CACHE", str(shared))
    monkeypatch.delenv("NUMBA_CACHE_DIR")
    assert link_shared_cache() == 0
    assert link_shared_cache(shared, shared) == 0  # the shared folder is the user's own: numba uses it
    assert link_shared_cache(tmp_path / "missing", tmp_path / "own") == 0


def test_every_simcore_kernel_loads_from_a_read_only_copy_of_the_warmed_cache(tmp_path):
    """What the course image's build checks (deploy/image): warm, make read-only, then a fresh process
    with its own cache folder loads every kernel (``python -m simcore warm --check`` exits 0)."""
    why = readonly.available()
    if why:
        pytest.skip(why)
    cache = Path(os.environ.get("NUMBA_CACHE_DIR") or ROOT / ".numba_cache")
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    subprocess.run([sys.executable, "-m", "simcore", "warm"], env=env, check=True, capture_output=True,
                   timeout=900)  # loads (or, on a fresh clone, compiles what no other test has yet)
    shared = tmp_path / "shared"
    shutil.copytree(cache, shared)
    before = _tree(shared)
    env.update(NUMBA_CACHE_DIR=str(tmp_path / "own"), SIMCORE_SHARED_NUMBA_CACHE=str(shared))
    res = readonly.run([shared], [sys.executable, "-m", "simcore", "warm", "--check"], env=env,
                       capture_output=True, text=True, timeout=900)
    assert res.returncode == 0, res.stdout[-2000:] + res.stderr[-3000:]
    assert "every kernel was loaded" in res.stdout
    assert _tree(shared) == before


def test_the_users_own_folder_defaults_to_the_home(tmp_path):
    # a course server sets only the shared folder: simcore picks ~/.cache/simcore/numba before numba reads it
    # (also when numba was imported first)
    code = ("import numba, simcore, os; from numba.core import config; "
            "print(os.environ['NUMBA_CACHE_DIR']); print(config.CACHE_DIR)")
    env = {k: v for k, v in os.environ.items() if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME")}
    env.update(HOME=str(tmp_path), SIMCORE_SHARED_NUMBA_CACHE=str(tmp_path / "shared"))
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == [str(tmp_path / ".cache" / "simcore" / "numba")] * 2
    env.pop("SIMCORE_SHARED_NUMBA_CACHE")  # no course server: numba's own defaults, untouched
    out = subprocess.run([sys.executable, "-c", "import simcore, os; print(os.environ.get('NUMBA_CACHE_DIR'))"],
                         env=env, capture_output=True, text=True, check=True).stdout.split()
    assert out == ["None"]
