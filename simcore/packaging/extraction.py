"""Extracting a package to disk: all or nothing.

Every file is checked first (``unpack``); they are then written into a fresh temporary folder beside the
destination, which is renamed into place only once complete. On any error the temporary folder is
removed: the destination either appears whole or not at all.
"""

from __future__ import annotations

import os
import secrets
import shutil
from pathlib import Path

from simcore.packaging.format import PackagedFile, PackageError
from simcore.packaging.stream import unpack

__all__ = ["extract", "windows_name_problem"]

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
    if _ON_WINDOWS:
        for index, f in enumerate(files, start=1):
            problem = windows_name_problem(f.name)
            if problem:
                raise PackageError(problem, file_index=index)
    if dest.exists() or dest.is_symlink():
        raise FileExistsError(f"dest_dir={str(dest)!r} already exists: extract into a new folder")
    tmp = _make_temporary_folder(dest)
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
    return files


def _make_temporary_folder(dest: Path) -> Path:
    """Create and return an empty folder ``.<name>.partial-<random>`` beside ``dest`` (mode 0o777 - umask)."""
    parent = dest.absolute().parent
    for _ in range(100):
        tmp = parent / f".{dest.name}.partial-{secrets.token_hex(6)}"
        try:
            os.mkdir(tmp, 0o777)
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"could not create a temporary folder beside {str(dest)!r}")
