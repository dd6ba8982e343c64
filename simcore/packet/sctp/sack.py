"""Numba: SCTP's selective acknowledgement on both sides (RFC 4960 sec. 3.3.4, 6.2, 7.2.4).

Receiver: the TSNs it holds above its cumulative TSN ack are disjoint blocks [lo, hi) (TSN space, as the
shared out-of-order blocks keep byte ranges); ``gap_blocks`` turns them into the SACK's gap ack blocks,
offsets (start, end) from the cumulative TSN ack, inclusive, lowest first, as many as fit.

Sender: a ring of its outstanding DATA chunks, records of ``kernel.layout.SEG`` (the TCP scoreboard's ring,
shared): the oldest at ``head`` has TSN ``base_tsn``, then consecutive TSNs; ``len`` is its user data,
``flags & G_SACKED`` set once a gap ack block covers it, ``miss`` its miss indications, ``frtx`` (0 never,
1 marked for fast retransmission, 2 done), ``mark`` (1: to be retransmitted, so not in the flight).
``sack_scan`` applies one SACK to it: chunks at or below the new cumulative TSN ack leave the ring, chunks
inside gap blocks are marked acknowledged, and every chunk reported missing gains a miss indication, by
the HTNA rule when ``htna``: only TSNs below the highest TSN newly acknowledged by this SACK, or all
reported missing in Fast Recovery when the SACK advances the cumulative TSN ack (sec. 7.2.4); without it
(RFC 2960) every TSN below the highest TSN the SACK reports. A chunk is marked for fast retransmission on
the ``threshold``-th miss indication, at most once in its life. Our receivers never renege, so
gap-acknowledged chunks stay acknowledged.
"""

from __future__ import annotations

from numba import njit

from ..kernel.layout import G_SACKED

__all__ = ["gap_blocks", "sack_scan"]

@njit(cache=True, _nrt=False, error_model="numpy")
def gap_blocks(lo, hi, n, cum_tsn, out_start, out_end, max_blocks):
    """Write the gap ack blocks of received TSN blocks ``[lo[i], hi[i])`` (i < n, any order, all above
    ``cum_tsn`` + 1) into ``out_start`` / ``out_end`` as offsets from ``cum_tsn``, lowest first, at most
    ``max_blocks`` of them; return how many."""
    k = 0
    last = cum_tsn  # blocks are disjoint: take the lowest block above the previous one, k times
    while k < max_blocks:
        best = -1
        for i in range(n):
            if lo[i] > last and (best < 0 or lo[i] < lo[best]):
                best = i
        if best < 0:
            break
        out_start[k] = lo[best] - cum_tsn
        out_end[k] = hi[best] - 1 - cum_tsn
        last = lo[best]
        k += 1
    return k


@njit(cache=True, _nrt=False, error_model="numpy")
def sack_scan(ring, head, n, base_tsn, cum_tsn, blocks, htna, in_fast_recovery, threshold):
    """Apply a SACK (cumulative TSN ack ``cum_tsn``; gap blocks ``blocks[2k], blocks[2k + 1]`` = TSNs
    [lo, hi), every k < len(blocks) / 2 (``kernel.layout.SACK_BLOCKS``), lo = -1 unused, lowest first) to the
    ring of outstanding chunks ``ring[(head + i) % cap]`` of TSN ``base_tsn + i`` (i < n).

    Return (head, n, base_tsn, cum_acked_bytes, gap_acked_bytes, flight_freed_bytes, highest_newly_acked,
    n_marked, marked_bytes, n_unmarked): the ring's new start, count and lowest TSN; user data newly
    acknowledged by the cumulative ack (not already gap-acknowledged) and newly by gap blocks; bytes that
    leave the flight (acknowledged chunks that were in it); the highest TSN newly acknowledged (-1 none); how
    many chunks (and bytes) this SACK marked for fast retransmission (they leave the flight too); how many
    chunks still marked for retransmission this SACK acknowledged (they need no retransmission any more: the
    sender's count of marked chunks drops by as many)."""
    cap = ring.shape[0]
    cum_bytes = 0
    gap_bytes = 0
    freed = 0
    htna_tsn = -1
    cum_advanced = cum_tsn >= base_tsn
    unmarked = 0
    # 1. the cumulative ack: chunks up to cum_tsn leave the ring
    while n > 0 and base_tsn <= cum_tsn:
        e = ring[head]
        if e.flags & G_SACKED == 0:
            cum_bytes += e.len
            htna_tsn = base_tsn
            if e.mark == 0:
                freed += e.len
        if e.mark != 0:
            unmarked += 1
        e.mark = 0
        head += 1
        if head == cap:
            head = 0
        n -= 1
        base_tsn += 1
    # 2. gap ack blocks: chunks newly known to have arrived
    top = cum_tsn  # highest TSN this SACK reports received
    for g in range(blocks.shape[0] // 2):
        a = blocks[2 * g]
        if a < 0:
            break
        b = blocks[2 * g + 1] - 1
        if b > top:
            top = b
        for tsn in range(max(a, base_tsn), min(b, base_tsn + n - 1) + 1):
            j = head + tsn - base_tsn  # head < cap and the offset < n <= cap: one wrap at most
            if j >= cap:
                j -= cap
            e = ring[j]
            if e.flags & G_SACKED == 0:
                e.flags |= G_SACKED
                gap_bytes += e.len
                if e.mark == 0:
                    freed += e.len
                else:
                    unmarked += 1
                e.mark = 0
                if tsn > htna_tsn:
                    htna_tsn = tsn
    # 3. miss indications for the chunks reported missing
    limit = top
    if htna and not (in_fast_recovery and cum_advanced):
        limit = htna_tsn
    marked = 0
    marked_bytes = 0
    for i in range(n):
        tsn = base_tsn + i
        if tsn >= limit:
            break
        j = head + i
        if j >= cap:
            j -= cap
        e = ring[j]
        if e.flags & G_SACKED == 0:
            e.miss += 1
            if e.miss >= threshold and e.frtx == 0:
                e.frtx = 1
                marked += 1
                if e.mark == 0:
                    e.mark = 1
                    marked_bytes += e.len
    return head, n, base_tsn, cum_bytes, gap_bytes, freed, htna_tsn, marked, marked_bytes, unmarked
