"""Numba TCP receiver: reassembly of out-of-order segments, the ACK owed (immediate or delayed), SACK
blocks (most recently changed block first, as RFC 2018 asks; the blocks: ``kernel.ooo``).

ACK policy (RFC 5681 sec. 4.2 / RFC 1122): an out-of-order segment, a segment that fills a hole, a FIN
or the SYN is acknowledged at once; with delayed ACKs, in-order data is acknowledged once two
full-sized segments' worth (2 SMSS) is unacknowledged, else when the delayed-ACK timer fires."""

from __future__ import annotations

from numba import njit

from ..kernel import layout as L
from ..kernel.link import take_row
from ..kernel.ooo import ooo_absorb, ooo_insert
from .ecn import segment_arrived


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def on_segment(S, r, p, t):
    """Receiver of half ``r`` gets packet ``p``: reassemble, deliver in order, and note the ACK owed."""
    half = S.half
    pkt = S.pkt
    ln = pkt[p].seqlen
    if ln == 0:
        return
    seq = pkt[p].seq
    flags = pkt[p].flags
    if S.conn[r >> 1].ecn == 1:
        segment_arrived(S, r, flags)
    half[r].segs_rcvd += 1
    owed = 1
    if flags & L.F_FIN:
        half[r].rcv_fin = seq + ln - 1
    if half[r].rcv_started == 0:
        if flags & L.F_SYN:
            half[r].rcv_started = 1
            half[r].ooo_row = take_row(S, L.ROWS_OOO)
            half[r].rcv_nxt = seq + ln
            S.half[r].fin_rcvd_t = -1.0
        else:
            return
    else:
        rn = half[r].rcv_nxt
        if seq == rn:
            had_ooo = half[r].ooo_n > 0
            rn += ln
            rn = ooo_absorb(S, r, rn)
            half[r].rcv_nxt = rn
            conn = S.conn
            if (not had_ooo and conn[r >> 1].delack == 1 and not flags & L.F_FIN):
                # RFC 5681 sec. 4.2: ACK at least every second full-sized segment, i.e. once 2 SMSS of
                # in-order data are unacknowledged; less waits for the delayed-ACK timer
                half[r].dack_bytes += ln
                if half[r].dack_bytes < 2 * conn[r >> 1].mss:
                    owed = 2
        elif seq > rn:
            ooo_insert(S, r, seq, seq + ln)
        else:
            half[r].n_dupseg += 1
    if owed == 1 or half[r].ack_owed == 0:  # 1 (now) overrides 2 (delayed)
        half[r].ack_owed = owed
