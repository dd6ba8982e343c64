"""``python -m simcore package pack|unpack|list``: object packages from the command line.

Bad input (a malformed package, an unsafe name, a missing file) prints one ``error:`` line on stderr and
exits with status 1; nothing is left half-written (outputs are written beside and renamed into place).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from simcore.packaging.extraction import extract
from simcore.packaging.format import (
    FIXED_HEADER_BYTES,
    MAX_FILES,
    MAX_NAME_BYTES,
    MAX_TOTAL_BYTES,
    PER_FILE_HEADER_BYTES,
    PackagedFile,
    PackageError,
    header_size_bytes,
)
from simcore.packaging.stream import unpack
from simcore.packaging.writer import pack

__all__ = ["add_package_parser", "run_package"]

# No valid package is larger than this: refuse bigger inputs before reading them.
_MAX_PACKAGE_BYTES = FIXED_HEADER_BYTES + MAX_FILES * (PER_FILE_HEADER_BYTES + MAX_NAME_BYTES) + MAX_TOTAL_BYTES


def add_package_parser(sub: argparse._SubParsersAction) -> None:
    """Add the ``package`` command (with pack, unpack, list) to the main parser's subcommands."""
    pkg = sub.add_parser("package", help="object packages: pack files into one archive, unpack, list")
    cmds = pkg.add_subparsers(dest="package_command", required=True)
    p = cmds.add_parser(
        "pack",
        help="pack files and folders into a package",
        description="Pack files (folders recursively, in sorted order) into OUTPUT. Names are paths relative "
        "to -C DIR. Attribute: executable if the file is executable, text if it is UTF-8 without NUL bytes, "
        "else binary.",
    )
    p.add_argument("output", help="the package file to write")
    p.add_argument("paths", nargs="+", help="files or folders, relative to -C DIR")
    p.add_argument("-C", dest="root", metavar="DIR", default=".", help="folder the paths (and names) are relative to")
    u = cmds.add_parser("unpack", help="extract a package into a new folder (all or nothing)")
    u.add_argument("package")
    u.add_argument("dest", help="folder to create; must not exist")
    ls = cmds.add_parser("list", help="list a package's files: size, attribute, name")
    ls.add_argument("package")


def _attribute(path: Path, data: bytes) -> str:
    if os.access(path, os.X_OK):
        return "executable"
    if b"\x00" not in data:
        try:
            data.decode("utf-8")
            return "text"
        except UnicodeDecodeError:
            pass
    return "binary"


def _collect(root: Path, paths: list[str]) -> list[PackagedFile]:
    files = []
    for given in paths:
        top = root / given
        if top.is_symlink() or not top.exists():
            raise PackageError(f"{given!r} is not a regular file or folder under {str(root)!r}")
        found = sorted(p for p in top.rglob("*") if not p.is_dir()) if top.is_dir() else [top]
        for path in found:
            if path.is_symlink() or not path.is_file():
                raise PackageError(f"{str(path)!r} is not a regular file (symlinks are not packed)")
            try:
                name = path.relative_to(root).as_posix()
            except ValueError:
                raise PackageError(f"{str(path)!r} is not under -C {str(root)!r}") from None
            data = path.read_bytes()
            files.append(PackagedFile(name, data, _attribute(path, data)))
    return files


def _read_package(path: str) -> bytes:
    size = os.stat(path).st_size
    if size > _MAX_PACKAGE_BYTES:
        raise PackageError(f"{path!r} is {size} bytes: no valid package exceeds {_MAX_PACKAGE_BYTES} bytes")
    with open(path, "rb") as f:
        return f.read()


def _write_atomically(path: str, blob: bytes) -> None:
    tmp = f"{path}.partial-{os.getpid()}"
    try:
        with open(tmp, "xb") as f:
            f.write(blob)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def run_package(args: argparse.Namespace) -> int:
    """Run ``package pack|unpack|list``; return 0, or 1 after printing a one-line error on stderr."""
    try:
        if args.package_command == "pack":
            files = _collect(Path(args.root), args.paths)
            blob = pack(files)
            _write_atomically(args.output, blob)
            print(f"packed {len(files)} files into {args.output} ({len(blob)} bytes)")
        elif args.package_command == "unpack":
            files = extract(_read_package(args.package), args.dest)
            print(f"extracted {len(files)} files into {args.dest}")
        else:
            files = unpack(_read_package(args.package))
            for f in files:
                print(f"{len(f.data):>12}  {f.attribute:<10}  {f.name}")
            header = header_size_bytes(f.name for f in files)
            data = sum(len(f.data) for f in files)
            print(f"{len(files)} files; object information field {header} bytes, data field {data} bytes")
    except (PackageError, OSError) as err:
        print(f"python -m simcore package {args.package_command}: error: {err}", file=sys.stderr)
        return 1
    return 0
