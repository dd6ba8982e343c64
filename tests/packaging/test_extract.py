"""extract: files land whole, with modes from their attributes, or nothing lands at all."""

import os
import stat

import pytest

import simcore.packaging.extraction as extraction
from simcore.packaging import PackagedFile, PackageError, extract, pack

FILES = [
    PackagedFile("index.html", b"<html></html>", "text"),
    PackagedFile("img/logo.gif", b"GIF89a\x00\x01", "binary"),
    PackagedFile("bin/run", b"#!/bin/sh\n", "executable"),
]


def test_extract_writes_every_file_with_its_mode(tmp_path):
    dest = tmp_path / "site"
    assert extract(pack(FILES), dest) == FILES
    assert (dest / "index.html").read_bytes() == b"<html></html>"
    assert (dest / "img" / "logo.gif").read_bytes() == b"GIF89a\x00\x01"
    assert os.stat(dest / "bin" / "run").st_mode & stat.S_IXUSR
    assert not os.stat(dest / "index.html").st_mode & stat.S_IXUSR
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]  # no temporary folder left


def test_a_malformed_package_leaves_nothing(tmp_path):
    blob = pack(FILES)
    with pytest.raises(PackageError, match="runs past the end"):
        extract(blob[:-1], tmp_path / "site")
    assert list(tmp_path.iterdir()) == []


def test_a_failure_while_writing_removes_the_partial_folder(tmp_path, monkeypatch):
    real_write, calls = extraction._write, []

    def failing_write(root, f):
        calls.append(f.name)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        real_write(root, f)

    monkeypatch.setattr(extraction, "_write", failing_write)
    with pytest.raises(OSError, match="No space left"):
        extract(pack(FILES), tmp_path / "site")
    assert calls == ["index.html", "img/logo.gif"]  # the first file was written, then removed
    assert list(tmp_path.iterdir()) == []


def test_names_colliding_on_the_file_system_fail_cleanly(tmp_path, monkeypatch):
    monkeypatch.setattr(extraction, "_write", _case_insensitive_write(extraction._write))
    with pytest.raises(PackageError, match="collides"):
        extract(pack({"A.gif": b"1", "a.gif": b"2"}), tmp_path / "site")
    assert list(tmp_path.iterdir()) == []


def _case_insensitive_write(real_write):
    """Mimic a case-insensitive file system by folding names to lower case."""

    def write(root, f):
        real_write(root, PackagedFile(f.name.lower(), f.data, f.attribute))

    return write


def test_an_existing_destination_is_refused_and_kept(tmp_path):
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "keep").write_bytes(b"mine")
    with pytest.raises(FileExistsError, match="already exists"):
        extract(pack(FILES), tmp_path / "site")
    assert [p.name for p in (tmp_path / "site").iterdir()] == ["keep"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["site"]


# Cases from Microsoft's "Naming Files, Paths, and Namespaces": device names with or without an extension
# and in any case, the reserved characters <>:"|?*, and components ending in '.' or ' '.
@pytest.mark.parametrize(
    "name",
    [
        "CON",
        "con.txt",
        "docs/Aux.html",
        "nul",
        "COM1.log",
        "lpt9",
        "a/prn/b.txt",
        "what?.html",
        "a:b",
        "x*y",
        "pipe|name",
        'quote".txt',
        "<tag>",
        "trailing.",
        "dir /file",
        "a/b ",
    ],
)
def test_names_windows_cannot_create_are_named(name):
    assert extraction.windows_name_problem(name) is not None


@pytest.mark.parametrize("name", ["CONSOLE.txt", "com10", "lpt0.txt", "icon.gif", "a/b.c/d", "con-fig", "nul_"])
def test_names_windows_can_create_pass(name):
    assert extraction.windows_name_problem(name) is None


def test_on_windows_a_reserved_name_is_refused_before_anything_is_written(tmp_path, monkeypatch):
    blob = pack([PackagedFile("ok.txt", b"1", "text"), PackagedFile("img/aux.gif", b"2", "binary")])
    monkeypatch.setattr(extraction, "_ON_WINDOWS", True)
    with pytest.raises(PackageError, match="Windows device name 'aux.gif'"):
        extract(blob, tmp_path / "site")
    assert list(tmp_path.iterdir()) == []
    monkeypatch.setattr(extraction, "_ON_WINDOWS", False)  # the same package is fine on POSIX
    assert [f.name for f in extract(blob, tmp_path / "site")] == ["ok.txt", "img/aux.gif"]
