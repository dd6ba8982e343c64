"""Ticket policy: forged, replayed, unknown and expired tickets are rejected; each large file uses one."""

import numpy as np
import pytest

from simcore.admission import AdmissionParams, check_ticket, draw_workload, simulate_admission, ticket_token
from simcore.admission._tickets import (
    TICKET_BAD_TOKEN,
    TICKET_EXPIRED,
    TICKET_OK_READY,
    TICKET_OK_WAIT,
    TICKET_SPENT,
    TICKET_UNKNOWN,
    TK_READY,
    TK_USED,
    TK_WAIT,
)

P = AdmissionParams(experiment=2, bandwidth_fraction=0.5, policy="Ticket", extra_sockets=6)


@pytest.fixture(scope="module")
def run():
    return simulate_admission(P, 21)


def _check(r, number, token, now_s=None):
    now = r.end_s if now_s is None else now_s
    return check_ticket(
        number, np.uint64(token), r.ticket_token, r.ticket_state, r.ticket_last_s, r.tickets_issued, now,
        P.ticket_ttl_s,
    )  # fmt: skip


def test_each_large_file_spends_exactly_one_ticket(run):
    large = run.requested_bytes  # per client; count large files from the workload
    wl = draw_workload(P, 21)
    n_large = int(np.count_nonzero(wl.file_size_bytes >= P.small_file_bytes))
    assert large.size == wl.n_clients
    assert n_large > 50
    assert np.count_nonzero(run.ticket_state == TK_USED) == n_large
    assert run.tickets_issued >= n_large
    assert run.later_refusals.sum() > 0  # the ticket queue did make clients come back later


def test_tokens_are_the_servers_secret_and_distinct(run):
    key = draw_workload(P, 21).token_key
    expected = np.array([ticket_token(np.uint64(key), k) for k in range(run.tickets_issued)], np.uint64)
    assert np.array_equal(run.ticket_token, expected)
    assert np.unique(run.ticket_token).size == run.tickets_issued
    # another seed (another server key) gives other tokens for the same numbers
    other = simulate_admission(P, 22)
    m = min(other.tickets_issued, run.tickets_issued)
    assert np.all(other.ticket_token[:m] != run.ticket_token[:m])


def test_replayed_ticket_is_rejected(run):
    spent = np.flatnonzero(run.ticket_state == TK_USED)
    for k in spent[:20]:
        assert _check(run, int(k), run.ticket_token[k]) == TICKET_SPENT


def test_forged_tickets_are_rejected(run):
    rng = np.random.default_rng(0)
    for k in rng.integers(0, run.tickets_issued, 50):
        real = int(run.ticket_token[k])
        assert _check(run, int(k), (real + 1) % 2**64) == TICKET_BAD_TOKEN
        guess = int(rng.integers(0, 2**63 - 1)) * 2
        assert _check(run, int(k), guess) == TICKET_BAD_TOKEN
    # a number the server never issued
    assert _check(run, run.tickets_issued, 123) == TICKET_UNKNOWN
    assert _check(run, -1, 123) == TICKET_UNKNOWN


def test_valid_waiting_ready_and_expired_tickets():
    key = np.uint64(987654321)
    tok = np.array([ticket_token(key, k) for k in range(3)], np.uint64)
    state = np.array([TK_READY, TK_WAIT, TK_READY], np.int64)
    last = np.array([100.0, 100.0, 10.0])
    ttl = 60.0
    assert check_ticket(0, tok[0], tok, state, last, 3, 150.0, ttl) == TICKET_OK_READY
    assert check_ticket(1, tok[1], tok, state, last, 3, 150.0, ttl) == TICKET_OK_WAIT
    assert check_ticket(2, tok[2], tok, state, last, 3, 150.0, ttl) == TICKET_EXPIRED
    assert check_ticket(0, tok[1], tok, state, last, 3, 150.0, ttl) == TICKET_BAD_TOKEN


def test_short_time_to_live_expires_tickets_but_clients_still_finish():
    p = AdmissionParams(
        experiment=2, bandwidth_fraction=0.5, policy="Ticket", extra_sockets=6, ticket_ttl_s=10.0,
        ready_list_size=20, ready_threshold=20, n_clients=200,
    )  # fmt: skip
    r = simulate_admission(p, 3)
    assert r.tickets_expired > 0
    assert r.tickets_issued > np.count_nonzero(r.ticket_state == TK_USED)
    assert r.completed.all()
    np.testing.assert_allclose(r.delivered_bytes, r.requested_bytes, rtol=1e-9)


def test_ticket_without_reserve_is_http_unless_tickets_are_issued_when_busy():
    # 30 of 30 sockets open to large files: a free socket always means a free large slot, so when 'busy'
    # comes first the ticket queue never holds anyone back and Ticket +0 % is HTTP, client for client
    kw = dict(experiment=2, bandwidth_fraction=0.5, n_clients=250)
    http = simulate_admission(AdmissionParams(policy="HTTP", **kw), 8)
    plain = simulate_admission(AdmissionParams(policy="Ticket", ticket_when_busy=False, **kw), 8)
    np.testing.assert_array_equal(plain.session_s, http.session_s)
    assert plain.later_refusals.sum() == 0
    queued = simulate_admission(AdmissionParams(policy="Ticket", ticket_when_busy=True, **kw), 8)
    assert queued.later_refusals.sum() > 0
    assert not np.array_equal(queued.session_s, http.session_s)
    assert queued.max_sockets_held <= 30
