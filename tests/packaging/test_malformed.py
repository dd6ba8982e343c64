"""Every malformed case of FORMAT.md's "What a reader must reject", by name, on hand-built bytes.

The bytes are built here with ``struct`` straight from the specification (big-endian u32 count, u16
name lengths, u64 sizes, u8 attributes), never from ``pack``'s output, so a bug shared by writer and
reader cannot hide. Each case is checked through ``unpack`` and through the streaming reader fed one
byte at a time (which must fail by ``close()`` at the latest).
"""

import struct
import tracemalloc

import pytest

from simcore.packaging import PackageError, StreamUnpacker, unpack


def header(names, sizes, attributes, *, magic=b"OPKG", version=1, count=None):
    """The object information field, built by hand from the specification."""
    raw_names = [n.encode("utf-8") if isinstance(n, str) else n for n in names]
    out = magic + bytes([version]) + struct.pack(">I", len(raw_names) if count is None else count)
    out += b"".join(struct.pack(">H", len(n)) + n for n in raw_names)
    out += b"".join(struct.pack(">Q", s) for s in sizes)
    out += bytes(attributes)
    return out


def package(names, datas, attributes=None):
    attributes = [0] * len(names) if attributes is None else attributes
    return header(names, [len(d) for d in datas], attributes) + b"".join(datas)


GOOD = package(["index.html", "img/a.gif"], [b"<p>hi</p>", b"GIF89a"], [1, 0])


def reject(blob, match):
    """Assert that unpack and a byte-by-byte stream both reject ``blob`` with a message matching ``match``."""
    with pytest.raises(PackageError, match=match) as whole:
        unpack(blob)
    reader = StreamUnpacker()
    with pytest.raises(PackageError) as streamed:  # noqa: PT012 - the error may come from any feed or close
        for i in range(len(blob)):
            reader.feed(blob[i : i + 1])
        reader.close()
    return whole.value, streamed.value


def test_the_hand_built_good_package_is_accepted():
    assert [(f.name, f.data, f.attribute) for f in unpack(GOOD)] == [
        ("index.html", b"<p>hi</p>", "text"),
        ("img/a.gif", b"GIF89a", "binary"),
    ]
    assert len(GOOD) == 9 + (11 + 10) + (11 + 9) + 9 + 6


def test_the_specification_example_bytes():
    example = bytes.fromhex("4F504B47 01 00000001 0005 612E747874 0000000000000002 01 6869")
    [f] = unpack(example)
    assert (f.name, f.data, f.attribute) == ("a.txt", b"hi", "text")


def test_empty_package_is_valid_and_nine_bytes():
    assert unpack(b"OPKG\x01\x00\x00\x00\x00") == []


@pytest.mark.parametrize("cut", range(len(GOOD)))
def test_truncation_anywhere(cut):
    # a prefix of a good package is only ever "too short", never misread as something else
    whole, streamed = reject(GOOD[:cut], "truncated|runs past the end of the input")
    assert "package truncated: input ended" in str(streamed) and streamed.offset == cut


def test_truncation_in_the_data_names_the_file_and_offset():
    whole, streamed = reject(GOOD[:-1], "runs past the end")
    assert whole.file_index == 2 and whole.name == "img/a.gif"
    assert whole.offset == 9 + (2 + 10) + (2 + 9) + 8  # the second size field
    assert "data field" in str(streamed) and streamed.offset == len(GOOD) - 1


def test_declared_size_beyond_input():
    blob = header(["a"], [1000], [0]) + b"x" * 10
    whole, _ = reject(blob, "declared size 1000 runs past the end")
    assert whole.offset == 9 + 3 and whole.file_index == 1


@pytest.mark.parametrize("size", [2**30 + 1, 2**63, 2**64 - 1])
def test_absurd_declared_size_is_rejected_without_allocating(size):
    blob = header(["a"], [size], [0]) + b"x"
    tracemalloc.start()
    try:
        reject(blob, "the limit is 1073741824")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000


def test_sizes_summing_above_the_limit():
    # unpack knows the input's length, so the first size already runs past it; a stream cannot know
    _, streamed = reject(header(["a", "b"], [2**29, 2**29 + 1], [0, 0]), "runs past the end of the input")
    assert "brings the data field to 1073741825 bytes" in str(streamed) and streamed.file_index == 2


def test_stream_waits_on_a_large_legal_size_without_allocating_it():
    reader = StreamUnpacker()
    tracemalloc.start()
    try:
        reader.feed(header(["big"], [2**30], [0]) + b"x" * 100)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000
    with pytest.raises(PackageError, match="truncated.*data field"):
        reader.close()


def test_count_larger_than_the_names_present():
    blob = header(["a", "b"], [10, 10], [0, 0], count=3) + b"x" * 20
    reject(blob, "name length 0")  # the first u64 size (10) is read as the third name: length 0


