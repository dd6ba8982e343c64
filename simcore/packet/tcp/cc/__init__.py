"""TCP congestion control (numba): how the sender sizes its window, apart from loss recovery.

The split is ns-3's: loss recovery (``TcpRecoveryOps``: which segments to retransmit and when, RFC 5681 / 6582 /
6675, chosen by ``TcpParams.recovery``, in ``tcp.sender``) decides *that* a loss event happened and what to resend;
the congestion control (``TcpCongestionOps``, chosen by ``TcpParams.congestion_control``, here) decides the window
around it: the growth per ACK, the new ssthresh, what it remembers of a congestion event, the response to an ECN
echo.

What lives here (one algorithm a module, each with its own state):

- ``dispatch``: the seam. Its functions are the hooks the sender calls (``cc_init``, ``cc_ack``, ``cc_ssthresh``,
  ``cc_congestion``, ``cc_state``, ``cc_ack_done``, ``cc_on_ecn``), each dispatching on the connection's
  ``S.conn[c].cc`` column with one branch per algorithm (Reno inline, the others through one out-of-line call).
- ``states``: the congestion states and events the sender reports (``CA_OPEN``, ``CA_RECOVERY``, ``CA_LOSS``,
  ``CA_CWR``).
- ``registry``: the algorithms (``MODULES``; ``NAMES``: ``TcpParams.congestion_control``'s choices), their numbers
  (``CC_*``) and the record of their per-half state (``STATE``: one row per sending half in ``S.cc``, assembled
  from each algorithm module's ``FIELDS``; no algorithm widens the rows of ``kernel.layout.HALF``).
- ``reno``: RFC 5681 (slow start, congestion avoidance, ssthresh = FlightSize / 2): no state of its own.
- ``cubic``: RFC 9438 (the cubic window function, the Reno-friendly region, fast convergence, beta 0.7).

Adding one is a module here (its ``NAME``, ``FIELDS`` and hooks), its module in ``registry.MODULES`` and one
branch per hook in ``dispatch`` (CONTRIBUTING.md, "Adding a congestion control"). Not here yet: BBR, which also
needs the sender to pace (a timer per departure) and a delivery-rate sample per acknowledged segment.

Import rules (``tests/packet/test_folders.py`` checks them): numba, numpy, ``...kernel``, ``..._numba`` and this
folder only: never ``tcp.sender`` or the other TCP modules (they call the hooks, not the reverse), never ``sctp``.
"""
