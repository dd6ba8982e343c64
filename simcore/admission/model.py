"""Run one admission-control scenario: ``simulate_admission(params, seed) -> AdmissionResult``.

Also the hard lower bound on session times that no admission policy can beat (``session_lower_bound_s``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_instance
from simcore.admission._kernel import (
    POLICY_FTP,
    POLICY_HTTP,
    POLICY_RESERVE,
    POLICY_TICKET,
    SHARE_EQUAL,
    SHARE_MAXMIN,
    SHARE_PER_SOCKET,
    admission_kernel,
)
from simcore.admission._kernel import srpt_completion_s as _srpt
from simcore.admission.params import AdmissionParams
from simcore.admission.workload import Workload, draw_workload, required_bandwidth_Bps
from simcore.rng import SeedLike, check_seed

__all__ = ["AdmissionResult", "simulate_admission", "session_lower_bound_s"]

_POLICY_CODE = {"HTTP": POLICY_HTTP, "FTP": POLICY_FTP, "Reserve": POLICY_RESERVE, "Ticket": POLICY_TICKET}

_SHARING_CODE = {"max-min": SHARE_MAXMIN, "equal": SHARE_EQUAL, "per-socket": SHARE_PER_SOCKET}


@dataclass(frozen=True)
class AdmissionResult:
    """Outcome of one run. Per-client arrays are in arrival order; times in s, sizes in bytes.

    ``session_s`` = finish - arrival (NaN for a client that gave up); ``connected_s`` = time holding a
    socket; ``waiting_s`` = session - connected. ``lower_bound_session_s`` is each client's own bound and
    ``lower_bound_mean_session_s`` the bound on the mean (see ``session_lower_bound_s``). Ticket state
    (``ticket_*``) is the server's at the end of the run. Logs are empty unless ``record_chronology``:
    ``attempt_log`` [k, 3] (client, attempt start s, outcome 0 accepted / 1 busy / 2 come back later /
    3 gave up), ``interval_log`` [k, 3] (client, socket acquired s, released s), ``trace_log`` [k, 4]
    (time s, sockets held, served Bps, demand Bps).
    """

    params: AdmissionParams
    capacity_Bps: float
    required_Bps: float
    arrival_s: np.ndarray
    access_Bps: np.ndarray
    requested_bytes: np.ndarray
    n_files: np.ndarray
    finish_s: np.ndarray
    session_s: np.ndarray
    delivered_bytes: np.ndarray
    connected_s: np.ndarray
    waiting_s: np.ndarray
    attempts: np.ndarray
    busy_refusals: np.ndarray
    later_refusals: np.ndarray
    gave_up: np.ndarray
    lower_bound_session_s: np.ndarray
    lower_bound_mean_session_s: float
    max_sockets_held: int
    max_large_held: int
    server_busy_s: float
    server_delivered_bytes: float
    end_s: float
    n_events: int
    tickets_issued: int
    tickets_expired: int
    ticket_token: np.ndarray
    ticket_state: np.ndarray
    ticket_last_s: np.ndarray
    attempt_log: np.ndarray
    interval_log: np.ndarray
    trace_log: np.ndarray

    @property
    def mean_session_s(self) -> float:
        """Return the mean session time (s) over clients that completed."""
        return float(np.nanmean(self.session_s))

    @property
    def completed(self) -> np.ndarray:
        """Return a bool array: the client received all its files."""
        return ~np.isnan(self.finish_s)


def session_lower_bound_s(
    workload: Workload, capacity_Bps: float, overhead_s: float
) -> tuple[np.ndarray, float]:
    """Return (per-client lower bound on session time in s, lower bound on the mean session time in s).

    Holds for every admission policy, socket count and sharing rule on a server of ``capacity_Bps``
    where a client's first byte can flow no earlier than ``overhead_s`` (one connection attempt + bind)
    after it arrives, and client i receives at most ``access_Bps[i]``:

    Per client: ``L_i = overhead_s + B_i / r_i``. Proof: some connection must be made first, and the B_i
    bytes then arrive at rate <= r_i.

    On the mean: ``max(mean_i L_i, mean_i (C_i - a_i))`` where C_i is client i's completion under
    preemptive SRPT on one server of rate ``capacity_Bps``, uncapped, job i released at
    ``a_i + overhead_s`` with B_i bytes. Proof: any run of the model is a fluid schedule x_i(t) >= 0 with
    sum_i x_i(t) <= capacity, x_i = 0 before a_i + overhead_s and integral of x_i = B_i (dropping the caps
    only enlarges the set of schedules). Its completion times F_i can be met by a preemptive one-at-a-time
    schedule: serve, among released unfinished jobs, the one with the earliest F_i (EDF); preemptive EDF
    meets every deadline a feasible schedule meets (1|r_j,pmtn|Lmax), so it finishes each job by F_i. SRPT
    minimises sum of completion times over preemptive schedules with release dates (Schrage 1968), so
    sum C_i <= sum(EDF) <= sum F_i. Both bounds hold, hence their maximum.
    """
    bytes_i = workload.bytes_per_client
    per_client = overhead_s + bytes_i / workload.access_Bps
    if workload.n_clients == 0:
        return per_client, float("nan")
    comp = _srpt(workload.arrival_s + overhead_s, bytes_i, float(capacity_Bps))
    mean_bound = max(float(per_client.mean()), float(np.mean(comp - workload.arrival_s)))
    return per_client, mean_bound


def _unfinished_message(params: AdmissionParams, finish: np.ndarray, gave_up: np.ndarray, stats) -> str:
    """Return why a run stopped at ``max_events`` with clients still in session, in a student's words."""
    waiting = int((np.isnan(finish) & ~gave_up).sum())
    head = (f"{params.policy} did not finish: after max_events={params.max_events:,} events "
            f"({stats[0]:,.0f} s simulated) {waiting} of {finish.shape[0]} clients are still waiting")
    issued, expired = int(stats[5]), int(stats[6])
    fixed = params.ticket_retry == "fixed"
    retry = params.retry_later_s if fixed else params.ticket_retry_min_s
    if params.policy == "Ticket" and expired > issued // 2 and params.ticket_ttl_s < retry:
        return (f"{head}. Their tickets expire (time-to-live {params.ticket_ttl_s:g} s) before they come back "
                f"({'' if fixed else 'at least '}{retry:g} s later), so each return finds its ticket expired "
                f"and gets a new one at the back of the queue ({expired:,} of {issued:,} tickets expired, "
                f"and none of these clients got through): make the time-to-live longer than the 'later' "
                f"retry.")
    return (f"{head}: this setting needs more events than a run may take (about 3 million a second); fewer "
            f"clients, longer retry delays or more bandwidth need fewer.")


