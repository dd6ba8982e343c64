"""BBR v1's share of a bottleneck it shares with loss-based flows: the steady-state model of Ware, Mukerjee, Seshan and
Sherry ("Modeling BBR's Interactions with Loss-Based Congestion Control", IMC 2019: its in-flight-cap model,
equations 1-2 and 7-11, numbered as Sarpkaya et al.'s implementation cites them), as Sarpkaya, Srivastava, Fund and
Panwar evaluate it ("BBR's Sharing Behavior with CUBIC and Reno", IFIP Networking 2025, their steady-state model on
Ware's topology).

Symbols (Ware's): ``c`` the bottleneck's rate in packets/s, ``l`` the base (congestion-free) RTT in s, ``q`` the
buffer in packets, ``X = q / (c l)`` the buffer in BDPs, ``N`` the number of BBR flows, ``p`` the loss-based flows'
aggregate share of the link (so ``1 - p`` is the BBR flows').

1. BBR's in-flight cap is cwnd_gain x its BDP estimate: ``cap = 2 BtlBw_est RTT_est`` (Ware eq. 1).
2. BBR's bandwidth estimate is the rest of the link: ``BtlBw_est = (1 - p) c`` (eq. 2).
3. In PROBE_RTT the N BBR flows keep 4 packets each in flight and drain the rest of theirs; the loss-based flows
   keep their ``p q`` packets queued, so the RTT BBR then measures is
   ``RTT_est = (p q + 4 N) / c + l`` (eq. 7).
4. Hence ``cap = 2 (1 - p) c ((p q + 4 N) / c + l)`` (eq. 8). BBR is cwnd-limited by this cap; with the buffer full
   its packets in flight are its share of the buffer and of the pipe, ``(1 - p)(q + c l)``. Setting the two equal:
   ``p = 1/2 - 1/(2 X) - 4 N / q`` (eq. 9); a negative ``p`` means the cap exceeds BDP + buffer: BBR takes all
   (``p = 0``).
5. About every 10 s BBR enters PROBE_RTT and sends next to nothing while its packets drain from a full queue (``q /
   c``), the 200 ms at 4 packets and a round trip (``l``): over a time ``d`` it spends
   ``Probe_time = (q / c + 0.2 + l) d / 10`` there (eq. 11), and its share is
   ``(1 - p)(d - Probe_time) / d`` (eq. 10). ``d`` cancels: the share is ``(1 - p)(1 - (q / c + 0.2 + l) / 10)``.

Assumptions (Ware's, kept here) beside what simcore's packet simulator does:

- flows are bulk, all start together and are synchronised; the buffer is full most of the time, so a flow's share of
  the link is its share of the buffer (and of the pipe). simcore: bulk flows, started 0.1 s apart; whether the
  buffer is full is an outcome, not an input.
- BBR is held by its in-flight cap, never by its pacing rate: this holds once CUBIC or Reno keep a standing queue,
  i.e. in buffers of a few BDPs and more. In a buffer of about one BDP BBR's probing and drops decide instead (Ware
  and Sarpkaya et al. both see BBR take most of the link there: the clip at ``p = 0`` and eq. 10 are all the model
  says of it).
- the number of loss-based flows does not enter (Ware's point: BBR's share does not depend on it); their congestion
  control (CUBIC or Reno) does not either.
- PROBE_RTT happens every 10 s and costs ``q / c + 0.2 + l`` of silence (the queue's drain, BBR's 200 ms at 4
  packets, a round): BBR's other pauses (loss recovery, its 0.75 phase) are not modelled; all packets are one size.

``packet_bytes`` converts the link rate to packets/s (Ware: 1500-byte packets); the buffer is counted in the same
packets. The model stops where the probe time would fill the 10 s between probes (``q / c + 0.2 + l >= 10`` s): a
buffer that drains in ~10 s or more is refused rather than given a share of zero or less.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_int, check_real

__all__ = ["BbrShare", "ware_bbr_share"]

PROBE_RTT_INTERVAL_S = 10.0  # BBR v1 enters PROBE_RTT when RTprop was not renewed for this long
PROBE_RTT_HOLD_S = 0.2  # ... and holds 4 packets in flight for this long
PROBE_RTT_PACKETS = 4  # BBR's in-flight floor in PROBE_RTT, packets per flow


@dataclass(frozen=True)
class BbrShare:
    """The model's numbers for one setting (shares are fractions of the link, in [0, 1])."""

    bbr_share: float  # the N BBR flows' aggregate share, PROBE_RTT's silences included (eq. 10)
    cap_share: float  # 1 - p: their share while held by the in-flight cap, between PROBE_RTTs (eq. 9)
    loss_based_share: float  # p, the loss-based flows' share while BBR is at its cap (eq. 9, clipped at 0)
    probe_rtt_fraction: float  # Probe_time / d: the fraction of time spent in PROBE_RTT (eq. 11)
    rtt_estimate_s: float  # RTT_est, BBR's RTprop estimate from PROBE_RTT (eq. 7)
    in_flight_cap_packets: float  # 2 BtlBw_est RTT_est (eq. 8)
    buffer_bdp: float  # X = q / (c l)
    bdp_packets: float  # c l


def ware_bbr_share(link_rate_bps: float, base_rtt_s: float, buffer_packets: float, n_bbr_flows: int = 1,
                   packet_bytes: float = 1500.0) -> BbrShare:
    """Return Ware et al.'s steady-state share of ``n_bbr_flows`` BBR v1 flows against any number of loss-based
    flows (CUBIC, Reno) on one drop-tail bottleneck (IMC 2019, eqs. 7-11; see the module docstring).

    ``link_rate_bps`` bits/s, ``base_rtt_s`` the RTT without queueing (s), ``buffer_packets`` the bottleneck's
    buffer in packets of ``packet_bytes`` bytes (may be fractional: X BDPs is ``X * bdp_packets``).
    """
    rate = check_real("link_rate_bps", link_rate_bps, 0.0, 1e12, lo_open=True)
    l_s = check_real("base_rtt_s", base_rtt_s, 0.0, 5.0, lo_open=True)
    size = check_real("packet_bytes", packet_bytes, 40.0, 65_535.0)
    n = check_int("n_bbr_flows", n_bbr_flows, 1, 100_000)
    c = rate / (8.0 * size)  # packets/s
    drain_max_s = PROBE_RTT_INTERVAL_S - PROBE_RTT_HOLD_S - l_s  # probe time < the 10 s between probes
    q = check_real("buffer_packets", buffer_packets, 0.0, drain_max_s * c, lo_open=True, hi_open=True,
                   why="eq. 11: a buffer that takes (10 s - 0.2 s - base_rtt_s) or longer to drain leaves BBR no "
                       "time outside PROBE_RTT")
    bdp = c * l_s
    x = q / bdp
    p = max(0.0, 0.5 - 1.0 / (2.0 * x) - PROBE_RTT_PACKETS * n / q)  # eq. 9
    rtt_est = (p * q + PROBE_RTT_PACKETS * n) / c + l_s  # eq. 7
    cap = 2.0 * (1.0 - p) * c * rtt_est  # eq. 8
    probe = (q / c + PROBE_RTT_HOLD_S + l_s) / PROBE_RTT_INTERVAL_S  # eq. 11 over d
    return BbrShare(bbr_share=(1.0 - p) * (1.0 - probe), cap_share=1.0 - p, loss_based_share=p,
                    probe_rtt_fraction=probe, rtt_estimate_s=rtt_est, in_flight_cap_packets=cap, buffer_bdp=x,
                    bdp_packets=bdp)
