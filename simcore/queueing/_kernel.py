"""numba kernel of the FIFO multi-server queue (arrays in, arrays out).

Events live in simcore.engine's heap, ordered by (time, sequence number): kind 0 is an arrival (arg =
customer index), kind 1 a departure (arg = customer index). The next arrival is scheduled when the
current one is handled, so the heap never holds more than ``servers + 1`` events: it is made with that room
once and filled with ``heap_insert``, which never allocates (``heap_push`` returned four arrays per event,
three quarters of the run's time).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.engine import heap_insert, heap_new, heap_pop

ARRIVAL = 0
DEPARTURE = 1


@njit(cache=True)
def fifo_queue_kernel(arrival_s, service_s, servers, max_in_system):
    """Simulate a FIFO c-server queue; return per-customer arrays and time-integrals.

    arrival_s: float64[n], non-decreasing arrival times (s). service_s: float64[n], service time of the
    i-th arriving customer (s). servers: int >= 1. max_in_system: capacity including those in service, or
    -1 for an infinite buffer.

    Returns (wait_s, departure_s, blocked, area_customer_s, busy_server_s, n_events):
    wait_s/departure_s are NaN for blocked customers; area_customer_s is the integral of the number in
    system over [0, last departure]; busy_server_s the integral of busy servers; n_events the number of
    events handled.
    """
    n = arrival_s.shape[0]
    wait_s = np.full(n, np.nan)
    departure_s = np.full(n, np.nan)
    blocked = np.zeros(n, np.bool_)
    waiting = np.empty(max(n, 1), np.int64)  # FIFO ring of waiting customers
    head = 0
    tail = 0
    n_waiting = 0
    busy = 0
    in_system = 0
    area = 0.0
    busy_area = 0.0
    last_t = 0.0
    n_events = 0
    time_s, seq, kind, arg, meta = heap_new(servers + 2)
    if n > 0:
        heap_insert(time_s, seq, kind, arg, meta, arrival_s[0], ARRIVAL, 0)
    while meta[0] > 0:
        t, k, c = heap_pop(time_s, seq, kind, arg, meta)
        n_events += 1
        area += in_system * (t - last_t)
        busy_area += busy * (t - last_t)
        last_t = t
        if k == ARRIVAL:
            if c + 1 < n:
                heap_insert(time_s, seq, kind, arg, meta, arrival_s[c + 1], ARRIVAL, c + 1)
            if max_in_system >= 0 and in_system >= max_in_system:
                blocked[c] = True
                continue
            in_system += 1
            if busy < servers:
                busy += 1
                wait_s[c] = 0.0
                departure_s[c] = t + service_s[c]
                heap_insert(time_s, seq, kind, arg, meta, departure_s[c], DEPARTURE, c)
            else:
                waiting[tail] = c
                tail = (tail + 1) % waiting.shape[0]
                n_waiting += 1
        else:
            in_system -= 1
            if n_waiting > 0:
                nxt = waiting[head]
                head = (head + 1) % waiting.shape[0]
                n_waiting -= 1
                wait_s[nxt] = t - arrival_s[nxt]
                departure_s[nxt] = t + service_s[nxt]
                heap_insert(time_s, seq, kind, arg, meta, departure_s[nxt], DEPARTURE, nxt)
            else:
                busy -= 1
    return wait_s, departure_s, blocked, area, busy_area, n_events


@njit(cache=True)
def fifo_waits_kernel(arrival_s, service_s, servers):
    """Return every customer's wait (s) in a FIFO c-server queue with an infinite buffer.

    The first-come-first-served recursion over the servers' next free times (Kiefer and Wolfowitz 1955):
    customer i starts at max(arrival_s[i], earliest free time) on that server, which is then free at the start
    plus service_s[i]. It gives every customer the wait ``fifo_queue_kernel`` gives, bit for bit (the same float
    operations; a test compares them), in a few ns a customer instead of two heap events: independent
    replications need millions of customers per estimate.
    """
    n = arrival_s.shape[0]
    free = np.zeros(servers)
    wait_s = np.empty(n)
    for i in range(n):
        k = 0
        for j in range(1, servers):
            if free[j] < free[k]:
                k = j
        start = arrival_s[i]
        if free[k] > start:
            start = free[k]
        wait_s[i] = start - arrival_s[i]
        free[k] = start + service_s[i]
    return wait_s
