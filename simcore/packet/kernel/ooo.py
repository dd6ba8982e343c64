"""Numba: a receiver's out-of-order blocks, shared by every transport.

Each open receiving half ``r`` owns row ``S.half[r].ooo_row`` of ``S.ooo`` (taken from ``S.ooo_free`` when
it starts receiving, given back when it has received everything): up to ``S.ooo.shape[1]`` disjoint blocks
``[lo, hi)`` of sequence space received above ``S.half[r].rcv_nxt``, ``S.half[r].ooo_n`` of them in use,
each stamped with the receiver's clock ``ooo_clock`` when last changed (SACK reports the most recent
first, as RFC 2018 asks; SCTP's gap-ack blocks can be built the same way).
"""

from __future__ import annotations

from numba import njit


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ooo_insert(S, r, a, b):
    """Record [a, b) as received out of order by half ``r``, merged with the blocks it touches. When every
    block is in use and [a, b) touches none, it is not recorded (it will be resent)."""
    half = S.half
    ooo = S.ooo
    orow = half[r].ooo_row
    n = half[r].ooo_n
    i = 0
    while i < n:
        if ooo[orow, i].lo <= b and ooo[orow, i].hi >= a:
            a = min(a, ooo[orow, i].lo)
            b = max(b, ooo[orow, i].hi)
            n -= 1
            ooo[orow, i].lo = ooo[orow, n].lo
            ooo[orow, i].hi = ooo[orow, n].hi
            ooo[orow, i].age = ooo[orow, n].age
        else:
            i += 1
    if n == ooo.shape[1]:
        half[r].ooo_n = n
        return
    ooo[orow, n].lo = a
    ooo[orow, n].hi = b
    half[r].ooo_clock += 1
    ooo[orow, n].age = half[r].ooo_clock
    half[r].ooo_n = n + 1


@njit(cache=True, _nrt=False, error_model="numpy", forceinline=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ooo_absorb(S, r, rn):
    """Return the new in-order edge of half ``r`` once it has everything below ``rn``: ``rn`` extended
    over the blocks it reaches, which are removed."""
    half = S.half
    ooo = S.ooo
    orow = half[r].ooo_row
    found = True
    while found:
        found = False
        n = half[r].ooo_n
        for i in range(n):
            if ooo[orow, i].lo <= rn:
                if ooo[orow, i].hi > rn:
                    rn = ooo[orow, i].hi
                n -= 1
                ooo[orow, i].lo = ooo[orow, n].lo
                ooo[orow, i].hi = ooo[orow, n].hi
                ooo[orow, i].age = ooo[orow, n].age
                half[r].ooo_n = n
                found = True
                break
    return rn


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ooo_report(S, r, p):
    """Copy up to three blocks (TCP's SACK option, ``kernel.layout.TCP_SACK_BLOCKS``) of half ``r`` into
    ``S.pkt[p].sack`` as (lo, hi) pairs, most recent first."""
    half = S.half
    ooo = S.ooo
    sack = S.pkt[p].sack
    orow = half[r].ooo_row
    n = half[r].ooo_n
    last = 1 << 62
    for b in range(3):
        best = -1
        best_age = -1
        for i in range(n):
            a = ooo[orow, i].age
            if a < last and a > best_age:
                best_age = a
                best = i
        if best < 0:
            break
        sack[2 * b] = ooo[orow, best].lo
        sack[2 * b + 1] = ooo[orow, best].hi
        last = best_age


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ooo_holds(S, r, lo, hi):
    """Return True if half ``r`` has received every byte of [lo, hi) (in order or in one block)."""
    rn = S.half[r].rcv_nxt
    if hi <= rn:
        return True
    a = max(lo, rn)
    orow = S.half[r].ooo_row
    for i in range(S.half[r].ooo_n):
        if S.ooo[orow, i].lo <= a and S.ooo[orow, i].hi >= hi:
            return True
    return False
