"""TCP congestion control (numba): how the sender sizes its window (and, for BBR, paces), apart from loss recovery.

The split is ns-3's: loss recovery (``TcpRecoveryOps``: which segments to retransmit and when, RFC 5681 / 6582 /
6675, chosen by ``TcpParams.recovery``, in ``tcp.sender``) decides *that* a loss event happened and what to resend;
the congestion control (``TcpCongestionOps``, chosen by ``TcpParams.congestion_control``, here) decides the window
after it: the new ssthresh, the growth per ACK, the response to a timeout.

What lives here (one algorithm a module, each with its own state):

- ``dispatch``: the seam. Its functions are the hooks the sender calls (``cc_open``, ``cc_ack``, ``cc_ssthresh``,
  ``cc_state``, ``cc_ack_done``), each dispatching on the connection's ``S.conn[c].cc`` column with one branch per
  algorithm (Reno inline, the others through one out-of-line call each).
- ``registry``: the algorithms by name (``NAMES``: ``TcpParams.congestion_control``'s choices), their numbers
  (``CC_*``) and the record of their per-half state (``STATE``: one row per sending half in ``S.cc``, assembled
  from each algorithm module's ``FIELDS``; no algorithm widens the rows of ``kernel.layout.HALF``).
- ``reno``: RFC 5681 (slow start, congestion avoidance, ssthresh = FlightSize / 2): no state of its own.

Adding one is a module here (its ``FIELDS``, its hooks), its name in ``registry`` and one branch per hook in
``dispatch`` (CONTRIBUTING.md, "Adding a congestion control").

Import rules (``tests/packet/test_folders.py`` checks them): numba, numpy, ``...kernel``, ``..._numba`` and this
folder only: never ``tcp.sender`` or the other TCP modules (they call the hooks, not the reverse), never ``sctp``.
"""
