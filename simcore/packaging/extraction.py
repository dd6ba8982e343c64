"""Extracting a package to disk: all or nothing.

Every file is checked first (``unpack``); they are then written into a fresh temporary folder beside the
destination, which is renamed into place only once complete. On any error the temporary folder is
removed: the destination either appears whole or not at all. A process killed mid-extract (SIGKILL, a
power cut) cannot remove it: the next extract into the same destination does (``remove_stale_partials``),
telling a dead extract's folder from a live one's by a lock the live extract holds on a file beside it.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

try:
    import fcntl
except ImportError:  # Windows: no advisory locks, so no stale folder is ever recognised (none is removed)
    fcntl = None

from simcore.packaging.format import PackagedFile, PackageError
from simcore.packaging.stream import unpack

__all__ = ["extract", "windows_name_problem", "remove_stale_partials"]

_PARTIAL = ".partial-"

_MODES = {"binary": 0o644, "text": 0o644, "executable": 0o755}  # before the umask

# Windows cannot create these names in any folder (Microsoft, "Naming Files, Paths, and Namespaces"): the
# device names, with or without an extension, in any case; characters reserved by its file systems; and a
# component ending in '.' or ' ', which Windows silently strips (so 'a.' would overwrite 'a').
_ON_WINDOWS = os.name == "nt"
_WINDOWS_DEVICES = frozenset(
    ["CON", "PRN", "AUX", "NUL"] + [f"COM{i}" for i in range(1, 10)] + [f"LPT{i}" for i in range(1, 10)]
)
_WINDOWS_RESERVED_CHARS = frozenset('<>:"|?*')


def windows_name_problem(name: str) -> str | None:
    """Return why ``name`` (already a safe package name) cannot be extracted on Windows, or None.

    The package format allows these names (they are fine on POSIX systems); ``extract`` refuses them,
    before writing anything, only when it runs on Windows.
    """
    for part in name.split("/"):
        if part.split(".", 1)[0].rstrip(" ").upper() in _WINDOWS_DEVICES:
            return f"name {name!r} uses the Windows device name {part!r}"
        bad = sorted(set(part) & _WINDOWS_RESERVED_CHARS)
        if bad:
            return f"name {name!r} contains {''.join(bad)!r}, reserved on Windows"
        if part[-1] in ". ":
            return f"name {name!r} has a component ending in {part[-1]!r}, which Windows strips"
    return None


def _write(root: Path, f: PackagedFile) -> None:
    path = root.joinpath(*f.name.split("/"))
    path.parent.mkdir(parents=True, exist_ok=True)
    # O_EXCL: two names that collide on this file system (e.g. differing only in case) are an error.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), _MODES[f.attribute])
    with os.fdopen(fd, "wb") as out:
        out.write(f.data)


def extract(blob: bytes, dest_dir: str | os.PathLike) -> list[PackagedFile]:
    """Write the files of package ``blob`` under ``dest_dir`` (which must not exist); return the files.

    Raises ``PackageError`` for a malformed package (nothing is written), ``FileExistsError`` if
    ``dest_dir`` exists, and ``OSError`` for a file-system failure (the partial folder is removed).
    """
    if not isinstance(dest_dir, str | os.PathLike):
        raise PackageError(f"dest_dir={dest_dir!r} is not allowed: must be a path (str or os.PathLike)")
    dest = Path(dest_dir)
    files = unpack(blob)
    remove_stale_partials(dest)
    if _ON_WINDOWS:
        for index, f in enumerate(files, start=1):
            problem = windows_name_problem(f.name)
            if problem:
                raise PackageError(problem, file_index=index)
    if dest.exists() or dest.is_symlink():
        raise FileExistsError(f"dest_dir={str(dest)!r} already exists: extract into a new folder")
    tmp, lock = _make_temporary_folder(dest)
    try:
        for index, f in enumerate(files, start=1):
            try:
                _write(tmp, f)
            except FileExistsError:
                raise PackageError(
                    f"name {f.name!r} collides with another file's on this file system (case-insensitive?)",
                    file_index=index,
                ) from None
        os.rename(tmp, dest)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    finally:
        _release(lock)
    return files


def _lock_path(tmp: Path) -> Path:
    return tmp.with_name(tmp.name + ".lock")


def _try_lock(fd: int) -> bool:
    """Take an exclusive lock on open file ``fd`` without waiting; return whether it was taken. The system
    releases it when the process ends, however it ends (SIGKILL included)."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        return True
    except OSError:
        return False


def _make_temporary_folder(dest: Path) -> tuple[Path, tuple[Path, int] | None]:
    """Create an empty folder ``.<name>.partial-<random>`` beside ``dest`` (mode 0o777 - umask) and, first,
    its lock file ``.<name>.partial-<random>.lock``, locked for as long as this extract lives; return the
    folder and the lock (None where there is no ``fcntl``: then nothing is ever taken for stale)."""
    parent = dest.absolute().parent
    for _ in range(100):
        tmp = parent / f".{dest.name}{_PARTIAL}{secrets.token_hex(6)}"
        lock = None
        if fcntl is not None:
            if os.path.lexists(tmp) or os.path.lexists(_lock_path(tmp)):
                continue
            # the lock file is locked under another name, then renamed into place: a cleaner never sees it
            # unlocked (the lock belongs to the open file, not to its name)
            fresh = tmp.with_name(tmp.name + ".new")
            try:
                fd = os.open(fresh, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError:
                continue
            _try_lock(fd)  # a file no one else has opened yet: always taken
            os.rename(fresh, _lock_path(tmp))
            lock = (_lock_path(tmp), fd)
        try:
            os.mkdir(tmp, 0o777)
            return tmp, lock
        except FileExistsError:
            _release(lock)
            continue
        except BaseException:
            _release(lock)
            raise
    raise FileExistsError(f"could not create a temporary folder beside {str(dest)!r}")


def _release(lock: tuple[Path, int] | None) -> None:
    """Remove the lock file, then close it (which releases the lock)."""
    if lock is not None:
        path, fd = lock
        try:
            os.unlink(path)
        except OSError:
            pass
        os.close(fd)


def remove_stale_partials(dest: str | os.PathLike) -> list[Path]:
    """Remove the temporary folders that extracts into ``dest`` left behind when killed (``.<name>.partial-*``
    beside it) and return them. A folder is stale only if its lock file exists and can be locked: a live
    extract holds its lock, and the system releases the lock of a process that ended, SIGKILL included.
    Folders without a lock file (another program's, or an extract between its two first steps) are left
    alone; so is everything where there is no ``fcntl`` (Windows)."""
    if fcntl is None:
        return []
    dest = Path(dest)
    parent = dest.absolute().parent
    prefix = f".{dest.name}{_PARTIAL}"
    try:
        names = os.listdir(parent)
    except OSError:
        return []
    removed = []
    for name in names:
        if not (name.startswith(prefix) and name.endswith(".lock")):
            continue
        lock_path = parent / name
        tmp = parent / name[: -len(".lock")]
        try:
            fd = os.open(lock_path, os.O_WRONLY)
        except OSError:  # gone meanwhile (its extract finished, or another cleaner took it)
            continue
        try:
            if not _try_lock(fd):
                continue  # a live extract
            if not os.path.exists(lock_path):  # released and unlinked just before we locked it: finished
                continue
            shutil.rmtree(tmp, ignore_errors=True)
            os.unlink(lock_path)
            removed.append(tmp)
        finally:
            os.close(fd)
    return removed