def test_count_smaller_than_the_files_present():
    blob = header(["a", "b"], [1, 1], [0, 0], count=1) + b"xy"
    # 'b''s u16 length and name become the high bytes of 'a''s u64 size: 0x0001_6200_0000_0000 bytes
    reject(blob, f"declared size {0x0001_6200_0000_0000} .* the limit is 1073741824")


@pytest.mark.parametrize("count", [65_536, 2**32 - 1])
def test_count_above_the_limit(count):
    whole, _ = reject(header([], [], [], count=count), f"number of files {count} exceeds the limit of 65535")
    assert whole.offset == 5


def test_count_the_input_cannot_hold_fails_before_reading_names():
    with pytest.raises(PackageError, match="1000 files need a header of at least 12009 bytes"):
        unpack(header([], [], [], count=1000) + b"\x00\x01a" * 3)


def test_trailing_garbage():
    whole, streamed = reject(GOOD + b"\x00", "trailing garbage: 1 byte")
    assert whole.offset == streamed.offset == len(GOOD)


@pytest.mark.parametrize(
    "name",
    [
        b"..",
        b"../etc/passwd",
        b"a/../../b",
        b"a/..",
        b".",
        b"./a",
        b"/etc/passwd",
        b"/",
        b"a\\..\\b",
        b"C:\\x",
        b"a\x00b",
        b"a\nb",
        b"a//b",
        b"a/",
    ],
)
def test_path_traversal_and_unsafe_names(name):
    whole, _ = reject(package([b"ok", name], [b"1", b"2"]), "name")
    assert whole.file_index == 2 and whole.offset == 9 + 4  # the start of the second name


def test_empty_name_length():
    reject(header([b""], [1], [0]) + b"x", r"name length 0 is out of range")


def test_name_longer_than_the_limit():
    reject(package([b"a" * 1025], [b""]), r"name length 1025 is out of range: must be in \[1, 1024\]")
    assert unpack(package([b"a" * 1024], [b""]))[0].name == "a" * 1024


def test_duplicate_names():
    whole, _ = reject(package(["a.gif", "a.gif"], [b"1", b"2"]), "duplicate name 'a.gif'")
    assert whole.file_index == 2


@pytest.mark.parametrize("names", [["a", "a/b"], ["a/b", "a"], ["d/e/f", "d/e"]])
def test_a_name_used_as_file_and_folder(names):
    reject(package(names, [b"1", b"2"]), "folder")


@pytest.mark.parametrize(
    "raw",
    [b"\xff", b"a\x80", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"],
    ids=["ff", "lone-continuation", "overlong-slash", "surrogate", "truncated-sequence", "above-U+10FFFF"],
)
def test_bad_utf8(raw):
    whole, _ = reject(package([raw], [b""]), "not valid UTF-8")
    assert 11 <= whole.offset < 11 + len(raw)


@pytest.mark.parametrize("code", [3, 7, 255])
def test_unknown_attribute(code):
    whole, _ = reject(package(["a", "b"], [b"1", b"2"], [0, code]), f"unknown attribute code {code}")
    assert whole.offset == 9 + 3 + 3 + 16 + 1 and whole.file_index == 2 and whole.name == "b"


@pytest.mark.parametrize("version", [0, 2, 255])
def test_unknown_version(version):
    whole, _ = reject(header([], [], [], version=version), f"unknown version {version}")
    assert whole.offset == 4


@pytest.mark.parametrize("magic", [b"OPKH", b"PK\x03\x04", b"opkg", b"\x00\x00\x00\x00"])
def test_unknown_magic(magic):
    whole, _ = reject(header([], [], [], magic=magic), "bad magic")
    assert whole.offset == 0


def test_stream_fails_on_the_first_bad_byte_and_then_refuses_input():
    reader = StreamUnpacker()
    reader.feed(b"OP")
    with pytest.raises(PackageError, match="bad magic"):
        reader.feed(b"X")
    with pytest.raises(PackageError, match="already failed"):
        reader.feed(b"G")
    with pytest.raises(PackageError, match="already failed"):
        reader.close()


def test_stream_with_expected_size_reports_truncation_when_the_header_is_read():
    blob = GOOD[:-3]
    reader = StreamUnpacker(expected_size_bytes=len(blob))
    with pytest.raises(PackageError, match="runs past the end"):
        reader.feed(blob[:60])  # the sizes end at byte 59: no data has arrived yet
    with pytest.raises(PackageError, match="more input than the expected 5 bytes"):
        StreamUnpacker(expected_size_bytes=5).feed(b"OPKG\x01\x00")


@pytest.mark.parametrize("bad", ["text", 3, None, [1, 2]])
def test_non_bytes_input(bad):
    with pytest.raises(PackageError, match="must be bytes"):
        unpack(bad)
    with pytest.raises(PackageError, match="must be bytes"):
        StreamUnpacker().feed(bad)
