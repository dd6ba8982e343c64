"""A deterministic fuzz: valid packages mutated by hypothesis (bit flips, splices, extreme integers).

For any input the readers either return files or raise PackageError, nothing else; whatever ``unpack``
accepts re-packs to the very same bytes (the encoding is canonical), and the streaming reader, fed the
same bytes in arbitrary chunks, agrees with it.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.packaging import PackagedFile, PackageError, StreamUnpacker, pack, unpack

_FILES = st.lists(
    st.builds(
        PackagedFile,
        name=st.sampled_from(["a", "b.gif", "d/e.html", "é", "x" * 20]),
        data=st.binary(max_size=40),
        attribute=st.sampled_from(["binary", "text", "executable"]),
    ),
    max_size=4,
    unique_by=lambda f: f.name,
)

_EXTREMES = [0, 1, 255, 1024, 1025, 65_535, 65_536, 2**30, 2**30 + 1, 2**32 - 1, 2**63, 2**64 - 1]


@st.composite
def mutated(draw):
    blob = bytearray(pack(draw(_FILES)))
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(blob)))
        kind = draw(st.sampled_from(["flip", "set", "insert", "delete", "truncate", "integer"]))
        if kind == "flip" and at < len(blob):
            blob[at] ^= 1 << draw(st.integers(0, 7))
        elif kind == "set" and at < len(blob):
            blob[at] = draw(st.integers(0, 255))
        elif kind == "insert":
            blob[at:at] = draw(st.binary(min_size=1, max_size=8))
        elif kind == "delete":
            del blob[at : at + draw(st.integers(1, 8))]
        elif kind == "truncate":
            del blob[at:]
        elif kind == "integer":
            width = draw(st.sampled_from([1, 2, 4, 8]))
            value = draw(st.sampled_from(_EXTREMES)) % (1 << (8 * width))
            blob[at : at + width] = value.to_bytes(width, "big")
    return bytes(blob)


def outcome(read):
    try:
        return read()
    except PackageError:
        return PackageError


def streamed(blob, cuts):
    bounds = [0, *sorted(c for c in cuts if 0 < c < len(blob)), len(blob)]
    reader = StreamUnpacker()
    files = []
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):
        files += reader.feed(blob[a:b])
    reader.close()
    return files


@settings(max_examples=400)
@given(mutated(), st.sets(st.integers(0, 300), max_size=10))
def test_mutated_packages_fail_cleanly_or_round_trip(blob, cuts):
    whole = outcome(lambda: unpack(blob))
    if whole is not PackageError:
        assert pack(whole) == blob
    assert outcome(lambda: streamed(blob, cuts)) == whole
