"""On-wire size of an object package, following the format of the package codec (``simcore.packaging``).

Layout (all integers big-endian; the codec is the reference, ``header_size_bytes(names)`` there must
equal ``package_header_bytes(names)`` here, and the lead reconciles the two at merge):

====================  =====================================================================
bytes                 field
====================  =====================================================================
4                     magic
2                     version
4                     number of files n
per file, n times:    2-byte name length L, L bytes of UTF-8 name, 8-byte size, 1-byte attribute
then                  the files' data, concatenated in the same order
====================  =====================================================================

This is the paper's Figures 1-2 (an object information field: count, names, sizes, attributes; then the
data field). ``build_package_local`` is the one function to swap for ``simcore.packaging.pack`` once the
codec is merged: it concatenates in exactly this layout so sizes agree byte for byte.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence

from simcore._validate import check_int

__all__ = ["FIXED_HEADER_BYTES", "PER_FILE_HEADER_BYTES", "MAGIC", "VERSION", "ATTRIBUTES",
           "package_header_bytes", "package_bytes", "build_package_local"]

MAGIC = b"OPKG"
VERSION = 1
FIXED_HEADER_BYTES = 4 + 2 + 4  # magic, version, count
PER_FILE_HEADER_BYTES = 2 + 8 + 1  # name length, size, attribute (plus the name itself)
ATTRIBUTES = {"binary": 0, "text": 1, "executable": 2}


def _name_bytes(names: Sequence[str]) -> list[bytes]:
    out = []
    for i, n in enumerate(names):
        if not isinstance(n, str) or not n:
            raise ValueError(f"names[{i}]={n!r} is not allowed: must be a non-empty str")
        b = n.encode("utf-8")
        if len(b) > 0xFFFF:
            raise ValueError(f"names[{i}] is {len(b)} bytes in UTF-8: must be at most 65535")
        out.append(b)
    return out


def package_header_bytes(names: Sequence[str]) -> int:
    """Return the size (bytes) of the object information field for files called ``names``."""
    return FIXED_HEADER_BYTES + sum(PER_FILE_HEADER_BYTES + len(b) for b in _name_bytes(names))


def package_bytes(sizes: Sequence[int], names: Sequence[str]) -> int:
    """Return the size (bytes) of a package of files of ``sizes`` bytes called ``names``."""
    if len(sizes) != len(names):
        raise ValueError(f"sizes has {len(sizes)} entries and names {len(names)}: must be equal")
    total = sum(check_int(f"sizes[{i}]", s, 0, 2**63 - 1) for i, s in enumerate(sizes))
    return package_header_bytes(names) + total


def build_package_local(files: Sequence[tuple[str, bytes, str]]) -> bytes:
    """Return the package of ``files`` = (name, data, attribute) in the layout above.

    A minimal concatenation for the loopback check; swap for ``simcore.packaging.pack`` (same layout).
    """
    names = _name_bytes([f[0] for f in files])
    parts = [MAGIC, struct.pack(">HI", VERSION, len(files))]
    for (_name, data, attribute), nb in zip(files, names, strict=True):
        if attribute not in ATTRIBUTES:
            raise ValueError(f"attribute={attribute!r} is not allowed: must be one of {list(ATTRIBUTES)}")
        parts += [struct.pack(">H", len(nb)), nb, struct.pack(">QB", len(data), ATTRIBUTES[attribute])]
    parts += [bytes(f[1]) for f in files]
    return b"".join(parts)
