"""Numba: the sender trace (``PacketResult.tcp_trace``), one row per sender event of any transport.

TCP and SCTP both write it (cwnd, ssthresh, srtt, rto, snd_una, snd_nxt of the half), so it lives with the
kernel's shared services, not in one transport.
"""

from __future__ import annotations

from numba import njit

from .._numba.outline import one_signature
from . import layout as L


@one_signature
@njit(cache=True, _nrt=False, error_model="numpy", no_cpython_wrapper=True, no_cfunc_wrapper=True)
def trace_tcp(S, h, t, ev):
    """Append (t, half, cwnd, ssthresh, srtt, rto, snd_una, snd_nxt, ev) to the TCP trace when tracing.

    ``ev``: 0 new ACK, 1 duplicate ACK, 2 timeout, 3 connection opened, 4 a reduction for ECN-Echo (``tcp.ecn``)."""
    st = S.st[0]
    if st.trace == 0:
        return
    trt = S.tr_tcp
    n = st.n_tcptr
    if n >= trt.shape[0]:
        st.flags |= L.OVF_TCPTR
        st.n_tcptr = n + 1
        return
    half = S.half
    trt[n, 0] = t
    trt[n, 1] = 2 * S.conn[h >> 1].cid + (h & 1)  # the scenario's half
    trt[n, 2] = half[h].cwnd
    trt[n, 3] = half[h].ssthresh
    trt[n, 4] = half[h].srtt
    trt[n, 5] = half[h].rto
    trt[n, 6] = half[h].snd_una
    trt[n, 7] = half[h].snd_nxt
    trt[n, 8] = ev
    st.n_tcptr = n + 1
