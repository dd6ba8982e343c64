"""When each file of a package becomes usable if the client unpacks while the bytes stream in.

From the packet trace of a package fetch (``simulate_objpack(..., trace=True)``): file k is usable once
the response's bytes up to its end have arrived in order. Where each file ends inside the package is the
codec's own answer, ``simcore.packaging.file_end_offsets_bytes`` (one source of truth with ``pack`` and
the streaming unpacker); the HTTP response header comes before the package. The testbed has no loss, so
bytes arrive in sequence order and the in-order point is the running maximum of (seq + length) of
arrived segments.
"""

from __future__ import annotations

import numpy as np

from simcore.packaging import file_end_offsets_bytes

from .model import ObjpackResult

__all__ = ["streamed_file_done_s"]


def streamed_file_done_s(result: ObjpackResult) -> np.ndarray:
    """Return, per file, when its last byte reached the client (s), for a traced package fetch."""
    p = result.params
    if p.method != "package" or p.compress:
        raise ValueError("streamed_file_done_s needs an uncompressed package fetch (method='package')")
    pt = result.packet.packet_trace
    if pt is None:
        raise ValueError("result has no packet trace: run simulate_objpack(..., trace=True)")
    if result.retransmits:
        raise ValueError("streamed_file_done_s assumes no loss; this fetch retransmitted")
    # server -> client data segments received by the client (SYN-ACK excluded)
    sel = (pt.kind == 1) & (pt.direction == 1) & (pt.seqlen > 0) & ((pt.flags & 1) == 0)
    t, end = pt.time_s[sel], np.maximum.accumulate(pt.seq[sel] + pt.seqlen[sel])
    # response byte i has sequence number 1 + i (the SYN takes sequence number 0); a file ending at
    # response offset o (exclusive) is complete once the in-order end reaches 1 + o
    ends = p.response_header_bytes + np.asarray(file_end_offsets_bytes(result.page.sizes, result.page.names))
    idx = np.searchsorted(end, 1 + ends, side="left")
    return t[np.minimum(idx, t.size - 1)]
