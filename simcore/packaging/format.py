"""The object package format: constants, the error type, the file record and size arithmetic.

The byte-level specification is ``FORMAT.md`` beside this file (Fujinoki & Gollamudi's Figures 1-2: an
object information field with the number of files, their names, sizes and attributes, then the data
field). Everything here is pure Python and allocation-free with respect to declared sizes.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass

from simcore._validate import check_choice, check_int, store_python_numbers

__all__ = [
    "MAGIC",
    "VERSION",
    "ATTRIBUTES",
    "MAX_FILES",
    "MAX_NAME_BYTES",
    "MAX_TOTAL_BYTES",
    "FIXED_HEADER_BYTES",
    "PER_FILE_HEADER_BYTES",
    "PackageError",
    "PackagedFile",
    "name_problem",
    "REFUSED_CATEGORIES",
    "NameSet",
    "header_size_bytes",
    "package_size_bytes",
    "file_end_offsets_bytes",
]

MAGIC = b"OPKG"
VERSION = 1
ATTRIBUTES = ("binary", "text", "executable")  # coded as u8 0, 1, 2
MAX_FILES = 65_535
MAX_NAME_BYTES = 1_024
MAX_TOTAL_BYTES = 1 << 30  # sum of the files' sizes (the data field)

COUNT_BYTES = 4  # u32
NAME_LENGTH_BYTES = 2  # u16
SIZE_BYTES = 8  # u64
ATTRIBUTE_BYTES = 1  # u8
FIXED_HEADER_BYTES = len(MAGIC) + 1 + COUNT_BYTES  # magic, version, number of files: 9
PER_FILE_HEADER_BYTES = NAME_LENGTH_BYTES + SIZE_BYTES + ATTRIBUTE_BYTES  # 11, plus the name itself

# Characters a name may not hold: Unicode categories Cc (control: C0, DEL and C1), Cf (format: bidi
# embeddings, overrides and isolates, zero-width characters, the BOM, the soft hyphen ...), Zl and Zp (line
# and paragraph separators). They are invisible or move text, so a name holding one could make a listing
# lie ('evil\u202etxt.exe' shows as 'evilexe.txt').
REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Zl", "Zp"})


class PackageError(ValueError):
    """A package (or a file meant for one) breaks the format; the message says what, where and which file.

    ``offset`` is the byte offset in the package where the problem was found (None when packing),
    ``file_index`` the 1-based number of the file concerned and ``name`` its name, when known.
    """

    def __init__(self, what: str, *, offset: int | None = None, file_index: int | None = None, name=None):
        self.what = what
        self.offset = offset
        self.file_index = file_index
        self.name = name
        where = []
        if offset is not None:
            where.append(f"at byte offset {offset}")
        if file_index is not None:
            where.append(f"in file {file_index}" + (f" ({name!r})" if name is not None else ""))
        super().__init__(what + (f" ({', '.join(where)})" if where else ""))


def name_problem(name: str) -> str | None:
    """Return why ``name`` is not a safe package name (see FORMAT.md, "Names"), or None if it is."""
    if not isinstance(name, str):
        return f"name {name!r} is not a string"
    if name == "":
        return "name is empty"
    if not name.isprintable():  # every refused character is non-printable: the common case costs one call
        for ch in name:
            category = unicodedata.category(ch)
            if category in REFUSED_CATEGORIES:
                what = unicodedata.name(ch, "a control character")
                return (f"name {name!r} contains U+{ord(ch):04X} ({what}, Unicode category {category}): control, "
                        "format and line-separator characters are not allowed (they could make a listing lie)")
    if "\\" in name:
        return f"name {name!r} contains a backslash"
    if name.startswith("/"):
        return f"name {name!r} is an absolute path"
    parts = name.split("/")
    if any(p == "" for p in parts):
        return f"name {name!r} has an empty path component"
    if any(p in (".", "..") for p in parts):
        return f"name {name!r} has a '.' or '..' path component"
    try:
        encoded = name.encode("utf-8")
    except UnicodeEncodeError:
        return f"name {name!r} cannot be encoded as UTF-8"
    if len(encoded) > MAX_NAME_BYTES:
        return f"name {name[:40]!r}... is {len(encoded)} bytes in UTF-8: must be at most {MAX_NAME_BYTES}"
    return None


class NameSet:
    """The names of one package so far: rejects duplicates and a name used both as file and as folder."""

    def __init__(self) -> None:
        self._files: set[str] = set()
        self._folders: set[str] = set()

    def problem_adding(self, name: str) -> str | None:
        """Add ``name`` (already a safe name) and return None, or return why it cannot be added."""
        if name in self._files:
            return f"duplicate name {name!r}"
        if name in self._folders:
            return f"name {name!r} is also used as a folder by another file"
        parts = name.split("/")
        prefixes = ["/".join(parts[:k]) for k in range(1, len(parts))]
        for prefix in prefixes:
            if prefix in self._files:
                return f"name {name!r} uses {prefix!r} as a folder, but {prefix!r} is a file"
        self._files.add(name)
        self._folders.update(prefixes)
        return None


@dataclass(frozen=True)
class PackagedFile:
    """One file in a package.

    ``name``: a relative '/'-separated path (FORMAT.md, "Names"); ``data``: the contents (bytes-like,
    stored as bytes); ``attribute``: "binary", "text" or "executable" (metadata only; no conversion).
    """

    name: str
    data: bytes
    attribute: str = "binary"

    def __post_init__(self):
        store_python_numbers(self)
        problem = name_problem(self.name)
        if problem:
            raise PackageError(problem)
        if isinstance(self.data, str) or not isinstance(self.data, (bytes, bytearray, memoryview)):
            raise PackageError(f"data={type(self.data).__name__} for {self.name!r} is not allowed: must be bytes")
        if not isinstance(self.data, bytes):
            object.__setattr__(self, "data", bytes(self.data))
        try:
            check_choice("attribute", self.attribute, ATTRIBUTES)
        except ValueError as err:
            raise PackageError(f"{err} (file {self.name!r})") from None
        if len(self.data) > MAX_TOTAL_BYTES:
            raise PackageError(f"file {self.name!r} is {len(self.data)} bytes: must be at most {MAX_TOTAL_BYTES}")


def _not_iterable(name: str, value: object, what: str) -> None:
    """Raise naming the argument if ``value`` is not an iterable of ``what`` (a string counts as one value)."""
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise PackageError(f"{name}={value!r} is not allowed: must be an iterable of {what}")


def _encoded_names(names: Iterable[str]) -> list[bytes]:
    _not_iterable("names", names, "names (not one string)")
    out = []
    seen = NameSet()
    for name in names:
        problem = name_problem(name) or seen.problem_adding(name)
        if problem:
            raise PackageError(problem, file_index=len(out) + 1)
        out.append(name.encode("utf-8"))
        if len(out) > MAX_FILES:
            raise PackageError(f"more than {MAX_FILES} files: the format's limit")
    return out


def header_size_bytes(names: Iterable[str]) -> int:
    """Return the size in bytes of the object information field for files with these names, in order.

    ``9 + sum(11 + len(name in UTF-8))``: magic, version, count, then per file a u16 name length, the
    name, a u64 size and a u8 attribute (FORMAT.md). The names are validated as ``pack`` would.
    """
    encoded = _encoded_names(names)
    return FIXED_HEADER_BYTES + sum(PER_FILE_HEADER_BYTES + len(e) for e in encoded)


def _checked_sizes(sizes: Iterable[int], n_names: int) -> list[int]:
    _not_iterable("sizes", sizes, "integers")
    out = [check_int(f"sizes[{i}]", s, 0, MAX_TOTAL_BYTES) for i, s in enumerate(sizes)]
    if len(out) != n_names:
        raise PackageError(f"got {len(out)} sizes for {n_names} names: must be one size per name")
    if sum(out) > MAX_TOTAL_BYTES:
        raise PackageError(f"sizes sum to {sum(out)} bytes: must be at most {MAX_TOTAL_BYTES}")
    return out


def package_size_bytes(sizes: Iterable[int], names: Iterable[str]) -> int:
    """Return the size in bytes of the whole package holding files of these sizes (bytes) and names."""
    _not_iterable("names", names, "names (not one string)")
    names = list(names)
    header = header_size_bytes(names)
    return header + sum(_checked_sizes(sizes, len(names)))


def file_end_offsets_bytes(sizes: Iterable[int], names: Iterable[str]) -> list[int]:
    """Return, per file, the package byte offset just past its last byte (its end in the data field).

    A streaming reader can hand file ``i`` over once ``file_end_offsets_bytes(...)[i]`` bytes of the
    package have arrived; the last entry equals ``package_size_bytes(sizes, names)``.
    """
    _not_iterable("names", names, "names (not one string)")
    names = list(names)
    offset = header_size_bytes(names)
    ends = []
    for size in _checked_sizes(sizes, len(names)):
        offset += size
        ends.append(offset)
    return ends
