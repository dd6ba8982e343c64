"""Admission control for busy file servers (Holmes à Court 1997): HTTP, FTP, Reserve and Ticket policies.

Units: bytes, bytes per second (``_Bps``), seconds (``_s``). See ``ASSUMPTIONS.md`` in this folder for
the thesis's model beside our modelling choices.
"""

from simcore.admission._tickets import TICKET_VERDICTS, check_ticket, ticket_token
from simcore.admission.chronology import OUTCOMES, chronology_records
from simcore.admission.compare import (
    THESIS_SCENARIOS,
    ControlComparison,
    compare_to_control,
    run_grid,
    scenario_label,
    thesis_grid,
    thesis_scenarios,
)
from simcore.admission.model import AdmissionResult, session_lower_bound_s, simulate_admission
from simcore.admission.params import (
    CLIENTS_PER_EXPERIMENT,
    FILE_CATALOG_KB,
    FILES_PER_CLIENT,
    LOADS,
    POLICIES,
    AdmissionParams,
)
from simcore.admission.reproduce import reproduce_thesis_tables, thesis_table_records
from simcore.admission.workload import Workload, draw_workload, required_bandwidth_Bps

__all__ = [
    "AdmissionParams",
    "AdmissionResult",
    "ControlComparison",
    "compare_to_control",
    "thesis_scenarios",
    "thesis_grid",
    "THESIS_SCENARIOS",
    "scenario_label",
    "run_grid",
    "chronology_records",
    "OUTCOMES",
    "reproduce_thesis_tables",
    "thesis_table_records",
    "Workload",
    "simulate_admission",
    "draw_workload",
    "required_bandwidth_Bps",
    "session_lower_bound_s",
    "check_ticket",
    "ticket_token",
    "TICKET_VERDICTS",
    "POLICIES",
    "LOADS",
    "FILE_CATALOG_KB",
    "FILES_PER_CLIENT",
    "CLIENTS_PER_EXPERIMENT",
]
