"""Drop stale numba caches of simcore's kernels before any is loaded.

numba keys a cached function on its own source file only. simcore's kernels call (and often inline)
functions from other files: every event-driven kernel uses ``simcore.engine``'s heap, the admission
kernel uses the fluid kernel, the packet kernels freeze the constants and record dtypes of
``packet/kernel/layout.py`` and call one another across ``packet/``'s folders. An edit there would leave stale
machine code in the cache. So on import this module hashes every simcore source
file that defines numba code and, when the hash differs from the one recorded, deletes simcore's
``*.nbi``/``*.nbc`` cache files, both beside the sources (``__pycache__``) and under ``NUMBA_CACHE_DIR``
(one folder per source folder, named as numba names it). numba then recompiles once. It never raises.
The setting ``SIMCORE_NUMBA_INTERNALS=off`` (``simcore.packet._numba.selfcheck``: the code relying on numba's
internals switched off) counts as a source too: kernels compiled with it on are not loaded with it off, nor back.

It also makes numba's cache heal itself (``install_healing``, on import): a zero-length or truncated
``.nbi``/``.nbc`` file (a kernel killed while writing, a full disk) made numba raise ``EOFError`` or
``UnpicklingError`` on every call of that kernel, forever. With healing, an index that cannot be read
counts as no index, and an entry that cannot be loaded counts as not cached: the function's damaged files
are removed, a warning names them, and numba compiles afresh and saves a good entry. This wraps two numba
functions (``IndexDataCacheFile._load_index``, ``Cache.load_overload``) without changing what they return
when they succeed, so it can never load anything numba would not; it is installed only on the numba
versions it was tested with (``HEALING_TESTED``) when those functions read as expected, else numba's own
behaviour stays (``healing_installed()`` says which). ``kernel_cached(dispatcher)`` tells whether a kernel
would load from the cache (index and data both readable), for the panels' "compiling" notice.
"""

from __future__ import annotations

import hashlib
import inspect
import os
import warnings
from pathlib import Path

__all__ = ["check_kernel_cache", "cache_roots", "numba_cache_subdir", "install_healing", "healing_installed",
           "kernel_cached", "HEALING_TESTED", "kernel_digest", "STAMP_NAME"]

_PACKAGE = Path(__file__).resolve().parent
STAMP_NAME = _STAMP_NAME = "simcore_kernels.sha256"
_INTERNALS_SWITCH = "SIMCORE_NUMBA_INTERNALS"  # = simcore.packet._numba.selfcheck.ENV_SWITCH (no numba here)


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


def kernel_digest() -> str:
    """Return the SHA-256 of every simcore source file that defines numba code (names and contents): the
    stamp a cache folder's ``simcore_kernels.sha256`` holds once its files were written for these sources."""
    digest = hashlib.sha256()
    for path in _kernel_sources():
        digest.update(str(path.relative_to(_PACKAGE)).encode())
        digest.update(path.read_bytes())
    if os.environ.get(_INTERNALS_SWITCH, "").strip().lower() == "off":
        digest.update(b"numba internals off")
    return digest.hexdigest()


def check_kernel_cache() -> bool:
    """Delete simcore's numba cache files if any kernel source changed since they were written.

    Returns True if stale files were removed.
    """
    try:
        value = kernel_digest()
        removed = False
        for root in cache_roots():
            if root == _PACKAGE and not root.is_dir():
                continue
            stamp = root / "__pycache__" / STAMP_NAME if root == _PACKAGE else root / STAMP_NAME
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


# ------------------------------------------------------------------------------------- a cache that heals
#: numba versions (major, minor) the healing was tested with (tests/test_cache_guard.py damages real files)
HEALING_TESTED = ((0, 59), (0, 68))
_HEALING: dict = {}


def _discard(cache_file, exc: BaseException) -> None:
    """Remove the index and every data file of one numba cache file set; warn naming them and why."""
    index = getattr(cache_file, "_index_path", "")
    head, _, tail = getattr(cache_file, "_data_name_pattern", "").partition("{number:d}")
    folder = getattr(cache_file, "_cache_path", "")
    try:
        names = os.listdir(folder) if head else []
    except OSError:
        names = []
    data = [os.path.join(folder, n) for n in names
            if n.startswith(head) and n.endswith(tail) and n[len(head):len(n) - len(tail)].isdigit()]
    for path in [index, *data]:
        try:
            os.unlink(path)
        except OSError:
            pass
    warnings.warn(f"numba's cache of {os.path.basename(index)} could not be read ({type(exc).__name__}: {exc}): "
                  "discarded, the kernel is compiled again", RuntimeWarning, stacklevel=3)


def _version_tested(version: str) -> bool:
    try:
        v = tuple(int(x) for x in version.split(".")[:2])
    except ValueError:
        return False
    return HEALING_TESTED[0] <= v <= HEALING_TESTED[1]


def install_healing() -> bool:
    """Wrap numba's cache loading so that a damaged entry is discarded and recompiled (see the module's
    docstring); return whether the healing is in force. Idempotent."""
    if _HEALING:
        return True
    try:
        import numba
        from numba.core import caching
    except ImportError:
        return False
    file_cls, cache_cls = caching.IndexDataCacheFile, caching.Cache
    try:
        index_src = inspect.getsource(file_cls._load_index)
        load_src = inspect.getsource(cache_cls.load_overload)
        init_src = inspect.getsource(file_cls.__init__)
    except (AttributeError, OSError, TypeError):
        return False
    expected = (_version_tested(numba.__version__) and "pickle.loads(data)" in index_src
                and "self._index_path" in index_src and "_load_overload(sig, target_context)" in load_src
                and "_data_name_pattern" in init_src and "_cache_path" in init_src)
    if not expected:
        return False
    load_index, load_overload = file_cls._load_index, cache_cls.load_overload

    def healing_load_index(self):
        try:
            return load_index(self)
        except Exception as exc:  # damaged: what numba does with no index at all
            _discard(self, exc)
            return {}

    def healing_load_overload(self, sig, target_context):
        try:
            return load_overload(self, sig, target_context)
        except Exception as exc:  # a damaged entry: not cached, compile afresh
            _discard(self._cache_file, exc)
            return None

    healing_load_index.__wrapped__ = load_index
    healing_load_overload.__wrapped__ = load_overload
    file_cls._load_index = healing_load_index
    cache_cls.load_overload = healing_load_overload
    _HEALING.update(load_index=load_index, load_overload=load_overload)
    return True


def healing_installed() -> bool:
    """Return whether damaged cache entries are discarded and recompiled (False: numba's own behaviour)."""
    return bool(_HEALING)


def kernel_cached(dispatcher) -> bool:
    """Return True if ``dispatcher`` (a numba function compiled with ``cache=True``) is compiled in this process already
    or would load from numba's cache: its index lists an entry and every data file it names reads back
    (a damaged one is discarded here, so the first call compiles: say so before it). Never raises."""
    try:
        if dispatcher.signatures:
            return True
        cache_file = dispatcher._cache._cache_file
        overloads = cache_file._load_index()  # empty if absent, stale or damaged
        if not overloads:
            return False
        for name in set(overloads.values()):
            try:
                cache_file._load_data(name)
            except Exception as exc:
                _discard(cache_file, exc)
                return False
        return True
    except Exception:  # numba internals moved: say "not cached" rather than fail a panel
        return False
