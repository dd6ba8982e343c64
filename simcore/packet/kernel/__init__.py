"""The packet simulator's kernel (numba): the event loop and the services every transport shares.

What lives here (one concept a module):

- ``loop``: the event loop ``run(state)``, the only kernel the Python side calls (from ``simulate``).
- ``layout``: the state ``S``, its record dtypes, event kinds and constants (read by every kernel).
- ``link``: the packet pool, links (drop-tail queue, loss, fluid background, CBR) and ``inject``; ``lane``: the
  event heap and the FIFO lanes beside it; ``slot``: connection slots (rows taken and given back).
- ``app``: the application layer above every transport (messages, streams, relays, pools).
- ``transport``: the seam between the shared kernel and the transports: one branch per transport in each
  function, dispatched on ``S.conn[c].proto``.
- Shared transport services: ``rtt`` (RFC 6298 estimator and retransmission timer), ``delack`` (delayed
  acknowledgement timer), ``ooo`` (out-of-order blocks), ``scoreboard`` (RFC 6675's IsLost and pipe over a TCP
  sender's scoreboard, read by loss recovery and the delivery-rate sample), ``trace`` (the sender trace),
  ``giveup`` (a transport gives a connection up: it is dead from then on).

Import rules (``tests/packet/test_folders.py`` checks them): a module here imports numba, numpy,
``simcore.engine``, ``.._numba`` and other modules of this folder. Only ``transport`` imports the transports
(``..tcp``, ``..sctp``), and ``app`` reaches it as a module (``from . import transport as T``, names resolved when
numba compiles, so the cycle app -> transport -> transports -> app is harmless; keep such references
module-qualified). Nothing here imports the public face (``..params``, ``..simulate`` ...) or ``..capture``.
"""
