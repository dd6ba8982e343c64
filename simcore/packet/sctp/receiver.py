"""Numba SCTP receiver: DATA chunks into the half's stream, the SACK owed (immediate or delayed), and the
SACK's cumulative TSN ack, gap ack blocks (as many as fit in the MTU, at most ``kernel.layout.SACK_BLOCKS``)
and a_rwnd (RFC 4960 sec. 6.2, 6.7).

The receiver keeps what it holds in byte space (``rcv_nxt`` and the shared out-of-order blocks of
``kernel.ooo``), so the application layer (``kernel.app``, per-stream delivery) reads it as it reads TCP's. DATA chunks
keep their boundaries and their TSNs rise with the bytes they carry, so a byte range the receiver holds
maps to a TSN range: ``tsn_of`` reads the TSN of the chunk starting at a byte from the association's chunk
ring (the TSNs of chunks this receiver has received, looked up rather than stored twice).

SACK policy (sec. 6.2): with delayed SACKs, a SACK for at least every ``sack_every``-th packet carrying
DATA, else when the timer (``delack_s``) fires; at once when a chunk arrives out of order (a gap appears),
fills a gap, or is a duplicate; the SACK reports the duplicate TSN (sec. 6.2: every duplicate since the last
SACK; here at most one, since each packet with a duplicate draws a SACK at once and a retransmitted chunk goes
alone). a_rwnd = the buffer less the bytes held out of order (the application
reads in-order data at once).
"""

from __future__ import annotations

from numba import njit

from ..kernel import layout as L
from ..kernel.link import take_row
from ..kernel.ooo import ooo_absorb, ooo_holds, ooo_insert


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def tsn_of(S, h, b):
    """Return the TSN of the DATA chunk of half ``h`` that starts at byte ``b`` (the next TSN if ``b`` is at
    or past the end of what was sent)."""
    half = S.half
    n = half[h].seg_n
    base = half[h].tsn_head
    if b >= half[h].snd_max or n == 0:
        return base + n
    row = half[h].seg_row
    if row < 0:  # the sender has closed
        return base + n
    cap = S.seg.shape[1]
    head = half[h].seg_head
    # Chunks hold at most mss bytes, so the chunks before index ceil((b - start of the first) / mss) all
    # start below b: the search starts there, and that index is the answer when all chunks are full.
    lo = min(max(-((S.seg[row, head].start - b) // S.conn[h >> 1].mss), 0), n)
    if lo < n:
        j = head + lo
        if j >= cap:
            j -= cap
        if S.seg[row, j].start >= b:
            return base + lo
        lo += 1
    hi = n  # first index whose chunk starts at or after b
    while lo < hi:
        mid = (lo + hi) // 2
        j = head + mid
        if j >= cap:
            j -= cap
        if S.seg[row, j].start < b:
            lo = mid + 1
        else:
            hi = mid
    return base + lo


@njit(cache=True, inline="always")
def start_receiver(S, r):
    """The receiver of half ``r`` is ready for DATA (stream bytes from 1, as TCP's after its SYN)."""
    half = S.half
    if half[r].rcv_started == 1:
        return
    half[r].rcv_started = 1
    half[r].rcv_nxt = 1
    half[r].ooo_row = take_row(S, L.ROWS_OOO)
    half[r].ooo_n = 0
    half[r].dup_tsn = -1
    half[r].fin_rcvd_t = -1.0


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def gap_blocks_sent(S, r):
    """Return how many gap ack blocks the next SACK of receiver ``r`` reports (sec. 3.3.4, 6.2): one per
    out-of-order block it holds (each is a TSN range, since chunks never straddle two blocks), as many as
    fit in the MTU beside the duplicate TSN it owes (16-byte SACK chunk, 4 bytes per block or duplicate,
    behind 20 + 12 bytes of headers), and at most ``kernel.layout.SACK_BLOCKS`` (the lowest are kept)."""
    fit = (S.conn[r >> 1].mtu - 48) // 4 - (S.half[r].dup_tsn >= 0)
    return max(min(S.half[r].ooo_n, L.SACK_BLOCKS, fit), 0)


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def fill_sack(S, r, p):
    """Write the SACK of receiver ``r`` into packet ``p``: cumulative TSN ack (``ack``), the lowest
    ``gap_blocks_sent`` gap blocks as TSN ranges [lo, hi) lowest first (``sack``), a_rwnd (``wnd``), the
    duplicate TSN received since the last SACK (``ndup``, ``dup``); return the gap blocks and duplicate TSNs written."""
    half = S.half
    pk = S.pkt[p]
    rn = half[r].rcv_nxt
    pk.ack = tsn_of(S, r, rn) - 1
    orow = half[r].ooo_row
    n = half[r].ooo_n
    held = 0
    for i in range(n):
        held += S.ooo[orow, i].hi - S.ooo[orow, i].lo
    pk.wnd = max(S.conn[r >> 1].rwnd - held, 0)
    k = 0
    last = rn
    kmax = gap_blocks_sent(S, r)
    while k < kmax:
        best = -1
        for i in range(n):
            lo = S.ooo[orow, i].lo
            if lo > last and (best < 0 or lo < S.ooo[orow, best].lo):
                best = i
        if best < 0:
            break
        pk.sack[2 * k] = tsn_of(S, r, S.ooo[orow, best].lo)
        pk.sack[2 * k + 1] = tsn_of(S, r, S.ooo[orow, best].hi)
        last = S.ooo[orow, best].lo
        k += 1
    if half[r].dup_tsn >= 0:
        pk.ndup = 1
        pk.dup = half[r].dup_tsn
        half[r].dup_tsn = -1
        k += 1
    return k


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def on_data(S, r, p, t):
    """Receiver of half ``r`` gets the DATA chunk of packet ``p``: reassemble and note the SACK owed."""
    half = S.half
    pkt = S.pkt
    if half[r].rcv_started == 0 or half[r].ooo_row < 0:  # not started, or closed
        return
    seq = pkt[p].seq
    ln = pkt[p].seqlen
    half[r].segs_rcvd += 1
    rn = half[r].rcv_nxt
    now = S.conn[r >> 1].delack == 0
    if seq + ln <= rn or ooo_holds(S, r, seq, seq + ln):
        half[r].n_dupseg += 1
        half[r].dup_tsn = pkt[p].tsn  # a duplicate is a retransmitted chunk, alone in its packet
        now = True
    elif seq == rn:
        if half[r].ooo_n > 0:
            now = True  # fills (part of) a gap
        half[r].rcv_nxt = ooo_absorb(S, r, seq + ln)
    else:
        ooo_insert(S, r, seq, seq + ln)
        now = True  # a gap
    if not now:
        half[r].sack_pkts += 1
        if half[r].sack_pkts >= S.conn[r >> 1].sack_every:
            now = True
    if now:
        half[r].ack_owed = 1
    elif half[r].ack_owed == 0:
        half[r].ack_owed = 2
