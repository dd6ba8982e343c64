"""TCP (numba): one transport behind ``kernel.transport``.

What lives here: ``sender`` (segments, the scoreboard ring, RFC 5681 / 6582 / 6675 loss recovery and the
congestion window, RFC 3042 Limited Transmit, the retransmission timeout), ``receiver`` (in-order and
out-of-order data, SACK blocks) and ``events`` (the handlers ``kernel.transport`` dispatches to: arrival,
open, timer, delayed ACK, close). Congestion control is its own seam, the subfolder ``cc/`` (its ``dispatch``
hooks, one module per algorithm), separate from loss recovery as ns-3's ``TcpCongestionOps`` is from
``TcpRecoveryOps``: the sender decides when a loss event happened and what to resend, ``cc`` what the window does.

Import rules (``tests/packet/test_folders.py`` checks them): numba, numpy, ``..kernel``, ``.._numba`` and this
folder; ``events`` reaches ``kernel.app`` as a module (``from ..kernel import app as A``: late bound, as
``kernel.app`` calls the transports through ``kernel.transport``). Never ``..sctp``, ``..capture`` or the public face.
"""
