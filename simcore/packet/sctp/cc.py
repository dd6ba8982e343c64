"""Numba: SCTP congestion control in bytes (RFC 4960 sec. 6.1, 7.2), one rule per function, on scalars.

The association's sender calls these with its cwnd, ssthresh and partial_bytes_acked (bytes, floats)
and the path MTU; ``k`` floors (in MTUs) come from ``SctpParams`` (4 in RFC 4960, 2 in RFC 2960).
Flightsize counts the user data of the DATA chunks sent and not yet acknowledged (cumulatively or by a
gap ack block), as the RFC's "outstanding data"; headers are not counted.

- sending (sec. 6.1 B): new data may leave while flightsize < cwnd, so the last packet may take the
  flight past cwnd by less than one MTU (``may_send``).
- Max.Burst (sec. 6.1 D, 'cwnd' rule): before new data, cwnd = min(cwnd, flightsize + Max.Burst * MTU).
- slow start (sec. 7.2.1), while cwnd <= ssthresh: a SACK that advances the cumulative TSN ack point, when
  cwnd was fully used (flightsize before the SACK >= cwnd) and not in Fast Recovery, raises cwnd by
  min(bytes newly acknowledged, MTU).
- congestion avoidance (sec. 7.2.2), cwnd > ssthresh: partial_bytes_acked += bytes newly acknowledged
  (cumulatively and by gap blocks); once it reaches cwnd while cwnd was fully used, it drops by cwnd and
  cwnd grows by one MTU (the order RFC 9260 sec. 7.2.2 makes explicit); it is 0 once nothing is
  outstanding. Not in Fast Recovery (as for slow start).
- loss (sec. 7.2.3): fast retransmit: ssthresh = max(cwnd/2, k MTU), cwnd = ssthresh; T3-rtx: the same
  ssthresh, cwnd = 1 MTU; partial_bytes_acked = 0.
- idle (sec. 7.2.1): per RTO without new data sent, cwnd = max(cwnd/2, k MTU).
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, _nrt=False, error_model="numpy")
def may_send(flight_bytes, cwnd_bytes):
    """Return True if new data may be sent now (sec. 6.1 B: flightsize below cwnd)."""
    return flight_bytes < cwnd_bytes


@njit(cache=True, _nrt=False, error_model="numpy")
def max_burst_cwnd(cwnd_bytes, flight_bytes, mtu_bytes, max_burst):
    """Return cwnd after the Max.Burst rule applied before new data is sent (sec. 6.1 D; 0 = no limit)."""
    if max_burst > 0 and flight_bytes + max_burst * mtu_bytes < cwnd_bytes:
        return float(flight_bytes + max_burst * mtu_bytes)
    return cwnd_bytes


@njit(cache=True, _nrt=False, error_model="numpy")
def on_sack_cwnd(cwnd_bytes, ssthresh_bytes, pba_bytes, mtu_bytes, acked_bytes, cum_advanced, flight_before_bytes,
                 flight_after_bytes, in_fast_recovery):
    """Return (cwnd, partial_bytes_acked) after a SACK that newly acknowledged ``acked_bytes`` of data
    (sec. 7.2.1 slow start, 7.2.2 congestion avoidance)."""
    cwnd = cwnd_bytes
    pba = pba_bytes
    full = flight_before_bytes >= cwnd
    if cwnd <= ssthresh_bytes:
        if cum_advanced and full and not in_fast_recovery and acked_bytes > 0:
            cwnd += min(acked_bytes, mtu_bytes)
    elif not in_fast_recovery:
        pba += acked_bytes
        if pba >= cwnd and full:
            pba -= cwnd
            cwnd += mtu_bytes
    if flight_after_bytes <= 0:
        pba = 0.0
    return cwnd, pba


@njit(cache=True, _nrt=False, error_model="numpy")
def loss_ssthresh(cwnd_bytes, mtu_bytes, k_mtus):
    """Return ssthresh after a loss: max(cwnd/2, k MTU) (sec. 7.2.3)."""
    return max(cwnd_bytes / 2.0, float(k_mtus * mtu_bytes))


@njit(cache=True, _nrt=False, error_model="numpy")
def on_fast_retransmit(cwnd_bytes, mtu_bytes, k_mtus):
    """Return (cwnd, ssthresh) on entering fast retransmit (sec. 7.2.3: cwnd = ssthresh)."""
    s = loss_ssthresh(cwnd_bytes, mtu_bytes, k_mtus)
    return s, s


@njit(cache=True, _nrt=False, error_model="numpy")
def on_t3_expiry(cwnd_bytes, mtu_bytes, k_mtus):
    """Return (cwnd, ssthresh) when T3-rtx expires (sec. 7.2.3: cwnd = 1 MTU)."""
    return float(mtu_bytes), loss_ssthresh(cwnd_bytes, mtu_bytes, k_mtus)


@njit(cache=True, _nrt=False, error_model="numpy")
def idle_decay(cwnd_bytes, mtu_bytes, k_mtus, idle_s, rto_s):
    """Return cwnd after ``idle_s`` without new data sent: halved once per whole RTO idle, never below
    k MTU, and never raised (sec. 7.2.1)."""
    n = int(math.floor(idle_s / rto_s + 1e-12)) if rto_s > 0.0 else 0
    cwnd = cwnd_bytes
    floor = float(k_mtus * mtu_bytes)
    for _ in range(n):
        if cwnd <= floor:
            break
        cwnd = max(cwnd / 2.0, floor)
    return cwnd