def simulate_admission(
    params: AdmissionParams,
    seed: SeedLike,
    *,
    workload: Workload | None = None,
    capacity_Bps: float | None = None,
) -> AdmissionResult:
    """Return the ``AdmissionResult`` of one run (seconds, bytes, bytes/s).

    The clients are drawn from ``seed`` (``draw_workload``; same seed, same clients for every policy and
    load) unless ``workload`` is given. The server bandwidth is ``params.bandwidth_fraction`` times
    ``required_bandwidth_Bps`` of the clients, unless ``capacity_Bps`` is given. A run that reaches
    ``params.max_events`` with clients still in session raises ``ValueError`` saying why (see
    ``AdmissionParams.max_events``).
    """
    check_instance("params", params, AdmissionParams)
    check_seed(seed)
    if workload is not None:
        check_instance("workload", workload, Workload)
    wl = draw_workload(params, seed) if workload is None else workload
    required = required_bandwidth_Bps(wl, params.window_s)
    cap = params.bandwidth_fraction * required if capacity_Bps is None else float(capacity_Bps)
    if not cap > 0:
        raise ValueError(f"capacity_Bps={cap!r} is out of range: must be a finite number in (0, inf)")
    out = admission_kernel(
        np.ascontiguousarray(wl.arrival_s, np.float64),
        np.ascontiguousarray(wl.access_Bps, np.float64),
        np.ascontiguousarray(wl.file_off, np.int64),
        np.ascontiguousarray(wl.file_size_bytes, np.float64),
        cap,
        _SHARING_CODE[params.sharing],
        _POLICY_CODE[params.policy],
        params.total_sockets,
        params.large_limit,
        params.small_file_bytes,
        params.connect_s,
        params.bind_s,
        params.retry_busy_s,
        params.retry_later_s,
        params.ftp_per_file_s,
        params.ready_list_size,
        params.ready_threshold,
        params.ticket_ttl_s,
        params.ticket_retry == "estimate",
        params.ticket_retry_min_s,
        params.ticket_retry_max_s,
        params.max_attempts,
        params.ticket_when_busy,
        np.uint64(wl.token_key),
        params.record_chronology,
        params.max_events,
    )
    (
        finish,
        delivered,
        connected,
        attempts,
        busy,
        later,
        gave_up,
        stats,
        tk_tok,
        tk_st,
        tk_last,
        a_log,
        i_log,
        t_log,
    ) = out
    if stats[8]:
        raise ValueError(_unfinished_message(params, finish, gave_up, stats))
    session = finish - wl.arrival_s
    per_client, mean_bound = session_lower_bound_s(wl, cap, params.connect_s + params.bind_s)
    return AdmissionResult(
        params=params,
        capacity_Bps=cap,
        required_Bps=required,
        arrival_s=wl.arrival_s,
        access_Bps=wl.access_Bps,
        requested_bytes=wl.bytes_per_client,
        n_files=wl.files_per_client,
        finish_s=finish,
        session_s=session,
        delivered_bytes=delivered,
        connected_s=connected,
        waiting_s=session - connected,
        attempts=attempts,
        busy_refusals=busy,
        later_refusals=later,
        gave_up=gave_up,
        lower_bound_session_s=per_client,
        lower_bound_mean_session_s=mean_bound,
        max_sockets_held=int(stats[1]),
        max_large_held=int(stats[2]),
        server_busy_s=float(stats[7]),
        server_delivered_bytes=float(stats[3]),
        end_s=float(stats[0]),
        n_events=int(stats[4]),
        tickets_issued=int(stats[5]),
        tickets_expired=int(stats[6]),
        ticket_token=tk_tok,
        ticket_state=tk_st,
        ticket_last_s=tk_last,
        attempt_log=a_log,
        interval_log=i_log,
        trace_log=t_log,
    )
