"""Numba kernel of the admission-control model: a file server with a few sockets and a fluid link.

Units: bytes, bytes per second (``_Bps``), seconds (``_s``). Arrays in, arrays out.

Clients (indexed in arrival order) arrive at ``arrival_s``; client i wants files
``file_size_bytes[file_off[i]:file_off[i+1]]`` in that order over an access link of ``access_Bps[i]``.
Every connection attempt reaches the server ``connect_s`` after the client starts it; the server then
decides (see ``admission_kernel``). An accepted connection holds one of ``n_sockets`` sockets; the file
starts flowing ``bind_s`` later. Flowing transfers share ``capacity_Bps``, each capped by its client's
access rate: max-min fairly (``simcore.fluid._kernel.max_min_rates_scratch``) or by one of two naive rules
(``_share``), recomputed whenever the set of flowing transfers changes; the next completion is exact.
Connection events live in the simcore.engine heap, ordered by (time, push order); a completion due at
the same time as a heap event is handled first.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.admission._tickets import (
    TICKET_OK_READY,
    TICKET_OK_WAIT,
    TK_EXPIRED,
    TK_READY,
    TK_USED,
    TK_WAIT,
    check_ticket,
    ticket_token,
)
from simcore.engine import heap_new, heap_peek_time, heap_pop, heap_push, heap_size
from simcore.fluid._kernel import max_min_rates_scratch

__all__ = [
    "POLICY_HTTP",
    "POLICY_FTP",
    "POLICY_RESERVE",
    "POLICY_TICKET",
    "OUT_ACCEPTED",
    "OUT_BUSY",
    "OUT_LATER",
    "OUT_GAVE_UP",
    "SHARE_MAXMIN",
    "SHARE_EQUAL",
    "SHARE_PER_SOCKET",
    "admission_kernel",
    "srpt_completion_s",
]

POLICY_HTTP = 0
POLICY_FTP = 1
POLICY_RESERVE = 2
POLICY_TICKET = 3

SHARE_MAXMIN = 0
SHARE_EQUAL = 1
SHARE_PER_SOCKET = 2

EV_ARRIVAL = 0
EV_DECIDE = 1
EV_START = 2

# outcome of a connection attempt (chronology log)
OUT_ACCEPTED = 0
OUT_BUSY = 1  # every socket busy: retry after retry_busy_s
OUT_LATER = 2  # 'come back later' (Reserve large-job limit, Ticket not yet admitted)
OUT_GAVE_UP = 3  # refused and the client's max_attempts reached


@njit(cache=True)
def _grow(a, n):
    """Return ``a``, or a copy about twice as long when index ``n`` does not fit."""
    if n < a.shape[0]:
        return a
    b = np.empty(2 * a.shape[0] + 16, a.dtype)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _grow_2(a, n):
    if n < a.shape[0]:
        return a
    b = np.empty((2 * a.shape[0] + 16, a.shape[1]), np.float64)
    b[: a.shape[0]] = a
    return b


@njit(cache=True)
def _share(sharing, caps, active, capacity_Bps, rates, scratch):
    """Write each socket's rate (Bps) under the sharing rule; return the total.

    0 max-min fair (water-filling, unused share redistributed); 1 equal split: each flowing transfer gets
    min(cap, capacity / flowing), unused share lost; 2 per socket: min(cap, capacity / sockets).
    """
    if sharing == SHARE_MAXMIN:
        return max_min_rates_scratch(caps, active, capacity_Bps, rates, scratch)
    S = caps.shape[0]
    k = 0
    for s in range(S):
        if active[s]:
            k += 1
    share = capacity_Bps / (k if sharing == SHARE_EQUAL else S) if k > 0 else 0.0
    total = 0.0
    for s in range(S):
        r = min(caps[s], share) if active[s] else 0.0
        rates[s] = r
        total += r
    return total


@njit(cache=True)
def _drain(s_rem, rates, active, s_client, c_delivered, dt, force):
    """Drain every flowing transfer for dt seconds (slot ``force`` to exactly 0); return bytes moved."""
    moved = 0.0
    for s in range(s_rem.shape[0]):
        if active[s]:
            d = rates[s] * dt
            if d >= s_rem[s] or s == force:
                d = s_rem[s]
                s_rem[s] = 0.0
            else:
                s_rem[s] -= d
            c_delivered[s_client[s]] += d
            moved += d
    return moved


@njit(cache=True)
def admission_kernel(
    arrival_s,
    access_Bps,
    file_off,
    file_size_bytes,
    capacity_Bps,
    sharing,
    policy,
    n_sockets,
    max_large,
    small_threshold_bytes,
    connect_s,
    bind_s,
    retry_busy_s,
    retry_later_s,
    ftp_per_file_s,
    ready_size,
    ready_threshold,
    ttl_s,
    retry_estimate,
    retry_min_s,
    retry_max_s,
    max_attempts,
    ticket_when_busy,
    token_key,
    record,
    max_events,
):
    """Return per-client results, counters, ticket state and (if ``record``) chronology logs.

    Server decision when an attempt arrives (time t): if all ``n_sockets`` sockets are held the client is
    refused 'busy' and starts a new attempt at ``t + retry_busy_s``. Otherwise, by policy:
    HTTP (0) accepts one file per connection; FTP (1) accepts and keeps the socket until the client's last
    file is done (``ftp_per_file_s`` between files); Reserve (2) accepts a file of size >=
    ``small_threshold_bytes`` only while fewer than ``max_large`` sockets carry such files, else says
    'come back later' (retry at ``t + retry_later_s``); Ticket (3) is Reserve plus tickets: a large
    request without a valid ticket is issued one (wait list); when the ready list holds fewer than
    ``ready_threshold`` tickets the lowest-numbered waiting ones move to it until it holds ``ready_size``;
    a large transfer starts only for a ready ticket and a free large slot (the ticket is then spent);
    otherwise 'come back later' after ``retry_later_s`` or, if ``retry_estimate``, after the server's
    estimate (tickets ahead x mean large holding time / max_large, clipped to [retry_min_s, retry_max_s]).
    A ready ticket not presented for ``ttl_s`` expires. With ``ticket_when_busy`` the ticket exchange needs
    no transfer socket: a large request meets the ticket logic even when every socket is held. A client
    refused ``max_attempts`` times in total (0 = never) gives up. The run stops after ``max_events`` events
    even if clients are still in session (a livelock, e.g. Ticket with a time-to-live shorter than the
    'later' retry, never ends): time, memory (tickets and logs grow with the events) and the caller's wait
    are bounded by it; ``stats[8]`` is then 1.

    Returns ``(finish_s, delivered_bytes, connected_s, attempts, busy_refusals, later_refusals, gave_up,
    stats, tk_token, tk_state, tk_last_s, attempt_log, interval_log, trace_log)``. ``stats`` float64[9]:
    end time, max sockets held, max large sockets held, bytes delivered (integral of total rate),
    events processed, tickets issued, tickets expired, busy time (s, some transfer flowing), 1 if stopped
    by ``max_events``. Logs (empty
    unless ``record``): attempt_log float64[k, 3] (client, start time of the attempt, outcome code),
    interval_log float64[k, 3] (client, socket acquired, socket released), trace_log float64[k, 4]
    (time, sockets held, total rate Bps, demand Bps = sum of access rates of clients in session).
    """
    n = arrival_s.shape[0]
    S = n_sockets
    # ---- per client
    c_next = np.zeros(n, np.int64)
    c_ticket = np.full(n, -1, np.int64)
    c_token = np.zeros(n, np.uint64)
    c_attempts = np.zeros(n, np.int64)
    c_busy = np.zeros(n, np.int64)
    c_later = np.zeros(n, np.int64)
    c_gave_up = np.zeros(n, np.bool_)
    c_conn_start = np.zeros(n, np.float64)
    c_connected = np.zeros(n, np.float64)
    c_finish = np.full(n, np.nan)
    c_delivered = np.zeros(n, np.float64)
    # ---- per socket
    s_client = np.full(S, -1, np.int64)
    s_large = np.zeros(S, np.bool_)
    s_size = np.zeros(S, np.float64)
    s_rem = np.zeros(S, np.float64)
    caps = np.zeros(S, np.float64)
    active = np.zeros(S, np.bool_)
    rates = np.zeros(S, np.float64)
    scratch = np.empty(S, np.float64)
    # ---- tickets
    n_files = file_size_bytes.shape[0]
    tk_token = np.zeros(n_files + 16, np.uint64)
    tk_state = np.zeros(n_files + 16, np.int64)
    tk_last = np.zeros(n_files + 16, np.float64)
    n_issued = 0
    wait_head = 0  # tickets [wait_head, n_issued) are the wait list, in number order
    ready_ids = np.empty(max(ready_size, 1), np.int64)
    ready_count = 0
    n_expired = 0
    large_hold_sum = 0.0
    large_done = 0
    # ---- logs
    a_log = np.empty((16 if record else 0, 3), np.float64)
    i_log = np.empty((16 if record else 0, 3), np.float64)
    t_log = np.empty((16 if record else 0, 4), np.float64)
    na = 0
    ni = 0
    nt = 0

    time_s, seq, kind, arg, meta = heap_new(2 * n + S)
    for i in range(n):
        time_s, seq, kind, arg = heap_push(time_s, seq, kind, arg, meta, arrival_s[i], EV_ARRIVAL, i)

    now = 0.0
    held = 0
    large_held = 0
    max_held = 0
    max_large_held = 0
    total_rate = 0.0
    demand = 0.0
    delivered_total = 0.0
    busy_time = 0.0
    n_events = 0
    best = -1  # the flowing transfer that completes first at the current rates
    t_comp = np.inf  # and when
    fluid_t = 0.0  # s_rem is drained up to this time
    stopped = False
    while True:
        t_ev = heap_peek_time(time_s, meta)
        completion = best >= 0 and t_comp <= t_ev
        if not completion and heap_size(meta) == 0:
            break
        if n_events >= max_events:
            stopped = True
            break
        now = t_comp if completion else t_ev
        n_events += 1
        if completion or kind[0] == EV_START:
            # the flowing set is about to change: drain every transfer up to now
            dt = now - fluid_t
            if total_rate > 0.0 and dt > 0.0:
                busy_time += dt
            delivered_total += _drain(
                s_rem, rates, active, s_client, c_delivered, dt, best if completion else -1
            )
            fluid_t = now
        changed = False
        if completion:
            s = best
            i = s_client[s]
            c_next[i] += 1
            more = c_next[i] < file_off[i + 1] - file_off[i]
            if s_large[s]:
                large_hold_sum += now - c_conn_start[i]
                large_done += 1
            active[s] = False
            changed = True
            if policy == POLICY_FTP and more:
                f = file_off[i] + c_next[i]
                s_size[s] = file_size_bytes[f]
                s_rem[s] = file_size_bytes[f]
                if ftp_per_file_s > 0.0:
                    time_s, seq, kind, arg = heap_push(
                        time_s, seq, kind, arg, meta, now + ftp_per_file_s, EV_START, s
                    )
                else:
                    active[s] = True
            else:
                s_client[s] = -1
                held -= 1
                if s_large[s]:
                    large_held -= 1
                    s_large[s] = False
                c_connected[i] += now - c_conn_start[i]
                if record:
                    i_log = _grow_2(i_log, ni)
                    i_log[ni, 0] = i
                    i_log[ni, 1] = c_conn_start[i]
                    i_log[ni, 2] = now
                    ni += 1
                if more:
                    time_s, seq, kind, arg = heap_push(
                        time_s, seq, kind, arg, meta, now + connect_s, EV_DECIDE, i
                    )
                else:
                    c_finish[i] = now
                    demand -= access_Bps[i]
        else:
            t, ev, a = heap_pop(time_s, seq, kind, arg, meta)
            if ev == EV_ARRIVAL:
                demand += access_Bps[a]
                time_s, seq, kind, arg = heap_push(
                    time_s, seq, kind, arg, meta, now + connect_s, EV_DECIDE, a
                )
            elif ev == EV_START:
                active[a] = True
                changed = True
            else:
                i = a
                c_attempts[i] += 1
                f = file_off[i] + c_next[i]
                large = file_size_bytes[f] >= small_threshold_bytes
                outcome = OUT_ACCEPTED
                delay = 0.0
                if held >= S and not (policy == POLICY_TICKET and large and ticket_when_busy):
                    outcome = OUT_BUSY
                    delay = retry_busy_s
                elif policy == POLICY_RESERVE and large and large_held >= max_large:
                    outcome = OUT_LATER
                    delay = retry_later_s
                elif policy == POLICY_TICKET and large:
                    # purge ready tickets left unclaimed for longer than the time-to-live
                    j = 0
                    while j < ready_count:
                        k = ready_ids[j]
                        if now - tk_last[k] > ttl_s:
                            tk_state[k] = TK_EXPIRED
                            n_expired += 1
                            ready_count -= 1
                            ready_ids[j] = ready_ids[ready_count]
                        else:
                            j += 1
                    k = c_ticket[i]
                    if k >= 0:
                        verdict = check_ticket(
                            k, c_token[i], tk_token, tk_state, tk_last, n_issued, now, ttl_s
                        )
                        if verdict == TICKET_OK_READY or verdict == TICKET_OK_WAIT:
                            if verdict == TICKET_OK_READY:
                                tk_last[k] = now
                        else:
                            k = -1
                    if k < 0:
                        tk_token = _grow(tk_token, n_issued)
                        tk_state = _grow(tk_state, n_issued)
                        tk_last = _grow(tk_last, n_issued)
                        k = n_issued
                        n_issued += 1
                        tk_token[k] = ticket_token(token_key, k)
                        tk_state[k] = TK_WAIT
                        tk_last[k] = now
                        c_ticket[i] = k
                        c_token[i] = tk_token[k]
                    if ready_count < ready_threshold:
                        while ready_count < ready_size and wait_head < n_issued:
                            tk_state[wait_head] = TK_READY
                            tk_last[wait_head] = now
                            ready_ids[ready_count] = wait_head
                            ready_count += 1
                            wait_head += 1
                    if tk_state[k] == TK_READY and large_held < max_large and held < S:
                        tk_state[k] = TK_USED
                        for j in range(ready_count):
                            if ready_ids[j] == k:
                                ready_count -= 1
                                ready_ids[j] = ready_ids[ready_count]
                                break
                        c_ticket[i] = -1
                    else:
                        outcome = OUT_LATER
                        delay = retry_later_s
                        if retry_estimate:
                            ahead = 0
                            for j in range(ready_count):
                                if ready_ids[j] < k:
                                    ahead += 1
                            if tk_state[k] == TK_WAIT:
                                ahead += k - wait_head
                            mean_hold = large_hold_sum / large_done if large_done > 0 else retry_later_s
                            delay = (ahead + 1) * mean_hold / max_large
                            delay = min(max(delay, retry_min_s), retry_max_s)
                if record:
                    a_log = _grow_2(a_log, na)
                    a_log[na, 0] = i
                    a_log[na, 1] = now - connect_s
                    a_log[na, 2] = outcome
                    na += 1
                if outcome == OUT_ACCEPTED:
                    s = 0
                    while s_client[s] >= 0:
                        s += 1
                    s_client[s] = i
                    held += 1
                    if policy != POLICY_FTP and large:
                        s_large[s] = True
                        large_held += 1
                    caps[s] = access_Bps[i]
                    s_size[s] = file_size_bytes[f]
                    s_rem[s] = file_size_bytes[f]
                    c_conn_start[i] = now
                    max_held = max(max_held, held)
                    max_large_held = max(max_large_held, large_held)
                    time_s, seq, kind, arg = heap_push(
                        time_s, seq, kind, arg, meta, now + bind_s, EV_START, s
                    )
                else:
                    if outcome == OUT_BUSY:
                        c_busy[i] += 1
                    else:
                        c_later[i] += 1
                    if max_attempts > 0 and c_busy[i] + c_later[i] >= max_attempts:
                        c_gave_up[i] = True
                        demand -= access_Bps[i]
                        if record:
                            a_log[na - 1, 2] = OUT_GAVE_UP
                    else:
                        time_s, seq, kind, arg = heap_push(
                            time_s, seq, kind, arg, meta, now + delay + connect_s, EV_DECIDE, i
                        )
        if changed:
            total_rate = _share(sharing, caps, active, capacity_Bps, rates, scratch)
            best = -1
            t_comp = np.inf
            for s in range(S):
                if active[s] and rates[s] > 0.0:
                    tc = now + s_rem[s] / rates[s]
                    if tc < t_comp:
                        t_comp = tc
                        best = s
        if record:
            t_log = _grow_2(t_log, nt)
            t_log[nt, 0] = now
            t_log[nt, 1] = held
            t_log[nt, 2] = total_rate
            t_log[nt, 3] = max(demand, 0.0)
            nt += 1

    stats = np.empty(9, np.float64)
    stats[0] = now
    stats[1] = max_held
    stats[2] = max_large_held
    stats[3] = delivered_total
    stats[4] = n_events
    stats[5] = n_issued
    stats[6] = n_expired
    stats[7] = busy_time
    stats[8] = 1.0 if stopped else 0.0
    return (
        c_finish,
        c_delivered,
        c_connected,
        c_attempts,
        c_busy,
        c_later,
        c_gave_up,
        stats,
        tk_token[:n_issued].copy(),
        tk_state[:n_issued].copy(),
        tk_last[:n_issued].copy(),
        a_log[:na].copy(),
        i_log[:ni].copy(),
        t_log[:nt].copy(),
    )


@njit(cache=True)
def srpt_completion_s(release_s, work_bytes, capacity_Bps):
    """Return each job's completion time (s) under preemptive SRPT on one server of ``capacity_Bps``.

    Jobs are released at ``release_s`` with ``work_bytes`` each; at every instant the released job with
    the least remaining work is served at the full capacity (ties: earliest pushed). The released jobs sit
    in a simcore.engine heap keyed by remaining work; serving the root only lowers its key, so the heap
    stays valid. O(n log n).
    """
    n = release_s.shape[0]
    comp = np.full(n, np.nan)
    if n == 0:
        return comp
    order = np.argsort(release_s, kind="mergesort")
    rem_s, seq, kind, arg, meta = heap_new(n)
    ptr = 0
    n_done = 0
    t = release_s[order[0]]
    while n_done < n:
        while ptr < n and release_s[order[ptr]] <= t:
            j = order[ptr]
            rem_s, seq, kind, arg = heap_push(rem_s, seq, kind, arg, meta, work_bytes[j], 0, j)
            ptr += 1
        if heap_size(meta) == 0:
            t = release_s[order[ptr]]
            continue
        next_rel = release_s[order[ptr]] if ptr < n else np.inf
        fin = t + rem_s[0] / capacity_Bps
        if fin <= next_rel:
            _, _, j = heap_pop(rem_s, seq, kind, arg, meta)
            comp[j] = fin
            t = fin
            n_done += 1
        else:
            rem_s[0] -= (next_rel - t) * capacity_Bps
            t = next_rel
    return comp
