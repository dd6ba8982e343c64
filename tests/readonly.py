"""Run a command with some folders read-only, as a course server's users see its shared numba cache.

As a normal user: the folders lose their write bits for the duration (restored after). As root (CI and
this project's machines), write bits mean nothing, so the command runs in a private mount namespace where
the folders are bind-mounted read-only (``unshare --mount``; writes fail with EROFS as they would on a
read-only volume). ``available()`` says whether either works here.
"""

from __future__ import annotations

import os
import shlex
import shutil
import stat
import subprocess
from pathlib import Path


def available() -> str | None:
    """Return None if folders can be made read-only here, else why not."""
    if os.geteuid() != 0:
        return None
    if not shutil.which("unshare"):
        return "running as root without util-linux's unshare: cannot make a folder read-only for root"
    probe = subprocess.run(["unshare", "--mount", "true"], capture_output=True, text=True)
    if probe.returncode != 0:
        return f"unshare --mount fails here: {probe.stderr.strip()}"
    return None


def _chmod_tree(folder: Path, writable: bool) -> None:
    for dirpath, dirs, files in os.walk(folder):
        for name in [*dirs, *files, ""]:
            p = Path(dirpath) / name
            if p.is_symlink():
                continue
            mode = p.stat().st_mode
            p.chmod(mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH))


def run(folders: list[Path], cmd: list[str], **kwargs) -> subprocess.CompletedProcess:
    """Run ``cmd`` (subprocess.run's keyword arguments apply) with ``folders`` read-only."""
    if os.geteuid() != 0:
        for f in folders:
            _chmod_tree(f, writable=False)
        try:
            return subprocess.run(cmd, **kwargs)
        finally:
            for f in folders:
                _chmod_tree(f, writable=True)
    mounts = " && ".join(f"mount --bind {shlex.quote(str(f))} {shlex.quote(str(f))} && "
                         f"mount -o remount,bind,ro {shlex.quote(str(f))}" for f in folders)
    script = f"{mounts} && exec {shlex.join(cmd)}"
    return subprocess.run(["unshare", "--mount", "--propagation", "private", "sh", "-c", script], **kwargs)
