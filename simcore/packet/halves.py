"""What every connection half of a run ends with: its ``L.HALF_OUT`` row, whether the connection still holds its
slot, gave it back or never took one (``kernel.slot``). Read by ``simulate._result`` and ``lazy_result``."""

from __future__ import annotations

import numpy as np

from .kernel import layout as L
from .kernel.slot import _OUT_WORDS

__all__ = ["by_connection", "nan_before_zero"]

_RTO_WORD = L.HALF_OUT.fields["rto"][1] // 8  # (HALF_OUT's fields are its 8-byte words in order: kernel.slot)


def by_connection(S: L.State, nc: int) -> tuple[np.ndarray, np.ndarray]:
    """Return the results of every half of the scenario (``L.HALF_OUT`` records, half ``2 * cid + d``) and every
    connection's ``timewait_t``: what it left in ``S.half_out`` and ``S.conn_id`` when it gave its slot back or
    when the run ended (``kernel.batch.results_of_slots``), else (it never took a slot) as a half starts, completed
    in place. Rows are copied as 8-byte words, the fields' bits exactly, as the kernel copies them."""
    if nc == 0:
        return np.zeros(0, L.HALF_OUT), np.zeros(0)
    out = S.half_out[:2 * nc]
    ids = S.conn_id
    timewait = ids["timewait_t"].copy()
    slot = ids["slot"]
    if slot.min() == -1:  # some never took a slot (-2: gave it back): as a half starts
        never = np.flatnonzero(slot == -1)
        words = out.view(np.int64).reshape(nc, 2, -1)
        words[never] = S.half_tpl.view(np.int64)[_OUT_WORDS]
        words[never, :, _RTO_WORD] = np.repeat(S.conn_par["init_rto"][S.conn_id["par"][never]], 2).reshape(-1, 2) \
            .view(np.int64)
    return out, timewait


def nan_before_zero(a: np.ndarray) -> np.ndarray:
    """``a`` as floats with its negative entries NaN (a value not yet measured: an RTT estimate before its first
    sample)."""
    out = a.astype(float).copy()
    out[out < 0] = np.nan
    return out
