"""The sender's scoreboard as RFC 6675 reads it: IsLost and SetPipe (numba).

The scoreboard is the ring of sent segments each sending half keeps (``S.seg[half.seg_row]``, from ``seg_head``,
``seg_n`` of them; ``layout.G_SACKED`` marks a SACKed one, ``epoch`` equal to the half's ``rec_epoch`` one
retransmitted in this recovery). Loss recovery (``tcp.sender``: NextSeg, the first hole) and the delivery-rate
sample (``tcp.cc.rate``: the bytes in flight BBR compares with its targets) read it the same way, so the rules
live here once.
"""

from __future__ import annotations

from numba import njit

from .._numba.outline import one_signature
from . import layout as L

__all__ = ["is_lost", "pipe_bytes"]


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def is_lost(cnt_above, bytes_above, thresh, mss):
    """RFC 6675 IsLost: DupThresh SACKed segments above, or more than (DupThresh - 1) SMSS SACKed above."""
    return cnt_above >= thresh or bytes_above > (thresh - 1) * mss


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def pipe_bytes(S, h, ack):
    """Return RFC 6675's pipe (SetPipe) for half ``h`` in bytes, over the segments ending above ``ack``: an unSACKed
    segment counts once unless IsLost, and once more if it was retransmitted in this recovery. What Linux's
    ``tcp_packets_in_flight`` counts (sent, less SACKed and lost, plus retransmitted), in bytes."""
    half = S.half
    c = h >> 1
    thresh = S.conn[c].dupthresh
    mss = S.conn[c].mss
    cap = S.seg.shape[1]
    row = half[h].seg_row
    seg = S.seg
    epoch = half[h].rec_epoch
    head = half[h].seg_head
    pipe = 0
    cnt_above = 0
    bytes_above = 0
    for k in range(half[h].seg_n - 1, -1, -1):
        idx = head + k
        if idx >= cap:
            idx -= cap
        ln = seg[row, idx].len
        if seg[row, idx].start + ln <= ack:
            break  # this one and all below it are acknowledged
        if seg[row, idx].flags & L.G_SACKED:
            cnt_above += 1
            bytes_above += ln
            continue
        if not is_lost(cnt_above, bytes_above, thresh, mss):
            pipe += ln
        if seg[row, idx].epoch == epoch:
            pipe += ln
    return pipe
