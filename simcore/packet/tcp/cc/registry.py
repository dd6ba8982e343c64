"""The congestion controls by name: ``NAMES`` (``TcpParams.congestion_control``), their numbers in the
connection's ``S.conn[c].cc`` column, and ``STATE``, the record of one row of ``S.cc``.

``S.cc`` holds one row per sending half (``S.cc[h]``, ``h`` the kernel's half slot, as ``S.half``) with the fields
of every algorithm here: each module lists its own in ``FIELDS`` (``kernel.layout``'s field syntax: ``name`` an
int64, ``name:f`` a float64), named with its prefix (``cubic_w_max``), and an algorithm reads and writes only its
own. A run whose connections all use Reno (no state) gets a table of one row that nothing reads. The rows do not
widen ``kernel.layout.HALF``, whose rows TCP and SCTP share.
"""

from __future__ import annotations

from ...kernel.layout import _ordered_dtype
from . import reno

NAMES = ("reno",)  # index = the algorithm's number (CC_*)
CC_RENO = 0
MODULES = (reno,)

COMMON_FIELDS = "alg"  # the algorithm (CC_*) whose hooks initialised the row (cc_open)

STATE = _ordered_dtype(" ".join([COMMON_FIELDS] + [m.FIELDS for m in MODULES if m.FIELDS]))


def stateful(name: str) -> bool:
    """True if congestion control ``name`` keeps state in ``S.cc`` (a run with none gets a one-row table)."""
    return bool(MODULES[NAMES.index(name)].FIELDS)
