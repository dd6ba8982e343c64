"""The package's on-wire size (counted by hand from the layout) and parameter validation."""

import struct

import pytest

from simcore.objpack import ObjpackParams
from simcore.objpack.wire import make_package, package_bytes, package_header_bytes
from simcore.packaging import unpack


def test_package_size_counted_by_hand():
    # FORMAT.md: magic 4 + version 1 + count 4 = 9; per file u16 name length + name + u64 size + u8 attribute
    # = 11 + name: "a.html" and "bb.gif" (6 bytes each) -> 17 each
    assert package_header_bytes(["a.html", "bb.gif"]) == 9 + 17 + 17
    assert package_bytes([10, 20], ["a.html", "bb.gif"]) == 43 + 30
    # UTF-8 names are counted in bytes, not characters: "é" is 2 bytes
    assert package_header_bytes(["é"]) == 9 + 11 + 2


def test_loopback_package_is_the_codecs_and_matches_the_size_the_simulation_uses():
    files = [("a.html", b"0123456789", "text"), ("bb.gif", b"x" * 20, "binary")]
    pkg = make_package(files)
    assert len(pkg) == package_bytes([10, 20], ["a.html", "bb.gif"])
    assert pkg[:4] == b"OPKG" and pkg[4] == 1 and struct.unpack(">I", pkg[5:9]) == (2,)
    assert [(f.name, f.data, f.attribute) for f in unpack(pkg)] == files
    assert pkg.endswith(b"0123456789" + b"x" * 20)


@pytest.mark.parametrize("bad", [dict(attribute="weird"), dict(name="")])
def test_package_builder_rejects_bad_files(bad):
    f = {"name": "a", "data": b"1", "attribute": "text", **bad}
    with pytest.raises(ValueError):
        make_package([(f["name"], f["data"], f["attribute"])])


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
    with pytest.raises(ValueError, match="1 sizes for 2 names"):
        package_bytes([1], ["a", "b"])
