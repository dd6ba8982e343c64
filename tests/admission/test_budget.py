"""A run's events are bounded (``AdmissionParams.max_events``): a setting that never ends is refused with
a reason instead of growing until the machine runs out of memory (issue 29: one panel setting grew the
kernel to 24 GB)."""

from dataclasses import replace

import numpy as np
import pytest

from simcore.admission import AdmissionParams, Workload, simulate_admission
from simcore.admission.params import max_events_allowed
from simcore.chapters.admission_panel import PANEL_MAX_EVENTS, PanelSetting, make_panel

# the issue's setting: every value inside the sliders' ranges
STUCK = dict(bandwidth_fraction=0.65, experiment=2, extra_sockets=10, policy="HTTP", clients_pct=160,
             retry_busy_s=51.0, retry_later_s=94.0, small_file_kb=20.0, ready_list_size=8, ticket_ttl_s=10.0,
             sharing="max-min", seed=76)


def _one_client(n_files: int) -> Workload:
    sizes = np.full(n_files, 1024.0)
    return Workload(np.array([5.0]), np.array([1000.0]), np.array([0, n_files], np.int64), sizes, 3)


@pytest.mark.parametrize("n_files", [1, 3])
def test_events_are_counted_as_the_model_describes_them(n_files):
    # by hand, HTTP on an idle server: the arrival, then per file a decision, the start of the flow (bind)
    # and its completion: 1 + 3 * n_files events
    wl = _one_client(n_files)
    need = 1 + 3 * n_files
    r = simulate_admission(AdmissionParams(max_events=need), 0, workload=wl, capacity_Bps=1e6)
    assert r.n_events == need and r.completed.all()
    with pytest.raises(ValueError, match=rf"max_events={need - 1} events .* 1 of 1 clients are still waiting"):
        simulate_admission(AdmissionParams(max_events=need - 1), 0, workload=wl, capacity_Bps=1e6)


def test_the_issues_setting_is_refused_with_its_reason_and_a_longer_ttl_runs():
    s = PanelSetting(**STUCK)
    p = s.params("Ticket", s.extra_sockets)
    assert p.max_events == PANEL_MAX_EVENTS
    with pytest.raises(ValueError) as err:
        simulate_admission(p, s.seed)
    msg = str(err.value)
    assert msg.startswith("Ticket did not finish") and "time-to-live 10 s" in msg and "94 s later" in msg
    assert "make the time-to-live longer" in msg
    # the same clients with a time-to-live above the 94.4 s between two visits: every ticket presented on
    # the next visit is still valid, and the run ends
    r = simulate_admission(replace(p, ticket_ttl_s=100.0), s.seed)
    assert r.completed.all() and r.n_events < PANEL_MAX_EVENTS


def test_the_panel_says_why_in_its_status_line_and_recovers():
    panel = make_panel()
    panel.set(**{k: v for k, v in STUCK.items()})
    assert isinstance(panel.last_error, ValueError)
    assert "Cannot run with these settings: Ticket did not finish" in panel.status.value
    assert "time-to-live 10 s" in panel.status.value and "Traceback" not in panel.status.value
    panel.set(ticket_ttl_s=100.0)
    assert panel.last_error is None


def test_max_events_is_bounded_by_memory_with_the_bound_in_the_message():
    # 1 GiB over 48 bytes per event (a 24-byte ticket, doubled as its table grows) and over 208 with the
    # chronology (ticket + 32-byte trace row + two 24-byte log rows, doubled)
    assert max_events_allowed(False) == 2**30 // 48 == 22_369_621
    assert max_events_allowed(True) == 2**30 // 208 == 5_162_220
    AdmissionParams(max_events=22_369_621)
    with pytest.raises(ValueError, match=r"max_events=22369622 is out of range: .*\[1, 22369621\] .*1 GiB"):
        AdmissionParams(max_events=22_369_622)
    with pytest.raises(ValueError, match=r"max_events=5162221 .*\[1, 5162220\] .*with the chronology"):
        AdmissionParams(max_events=5_162_221, record_chronology=True)


def test_the_panels_run_cache_is_bounded_by_bytes(monkeypatch):
    import simcore.chapters.admission_panel as ap

    monkeypatch.setattr(ap, "_RUNS", type(ap._RUNS)())
    monkeypatch.setattr(ap, "RUN_CACHE_BYTES", 500_000)  # about 0.2 MB a run here
    runs = []
    for seed in range(6):
        s = PanelSetting(clients_pct=50, seed=seed)
        runs.append(ap._simulate(s.params("HTTP", 0, record=True), seed))
    sizes = [n for _, n in ap._RUNS.values()]
    assert sum(sizes) <= 500_000 or len(sizes) == 1  # within the budget (one run is always kept)
    assert len(sizes) < 6  # so older runs left
    last = PanelSetting(clients_pct=50, seed=5)
    assert ap._simulate(last.params("HTTP", 0, record=True), 5) is runs[-1]  # the newest is reused, not re-run
