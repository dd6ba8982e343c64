"""simulate_admission: determinism and the invariants every run must satisfy."""

import numpy as np
import pytest

from simcore.admission import (
    AdmissionParams,
    Workload,
    compare_to_control,
    simulate_admission,
    thesis_scenarios,
)

# a compact but varied set: both experiments, all policies, all loads, a few non-default knobs
CASES = [
    AdmissionParams(experiment=1, bandwidth_fraction=0.5, policy="HTTP", extra_sockets=6),
    AdmissionParams(experiment=1, bandwidth_fraction=1.0, policy="FTP", extra_sockets=3, ftp_per_file_s=0.2),
    AdmissionParams(experiment=2, bandwidth_fraction=0.5, policy="Reserve", extra_sockets=6),
    AdmissionParams(experiment=2, bandwidth_fraction=0.75, policy="Ticket", extra_sockets=3),
    AdmissionParams(
        experiment=2, bandwidth_fraction=0.5, policy="Ticket", extra_sockets=6, ticket_retry="estimate"
    ),
    AdmissionParams(
        experiment=2,
        bandwidth_fraction=0.5,
        policy="Ticket",
        sockets=10,
        extra_sockets=4,
        max_large_connections=6,
        ready_list_size=3,
        ready_threshold=1,
        ticket_ttl_s=20.0,
        retry_later_s=45.0,
        n_clients=150,
    ),
    AdmissionParams(experiment=1, bandwidth_fraction=0.75, policy="HTTP", sharing="equal", n_clients=120),
    AdmissionParams(
        experiment=2,
        bandwidth_fraction=1.5,
        policy="Reserve",
        sharing="per-socket",
        n_clients=120,
        file_order="large_first",
        extra_sockets=2,
    ),
]


@pytest.fixture(scope="module", params=range(len(CASES)), ids=lambda i: f"{CASES[i].policy}-{i}")
def run(request):
    p = CASES[request.param]
    from dataclasses import replace

    return simulate_admission(replace(p, record_chronology=True), seed=11 + request.param)


