"""Numba: delivery-rate estimation (draft-cheng-iccrg-delivery-rate-estimation-00, Linux's ``tcp_rate.c``, ns-3's
``TcpRateLinux``), the per-ACK bandwidth samples a model-based congestion control (BBR) reads.

The sender keeps, per connection (``C``, here fields ``rs_*`` of the half's row of ``S.cc``): ``C.delivered`` (bytes
delivered so far: cumulatively acknowledged or SACKed, each segment once), ``C.delivered_time`` (when the last of
them was), ``C.first_sent_time`` (when the segment that last produced a sample was sent) and ``C.app_limited`` (0, or
the ``C.delivered`` at which an application-limited phase ends). Each segment it sends records them (``S.rate``,
``kernel.layout.RATE``, at the segment's place in the scoreboard ``S.seg``). On each ACK, of the segments it delivers
the one sent last gives the sample (draft sec. 3.3): ``delivered = C.delivered - P.delivered`` over ``interval =
max(send_elapsed, ack_elapsed)`` with ``send_elapsed = P.sent_time - P.first_sent_time`` and ``ack_elapsed = now -
P.delivered_time``; invalid (``rs_valid = 0``) when no segment was delivered, the segment carries no timing yet, or
the interval is below the minimum RTT seen (the draft's guard against ACK compression). ``rs_rtt_s`` is the RTT of
the newest delivered segment never retransmitted (-1 none).

Hooks (through ``tcp.cc.dispatch`` for the algorithms that need samples): ``on_sent`` after a segment leaves,
``on_ack`` on every ACK before the scoreboard drops what it acknowledges, ``app_limited`` when the sender has no
data to send (draft sec. 3.4: ``C.app_limited = max(C.delivered + inflight, 1)``).

``on_ack`` reads the scoreboard from its head up to the higher of the ACK and ``rs_sack_top``, the highest end of
any SACK block seen (-1 none): a segment at or beyond both is neither acknowledged nor SACKed (a SACKed segment lies
wholly inside some block), so it is never delivered and never counted. With no SACK block above the ACK (always
without SACK; with SACK, outside loss recovery) it reads the segments the ACK acknowledges and at most one more, where
a SACK connection's ACK read the whole window before; inside a SACK recovery it reads up to the highest SACKed
segment, as the sender's own SACK passes (``tcp.sender``) do.

``rs_inflight``, the bytes in flight after the ACK, is what was sent less what is acknowledged or SACKed; inside a
SACK recovery it is RFC 6675's pipe (``kernel.scoreboard.pipe_bytes``: the segments IsLost marks left out, this
recovery's retransmissions counted), as Linux's ``tcp_packets_in_flight`` that BBR's checks read (PROBE_RTT's
4 segments, DRAIN's target, packet conservation). Without SACK nothing is known lost and the first reading stays.

Not modelled: SACK reneging, the "lost" count of a sample (ns-3's ``m_bytesLoss``; 0 here), and app-limited checks
of the send queue below TCP (there is none).
"""

from __future__ import annotations

import math

from numba import njit

from ...kernel import layout as L
from ...kernel.scoreboard import pipe_bytes

# the connection's rate state and the last sample, per half (tcp.cc.registry.STATE gathers them)
FIELDS = ("rs_delivered rs_delivered_t:f rs_first_sent_t:f rs_app_limited rs_min_rtt_s:f "
          "rs_prior_delivered rs_sample_app_limited rs_acked_sacked rs_prior_inflight rs_inflight rs_valid "
          "rs_sample_delivered rs_interval_s:f rs_rate_Bps:f rs_rtt_s:f rs_sack_top")


@njit(cache=True, inline="always")
def init(S, h, t):
    """Half ``h`` starts: nothing delivered, no timing information (< 0), no sample."""
    r = S.cc
    r[h].rs_delivered = 0
    r[h].rs_delivered_t = -1.0
    r[h].rs_first_sent_t = -1.0
    r[h].rs_app_limited = 0
    r[h].rs_min_rtt_s = math.inf
    r[h].rs_valid = 0
    r[h].rs_rtt_s = -1.0
    r[h].rs_acked_sacked = 0
    r[h].rs_prior_inflight = 0
    r[h].rs_inflight = 0
    r[h].rs_sack_top = -1


