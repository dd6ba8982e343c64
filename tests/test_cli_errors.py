"""Bad arguments to ``python -m simcore`` get one line on stderr and a non-zero status, never a traceback
(issue 29: ``figures --out /no/such/dir`` printed one). Status 2 for unusable arguments (argparse's own
convention), 1 for a package that breaks the format (``package``'s documented status)."""

import os
import subprocess
import sys

import pytest


def _run(*args, cwd=None):
    out = subprocess.run([sys.executable, "-m", "simcore", *args], capture_output=True, text=True, timeout=300,
                         cwd=cwd, env=dict(os.environ, SIMCORE_STATIC=""))
    return out.returncode, out.stderr.strip()


@pytest.mark.parametrize("args, status, says", [
    (["figures", "--out", "/no/such/dir"], 2, "--out /no/such/dir: its parent folder '/no/such' does not exist"),
    (["figures", "start_here", "--no-png", "--out", "{file}"], 2, "exists and is not a folder"),
    (["notebooks", "/no/such.ipynb"], 2, "/no/such.ipynb: no such notebook file"),
    (["book", "--jobs", "0"], 2, "argument --jobs: '0' is not allowed: must be an integer >= 1"),
    (["figures", "no_such_chapter"], 2, "invalid choice: 'no_such_chapter'"),
    (["package", "list", "/no/such.pkg"], 1, "No such file or directory"),
    (["package", "unpack", "{file}", "{tmp}/out"], 1, "error:"),
    (["nonsense"], 2, "invalid choice: 'nonsense'"),
])
def test_bad_arguments_get_one_line_and_a_status(tmp_path, args, status, says):
    afile = tmp_path / "afile"
    afile.write_bytes(b"not a package")
    args = [a.format(file=afile, tmp=tmp_path) for a in args]
    code, err = _run(*args)
    assert code == status, err
    assert "Traceback" not in err
    last = err.splitlines()[-1]  # argparse's own errors put the usage line first
    assert says in last, err
    if args[0] not in ("book", "nonsense") and "invalid choice" not in says:
        assert len(err.splitlines()) == 1, err
