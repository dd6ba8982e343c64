"""Numba TCP receiver: reassembly of out-of-order segments, the ACK owed (immediate or delayed), SACK
blocks (most recently changed block first, as RFC 2018 asks).

ACK policy (RFC 5681 sec. 4.2 / RFC 1122): an out-of-order segment, a segment that fills a hole, a FIN
or the SYN is acknowledged at once; with delayed ACKs, in-order data is acknowledged once two
full-sized segments' worth (2 SMSS) is unacknowledged, else when the delayed-ACK timer fires."""

from __future__ import annotations

from numba import njit

from . import _layout as L
from ._link import take_row


@njit(cache=True, _nrt=False)
def fill_sack(X, r, p):
    """Copy up to three out-of-order blocks of receiver ``r`` into packet ``p``, most recent first."""
    hi = X[L.X_HI]
    olo = X[L.X_OLO]
    ohi = X[L.X_OHI]
    oage = X[L.X_OAGE]
    pi = X[L.X_PI]
    orow = hi[r, L.H_OOO_ROW]
    n = hi[r, L.H_OOO_N]
    last = 1 << 62
    for b in range(3):
        best = -1
        best_age = -1
        for i in range(n):
            a = oage[orow, i]
            if a < last and a > best_age:
                best_age = a
                best = i
        if best < 0:
            break
        pi[p, L.P_SACK + 2 * b] = olo[orow, best]
        pi[p, L.P_SACK + 2 * b + 1] = ohi[orow, best]
        last = best_age


@njit(cache=True, _nrt=False)
def _ooo_insert(X, r, a, b):
    hi = X[L.X_HI]
    olo = X[L.X_OLO]
    ohi = X[L.X_OHI]
    oage = X[L.X_OAGE]
    orow = hi[r, L.H_OOO_ROW]
    n = hi[r, L.H_OOO_N]
    i = 0
    while i < n:
        if olo[orow, i] <= b and ohi[orow, i] >= a:
            a = min(a, olo[orow, i])
            b = max(b, ohi[orow, i])
            n -= 1
            olo[orow, i] = olo[orow, n]
            ohi[orow, i] = ohi[orow, n]
            oage[orow, i] = oage[orow, n]
        else:
            i += 1
    if n == olo.shape[1]:  # no room for another block: this one is not recorded (it will be resent)
        hi[r, L.H_OOO_N] = n
        return
    olo[orow, n] = a
    ohi[orow, n] = b
    hi[r, L.H_OOO_CLOCK] += 1
    oage[orow, n] = hi[r, L.H_OOO_CLOCK]
    hi[r, L.H_OOO_N] = n + 1


@njit(cache=True, _nrt=False, forceinline=True)
def on_segment(X, r, p, t):
    """Receiver of half ``r`` gets packet ``p``: reassemble, deliver in order, and note the ACK owed."""
    hi = X[L.X_HI]
    pi = X[L.X_PI]
    ln = pi[p, L.P_SEQLEN]
    if ln == 0:
        return
    seq = pi[p, L.P_SEQ]
    flags = pi[p, L.P_FLAGS]
    hi[r, L.H_SEGS_RCVD] += 1
    owed = 1
    if flags & L.F_FIN:
        hi[r, L.H_RCV_FIN] = seq + ln - 1
    if hi[r, L.H_RCV_STARTED] == 0:
        if flags & L.F_SYN:
            hi[r, L.H_RCV_STARTED] = 1
            hi[r, L.H_OOO_ROW] = take_row(X[L.X_OOO_FREE], X[L.X_ST], L.ST_OOO_FREE)
            hi[r, L.H_RCV_NXT] = seq + ln
            X[L.X_HF][r, L.HF_FIN_RCVD_T] = -1.0
        else:
            return
    else:
        rn = hi[r, L.H_RCV_NXT]
        if seq == rn:
            had_ooo = hi[r, L.H_OOO_N] > 0
            rn += ln
            olo = X[L.X_OLO]
            ohi = X[L.X_OHI]
            orow = hi[r, L.H_OOO_ROW]
            found = True
            while found:
                found = False
                n = hi[r, L.H_OOO_N]
                for i in range(n):
                    if olo[orow, i] <= rn:
                        if ohi[orow, i] > rn:
                            rn = ohi[orow, i]
                        n -= 1
                        olo[orow, i] = olo[orow, n]
                        ohi[orow, i] = ohi[orow, n]
                        X[L.X_OAGE][orow, i] = X[L.X_OAGE][orow, n]
                        hi[r, L.H_OOO_N] = n
                        found = True
                        break
            hi[r, L.H_RCV_NXT] = rn
            cpi = X[L.X_CPI]
            if (not had_ooo and cpi[r >> 1, L.C_DELACK] == 1 and not flags & L.F_FIN):
                # RFC 5681 sec. 4.2: ACK at least every second full-sized segment, i.e. once 2 SMSS of
                # in-order data are unacknowledged; less waits for the delayed-ACK timer
                hi[r, L.H_DACK_BYTES] += ln
                if hi[r, L.H_DACK_BYTES] < 2 * cpi[r >> 1, L.C_MSS]:
                    owed = 2
        elif seq > rn:
            _ooo_insert(X, r, seq, seq + ln)
        else:
            hi[r, L.H_N_DUPSEG] += 1
    if owed == 1 or hi[r, L.H_ACK_OWED] == 0:  # 1 (now) overrides 2 (delayed)
        hi[r, L.H_ACK_OWED] = owed
