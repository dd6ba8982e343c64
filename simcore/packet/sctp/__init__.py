"""SCTP (numba; RFC 4960, or RFC 2960 with the implementers' guide): one transport behind ``kernel.transport``.

What lives here: ``sender`` (packets and their sizes, DATA chunks cut per message, cwnd and Max.Burst, SACK
processing, T3-rtx), ``receiver`` (reassembly in byte space with ``kernel.ooo``'s blocks, SACK policy, gap
blocks), ``events`` (association set-up, the handlers ``kernel.transport`` dispatches to, shutdown), and pure
rules with their own tests: ``cc`` (cwnd arithmetic), ``sack`` (gap blocks, the miss-indication scan),
``wire`` (sizes on the wire; plain Python, also used by ``..sctp_params`` and ``..capture``).

Import rules (``tests/packet/test_folders.py`` checks them): numba, numpy, ``simcore._validate``, ``..kernel``,
``.._numba`` and this folder; ``events`` reaches ``kernel.app`` as a module, as TCP's does. Never ``..tcp``,
``..capture`` or the public face.
"""
