"""The package's on-wire size (counted by hand from the layout) and parameter validation."""

import struct

import pytest

from simcore.objpack import ObjpackParams
from simcore.objpack.wire import build_package_local, package_bytes, package_header_bytes


def test_package_size_counted_by_hand():
    # magic 4 + version 2 + count 4 = 10; per file 2 + name + 8 + 1: "a.html" 6 -> 17, "bb.gif" 6 -> 17
    assert package_header_bytes(["a.html", "bb.gif"]) == 10 + 17 + 17
    assert package_bytes([10, 20], ["a.html", "bb.gif"]) == 44 + 30
    # UTF-8 names are counted in bytes, not characters: "é" is 2 bytes
    assert package_header_bytes(["é"]) == 10 + 2 + 2 + 8 + 1


def test_local_builder_follows_the_layout():
    pkg = build_package_local([("a.html", b"0123456789", "text"), ("bb.gif", b"x" * 20, "binary")])
    assert len(pkg) == package_bytes([10, 20], ["a.html", "bb.gif"])
    assert pkg[:4] == b"OPKG" and struct.unpack(">HI", pkg[4:10]) == (1, 2)
    assert struct.unpack(">H", pkg[10:12]) == (6,) and pkg[12:18] == b"a.html"
    assert struct.unpack(">QB", pkg[18:27]) == (10, 1)
    assert pkg.endswith(b"0123456789" + b"x" * 20)


@pytest.mark.parametrize("bad", [dict(attribute="weird"), dict(name="")])
def test_local_builder_rejects_bad_files(bad):
    f = {"name": "a", "data": b"1", "attribute": "text", **bad}
    with pytest.raises(ValueError):
        build_package_local([(f["name"], f["data"], f["attribute"])])


@pytest.mark.parametrize("field, value, words", [
    ("n_files", 0, "n_files=0"), ("mean_file_bytes", -5, "mean_file_bytes=-5"),
    ("method", "ftp", "method='ftp'"), ("size_distribution", "zipf", "size_distribution"),
    ("link_rate_bps", 0.0, "link_rate_bps"), ("server_file_s", -1e-3, "server_file_s"),
    ("server_packet_s", 1.0, "server_packet_s"), ("compress", 1, "compress"), ("rwnd_bytes", 100, "rwnd_bytes"),
])
def test_bad_parameters_are_named(field, value, words):
    with pytest.raises(ValueError, match=words.replace("(", r"\(")):
        ObjpackParams(**{field: value})


def test_package_sizes_must_match_names():
    with pytest.raises(ValueError, match="sizes has 1 entries and names 2"):
        package_bytes([1], ["a", "b"])
