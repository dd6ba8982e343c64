"""chronology_records: per-client attempts and connections, in time order, consistent with the run."""

import numpy as np
import pytest

from simcore.admission import AdmissionParams, chronology_records, simulate_admission


def test_chronology_per_client():
    p = AdmissionParams(
        experiment=1, bandwidth_fraction=0.5, policy="Ticket", extra_sockets=3, record_chronology=True
    )
    r = simulate_admission(p, 2)
    recs = chronology_records(r)
    assert len(recs) == r.arrival_s.size
    for c, rec in enumerate(recs):
        assert len(rec["attempt_s"]) == r.attempts[c] == len(rec["outcome"])
        assert rec["attempt_s"][0] == pytest.approx(rec["arrival_s"])
        assert np.all(np.diff(rec["attempt_s"]) > 0)
        assert rec["outcome"].count("accepted") == len(rec["connected"]) == r.n_files[c]
        ends = [e for _, e in rec["connected"]]
        assert max(ends) == rec["finish_s"]
        assert sum(e - s for s, e in rec["connected"]) == pytest.approx(r.connected_s[c])
        assert rec["outcome"][-1] == "accepted"
    assert any("come back later" in rec["outcome"] for rec in recs)
    with pytest.raises(ValueError, match="record_chronology"):
        chronology_records(simulate_admission(AdmissionParams(n_clients=5), 0))
