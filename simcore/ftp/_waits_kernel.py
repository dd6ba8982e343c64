"""One pass of ``_waits``' fixed point as a numba kernel: which waiting messages the run first departs from.

``_waits._FixedPoint.step`` compares, for each message that waits, when the run wrote it with when it should
have been written; as numpy operations on arrays of a few dozen entries, its ~25 calls cost more than a small
session's run in the kernel. This is the same arithmetic, element by element in the same order (IEEE sums,
maxima and comparisons, no fast-math), so it gives the same answer bit for bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def departures(done_s, est_s, write_s, ref, is_done, delay, lag, group, base, start, waited, never, eps):
    """Return (the waiting messages to move: indices into ``waited``, their new start times): those where the run
    first departs from the wanted one (all at that instant); none if the run is consistent.

    Wait ``w`` is on message ``done_s[ref[w]]`` if ``is_done[w]`` else connection ``est_s[ref[w]]``, plus
    ``delay[w]`` (``never`` if that never happened); waits ``group[g]`` to ``group[g + 1] - 1`` are those of
    message ``waited[g]``, whose start time is ``base[g]`` in the root scenario and ``start[g]`` now, and which the
    run wrote at ``write_s[waited[g]]`` (nan: not written). ``eps``: ``_waits.EPS_S``; ``lag[w]``: 0 for a 'done'
    wait (a message may be written at that instant), ``eps`` for a connect()."""
    n_groups = waited.shape[0]
    n_waits = ref.shape[0]
    desired = np.empty(n_groups)
    when = np.empty(n_groups)
    fix = np.zeros(n_groups, np.bool_)
    half = eps / 2
    first = np.inf
    for g in range(n_groups):
        end = group[g + 1] if g + 1 < n_groups else n_waits
        d = -np.inf
        f = -np.inf
        for w in range(group[g], end):
            t = (done_s[ref[w]] if is_done[w] else est_s[ref[w]]) + delay[w]
            if np.isnan(t):
                t = never
            d = max(d, t + eps)
            f = max(f, t + lag[w])
        b = base[g]
        d = max(b, d)
        f = max(b, f)
        desired[g] = d
        wr = write_s[waited[g]]
        unwritten = np.isnan(wr)
        s = start[g]
        if unwritten:
            wr = s
        live = (not unwritten) or s > b
        early = live and wr < f - half  # written before what it waits for (or, for a connect(), at it)
        late = live and not early and wr > d + half and s > b and wr == s  # held back too long
        if early or late:
            fix[g] = True
            when[g] = wr if early else d
            first = min(first, when[g])
    n = 0
    for g in range(n_groups):
        if fix[g] and when[g] <= first + half:
            n += 1
    idx = np.empty(n, np.int64)
    new = np.empty(n)
    n = 0
    for g in range(n_groups):
        if fix[g] and when[g] <= first + half:
            idx[n] = g
            new[n] = desired[g]
            n += 1
    return idx, new
