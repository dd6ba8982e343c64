"""Era presets of TCP: ``TcpParams.preset(name)``, each value with where it comes from.

A preset fixes what the *stack* did; the path decides the rest. Chapters still choose ``mss_bytes``
(a property of the path and the peer) and usually ``rwnd_bytes`` (the study's socket buffer), and say
which preset they use and why. What simcore does not model is listed per preset under "approximated".

``bsd44lite`` -- 4.4BSD-Lite (1994), whose TCP code ran inside the ATM-TN simulator of the satellite
proxy study (chapter 2). Sources: the 4.4BSD-Lite sources as printed and explained in G. Wright and
W. R. Stevens, *TCP/IP Illustrated, Volume 2* (1995), files tcp_timer.h, tcp_input.c, tcp_usrreq.c.
  - recovery 'reno', congestion_control 'reno': fast retransmit at tcprexmtthresh = 3 duplicate ACKs and
    fast recovery; no NewReno partial-ACK rule, no SACK (tcp_input.c).
  - initial_window_segments 1: snd_cwnd starts at one segment (tcp_input.c, on the SYN's ACK).
  - delayed_ack 200 ms on ticks: TF_DELACK is sent by tcp_fasttimo, which runs every 200 ms
    (PR_FASTHZ = 5), so the ACK leaves 0-200 ms after the segment; ACK every second segment.
  - timer_granularity_s 0.5: tcp_slowtimo runs every 500 ms (PR_SLOWHZ = 2); RTTs are counted and RTOs
    kept in these ticks.
  - initial_rto_s 3: TCPTV_SRTTDFLT = 3 s, the RTT assumed before any sample (tcp_timer.h).
  - min_rto_s 1, max_rto_s 64: TCPTV_MIN = 1 s, TCPTV_REXMTMAX = 64 s (tcp_timer.h).
  - rwnd_bytes 8192: tcp_recvspace = 8 KB (tcp_usrreq.c); the satellite study used 32767.
  - restart_after_idle: cwnd falls to one segment after an idle time of one RTO (tcp_output.c).
  - timeout_ssthresh 'flight_size': on a retransmission timeout ssthresh = max(min(snd_wnd, snd_cwnd) / 2,
    2 segments) (tcp_timer.c, TCPT_REXMT), snd_cwnd inflated by fast recovery's duplicate ACKs: the window
    outstanding, inflation included, as 'flight_size' reads it; no once-per-window rule.
  - request_on_handshake_ack False: in SYN_SENT the SYN-ACK sets TF_ACKNOW (tcp_input.c), so tcp_output sends
    the ACK at once; connect() returns and the application's request follows as its own segment.
  approximated: BSD's fixed-point estimator (srtt in 1/8 ticks, first RTO from rttvar's default, the
  first sample counted one tick long) is modelled by RFC 6298 on whole-tick samples; Stevens' Volume 1
  (1994, ch. 18) shows the first SYN retransmission about 6 s after the SYN, simcore's after 3 s. The
  default MSS of 512 bytes for non-local peers (tcp_mssdflt) is not applied: pass mss_bytes=512.

``freebsd46`` -- FreeBSD 4.6-RELEASE (2002), the testbed of the FTP/SCTP study (chapter 3). Sources:
FreeBSD 4.6 sys/netinet/tcp_timer.h and tcp_output.c, as recorded in the Netsem project's
specification of FreeBSD 4.6-RELEASE TCP (S. Bishop et al., *Rigorous specification and conformance
testing techniques for network protocols, as applied to TCP, UDP, and Sockets*, SIGCOMM 2005).
  - recovery 'newreno', congestion_control 'reno': net.inet.tcp.newreno = 1 (tcp_do_newreno); SACK came in FreeBSD 5.3.
  - initial_window_segments 1: net.inet.tcp.slowstart_flightsize = 1 (ss_fltsz; 4 for local networks).
  - delayed_ack 100 ms: TCPTV_DELACK = hz / 10 (tcp_timer.h), a per-connection callout.
  - timer_granularity_s 0.01: callouts and RTT counts in ticks of hz = 100 (the default kernel HZ).
  - initial_rto_s 3, min_rto_s 1, max_rto_s 64: TCPTV_RTOBASE = 3 s, TCPTV_MIN = 1 s, TCPTV_REXMTMAX = 64 s.
  - timestamps: net.inet.tcp.rfc1323 = 1 (RFC 1323 options on by default).
  - rwnd_bytes 65536: net.inet.tcp.recvspace (64 KB in FreeBSD 4; not checked against the 4.6 source here).
  - timeout_ssthresh 'flight_size': tcp_timer.c kept 4.4BSD's min(snd_wnd, snd_cwnd) / 2 on a timeout, with
    snd_cwnd inflated during NewReno's fast recovery (as ``bsd44lite``).
  - request_on_handshake_ack False: the handshake's ACK leaves bare, as in 4.4BSD.
  - giving up (Netsem's FreeBSD 4.6 parameters, from tcp_timer.h / tcp_timer.c / tcp_syncache.c):
    syn_backoff 'bsd' (tcp_syn_backoff = 1, 1, 1, 1, 1, 2, 4, 8, 16, 32, 64, 64, 64 times the 3 s base: SYNs
    at 0, 3, 6, 9, 12, 15, 21, 33 and 57 s), connect_timeout_s 75 (TCPTV_KEEP_INIT: the connect() fails with
    ETIMEDOUT), max_retransmits 12 (TCP_MAXRXTSHIFT: the 13th timeout in a row drops the connection),
    synack_retries 3 (SYNCACHE_MAXREXMTS).
  approximated: Limited Transmit (tcp_do_rfc3042) is off, as it came later; the local-network initial
  window of 4 is not applied.

``rfc5681`` -- today's standards and simcore's default ``TcpParams()``: RFC 5681 congestion control
with RFC 6582 NewReno, RFC 6298 timers (initial RTO 1 s, minimum 1 s), initial window 2 (RFC 5681
allows up to 4 by RFC 3390's rule), no delayed ACKs (RFC 5681 says SHOULD delay; the chapters' closed
forms assume one ACK per segment), exact timers, and the textbook's handshake: the request rides on the
handshake's ACK (``request_on_handshake_ack``; the closed forms of chapter 4 count it so).

``linux`` -- a modern Linux stack (5.x/6.x defaults). Sources: include/net/tcp.h and the
net.ipv4.tcp_* sysctl documentation (Documentation/networking/ip-sysctl.rst).
  - congestion_control 'reno' for now, although Linux's default since 2.6.19 is cubic
    (net.ipv4.tcp_congestion_control; net/ipv4/tcp_cubic.c: beta 717/1024 = 0.7, C = 0.4, fast convergence
    on; RFC 9438 describes it): chapter 2's stored "today's TCP" runs were made with Reno's window, and the
    preset moves to CUBIC when they are rerun. ``TcpParams.preset("linux", congestion_control="cubic")`` is
    today's Linux.
  - recovery 'sack': net.ipv4.tcp_sack = 1, RFC 6675-style recovery.
  - initial_window_segments 10: TCP_INIT_CWND = 10 (RFC 6928).
  - min_rto_s 0.2, initial_rto_s 1, max_rto_s 120: TCP_RTO_MIN = HZ/5, TCP_TIMEOUT_INIT = 1 s,
    TCP_RTO_MAX = 120 s.
  - delayed_ack 40 ms: TCP_DELACK_MIN = HZ/25 (Linux adapts it between 40 and 200 ms).
  - timestamps: net.ipv4.tcp_timestamps = 1; limited_transmit: Linux sends new data on the first
    duplicate ACKs (RFC 3042).
  - rwnd_bytes 6291456: the top of net.ipv4.tcp_rmem, which receive autotuning grows toward.
  - timeout_ssthresh 'once_per_window' (the default): tcp_enter_loss lowers ssthresh only when it "has not
    yet been made inside this window" (not during fast recovery, not again on a repeated timeout).
  - request_on_handshake_ack False: tcp_rcv_synsent_state_process sends the ACK at once (it waits for data
    only when a write is pending while connect() blocks, or with TCP_DEFER_ACCEPT / quick-ACK off), and
    connect() returns before the application writes.
  approximated: Linux detects losses with RACK-TLP (out of scope here); simcore uses RFC 6675 SACK
  recovery. CUBIC runs without HyStart (Linux exits slow start early on delay increases) and without the
  undo of spurious reductions. Receive autotuning is replaced by its ceiling. Timers are exact (Linux's
  jiffies are 1-4 ms).
"""

