"""Runs of one small scenario back to back in one call of the event loop (``simulate_many``, ``packet.batch``).

``kernel.loop.run`` ends each run with ``next_run(S)``. Outside a batch (``S.bat[B_N] == 0``: ``simulate``) it
returns False and the loop returns. In a batch of ``n`` runs it copies what a result reads of the finished run's
block (every array of the state but the engine's scratch tables and the connection slots' rows: ``build_cache``;
which words: the copy-out ranges in ``S.bat``, after the plan) to ``S.bout[i]``, one range after another, then
makes the state the next
run's, exactly as ``build_cache`` makes a run's state from a scenario's template: the block as the batch's first
state was before it ran (``S.tpl``; or, when ``S.tpl`` holds one block per run, run ``i``'s own: the runs of
scenarios derived from one root, which differ only in their message start times and known events), the rows of
the scratch tables a run can read before writing them, as the template's, where the finished run may have written
them (below its high-water marks: ``HW_*``) (``S.stpl``; which rows: the plan in ``S.bat``,
``build_cache._Template.plan``), the links' seeds and a congestion control's streams from
``S.bseed[i + 1]``. A run that ends with a flag set (a table overflowed,
rows to grow) ends the batch there: ``S.bat[B_I]`` says which, and the caller redoes it alone.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .._numba.rows import set_word, word
from .slot import _OUT_N, _OUT_WORDS

# S.bat: the batch's control words
B_N = 0  # runs in the batch (0: not a batch)
B_I = 1  # the run in progress (after the call: the runs finished, or the one that ended the batch with a flag)
B_LINKS = 2  # links (their seeds are S.bseed[i, :B_LINKS])
B_CC = 3  # congestion-control streams (S.bseed[i, B_LINKS:B_LINKS + B_CC] are S.conn_par's cc_seed), 0 if none
B_NPLAN = 4  # rows of the reset plan
B_NOUT = 5  # copy-out ranges (after the plan: per range, its first word in S.blk and its words)
B_PLAN = 6  # the plan: per row, (offset in S.scr, words per row, rows or a HW_* below, 1 from S.stpl)
PLAN_WORDS = 4
# rows of a table that a run may have written, as the run's own high-water mark says (every row above it is still
# the template's): the packet slots (kernel.link.alloc), the scoreboard and out-of-order rows (kernel.link.take_row)
HW_PKT = -1
HW_SEG = -2
HW_OOO = -3

# the batch fields of a state outside a batch (never written: next_run reads S.bat[B_N] == 0 and returns)
SINGLE = {"bat": np.zeros(1, np.int64), "blk": np.zeros(1, np.uint64), "tpl": np.zeros(1, np.uint64),
          "scr": np.zeros(1, np.uint64), "stpl": np.zeros(1, np.uint64), "bseed": np.zeros((1, 1), np.uint64),
          "bout": np.zeros((1, 1), np.uint64)}


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def results_of_slots(S):
    """At the end of a run: every connection that still holds a slot leaves its halves' results in ``S.half_out`` and
    its ``timewait_t`` in ``S.conn_id``, as ``kernel.slot._free_slot`` leaves them when it gives a slot back (word by
    word, the fields' bits exactly), so a result reads every connection's there (``halves.by_connection``)."""
    ci = S.conn_id
    half = S.half
    conn = S.conn
    out = S.half_out
    for cid in range(S.st[0].n_halves >> 1):
        c = ci[cid].slot
        if c >= 0:
            for d in range(2):
                for j in range(_OUT_N):
                    set_word(out, 2 * cid + d, j, word(half, 2 * c + d, _OUT_WORDS[j]))
            ci[cid].timewait_t = conn[c].timewait_t


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def next_run(S):
    """After a run: False if it was the last (or not in a batch, or it ended with a flag), else make the state the
    next run's and return True (see the module's doc). A run that ended without a flag first leaves its
    connections' results where a result reads them (``results_of_slots``)."""
    st = S.st[0]
    if st.flags != 0:
        return False
    results_of_slots(S)
    bat = S.bat
    n = bat[B_N]
    if n == 0:
        return False
    i = bat[B_I]
    # the finished run's high-water marks, read before the block (which holds S.st) is reset
    pkt_hw = st.pkt_hw
    seg_hw = st.seg_hw
    ooo_hw = st.ooo_hw
    blk = S.blk
    nb = blk.shape[0]
    out = S.bout
    k = 0
    w = B_PLAN + PLAN_WORDS * bat[B_NPLAN]
    for r in range(bat[B_NOUT]):
        first = bat[w + 2 * r]
        for j in range(first, first + bat[w + 2 * r + 1]):
            out[i, k] = blk[j]
            k += 1
    i += 1
    bat[B_I] = i
    if i == n:
        return False
    tpl = S.tpl
    at = i * nb if tpl.shape[0] > nb else 0  # one starting block per run, or one for all
    for j in range(nb):
        blk[j] = tpl[at + j]
    scr = S.scr
    stpl = S.stpl
    for r in range(bat[B_NPLAN]):
        w = B_PLAN + PLAN_WORDS * r
        off = bat[w]
        rows = bat[w + 2]
        if rows == HW_PKT:
            rows = pkt_hw
        elif rows == HW_SEG:
            rows = seg_hw
        elif rows == HW_OOO:
            rows = ooo_hw
        end = off + bat[w + 1] * rows
        if bat[w + 3] == 1:
            for j in range(off, end):
                scr[j] = stpl[j]
        else:
            for j in range(off, end):
                scr[j] = 0
    seeds = S.bseed
    nl = bat[B_LINKS]
    rng = S.rng
    for j in range(nl):
        rng[j] = seeds[i, j]
    par = S.conn_par
    for j in range(bat[B_CC]):
        par[j].cc_seed = np.int64(seeds[i, nl + j])
    return True
