"""On-wire size of an object package: the codec (``simcore.packaging``, spec in its ``FORMAT.md``) decides.

The simulation needs only sizes, never real bytes, on the slider path; these are thin, named views of the
codec's own arithmetic so the chapter and the codec cannot drift apart:

- ``package_header_bytes(names)``: the object information field (magic, version, count; per file a name
  length, the UTF-8 name, a size and an attribute) = ``9 + sum(11 + len(name))``.
- ``package_bytes(sizes, names)``: that header plus the data field.
- ``make_package(files)``: real bytes, for the loopback check, built by ``simcore.packaging.pack``.
"""

from __future__ import annotations

from collections.abc import Sequence

from simcore.packaging import PackagedFile, header_size_bytes, pack, package_size_bytes

__all__ = ["package_header_bytes", "package_bytes", "make_package"]


def package_header_bytes(names: Sequence[str]) -> int:
    """Return the size (bytes) of the object information field for files called ``names``."""
    return header_size_bytes(names)


def package_bytes(sizes: Sequence[int], names: Sequence[str]) -> int:
    """Return the size (bytes) of a package of files of ``sizes`` bytes called ``names``."""
    return package_size_bytes(sizes, names)


def make_package(files: Sequence[tuple[str, bytes, str]]) -> bytes:
    """Return the object package (bytes) of ``files`` = (name, data, attribute), made by the codec."""
    return pack([PackagedFile(name, data, attribute) for name, data, attribute in files])