from __future__ import annotations

from simcore._validate import check_choice

__all__ = ["PRESETS", "preset_fields"]

PRESETS: dict[str, dict] = {
    "bsd44lite": dict(recovery="reno", initial_window_segments=1, delayed_ack=True, delayed_ack_timeout_s=0.2,
                      delayed_ack_on_ticks=True, timer_granularity_s=0.5, initial_rto_s=3.0, min_rto_s=1.0,
                      max_rto_s=64.0, rwnd_bytes=8192, restart_after_idle=True, timeout_ssthresh="flight_size",
                      request_on_handshake_ack=False),
    "freebsd46": dict(recovery="newreno", initial_window_segments=1, delayed_ack=True, delayed_ack_timeout_s=0.1,
                      timer_granularity_s=0.01, initial_rto_s=3.0, min_rto_s=1.0, max_rto_s=64.0,
                      timestamps=True, rwnd_bytes=65536, restart_after_idle=True, timeout_ssthresh="flight_size",
                      request_on_handshake_ack=False, syn_backoff="bsd", connect_timeout_s=75.0, max_retransmits=12,
                      synack_retries=3),
    "rfc5681": dict(),
    "linux": dict(recovery="sack", congestion_control="reno", initial_window_segments=10, min_rto_s=0.2,
                  initial_rto_s=1.0, max_rto_s=120.0, delayed_ack=True, delayed_ack_timeout_s=0.04, timestamps=True,
                  limited_transmit=True, rwnd_bytes=6291456, restart_after_idle=True, request_on_handshake_ack=False),
}


def preset_fields(name: str) -> dict:
    """Return the TcpParams fields of preset ``name`` (a copy)."""
    check_choice("name", name, tuple(PRESETS))
    return dict(PRESETS[name])
