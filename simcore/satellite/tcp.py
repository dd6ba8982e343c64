"""The TCP of the satellite study: 4.4BSD-Lite-like settings (the paper's simulator ran 4.4BSD-Lite's code).

THE ONE PLACE TO SWITCH: when ``TcpParams.preset("bsd44lite")`` lands (issue 8), make ``era_tcp`` return
``dataclasses.replace(TcpParams.preset("bsd44lite"), mss_bytes=..., rwnd_bytes=...)``; every connection of
the model is built here. Until then these values stand in for it (sources: Wright & Stevens, *TCP/IP
Illustrated Vol. 2* (1995), the 4.4BSD-Lite implementation; Stevens, RFC 2001):

- Reno (slow start, congestion avoidance, fast retransmit, fast recovery: the paper's sec. 4.4 list);
- initial window 1 segment (4.4BSD-Lite sets snd_cwnd = one segment at connection start);
- delayed ACK: every second full segment, else the 200 ms fast timer (tcp_fasttimo);
- retransmission timer: 500 ms slow-timer ticks, minimum 2 ticks = 1 s (TCPTV_MIN); first RTO 3 s
  (TCPTV_SRTTDFLT) as issue 8 states; maximum 64 s (TCPTV_REXMTMAX);
- after an idle period longer than the RTO the window restarts from one segment (tcp_output's idle test).

Not representable today: the 500 ms timer granularity (RTOs are exact), the initial RTO of 6 s that
4.4BSD-Lite's tcp_newtcpcb actually computes for a SYN. Neither matters without losses.
"""

from __future__ import annotations

from functools import lru_cache

from simcore.packet import TcpParams

__all__ = ["era_tcp", "ERA_TCP_NAME"]

ERA_TCP_NAME = "4.4BSD-Lite-like (stand-in until TcpParams.preset('bsd44lite'))"


@lru_cache(maxsize=4096)
def era_tcp(mss_bytes: int, rwnd_bytes: int) -> TcpParams:
    """Return the study's TCP with this MSS and window (bytes); cached: many connections share a few."""
    return TcpParams(variant="reno", mss_bytes=int(mss_bytes), rwnd_bytes=int(rwnd_bytes),
                     initial_window_segments=1, min_rto_s=1.0, max_rto_s=64.0, initial_rto_s=3.0,
                     delayed_ack=True, delayed_ack_timeout_s=0.2, restart_after_idle=True)
