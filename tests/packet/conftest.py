"""Fixtures shared by the packet tests."""

import os
import shutil

import pytest


@pytest.fixture(scope="module")
def tshark() -> str:
    """Path of Debian's tshark; skipped where it is absent, a failure under CI (`make test` installs it)."""
    exe = shutil.which("tshark")
    if exe is None:
        if os.environ.get("CI") == "true":
            pytest.fail("tshark is missing under CI: `make test` installs Debian's tshark")
        pytest.skip("tshark not installed (make tshark installs it on Debian/Ubuntu)")
    return exe
