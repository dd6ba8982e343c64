"""``python -m simcore.packet._numba``: the installed numba against the versions and sources the code relying on
numba's internals was validated on (``selfcheck``; CONTRIBUTING.md, "Upgrading numba")."""

from .selfcheck import _main

_main()
