"""python -m simcore package pack|unpack|list: round trip, and one clear error line on bad input."""

import os
import subprocess
import sys

import pytest

from simcore.__main__ import main
from simcore.packaging import unpack


@pytest.fixture
def site(tmp_path):
    root = tmp_path / "src"
    (root / "site" / "img").mkdir(parents=True)
    (root / "site" / "index.html").write_bytes(b"<p>hello</p>")
    (root / "site" / "img" / "a.gif").write_bytes(b"GIF89a\x00\xff")
    (root / "site" / "run.sh").write_bytes(b"#!/bin/sh\n")
    os.chmod(root / "site" / "run.sh", 0o755)
    return root


def test_pack_list_unpack_round_trip(site, tmp_path, capsys):
    out = tmp_path / "p.opkg"
    assert main(["package", "pack", str(out), "site", "-C", str(site)]) == 0
    files = unpack(out.read_bytes())
    assert [(f.name, f.attribute) for f in files] == [
        ("site/img/a.gif", "binary"),
        ("site/index.html", "text"),
        ("site/run.sh", "executable"),
    ]
    assert main(["package", "list", str(out)]) == 0
    listing = capsys.readouterr().out.splitlines()
    assert listing[1].split() == ["8", "binary", "site/img/a.gif"]
    # header: 9 + 3 * 11 + len("site/img/a.gif") + len("site/index.html") + len("site/run.sh") = 82
    assert listing[-1] == "3 files; object information field 82 bytes, data field 30 bytes"
    assert main(["package", "unpack", str(out), str(tmp_path / "dest")]) == 0
    assert (tmp_path / "dest" / "site" / "img" / "a.gif").read_bytes() == b"GIF89a\x00\xff"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["list", "{bad}"], "bad magic"),
        (["list", "{short}"], "truncated"),
        (["list", "{missing}"], "No such file"),
        (["unpack", "{short}", "{tmp}/dest"], "truncated"),
        (["unpack", "{good}", "{tmp}"], "already exists"),
        (["pack", "{tmp}/x.opkg", "../etc", "-C", "{tmp}"], "not a regular file or folder"),
        (["pack", "{tmp}/x.opkg", "/etc/hostname", "-C", "{tmp}"], "is not under -C"),
    ],
)
def test_bad_input_gives_one_error_line_and_status_1(args, message, tmp_path, capsys):
    (tmp_path / "bad.opkg").write_bytes(b"PK\x03\x04 not a package")
    (tmp_path / "good.opkg").write_bytes(b"OPKG\x01\x00\x00\x00\x00")
    (tmp_path / "short.opkg").write_bytes(b"OPKG\x01\x00\x00\x00\x01\x00")
    names = {k: str(tmp_path / f"{k}.opkg") for k in ("bad", "good", "short", "missing")}
    argv = ["package", *(a.format(tmp=tmp_path, **names) for a in args)]
    before = sorted(os.listdir(tmp_path))
    assert main(argv) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"python -m simcore package {args[0]}: error:") and message in err
    assert err.count("\n") == 1
    assert sorted(os.listdir(tmp_path)) == before  # nothing half-written


def test_the_real_command_line_has_no_traceback(tmp_path):
    bad = tmp_path / "bad.opkg"
    bad.write_bytes(b"OPKG\x01\x00\x00\x00\x01" + b"\x00\x04../x" + bytes(8) + b"\x00")
    run = subprocess.run(
        [sys.executable, "-m", "simcore", "package", "unpack", str(bad), str(tmp_path / "out")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 1
    assert "Traceback" not in run.stderr and "'.' or '..' path component" in run.stderr
    assert not (tmp_path / "out").exists()
