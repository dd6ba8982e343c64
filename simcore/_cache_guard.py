"""Drop stale numba caches of simcore's kernels before any is loaded.

numba keys a cached function on its own source file only. simcore's kernels call (and often inline)
functions from other files: every event-driven kernel uses ``simcore.engine``'s heap, the admission
kernel uses the fluid kernel, the packet kernels freeze the constants and record dtypes of
``packet/kernel/layout.py`` and call one another across ``packet/``'s folders. An edit there would leave stale
machine code in the cache. So on import this module hashes every simcore source
file that defines numba code and, when the hash differs from the one recorded, deletes simcore's
``*.nbi``/``*.nbc`` cache files, both beside the sources (``__pycache__``) and under ``NUMBA_CACHE_DIR``
(one folder per source folder, named as numba names it). numba then recompiles once. It never raises.
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

__all__ = ["check_kernel_cache", "cache_roots", "numba_cache_subdir"]

_PACKAGE = Path(__file__).resolve().parent
_STAMP_NAME = "simcore_kernels.sha256"


def _kernel_sources() -> list[Path]:
    return sorted(p for p in _PACKAGE.rglob("*.py") if "njit" in p.read_text(encoding="utf-8", errors="ignore"))


def numba_cache_subdir(source_folder: Path) -> str:
    """Return the folder name numba uses under NUMBA_CACHE_DIR for sources in ``source_folder``.

    Mirrors ``numba.core.caching._CacheLocator.get_suitable_cache_subpath``: the folder's own name, an
    underscore, and the SHA-1 of its absolute path.
    """
    path = os.path.abspath(source_folder)
    return f"{os.path.basename(path)}_{hashlib.sha1(path.encode()).hexdigest()}"


def cache_roots() -> list[Path]:
    """Return the folders where numba may keep simcore's cache files."""
    roots = [_PACKAGE]
    cache_dir = os.environ.get("NUMBA_CACHE_DIR")
    if cache_dir:
        folders = sorted({p.parent for p in _kernel_sources()})
        roots += [Path(cache_dir) / numba_cache_subdir(folder) for folder in folders]
    return roots


def check_kernel_cache() -> bool:
    """Delete simcore's numba cache files if any kernel source changed since they were written.

    Returns True if stale files were removed.
    """
    try:
        digest = hashlib.sha256()
        for path in _kernel_sources():
            digest.update(str(path.relative_to(_PACKAGE)).encode())
            digest.update(path.read_bytes())
        value = digest.hexdigest()
        removed = False
        for root in cache_roots():
            if root == _PACKAGE and not root.is_dir():
                continue
            stamp = root / "__pycache__" / _STAMP_NAME if root == _PACKAGE else root / _STAMP_NAME
            if stamp.is_file() and stamp.read_text().strip() == value:
                continue
            if root.is_dir():
                for f in [*root.rglob("*.nbi"), *root.rglob("*.nbc")]:
                    f.unlink(missing_ok=True)
                    removed = True
            try:
                stamp.parent.mkdir(parents=True, exist_ok=True)
                stamp.write_text(value)
            except OSError:
                pass  # a read-only source tree (Binder): the cache lives under NUMBA_CACHE_DIR then
        return removed
    except OSError:
        return False
