"""Writing a package: ``pack(files) -> bytes`` (FORMAT.md beside this file is the specification)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from simcore.packaging.format import (
    ATTRIBUTES,
    MAGIC,
    MAX_FILES,
    MAX_TOTAL_BYTES,
    VERSION,
    NameSet,
    PackagedFile,
    PackageError,
)

__all__ = ["pack", "as_packaged_files"]


def as_packaged_files(files: Iterable[PackagedFile] | Mapping[str, bytes]) -> list[PackagedFile]:
    """Return ``files`` as a checked list of ``PackagedFile``: safe, unique names, within the limits.

    ``files`` is an iterable of ``PackagedFile`` or a mapping name -> bytes (attribute "binary").
    """
    if isinstance(files, Mapping):
        files = [PackagedFile(name, data) for name, data in files.items()]
    elif isinstance(files, (str, bytes, bytearray, memoryview)) or not isinstance(files, Iterable):
        raise PackageError(
            f"files={type(files).__name__} is not allowed: "
            "must be an iterable of PackagedFile or a mapping name -> bytes"
        )
    out: list[PackagedFile] = []
    names = NameSet()
    total = 0
    for f in files:
        index = len(out) + 1
        if not isinstance(f, PackagedFile):
            raise PackageError(f"files[{index - 1}]={type(f).__name__} is not allowed: must be a PackagedFile")
        problem = names.problem_adding(f.name)
        if problem:
            raise PackageError(problem, file_index=index, name=f.name)
        total += len(f.data)
        if total > MAX_TOTAL_BYTES:
            raise PackageError(f"files total {total} bytes: the limit is {MAX_TOTAL_BYTES}", file_index=index)
        out.append(f)
        if len(out) > MAX_FILES:
            raise PackageError(f"more than {MAX_FILES} files: the format's limit")
    return out


def pack(files: Iterable[PackagedFile] | Mapping[str, bytes]) -> bytes:
    """Return the object package holding ``files``, in order (an iterable of PackagedFile, or name -> bytes).

    Layout (FORMAT.md): magic, version, number of files; the names subfield (u16 length + UTF-8 each);
    the sizes subfield (u64 each); the attributes subfield (u8 each); then the files' bytes back to back.
    Raises ``PackageError`` for an unsafe or duplicate name, a bad attribute, or a limit exceeded.
    """
    checked = as_packaged_files(files)
    parts = [MAGIC, bytes([VERSION]), len(checked).to_bytes(4, "big")]
    for f in checked:
        encoded = f.name.encode("utf-8")
        parts += [len(encoded).to_bytes(2, "big"), encoded]
    parts += [len(f.data).to_bytes(8, "big") for f in checked]
    parts.append(bytes(ATTRIBUTES.index(f.attribute) for f in checked))
    parts += [f.data for f in checked]
    return b"".join(parts)