def test_same_seed_is_bit_identical():
    p = AdmissionParams(experiment=2, bandwidth_fraction=0.5, policy="Ticket", extra_sockets=3)
    a, b = simulate_admission(p, 5), simulate_admission(p, 5)
    for f in ("session_s", "attempts", "connected_s", "delivered_bytes", "ticket_token", "ticket_state"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    assert a.capacity_Bps == b.capacity_Bps
    c = simulate_admission(p, 6)
    assert not np.array_equal(a.session_s, c.session_s)


def test_bad_seed_raises():
    with pytest.raises(ValueError, match="seed"):
        simulate_admission(AdmissionParams(), -1)


def test_every_client_completes_with_all_its_bytes(run):
    assert run.completed.all() and not run.gave_up.any()
    np.testing.assert_allclose(run.delivered_bytes, run.requested_bytes, rtol=1e-9)
    assert run.server_delivered_bytes == pytest.approx(run.requested_bytes.sum(), rel=1e-9)
    # the server never moves more than its capacity over the time anything flows
    assert run.server_delivered_bytes <= run.capacity_Bps * run.server_busy_s * (1 + 1e-9)


def test_socket_limits_never_exceeded(run):
    p = run.params
    assert 1 <= run.max_sockets_held <= p.total_sockets
    if p.policy in ("Reserve", "Ticket"):
        assert run.max_large_held <= p.large_limit
    # independent of the kernel's counter: overlap of the logged socket-holding intervals
    iv = run.interval_log
    times = np.concatenate([iv[:, 1], iv[:, 2]])
    steps = np.concatenate([np.ones(len(iv)), -np.ones(len(iv))])
    order = np.lexsort((steps, times))  # at equal times a release (-1) comes before an acquire (+1)
    assert np.cumsum(steps[order]).max() <= p.total_sockets
    held = run.trace_log[:, 1]
    assert held.max() <= p.total_sockets and held.min() >= 0
    # served rate never above capacity nor above the demand of clients in session
    assert np.all(run.trace_log[:, 2] <= run.capacity_Bps * (1 + 1e-9))
    assert np.all(run.trace_log[:, 2] <= run.trace_log[:, 3] * (1 + 1e-9) + 1e-6)


def test_sessions_respect_the_lower_bound(run):
    assert np.all(run.session_s >= run.lower_bound_session_s - 1e-9)
    assert run.mean_session_s >= run.lower_bound_mean_session_s - 1e-9
    assert run.lower_bound_mean_session_s >= run.lower_bound_session_s.mean() - 1e-12


def test_chronology_is_consistent_with_the_counters(run):
    n = run.arrival_s.size
    a_log, i_log = run.attempt_log, run.interval_log
    assert a_log.shape[0] == run.attempts.sum()
    assert np.array_equal(np.bincount(a_log[:, 0].astype(int), minlength=n), run.attempts)
    accepted = np.bincount(a_log[a_log[:, 2] == 0, 0].astype(int), minlength=n)
    assert np.array_equal(accepted, np.bincount(i_log[:, 0].astype(int), minlength=n))
    assert np.array_equal(run.busy_refusals + run.later_refusals, run.attempts - accepted)
    conn = np.bincount(i_log[:, 0].astype(int), weights=i_log[:, 2] - i_log[:, 1], minlength=n)
    np.testing.assert_allclose(conn, run.connected_s, rtol=1e-12, atol=1e-9)
    # attempts start no earlier than arrival; connections end by the finish
    assert np.all(a_log[:, 1] >= run.arrival_s[a_log[:, 0].astype(int)] - 1e-9)
    assert np.all(i_log[:, 2] <= run.finish_s[i_log[:, 0].astype(int)] + 1e-9)
    assert np.all(run.waiting_s >= -1e-9)
    # HTTP-like policies need one accepted connection per file, FTP exactly one per client
    if run.params.policy == "FTP":
        assert np.all(accepted == 1)
    else:
        assert np.array_equal(accepted, run.n_files)


def _spaced_workload(n, gap_s=3000.0):
    rng = np.random.default_rng(0)
    k = rng.integers(1, 4, n)
    off = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    sizes = rng.choice([1024.0, 10240.0, 1048576.0], off[-1])
    return Workload(np.arange(n) * gap_s, rng.uniform(1600, 35000, n), off, sizes, 12345)


@pytest.mark.parametrize("policy", ["HTTP", "FTP", "Reserve", "Ticket"])
def test_an_uncongested_server_gives_exactly_the_bound(policy):
    # clients far apart and a server faster than any access link: only the overheads and access rates count
    wl = _spaced_workload(6)
    r = simulate_admission(AdmissionParams(policy=policy, window_s=7200.0), 0, workload=wl, capacity_Bps=1e9)
    extra = 0.0 if policy == "FTP" else 0.5 * (r.n_files - 1)  # HTTP-like: one connection per file
    np.testing.assert_allclose(r.session_s, r.lower_bound_session_s + extra, rtol=1e-12)
    assert np.all(r.attempts == (1 if policy == "FTP" else r.n_files))


def test_more_bandwidth_never_slower_for_ftp_without_refusals():
    # with more sockets than clients nobody is refused; max-min rates rise with capacity
    base = AdmissionParams(experiment=1, policy="FTP", n_clients=60, sockets=60)
    slow = simulate_admission(base, 2, capacity_Bps=50_000.0)
    fast = simulate_admission(base, 2, capacity_Bps=100_000.0)
    assert slow.busy_refusals.sum() == 0
    assert fast.mean_session_s < slow.mean_session_s


def test_control_against_itself_and_thesis_direction_in_heavy_overload():
    scen = thesis_scenarios(2, 0.5)
    ctrl = simulate_admission(scen[0], 4)
    c = compare_to_control(ctrl, ctrl)
    assert c.time_improvement == 0 and c.faster_clients == c.slower_clients == 0
    # the thesis's headline: Reserve (+20 %) beats HTTP clearly under heavy overload in experiment 2
    res = simulate_admission(scen[9], 4)
    assert scen[9].policy == "Reserve"
    c = compare_to_control(res, ctrl)
    assert c.time_improvement > 0.2 and c.net_faster_fraction > 0.1
    with pytest.raises(ValueError, match="different clients"):
        compare_to_control(res, simulate_admission(scen[0], 5))
