"""Numba: the greedy reuse of server slots (``model._assign_slots``), one binary heap of free slots per class.

``assign(order, key, start, free_after, n_keys)`` walks the requests in ``order`` (by time); request ``i``
of class ``key[i]`` takes the slot of its class that became free earliest if that was by ``start[i]``
(ties: the lowest slot number), else a new slot numbered in order of creation; the slot is then busy until
``free_after[i]``. Returns (slot per request, class per slot). Heaps of every class share one array:
class ``k`` owns the entries ``[base[k], base[k] + count of its requests)``, a bound on its slots.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True, inline="always")
def _less(ht, hs, a, b):
    return ht[a] < ht[b] or (ht[a] == ht[b] and hs[a] < hs[b])


@njit(cache=True)
def assign(order, key, start, free_after, n_keys):
    """Return (slot of each request, class of each slot); see the module docstring."""
    n = order.shape[0]
    count = np.zeros(n_keys + 1, np.int64)
    for i in range(n):
        count[key[i] + 1] += 1
    base = np.cumsum(count)
    size = np.zeros(n_keys, np.int64)
    ht = np.empty(max(n, 1), np.float64)
    hs = np.empty(max(n, 1), np.int64)
    out = np.empty(n, np.int64)
    slot_key = np.empty(max(n, 1), np.int64)
    n_slots = 0
    for j in range(n):
        i = order[j]
        k = key[i]
        b = base[k]
        m = size[k]
        if m > 0 and ht[b] <= start[i]:
            s = hs[b]
            # pop the root: move the last entry to the root and sift it down
            m -= 1
            ht[b] = ht[b + m]
            hs[b] = hs[b + m]
            p = 0
            while True:
                c = 2 * p + 1
                if c >= m:
                    break
                if c + 1 < m and _less(ht, hs, b + c + 1, b + c):
                    c += 1
                if not _less(ht, hs, b + c, b + p):
                    break
                ht[b + c], ht[b + p] = ht[b + p], ht[b + c]
                hs[b + c], hs[b + p] = hs[b + p], hs[b + c]
                p = c
        else:
            s = n_slots
            slot_key[s] = k
            n_slots += 1
        out[i] = s
        # push (free_after[i], s) and sift it up
        q = m
        ht[b + q] = free_after[i]
        hs[b + q] = s
        m += 1
        while q > 0:
            p = (q - 1) // 2
            if not _less(ht, hs, b + q, b + p):
                break
            ht[b + q], ht[b + p] = ht[b + p], ht[b + q]
            hs[b + q], hs[b + p] = hs[b + p], hs[b + q]
            q = p
        size[k] = m
    return out, slot_key[:n_slots].copy()
