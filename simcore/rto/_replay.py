"""Numba: replay a retransmission timer over a measured sequence of probes (K&R 3.5.3-3.5.4, RFC 6298, Karn).

Each probe i is sent at ``send_s[i]`` and has its own timer, set to the timeout in force then. Its ACK comes back
``rtt_s[i]`` later (NaN: the probe was lost in the run; then the first copy the timer sends gets through, with the
RTT of the first probe of the run sent at or after it that arrived, ``ok_send_s``/``ok_rtt_s``). When a timer
expires before the ACK, the probe is sent again: needlessly ("spurious") if an earlier copy reaches the receiver
anyway; its next timer is twice as long (K&R 3.5.4), and new probes use that longer timeout too until the
estimator takes its next sample (RFC 6298 5.5 and 2.3; Karn & Partridge's "timer backoff"). TCP has one timer, so
each expiry doubles the timeout once; with a timer per probe, the probes in flight expire one after another, so the
timeout for new probes is the longest backed-off timer (a probe's own chain doubles, the probes do not compound).
At the first ACK of a probe
the estimator takes a sample according to ``rule``: KARN skips probes that were sent more than once (Karn &
Partridge 1987), FIRST measures from the first copy, LAST from the last. Events go through ``simcore.engine``'s heap.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from simcore.engine import heap_insert, heap_new, heap_pop

KARN = 0
FIRST = 1
LAST = 2

EV_SEND = 0
EV_TIMER = 1
EV_ACK = 2


@njit(cache=True)
def replay(send_s, rtt_s, ok_send_s, ok_rtt_s, alpha, beta, k, min_to, max_to, init_to, rule, end_s):
    """Return per-probe records, the samples and the estimator's states (see ``simcore.rto.replay``). The
    timeout is kept at least ``min_to`` (the caller makes it > 0: a zero timeout would fire again at once). Events
    after ``end_s`` are not replayed."""
    n = send_s.shape[0]
    to_at_send = np.empty(n, np.float64)
    cur_to = np.empty(n, np.float64)
    copies = np.ones(n, np.int64)
    last_tx = send_s.copy()
    acked = np.zeros(n, np.bool_)
    ack_at = np.full(n, np.nan)
    deadline = np.full(n, np.inf)
    cap = 40 * n + 64  # retransmissions recorded; more would end the replay early (``full`` is returned)
    smp_t = np.empty(n, np.float64)  # one sample or skip per ACKed probe
    smp_v = np.empty(n, np.float64)
    smp_used = np.zeros(n, np.bool_)
    smp_probe = np.empty(n, np.int64)
    smp_true = np.empty(n, np.float64)  # the RTT of the copy that was in fact acknowledged
    answered = send_s.copy()  # when the copy that gets through was sent
    st_t = np.empty(n + 1, np.float64)  # estimator state after each update (and at the start)
    st_est = np.empty(n + 1, np.float64)
    st_dev = np.empty(n + 1, np.float64)
    st_to = np.empty(n + 1, np.float64)
    rx_t = np.empty(cap, np.float64)  # retransmissions: time, probe, spurious
    rx_probe = np.empty(cap, np.int64)
    rx_spurious = np.zeros(cap, np.bool_)
    n_smp = 0
    n_rx = 0
    srtt = -1.0
    rttvar = 0.0
    rto = init_to
    st_t[0] = 0.0
    st_est[0] = np.nan
    st_dev[0] = np.nan
    st_to[0] = rto
    n_st = 1
    # pending at once: every send (pushed first), at most one timer and one ACK per probe
    ht, hs, hk, ha, meta = heap_new(3 * n + 8)
    for i in range(n):
        heap_insert(ht, hs, hk, ha, meta, send_s[i], EV_SEND, i)
    while meta[0] > 0:
        t, kind, i = heap_pop(ht, hs, hk, ha, meta)
        if t > end_s:
            break
        if kind == EV_SEND:
            to_at_send[i] = rto
            cur_to[i] = rto
            deadline[i] = t + rto
            heap_insert(ht, hs, hk, ha, meta, deadline[i], EV_TIMER, i)
            if not math.isnan(rtt_s[i]):
                ack_at[i] = t + rtt_s[i]
                heap_insert(ht, hs, hk, ha, meta, ack_at[i], EV_ACK, i)
        elif kind == EV_TIMER:
            if acked[i] or t != deadline[i]:
                continue
            if n_rx >= cap:
                break
            # the timer expired before the ACK: send the probe again, back the timeout off
            rx_t[n_rx] = t
            rx_probe[n_rx] = i
            rx_spurious[n_rx] = not (math.isnan(rtt_s[i]) and copies[i] == 1)
            n_rx += 1
            if math.isnan(rtt_s[i]) and copies[i] == 1:  # lost in the run: this copy gets through
                j = np.searchsorted(ok_send_s, t)
                answered[i] = t
                if j < ok_send_s.shape[0]:
                    ack_at[i] = t + ok_rtt_s[j]
                    heap_insert(ht, hs, hk, ha, meta, ack_at[i], EV_ACK, i)
            copies[i] += 1
            last_tx[i] = t
            cur_to[i] = min(2.0 * cur_to[i], max_to)  # K&R 3.5.4: each retransmission doubles its timeout
            rto = max(rto, cur_to[i])  # ... which new probes keep until a sample (RFC 6298 5.5, Karn & Partridge)
            deadline[i] = t + cur_to[i]
            heap_insert(ht, hs, hk, ha, meta, deadline[i], EV_TIMER, i)
        else:  # EV_ACK
            if acked[i]:
                continue
            acked[i] = True
            deadline[i] = np.inf
            r = t - send_s[i]
            use = True
            if copies[i] > 1:
                if rule == KARN:
                    use = False
                elif rule == LAST:
                    r = t - last_tx[i]
            smp_t[n_smp] = t
            smp_v[n_smp] = r
            smp_used[n_smp] = use
            smp_probe[n_smp] = i
            smp_true[n_smp] = t - answered[i]
            n_smp += 1
            if use:
                if srtt < 0.0:
                    srtt = r
                    rttvar = r / 2.0
                else:
                    rttvar = (1.0 - beta) * rttvar + beta * abs(srtt - r)
                    srtt = (1.0 - alpha) * srtt + alpha * r
                rto = min(max(srtt + k * rttvar, min_to), max_to)
                st_t[n_st] = t
                st_est[n_st] = srtt
                st_dev[n_st] = rttvar
                st_to[n_st] = rto
                n_st += 1
    full = n_rx >= cap
    return (full, to_at_send, copies, ack_at, smp_t[:n_smp].copy(), smp_v[:n_smp].copy(), smp_used[:n_smp].copy(),
            smp_probe[:n_smp].copy(), smp_true[:n_smp].copy(), st_t[:n_st].copy(), st_est[:n_st].copy(),
            st_dev[:n_st].copy(), st_to[:n_st].copy(), rx_t[:n_rx].copy(), rx_probe[:n_rx].copy(),
            rx_spurious[:n_rx].copy())
