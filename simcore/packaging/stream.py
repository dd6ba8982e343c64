"""Reading a package: an incremental parser that hands over each file as soon as its bytes are complete.

``StreamUnpacker`` is the one reader of the format; ``unpack`` feeds it a whole package at once. It keeps
only the bytes it has received and not yet handed over, and checks every declared number (count, name
length, sizes) against the format's limits, and against ``expected_size_bytes`` when that is known, before
it waits for, or allocates, anything on its strength.
"""

from __future__ import annotations

from simcore._validate import check_int
from simcore.packaging.format import (
    ATTRIBUTES,
    FIXED_HEADER_BYTES,
    MAGIC,
    MAX_FILES,
    MAX_NAME_BYTES,
    MAX_TOTAL_BYTES,
    PER_FILE_HEADER_BYTES,
    VERSION,
    NameSet,
    PackagedFile,
    PackageError,
    name_problem,
)

__all__ = ["StreamUnpacker", "unpack"]

_PREAMBLE, _NAMES, _SIZES, _ATTRIBUTES, _DATA, _DONE = range(6)


class StreamUnpacker:
    """Unpack a package arriving in chunks: ``feed`` returns the files completed by each chunk.

    ``expected_size_bytes`` (optional, e.g. an HTTP Content-Length) is the package's total size: with it,
    truncation and oversized declarations are reported as soon as the header declares them, not at
    ``close()``. Any error is a ``PackageError``; after one, the unpacker refuses further input. A chunk
    that completes some files and then turns out to be malformed raises (its files are not returned).
    """

    def __init__(self, expected_size_bytes: int | None = None):
        if expected_size_bytes is not None:
            check_int("expected_size_bytes", expected_size_bytes, 0)
        self._expected = expected_size_bytes
        self._buf: bytes | bytearray = b""
        self._pos = 0  # next unread byte in _buf
        self._base = 0  # package offset of _buf[0]
        self._state = _PREAMBLE
        self._count = 0
        self._names: list[str] = []
        self._name_set = NameSet()
        self._sizes: list[int] = []
        self._total = 0  # sum of the sizes read so far
        self._attributes: list[str] = []
        self._next_file = 0  # index of the next file to hand over
        self._error: PackageError | None = None
        self._closed = False

    # -- public -------------------------------------------------------------------------------------
    @property
    def bytes_received(self) -> int:
        """Bytes fed so far."""
        return self._base + len(self._buf)

    @property
    def done(self) -> bool:
        """True once every file has been handed over."""
        return self._state == _DONE

    def feed(self, chunk: bytes) -> list[PackagedFile]:
        """Consume ``chunk`` (bytes-like) and return the files it completed, in package order."""
        if self._error is not None:
            raise PackageError(f"unpacker already failed: {self._error}")
        if self._closed:
            raise PackageError("unpacker is closed: cannot feed more bytes")
        if isinstance(chunk, str) or not isinstance(chunk, (bytes, bytearray, memoryview)):
            raise PackageError(f"chunk={type(chunk).__name__} is not allowed: must be bytes")
        if isinstance(chunk, memoryview):
            chunk = chunk.tobytes()
        try:
            self._append(chunk)
            out: list[PackagedFile] = []
            while self._step(out):
                pass
            self._compact()
            return out
        except PackageError as err:
            self._error = err
            raise

    def close(self) -> None:
        """Declare the end of input; raise ``PackageError`` if the package is incomplete."""
        if self._error is not None:
            raise PackageError(f"unpacker already failed: {self._error}")
        self._closed = True
        if self._state != _DONE:
            self._error = PackageError(
                f"package truncated: input ended after {self.bytes_received} bytes while {self._awaiting()}",
                offset=self.bytes_received,
                **self._where(),
            )
            raise self._error

    # -- buffer -------------------------------------------------------------------------------------
    def _append(self, chunk) -> None:
        if self._expected is not None and self.bytes_received + len(chunk) > self._expected:
            raise PackageError(
                f"more input than the expected {self._expected} bytes", offset=self._expected, **self._where()
            )
        if self._pos == len(self._buf):  # nothing pending: read the chunk in place
            self._base += len(self._buf)
            self._buf, self._pos = bytes(chunk), 0
        else:
            if isinstance(self._buf, bytes):
                self._base += self._pos
                self._buf, self._pos = bytearray(self._buf[self._pos :]), 0
            self._buf += chunk

    def _compact(self) -> None:
        if self._pos and isinstance(self._buf, bytearray):
            del self._buf[: self._pos]
            self._base += self._pos
            self._pos = 0

    @property
    def _offset(self) -> int:
        return self._base + self._pos

    def _available(self, n: int, what: str) -> bool:
        """True if ``n`` more bytes are buffered; raise early if the expected size rules them out."""
        if self._expected is not None and self._offset + n > self._expected:
            raise PackageError(
                f"package truncated: {what} needs {n} bytes but the package ends at byte {self._expected}",
                offset=self._offset,
                **self._where(),
            )
        return len(self._buf) - self._pos >= n

    def _take(self, n: int) -> bytes:
        out = bytes(self._buf[self._pos : self._pos + n])
        self._pos += n
        return out

    # -- parser -------------------------------------------------------------------------------------
    def _where(self) -> dict:
        """The file the parser is at, for error messages."""
        if self._state in (_PREAMBLE, _DONE):
            return {}
        index = {_NAMES: len(self._names), _SIZES: len(self._sizes), _ATTRIBUTES: len(self._attributes)}.get(
            self._state, self._next_file
        )
        if index >= self._count:
            return {}
        name = self._names[index] if index < len(self._names) else None
        return {"file_index": index + 1, "name": name}

    def _awaiting(self) -> str:
        return {
            _PREAMBLE: "reading the magic, version and number of files",
            _NAMES: "reading the names subfield",
            _SIZES: "reading the sizes subfield",
            _ATTRIBUTES: "reading the attributes subfield",
            _DATA: "reading the data field",
        }[self._state]

    def _fail(self, what: str, offset: int) -> PackageError:
        return PackageError(what, offset=offset, **self._where())

    def _step(self, out: list[PackagedFile]) -> bool:
        """Advance by one field if its bytes are here; return False when more input is needed."""
        if self._state == _PREAMBLE:
            return self._read_preamble()
        if self._state == _NAMES:
            return self._read_name()
        if self._state == _SIZES:
            return self._read_size()
        if self._state == _ATTRIBUTES:
            return self._read_attribute()
        if self._state == _DATA:
            return self._read_data(out)
        if self._pos < len(self._buf):
            raise PackageError(
                f"trailing garbage: {len(self._buf) - self._pos} byte(s) after the end of the last file",
                offset=self._offset,
            )
        return False

    def _read_preamble(self) -> bool:
        seen = bytes(self._buf[self._pos : self._pos + len(MAGIC)])
        if seen != MAGIC[: len(seen)]:
            raise self._fail(f"bad magic {seen!r}: an object package starts with {MAGIC!r}", self._offset)
        if not self._available(FIXED_HEADER_BYTES, "the fixed header (magic, version, number of files)"):
            return False
        self._take(len(MAGIC))
        version = self._take(1)[0]
        if version != VERSION:
            raise self._fail(f"unknown version {version}: this reader knows version {VERSION}", self._offset - 1)
        count = int.from_bytes(self._take(4), "big")
        if count > MAX_FILES:
            raise self._fail(f"number of files {count} exceeds the limit of {MAX_FILES}", self._offset - 4)
        self._count = count
        minimum = FIXED_HEADER_BYTES + PER_FILE_HEADER_BYTES * count + count  # names are >= 1 byte
        if self._expected is not None and minimum > self._expected:
            raise self._fail(
                f"package truncated: {count} files need a header of at least {minimum} bytes "
                f"but the package is {self._expected} bytes",
                self._offset - 4,
            )
        self._state = _NAMES if count else _DONE
        return True

    def _read_name(self) -> bool:
        if not self._available(2, "a name length"):
            return False
        length = int.from_bytes(self._buf[self._pos : self._pos + 2], "big")
        if not 1 <= length <= MAX_NAME_BYTES:
            raise self._fail(f"name length {length} is out of range: must be in [1, {MAX_NAME_BYTES}]", self._offset)
        if not self._available(2 + length, f"a name of {length} bytes"):
            return False
        start = self._offset
        raw = self._take(2 + length)[2:]
        try:
            name = raw.decode("utf-8")
        except UnicodeDecodeError as err:
            raise self._fail(f"name {raw!r} is not valid UTF-8 ({err.reason})", start + 2 + err.start) from None
        problem = name_problem(name) or self._name_set.problem_adding(name)
        if problem:
            raise self._fail(problem, start)
        self._names.append(name)
        if len(self._names) == self._count:
            self._state = _SIZES
        return True

    def _read_size(self) -> bool:
        if not self._available(8, "a file size"):
            return False
        size = int.from_bytes(self._buf[self._pos : self._pos + 8], "big")
        total = self._total + size
        if total > MAX_TOTAL_BYTES:
            raise self._fail(
                f"declared size {size} brings the data field to {total} bytes: the limit is {MAX_TOTAL_BYTES}",
                self._offset,
            )
        if self._expected is not None:
            header_end = self._offset + 8 * (self._count - len(self._sizes)) + self._count
            if header_end + total > self._expected:
                raise self._fail(
                    f"declared size {size} runs past the end of the input: the data field would end at byte "
                    f"{header_end + total} but the package is {self._expected} bytes",
                    self._offset,
                )
        self._take(8)
        self._sizes.append(size)
        self._total = total
        if len(self._sizes) == self._count:
            self._state = _ATTRIBUTES
        return True

    def _read_attribute(self) -> bool:
        if not self._available(1, "an attribute"):
            return False
        code = self._buf[self._pos]
        if code >= len(ATTRIBUTES):
            allowed = ", ".join(f"{i} {a}" for i, a in enumerate(ATTRIBUTES))
            raise self._fail(f"unknown attribute code {code}: must be one of {allowed}", self._offset)
        self._pos += 1
        self._attributes.append(ATTRIBUTES[code])
        if len(self._attributes) == self._count:
            self._state = _DATA
        return True

    def _read_data(self, out: list[PackagedFile]) -> bool:
        i = self._next_file
        if not self._available(self._sizes[i], f"the data of file {i + 1}"):
            return False
        out.append(PackagedFile(self._names[i], self._take(self._sizes[i]), self._attributes[i]))
        self._next_file += 1
        if self._next_file == self._count:
            self._state = _DONE
        return True


def unpack(blob: bytes) -> list[PackagedFile]:
    """Return the files of the package ``blob``, in order; raise ``PackageError`` if it is malformed."""
    if isinstance(blob, str) or not isinstance(blob, (bytes, bytearray, memoryview)):
        raise PackageError(f"blob={type(blob).__name__} is not allowed: must be bytes")
    reader = StreamUnpacker(expected_size_bytes=len(blob))
    files = reader.feed(blob)
    reader.close()
    return files
