"""AdmissionParams validation and the thesis's scenario grid (figure 6, data/admission_socket_allocation)."""

import csv
from pathlib import Path

import pytest

from simcore.admission import AdmissionParams, scenario_label, thesis_grid, thesis_scenarios

DATA = Path(__file__).resolve().parents[2] / "data"


@pytest.mark.parametrize(
    "field, value",
    [
        ("experiment", 3),
        ("experiment", True),
        ("bandwidth_fraction", 0.0),
        ("bandwidth_fraction", float("nan")),
        ("policy", "SCTP"),
        ("sockets", 0),
        ("sockets", 2.5),
        ("extra_sockets", -1),
        ("max_large_connections", 0),
        ("max_large_connections", 31),
        ("n_clients", 0),
        ("window_s", 1.0),
        ("access_min_Bps", 50.0),
        ("access_max_Bps", 1000.0),
        ("connect_s", -0.1),
        ("retry_busy_s", 0.0),
        ("retry_later_s", 700.0),
        ("small_file_kb", 0.1),
        ("kilobyte_bytes", 1010),
        ("ready_list_size", 0),
        ("ready_threshold", 11),
        ("ticket_ttl_s", 0.5),
        ("ticket_retry", "guess"),
        ("ticket_retry_max_s", 1.0),
        ("sharing", "fifo"),
        ("file_order", "alphabetical"),
        ("max_attempts", -1),
        ("record_chronology", 1),
    ],
)
def test_bad_values_raise_naming_the_parameter(field, value):
    with pytest.raises(ValueError, match=field):
        AdmissionParams(**{field: value})


def test_defaults_are_the_thesis_values():
    rows = {r["quantity"]: float(r["value"]) for r in csv.DictReader(open(DATA / "admission_workload.csv"))}
    p = AdmissionParams()
    assert p.connect_s == rows["connect_attempt_s"]
    assert p.bind_s == rows["socket_bind_s"]
    assert p.retry_busy_s == rows["retry_busy_s"]
    assert p.retry_later_s == rows["retry_later_s"]
    assert p.access_min_Bps == rows["access_rate_min_bytes_per_s"]
    assert p.access_max_Bps == rows["access_rate_max_bytes_per_s"]
    assert p.window_s == rows["window_s"]
    assert p.sockets == rows["base_sockets"]
    assert p.small_file_kb == rows["small_file_threshold_kb"]
    assert AdmissionParams(experiment=1).clients == 200
    assert AdmissionParams(experiment=2).clients == 400


def test_scenarios_reproduce_figure_6_socket_allocation():
    rows = list(csv.DictReader(open(DATA / "admission_socket_allocation.csv")))
    scen = thesis_scenarios(2)
    assert len(scen) == len(rows) == 11
    for p, r in zip(scen, rows, strict=True):
        assert p.policy == r["policy"]
        assert scenario_label(p) == f"{r['policy']} +{r['extra_sockets_pct']}%"
        assert p.total_sockets == int(r["total_sockets"])
        # sockets that may carry large files = the figure's 'Transfer' row for Reserve/Ticket
        if p.policy in ("Reserve", "Ticket"):
            assert p.large_limit == int(r["transfer_sockets"])
            assert p.total_sockets - p.large_limit == int(r["reserved_small_sockets"])
        else:
            assert p.large_limit == p.total_sockets
    grid = thesis_grid()
    assert len(grid) == 66
    assert {(load, p.bandwidth_fraction) for load, p in grid} == {
        ("sufficient", 1.0),
        ("light", 0.75),
        ("heavy", 0.5),
    }
