"""One numba cache, compiled once, read by every user of a course server: a read-only shared folder seen
through each user's own writable one.

numba keeps its cache in one folder, ``NUMBA_CACHE_DIR``, and uses that folder only if it can write into it:
before loading anything it creates a temporary file there, and where it cannot, it quietly moves on to
another folder and compiles everything again (checked with numba 0.68: ``tests/test_shared_cache.py``
shows it). A folder warmed at build time and left read-only for the students is therefore never read.

So a course server (``deploy/``) sets ``SIMCORE_SHARED_NUMBA_CACHE`` to the folder ``python -m simcore warm``
filled at build time (owned by the administrator, read-only for everyone else). ``NUMBA_CACHE_DIR`` is then
a folder of the user's own: as set, or else ``~/.cache/simcore/numba`` (``$XDG_CACHE_HOME/simcore/numba``),
which simcore sets on import (a per-user folder in the home, never one in a shared /tmp, where another user
could plant compiled code). On import, simcore then fills the user's folder with symbolic links to the
shared files it lacks (files only; a real file of the user's is never replaced), for every kernel folder
whose shared stamp says it was compiled from these very sources (``_cache_guard.kernel_digest``; a stale
shared cache is not linked, and numba compiles as it would without one). numba then loads through the
links. What a user compiles beyond them (a signature nobody warmed) numba writes as the user's own files:
it replaces a link by a new index file, never writing through it, so the shared files stay as built.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

from simcore._cache_guard import STAMP_NAME, kernel_digest

__all__ = ["SHARED_ENV", "own_cache_dir", "link_shared_cache"]

SHARED_ENV = "SIMCORE_SHARED_NUMBA_CACHE"


def own_cache_dir() -> str | None:
    """With ``SIMCORE_SHARED_NUMBA_CACHE`` set and ``NUMBA_CACHE_DIR`` not, set ``NUMBA_CACHE_DIR`` to
    ``~/.cache/simcore/numba`` (under ``$XDG_CACHE_HOME`` if set; numba's own settings re-read if numba is
    imported already); return ``NUMBA_CACHE_DIR`` (None if unset)."""
    if os.environ.get(SHARED_ENV) and not os.environ.get("NUMBA_CACHE_DIR"):
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        os.environ["NUMBA_CACHE_DIR"] = os.path.join(base, "simcore", "numba")
        if "numba" in sys.modules:  # imported before simcore: its settings were read without the variable
            from numba.core import config

            config.reload_config()
    return os.environ.get("NUMBA_CACHE_DIR")


def _fresh_folders(shared: Path, digest: str) -> list[Path]:
    """Return the shared cache's folders to link: each kernel folder (numba's one per source folder) whose
    stamp equals ``digest``, and the other folders (``simcore-web``: files named by version)."""
    out = []
    for folder in sorted(p for p in shared.iterdir() if p.is_dir()):
        stamp = folder / STAMP_NAME
        if not any(folder.glob("*.nbi")) and not stamp.exists():
            out.append(folder)  # not a numba folder
        elif stamp.is_file() and stamp.read_text().strip() == digest:
            out.append(folder)
    return out


def link_shared_cache(shared: str | os.PathLike | None = None, own: str | os.PathLike | None = None,
                      digest: str | None = None) -> int:
    """Link the files of the shared cache ``shared`` (default: ``$SIMCORE_SHARED_NUMBA_CACHE``) that ``own``
    (default: ``$NUMBA_CACHE_DIR``) lacks into ``own``; return how many links were made. Only kernel folders
    whose stamp equals ``digest`` (default: the installed sources' ``kernel_digest()``) are linked; a link
    that points elsewhere is redone, a real file is kept. Does nothing unless both folders are given and
    differ; never raises (a cache that cannot be linked is a cache numba fills itself)."""
    shared = shared if shared is not None else os.environ.get(SHARED_ENV)
    own = own if own is not None else os.environ.get("NUMBA_CACHE_DIR")
    if not shared or not own:
        return 0
    try:
        shared, own = Path(shared).resolve(), Path(own).resolve()
        if shared == own or not shared.is_dir():
            return 0
        made = 0
        for folder in _fresh_folders(shared, digest or kernel_digest()):
            for dirpath, _dirs, files in os.walk(folder):
                target_dir = own / Path(dirpath).relative_to(shared)
                for name in files:
                    if name == STAMP_NAME:
                        continue  # the user's folder keeps its own stamp (_cache_guard writes it)
                    source, target = Path(dirpath) / name, target_dir / name
                    if target.is_symlink():
                        if os.readlink(target) == str(source):
                            continue
                        target.unlink()
                    elif target.exists():
                        continue  # the user's own file (numba wrote it): keep it
                    target_dir.mkdir(parents=True, exist_ok=True)
                    target.symlink_to(source)
                    made += 1
        return made
    except OSError:
        return 0
