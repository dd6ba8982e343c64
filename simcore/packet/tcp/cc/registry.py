"""The congestion controls by name: ``NAMES`` (``TcpParams.congestion_control``), their numbers in the
connection's ``S.conn[c].cc`` column, and ``STATE``, the record of one row of ``S.cc``.

Registering an algorithm is one line in ``MODULES`` (its name is its module's ``NAME``, its number its index) and
one branch per hook in ``dispatch`` (``tests/packet/test_cc_seam.py`` fails until every hook has it).

``S.cc`` holds one row per sending half (``S.cc[h]``, ``h`` the kernel's half slot, as ``S.half``) with the fields
of every algorithm here: each module lists its own in ``FIELDS`` (``kernel.layout``'s field syntax: ``name`` an
int64, ``name:f`` a float64), named with its prefix (``cubic_w_max_seg``), and an algorithm reads and writes only
its own. A run whose connections all use algorithms without state (Reno) gets a table of one row that nothing
reads. The rows do not widen ``kernel.layout.HALF``, whose rows TCP and SCTP share.
"""

from __future__ import annotations

from ...kernel.layout import _ordered_dtype
from . import cubic, reno

MODULES = (reno, cubic)  # the registration: index = the algorithm's number in S.conn[c].cc
NAMES = tuple(m.NAME for m in MODULES)  # TcpParams.congestion_control's choices
CC_RENO = NAMES.index("reno")
CC_CUBIC = NAMES.index("cubic")

STATE = _ordered_dtype(" ".join(m.FIELDS for m in MODULES if m.FIELDS) or "unused")


def stateful(name: str) -> bool:
    """True if congestion control ``name`` keeps state in ``S.cc`` (a run with none gets a one-row table)."""
    return bool(MODULES[NAMES.index(name)].FIELDS)
