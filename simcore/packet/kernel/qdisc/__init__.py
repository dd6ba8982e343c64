"""Queue disciplines of the links (numba): what a link's buffer does with a packet besides drop-tail.

What lives here (one discipline a module, each with its parameters, its state's fields and its kernels):

- ``dispatch``: the seam. ``NAMES`` (a discipline's number in ``S.link[k].qdisc`` is its position; 0 is drop-tail,
  which stays in ``kernel.link``), the Python-side registry (parameters, the records ``QDISC`` and ``FLOWQ``
  assembled from each module's fields) and the numba ``enqueue`` / ``dequeue`` with one branch per discipline.
- ``queue``: what the disciplines share: the packet lists of their queues, drops and CE marks, and the
  transmitter of a link whose discipline decides at dequeue (one ``EV_DEQUEUE`` event per packet when its
  transmission ends; drop-tail and RED links keep their departure times known at enqueue and have none).
- ``red``: Random Early Detection (Floyd & Jacobson 1993), gentle mode, decided at enqueue.
- ``codel``: CoDel (RFC 8289), decided at dequeue from the sojourn time.
- ``fq_codel``: FQ-CoDel (RFC 8290): per-flow queues, deficit round robin, CoDel on each queue.

A new discipline is one module here (its ``Params`` dataclass, its ``QDISC_FIELDS`` / ``FLOWQ_FIELDS``, ``fill``,
and its ``enqueue`` / ``dequeue`` kernels) plus its name in ``dispatch.NAMES`` and one branch in each of
``dispatch``'s kernels (CONTRIBUTING.md, "Adding a queue discipline").

Import rules (``tests/packet/test_folders.py`` checks them): numba, numpy, ``simcore._validate`` (the parameters),
``..`` (``kernel``: ``layout``, ``lane``, ``slot``, ``link``), ``.._numba`` and this folder. ``kernel.link`` calls
``dispatch`` and the disciplines call ``kernel.link`` back, so every import inside that cycle is of a module,
never of names from it (``from .. import link as K``, then ``K.release``; numba resolves them when it compiles).
Nothing here imports the transports (``..tcp``, ``..sctp``), ``..capture`` or the public face. This
``__init__`` imports ``kernel.link`` first: whichever module of the cycle is imported first, the link then loads
every discipline completely before any of them is used (a module's attributes may be read at import).
"""

from .. import link  # noqa: F401  (the import order above)