@njit(cache=True, inline="always")
def on_sent(S, h, row, idx, t):
    """The segment at ``S.seg[row, idx]`` of half ``h`` has just been (re)sent: record C's state in it (draft sec.
    3.2). With nothing in flight before it, the sampling interval starts now."""
    r = S.cc
    half = S.half
    if half[h].snd_max == half[h].snd_una:
        r[h].rs_first_sent_t = t
        r[h].rs_delivered_t = t
    rt = S.rate
    rt[row, idx].delivered = r[h].rs_delivered
    rt[row, idx].app_limited = 1 if r[h].rs_app_limited != 0 else 0
    rt[row, idx].first_sent_t = r[h].rs_first_sent_t
    rt[row, idx].delivered_t = r[h].rs_delivered_t
    rt[row, idx].sent_t = t


@njit(cache=True, inline="always")
def on_ack(S, h, ack, sack_top, t):
    """An ACK up to ``ack`` (with its SACK blocks already applied to the scoreboard, the highest ending at
    ``sack_top``; -1 none): count each segment it delivers for the first time and take the sample from the one sent
    last (draft sec. 3.3)."""
    r = S.cc
    half = S.half
    seg = S.seg
    rt = S.rate
    cap = seg.shape[1]
    row = half[h].seg_row
    head = half[h].seg_head
    n = half[h].seg_n
    prior_delivered = -1
    prior_t = -1.0
    send_el = 0.0
    ack_el = 0.0
    app = 0
    rtt = -1.0
    newest_sent = -1.0
    acked_sacked = 0
    counted = 0  # bytes SACKed and counted before this ACK (not in flight)
    top = max(r[h].rs_sack_top, sack_top)
    r[h].rs_sack_top = top
    end = max(ack, top)  # no segment from here on is acknowledged or SACKed (module doc)
    for k in range(n if row >= 0 else 0):
        idx = head + k
        if idx >= cap:
            idx -= cap
        start = seg[row, idx].start
        if start >= end:
            break
        ln = seg[row, idx].len
        d = rt[row, idx].delivered
        if d < 0:
            counted += ln
            continue
        if start + ln > ack and not seg[row, idx].flags & L.G_SACKED:
            continue
        r[h].rs_delivered += ln
        r[h].rs_delivered_t = t
        acked_sacked += ln
        sent = rt[row, idx].sent_t
        if prior_delivered < 0 or d > prior_delivered:
            prior_delivered = d
            prior_t = rt[row, idx].delivered_t
            app = rt[row, idx].app_limited
            send_el = sent - rt[row, idx].first_sent_t
            ack_el = t - prior_t
            r[h].rs_first_sent_t = sent
        if not seg[row, idx].flags & L.G_RETX and sent > newest_sent:
            newest_sent = sent
            rtt = t - sent
        rt[row, idx].delivered = -1
    if r[h].rs_app_limited != 0 and r[h].rs_delivered > r[h].rs_app_limited:
        r[h].rs_app_limited = 0  # the application-limited bubble is acknowledged and gone
    prior_inflight = half[h].snd_max - half[h].snd_una - counted
    r[h].rs_prior_inflight = prior_inflight
    r[h].rs_inflight = max(prior_inflight - acked_sacked, 0)
    if half[h].in_rec == 1 and S.conn[h >> 1].recovery == L.REC_SACK:
        # in SACK recovery the scoreboard knows lost segments: in flight is RFC 6675's pipe (lost ones out, this
        # recovery's retransmissions in), as Linux's tcp_packets_in_flight, which BBR compares with its targets;
        # counting the lost ones kept PROBE_RTT waiting for every hole's repair (15 s instead of 2.8 s a probe on a
        # 64-BDP buffer: benchmarks/bench_bbr_share.py)
        r[h].rs_inflight = pipe_bytes(S, h, ack)
    r[h].rs_acked_sacked = acked_sacked
    r[h].rs_rtt_s = rtt
    if rtt >= 0.0 and rtt < r[h].rs_min_rtt_s:
        r[h].rs_min_rtt_s = rtt
    r[h].rs_prior_delivered = prior_delivered
    r[h].rs_sample_app_limited = app
    r[h].rs_valid = 0
    if prior_delivered < 0 or prior_t < 0.0:
        return
    interval = max(send_el, ack_el)
    if interval < r[h].rs_min_rtt_s or interval <= 0.0:
        return
    dl = r[h].rs_delivered - prior_delivered
    r[h].rs_sample_delivered = dl
    r[h].rs_interval_s = interval
    r[h].rs_rate_Bps = dl / interval
    r[h].rs_valid = 1


@njit(cache=True, inline="always")
def app_limited(S, h, inflight):
    """The sender has less than a segment to send, ``inflight`` bytes out: samples until these are delivered are
    application-limited (draft sec. 3.4)."""
    S.cc[h].rs_app_limited = max(S.cc[h].rs_delivered + inflight, 1)
