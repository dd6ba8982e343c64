"""Per-client chronology of a run (figures 10-13, 21-24 of the thesis) as plain records for a chart."""

from __future__ import annotations

import numpy as np

from simcore.admission.model import AdmissionResult

__all__ = ["OUTCOMES", "chronology_records"]

#: attempt outcome code -> name (codes of ``AdmissionResult.attempt_log[:, 2]``)
OUTCOMES = {0: "accepted", 1: "busy", 2: "come back later", 3: "gave up"}


def chronology_records(result: AdmissionResult) -> list[dict]:
    """Return one dict per client (arrival order): times in s, for a chronology chart.

    Keys: ``client``, ``arrival_s``, ``finish_s`` (None if it gave up), ``access_Bps``, ``requested_bytes``,
    ``attempt_s`` (list of attempt start times), ``outcome`` (list of OUTCOMES names, same order) and
    ``connected`` (list of (socket acquired s, released s)). Needs a run with ``record_chronology=True``.
    """
    if not result.params.record_chronology:
        raise ValueError("record_chronology=False: rerun with AdmissionParams(record_chronology=True)")
    n = result.arrival_s.size
    a_log, i_log = result.attempt_log, result.interval_log
    a_order = np.argsort(a_log[:, 0], kind="stable")
    a_split = np.searchsorted(a_log[a_order, 0], np.arange(n + 1))
    i_order = np.argsort(i_log[:, 0], kind="stable")
    i_split = np.searchsorted(i_log[i_order, 0], np.arange(n + 1))
    out = []
    for c in range(n):
        att = a_log[a_order[a_split[c] : a_split[c + 1]]]
        con = i_log[i_order[i_split[c] : i_split[c + 1]]]
        fin = result.finish_s[c]
        out.append(
            {
                "client": c,
                "arrival_s": float(result.arrival_s[c]),
                "finish_s": None if np.isnan(fin) else float(fin),
                "access_Bps": float(result.access_Bps[c]),
                "requested_bytes": float(result.requested_bytes[c]),
                "attempt_s": att[:, 1].tolist(),
                "outcome": [OUTCOMES[int(o)] for o in att[:, 2]],
                "connected": [(float(s), float(e)) for s, e in con[:, 1:3]],
            }
        )
    return out
