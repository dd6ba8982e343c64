"""Round trips over arbitrary file sets (hypothesis), sizes by hand, and the streaming reader's timing.

Expected layouts are computed here from FORMAT.md's arithmetic (9 bytes, then per file 2 + name + 8 + 1,
then the data), not with the package's own helpers.
"""

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.packaging import (
    PackagedFile,
    PackageError,
    StreamUnpacker,
    file_end_offsets_bytes,
    header_size_bytes,
    pack,
    package_size_bytes,
    unpack,
)

_COMPONENT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc", "Cf", "Zl", "Zp"), blacklist_characters="/\\"), min_size=1,
    max_size=8
).filter(lambda c: c not in (".", ".."))
_NAME = st.lists(_COMPONENT, min_size=1, max_size=3).map("/".join)


@st.composite
def file_sets(draw, max_files=8):
    """Lists of PackagedFile with unique names, none used both as a file and as a folder."""
    names, files, folders = [], set(), set()
    for name in draw(st.lists(_NAME, max_size=max_files)):
        parts = name.split("/")
        prefixes = {"/".join(parts[:k]) for k in range(1, len(parts))}
        if name in files or name in folders or prefixes & files:
            continue
        names.append(name)
        files.add(name)
        folders |= prefixes
    return [
        PackagedFile(n, draw(st.binary(max_size=64)), draw(st.sampled_from(["binary", "text", "executable"])))
        for n in names
    ]


def expected_layout(files):
    """(package size, per file the offset just past its last byte), by FORMAT.md's arithmetic."""
    offset = 9 + sum(2 + len(f.name.encode("utf-8")) + 8 + 1 for f in files)
    ends = []
    for f in files:
        offset += len(f.data)
        ends.append(offset)
    return offset, ends


@given(file_sets())
def test_unpack_inverts_pack(files):
    blob = pack(files)
    assert unpack(blob) == files
    assert len(blob) == expected_layout(files)[0]


@given(file_sets())
def test_pack_inverts_unpack_the_encoding_is_canonical(files):
    blob = pack(files)
    assert pack(unpack(blob)) == blob


@given(file_sets(), st.data())
def test_stream_gives_the_same_files_each_as_soon_as_complete(files, data):
    blob = pack(files)
    cuts = sorted(data.draw(st.sets(st.integers(1, max(1, len(blob) - 1)), max_size=12)))
    bounds = [0, *[c for c in cuts if c < len(blob)], len(blob)]
    reader = StreamUnpacker()
    got, yielded_in_chunk = [], []
    for k, (a, b) in enumerate(zip(bounds[:-1], bounds[1:], strict=True)):
        out = reader.feed(blob[a:b])
        got += out
        yielded_in_chunk += [k] * len(out)
    reader.close()
    assert got == files
    # file i is handed over by exactly the chunk that holds its last byte (end - 1)
    ends = expected_layout(files)[1]
    chunk_of = [next(k for k, b in enumerate(bounds[1:]) if end - 1 < b) for end in ends]
    assert yielded_in_chunk == chunk_of


def test_stream_byte_by_byte_hands_over_a_file_with_its_last_byte():
    files = [PackagedFile("a.html", b"<html>"), PackagedFile("empty", b""), PackagedFile("b.gif", b"GIF")]
    blob = pack(files)
    header = 9 + (2 + 6 + 9) + (2 + 5 + 9) + (2 + 5 + 9)
    reader = StreamUnpacker()
    seen = {i: [f.name for f in reader.feed(blob[i : i + 1])] for i in range(len(blob))}
    reader.close()
    assert {i: v for i, v in seen.items() if v} == {header + 5: ["a.html", "empty"], header + 8: ["b.gif"]}


@given(file_sets())
@settings(max_examples=50)
def test_size_helpers_match_the_format_arithmetic(files):
    names = [f.name for f in files]
    sizes = [len(f.data) for f in files]
    header = 9 + sum(11 + len(n.encode("utf-8")) for n in names)
    assert header_size_bytes(names) == header
    assert package_size_bytes(sizes, names) == header + sum(sizes) == len(pack(files))
    assert file_end_offsets_bytes(sizes, names) == expected_layout(files)[1]


def test_header_size_of_the_papers_kind_of_page_by_hand():
    # 10 files named f00.gif .. f09.gif (7 bytes each): 9 + 10 * (11 + 7) = 189 bytes
    names = [f"f{i:02d}.gif" for i in range(10)]
    assert header_size_bytes(names) == 189
    assert package_size_bytes([1024] * 10, names) == 189 + 10240
    assert file_end_offsets_bytes([1, 2], ["a", "b"]) == [9 + 24 + 1, 9 + 24 + 3]
    assert header_size_bytes(["é"]) == 9 + 11 + 2  # UTF-8 length, not characters


def test_pack_accepts_a_mapping_and_bytes_like_data():
    assert unpack(pack({"a": b"1", "b/c": bytearray(b"22")})) == [PackagedFile("a", b"1"), PackagedFile("b/c", b"22")]
    assert PackagedFile("m", memoryview(b"xy")).data == b"xy"


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: PackagedFile("../x", b""), r"'\.' or '\.\.'"),
        (lambda: PackagedFile("a", "text"), "must be bytes"),
        (lambda: PackagedFile("a", b"", "exe"), r"attribute='exe' is not allowed: must be one of \['binary'"),
        (lambda: PackagedFile("\udc80", b""), "UTF-8"),
        (lambda: PackagedFile(3, b""), "not a string"),
        (lambda: pack([PackagedFile("a", b""), PackagedFile("a", b"")]), "duplicate name 'a'"),
        (lambda: pack([PackagedFile("a", b""), PackagedFile("a/b", b"")]), "folder"),
        (lambda: pack([("a", b"")]), r"files\[0\]=tuple is not allowed"),
        (lambda: pack(b"abc"), "files=bytes is not allowed"),
        (lambda: header_size_bytes("abc"), "not one string"),
        (lambda: header_size_bytes(["a", "/b"]), "absolute"),
        (lambda: package_size_bytes([1], ["a", "b"]), "1 sizes for 2 names"),
        (lambda: package_size_bytes([-1], ["a"]), r"sizes\[0\]=-1 is out of range"),
        (lambda: package_size_bytes([1.5], ["a"]), r"sizes\[0\]=1.5 is not an integer"),
        (lambda: StreamUnpacker(expected_size_bytes=-1), "expected_size_bytes=-1 is out of range"),
    ],
)
def test_bad_parameters_raise_a_clear_value_error(make, match):
    with pytest.raises(ValueError, match=match):
        make()


def test_every_codec_error_is_a_package_error():
    with pytest.raises(PackageError):
        pack({"a/../b": b""})
    assert issubclass(PackageError, ValueError)
