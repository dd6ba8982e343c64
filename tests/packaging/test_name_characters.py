"""Names may not hold characters of Unicode categories Cc, Cf, Zl or Zp (FORMAT.md, "Names"): a listing
could lie otherwise (issue 29: 'evil\\u202etxt.exe' and 'x\\u2028y' were accepted). The refused set is
derived here from ``unicodedata`` itself, over every code point, not from the implementation's list."""

import random
import subprocess
import sys
import unicodedata

import pytest

from simcore.packaging import PackageError, StreamUnpacker, pack, unpack
from simcore.packaging.format import name_problem

REFUSED = {"Cc", "Cf", "Zl", "Zp"}
ALL = [chr(c) for c in range(0x110000) if not 0xD800 <= c <= 0xDFFF]  # surrogates cannot be UTF-8
BAD = [ch for ch in ALL if unicodedata.category(ch) in REFUSED]
# characters other rules refuse on their own: the separator and the backslash
OTHER_RULES = {"/", "\\"}


def _by_hand(name: str, data: bytes = b"x") -> bytes:
    """A package of one binary file built from FORMAT.md's layout, not by ``pack`` (which refuses)."""
    enc = name.encode("utf-8")
    return (b"OPKG" + bytes([1]) + (1).to_bytes(4, "big") + len(enc).to_bytes(2, "big") + enc
            + len(data).to_bytes(8, "big") + bytes([0]) + data)


def test_the_refused_set_is_the_four_categories():
    # Cc is exactly C0, DEL and C1 (Unicode fixes it); the others include the examples
    assert [ord(c) for c in BAD if unicodedata.category(c) == "Cc"] == [*range(0x20), *range(0x7F, 0xA0)]
    for ch in ("\u202e", "\u2028", "\u2029", "\u200b", "\u200d", "\ufeff", "\u00ad", "\u2066", "\x85"):
        assert ch in BAD


def test_every_character_of_the_four_categories_is_refused_by_writer_and_readers():
    for ch in BAD:
        name = f"a{ch}b"
        assert name_problem(name) is not None, f"U+{ord(ch):04X}"
    # packing refuses; both readers refuse a package built by hand, naming where (a sample: ~200 x 3 is slow)
    for ch in ["\u202e", "\u2028", "\u2029", "\x85", "\x9b", "\u200e", "\u2067", "\ufeff", "\x00", "\x1b"]:
        name = f"evil{ch}txt.exe"
        with pytest.raises(PackageError, match=rf"U\+{ord(ch):04X}.*category C|U\+{ord(ch):04X}.*category Z"):
            pack({name: b"x"})
        blob = _by_hand(name)
        with pytest.raises(PackageError, match=r"at byte offset \d+.*in file 1"):
            unpack(blob)
        reader = StreamUnpacker()
        with pytest.raises(PackageError):
            for i in range(len(blob)):
                reader.feed(blob[i:i + 1])
            reader.close()


def test_other_characters_are_still_allowed():
    rng = random.Random(29)
    good = [ch for ch in ALL if unicodedata.category(ch) not in REFUSED and ch not in OTHER_RULES]
    sample = rng.sample(good, 3000) + ["\u00a0", "\u3000", "\u0301", "\ue000", "\U0001f600", "é", " "]
    for ch in sample:
        assert name_problem(f"a{ch}b") is None, f"U+{ord(ch):04X} {unicodedata.category(ch)}"
    files = unpack(pack({f"x{ch}": b"" for ch in sample[:500]}))
    assert len(files) == 500


def test_package_list_cannot_be_made_to_lie(tmp_path):
    path = tmp_path / "evil.pkg"
    path.write_bytes(_by_hand("evil\u202etxt.exe"))
    out = subprocess.run([sys.executable, "-m", "simcore", "package", "list", str(path)], capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 1 and out.stdout == ""
    assert "U+202E" in out.stderr and "\u202e" not in out.stderr  # the message escapes the character itself
