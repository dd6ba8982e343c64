"""Numba: connection slots. The kernel keeps its half-connection and connection rows (``S.half``, ``S.conn``) for
the connections alive now, not for every connection of the scenario: at chapter 2's highest load 275k connections
would hold ~0.4 GB of rows, while a few thousand are open at once.

A connection takes a slot (``slot_of``) when the kernel first needs its rows: when it opens (``EV_OPEN``) or a
message is written on it, whichever comes first. The slot's rows start as a connection's rows started before
slots existed: the template half row ``S.half_tpl`` (its ``rto`` the connection's initial RTO) and the
connection's parameters ``S.conn_par[par]`` with its own columns from ``S.conn_id``. Inside the kernel ``c`` and
``h`` are slot numbers (half ``h = 2 * slot + d``); ``S.conn[c].cid`` is the connection's number in the scenario,
which traces, messages and pools use (routes: ``S.conn[c].rt``, ``kernel.link.route``).

It gives the slot back (``maybe_free``) once nothing can read or change its rows any more: a TCP connection,
not pooled, whose two FINs are acknowledged, with no packet in flight (``n_pkts``, counted by ``kernel.link``), no
delayed ACK armed and both retransmission timers stopped (so a pending ``EV_RTO`` of it would do nothing),
and both of its scoreboard and out-of-order rows given back. Its results go to ``S.half_out`` and
``S.conn_id`` first (those of a connection still holding its slot when the run ends go there then:
``kernel.batch.results_of_slots``). Timer events carry ``gen * n_halves + h``; the generations ``rto_gen`` and
``dack_gen`` stay in the slot across reuses and step at the release, so a timer of the old connection is stale for
the new one (as it would have been for the old one: its delayed ACK was not armed, its timer stopped). Slot
numbers never enter event times or numbers: the run is the one it was with one row per connection.

Only a scenario with more connections than the first slot table (``simulate._first_rows``: 4096, or a 16th of
the connections if more) gives slots back (``S.st[0].recycle``): a smaller one keeps a slot per connection and
neither counts packets in flight nor tests for a release per packet, so small runs pay nothing for slots.

The kernel pauses between events when no slot is free (``PAUSE_ROWS``, as for the scoreboard rows) and
``simulate.run_to_end`` grows the tables: an event takes at most one slot.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from .._numba.outline import outline
from .._numba.rows import copy_row, set_word, word
from . import layout as L

_OUT_N = L.HALF_OUT.itemsize // 8  # a HALF_OUT row's 8-byte fields, copied as words from HALF's (_numba.rows)
for _name in ("HALF", "HALF_OUT"):  # words are fields only if every field is 8 bytes
    _rec = getattr(L, _name)
    if any(_rec.fields[f][0].itemsize != 8 for f in _rec.names):
        raise TypeError(f"kernel.layout.{_name} has a field that is not 8 bytes: "
                        "kernel.slot copies its rows by 8-byte words")
_OUT_WORDS = np.array([L.HALF.fields[f][1] // 8 for f in L.HALF_OUT.names], np.int64)  # each HALF_OUT field's word
if [L.HALF_OUT.fields[f][1] for f in L.HALF_OUT.names] != list(range(0, L.HALF_OUT.itemsize, 8)):
    raise TypeError("kernel.layout.HALF_OUT's fields are not its words in order: kernel.slot copies them so")


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _take_slot(S, cid):
    """Give connection ``cid`` a free slot with its rows as they start; return the slot."""
    st = S.st[0]
    n = st.slot_free
    if n == 0:  # run pauses before an event when none is free: cannot happen
        st.flags |= L.OVF_ROWS
        return 0
    n -= 1
    st.slot_free = n
    s = S.slot_free[n]
    ci = S.conn_id
    # whole rows copied as their bytes (_numba.rows): numba's record assignment copies field by field, ~3.7k lines of IR
    copy_row(S.conn, s, S.conn_par, ci[cid].par)
    conn = S.conn
    conn[s].cid = cid
    conn[s].keep = ci[cid].pooled
    conn[s].n_pkts = 0
    conn[s].client = ci[cid].client
    conn[s].server = ci[cid].server
    conn[s].closer = ci[cid].closer
    conn[s].open_t = ci[cid].open_t
    conn[s].total[0] = ci[cid].total[0]
    conn[s].total[1] = ci[cid].total[1]
    conn[s].rt[0] = ci[cid].rt[0]
    conn[s].rt[1] = ci[cid].rt[1]
    half = S.half
    for h in range(2 * s, 2 * s + 2):
        g_rto = half[h].rto_gen
        g_dack = half[h].dack_gen
        copy_row(half, h, S.half_tpl, 0)
        half[h].rto_gen = g_rto
        half[h].dack_gen = g_dack
        half[h].rto = conn[s].init_rto
    ci[cid].slot = s
    return s


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def slot_of(S, cid):
    """Return the slot of connection ``cid``, giving it one if it has none yet; -1 if it gave its slot back
    (closed: nothing is written on it any more)."""
    s = S.conn_id[cid].slot
    if s == -1:
        return _take_slot(S, cid)
    if s == -2:
        return -1
    return s


@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _free_slot(S, c):
    """Give slot ``c`` back if its connection is done and nothing refers to it (module docstring)."""
    conn = S.conn
    half = S.half
    cid = conn[c].cid
    ci = S.conn_id
    # a stale timer event may name a slot given back since (free, or another connection's: then tested as its own)
    if ci[cid].slot != c or conn[c].proto != L.PROTO_TCP or conn[c].keep == 1 or S.st[0].recycle == 0:
        return
    for h in range(2 * c, 2 * c + 2):
        if (math.isnan(half[h].fin_acked_t) or half[h].dack_armed != 0 or half[h].rto_deadline != math.inf
                or half[h].seg_row >= 0 or half[h].ooo_row >= 0):
            return
    out = S.half_out  # the fields simulate._result reads, copied as 8-byte words (_numba.rows, _OUT_WORDS)
    for d in range(2):
        h = 2 * c + d
        o = 2 * cid + d
        for j in range(_OUT_N):
            set_word(out, o, j, word(half, h, _OUT_WORDS[j]))
        half[h].rto_gen += 1  # a pending event of this connection is stale for the next one
        half[h].dack_gen += 1
    ci[cid].timewait_t = conn[c].timewait_t
    ci[cid].slot = -2
    st = S.st[0]
    S.slot_free[st.slot_free] = c
    st.slot_free += 1
    st.slots_freed += 1


@njit(cache=True, inline="always")
def maybe_free(S, c):
    """Give slot ``c`` back if its connection is done (``_free_slot``); the quick tests inline, per packet."""
    if S.st[0].recycle == 1 and S.conn[c].n_pkts == 0 and not math.isnan(S.half[2 * c].fin_acked_t):
        outline(_free_slot, (S, c))
