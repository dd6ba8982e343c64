"""Object packages (Fujinoki & Gollamudi): many small files sent as one uncompressed archive.

The byte-level specification is ``FORMAT.md`` in this folder. Public API::

    pack(files) -> bytes                     # files: PackagedFile iterable, or mapping name -> bytes
    unpack(blob) -> list[PackagedFile]
    StreamUnpacker().feed(chunk) -> list[PackagedFile]; .close()
    extract(blob, dest_dir)                  # all or nothing, via a temporary folder
    header_size_bytes(names), package_size_bytes(sizes, names), file_end_offsets_bytes(sizes, names)

Every malformed input raises ``PackageError`` (a ``ValueError``) naming what, the byte offset and file.
Command line: ``python -m simcore package pack|unpack|list``.
"""

from simcore.packaging.extraction import extract
from simcore.packaging.format import (
    ATTRIBUTES,
    MAGIC,
    MAX_FILES,
    MAX_NAME_BYTES,
    MAX_TOTAL_BYTES,
    VERSION,
    PackagedFile,
    PackageError,
    file_end_offsets_bytes,
    header_size_bytes,
    package_size_bytes,
)
from simcore.packaging.stream import StreamUnpacker, unpack
from simcore.packaging.writer import pack

__all__ = [
    "ATTRIBUTES",
    "MAGIC",
    "MAX_FILES",
    "MAX_NAME_BYTES",
    "MAX_TOTAL_BYTES",
    "VERSION",
    "PackagedFile",
    "PackageError",
    "StreamUnpacker",
    "extract",
    "file_end_offsets_bytes",
    "header_size_bytes",
    "pack",
    "package_size_bytes",
    "unpack",
]
