"""A SIGKILL during ``extract`` leaves ``.<dest>.partial-*`` behind (issue 29); the next extract into the
same place removes it, but never a live extract's folder. Real processes, really killed."""

import os
import signal
import subprocess
import sys
import textwrap

import pytest

from simcore.packaging import extract, pack
from simcore.packaging.extraction import remove_stale_partials

pytestmark = pytest.mark.skipif(os.name == "nt", reason="no fcntl locks: stale folders are never recognised")

# a child that extracts into argv[1] and stops after its third file until told to go on
CHILD = textwrap.dedent("""
    import sys
    import simcore.packaging.extraction as ex
    from simcore.packaging import pack

    real = ex._write

    def write(root, f):
        real(root, f)
        if f.name == "f2":
            print("paused", flush=True)
            sys.stdin.readline()

    ex._write = write
    try:
        ex.extract(pack({f"f{i}": bytes([i]) * 100 for i in range(5)}), sys.argv[1])
        print("extracted", flush=True)
    except OSError as exc:
        print(f"failed: {type(exc).__name__}", flush=True)
""")


def _paused_child(dest):
    child = subprocess.Popen([sys.executable, "-c", CHILD, str(dest)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True)
    assert child.stdout.readline().strip() == "paused"
    return child


def _partials(folder, name):
    return sorted(p.name for p in folder.iterdir() if p.name.startswith(f".{name}.partial-"))


def test_a_killed_extract_is_cleaned_by_the_next_and_a_live_one_is_left_alone(tmp_path):
    dest = tmp_path / "site"
    killed = _paused_child(dest)
    left = _partials(tmp_path, "site")
    assert len(left) == 2 and left[1] == left[0] + ".lock"  # its folder and its lock file
    assert sorted(os.listdir(tmp_path / left[0])) == ["f0", "f1", "f2"]
    os.kill(killed.pid, signal.SIGKILL)
    killed.wait()
    assert _partials(tmp_path, "site") == left  # nothing removed them: the symptom

    other = tmp_path / "other"
    extract(pack({"x": b"1"}), other)  # an extract elsewhere: not its business
    assert _partials(tmp_path, "site") == left

    live = _paused_child(dest)  # the next extract into the same place, paused after its third file
    try:
        mine = _partials(tmp_path, "site")
        assert len(mine) == 2 and not set(mine) & set(left)  # it removed the killed one's folder and lock
        extract(pack({"index.html": b"<html>"}), dest)  # and one more while it is still running
        assert _partials(tmp_path, "site") == mine  # the live extract's folder is kept
        assert (dest / "index.html").read_bytes() == b"<html>"
    finally:
        out, _ = live.communicate("go\n", timeout=120)
    assert out.strip().startswith("failed:")  # its destination existed by then (OSError): all or nothing
    assert _partials(tmp_path, "site") == []  # and it removed its own folder and lock


def test_remove_stale_partials_reports_what_it_removed(tmp_path):
    dest = tmp_path / "out"
    child = _paused_child(dest)
    os.kill(child.pid, signal.SIGKILL)
    child.wait()
    stale = [p for p in _partials(tmp_path, "out") if not p.endswith(".lock")]
    removed = remove_stale_partials(dest)
    assert [p.name for p in removed] == stale and _partials(tmp_path, "out") == []
    # a folder of that shape with no lock file (another program's) is left alone
    (tmp_path / ".out.partial-abc").mkdir()
    assert remove_stale_partials(dest) == [] and (tmp_path / ".out.partial-abc").is_dir()
