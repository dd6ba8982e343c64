"""Closed forms for stop-and-wait, Go-Back-N and Selective Repeat (the model of ``simcore.rdt``).

Notation: packet time ``tx_s`` = L/R, ACK time ``ack_s`` (0 in K&R 3.4.2), round-trip propagation ``rtt_s``,
timeout ``timeout_s`` (measured from the transmission start of the packet it guards), loss probabilities
``p_data`` and ``p_ack`` (independent per packet). "Efficiency" is the useful fraction of the link: delivered
packets times L/R over the time taken (goodput / R). Without loss it equals K&R's sender utilisation.

- Stop-and-wait without loss (K&R eq. in sec. 3.4.2): U = (L/R) / (RTT + L/R).
- A window of N packets without loss: U = min(1, N (L/R) / (RTT + L/R)).
- Stop-and-wait with loss: each attempt succeeds (data and its ACK both arrive) with q = (1-p_data)(1-p_ack);
  a success costs L/R + RTT (+ ACK time), a failure the timeout. So U = (L/R) / (L/R + RTT + (1-q)/q * timeout)
  (renewal-reward; exact when timeout >= L/R + RTT + ACK time). With timeout = L/R + RTT it is
  q (L/R)/(L/R + RTT), the (1-P)/(1+2a) of Stallings and of Bertsekas & Gallager sec. 2.4.
- Selective Repeat with loss, window never binding: the link is always busy and each packet needs 1/q
  transmissions on average, so U = q (Bertsekas & Gallager sec. 2.4's ideal selective repeat, 1 - p, when ACKs
  are not lost).
- Go-Back-N with data loss (ACK loss ignored: a cumulative ACK covers a lost one), link busy without loss: a loss
  of packet k costs the time D1 from k's transmission start to the go-back (everything sent in between is
  discarded); a loss of its retransmission costs D2. With K&R's single timer restarted by the ACK of k-1 (which
  arrives RTT + ACK time after k starts), D1 = RTT + ACK time + timeout and D2 = timeout, each rounded up to the
  end of the transmission then on the link. The time per delivered packet is L/R + p D1 + p^2 D2 / (1-p), so
  U = (L/R) / (L/R + p D1 + p^2 D2/(1-p)). With D1 = D2 = K L/R (Bertsekas & Gallager's go-back after exactly
  K packet times) this is the classic (1-p) / (1 + (K-1) p).

Sources: J. F. Kurose, K. W. Ross, Computer Networking, 8th ed., sec. 3.4.2-3.4.4; D. Bertsekas, R. Gallager,
Data Networks, 2nd ed., Prentice Hall 1992, sec. 2.4 (ARQ: stop-and-wait, go back n, selective repeat);
W. Stallings, Data and Computer Communications (the utilisation formulas of ARQ). The derivations are in the
chapter's deep dive and in ``simcore/rdt/ASSUMPTIONS.md``.
"""

from __future__ import annotations

import math

from simcore._validate import check_int, check_real
from simcore.rdt.params import RdtParams

__all__ = [
    "stop_and_wait_utilisation",
    "pipelined_utilisation",
    "stop_and_wait_lossy_efficiency",
    "selective_repeat_efficiency",
    "go_back_n_efficiency",
    "go_back_n_classic_efficiency",
    "go_back_n_loss_costs_s",
    "sr_window_never_binds",
    "closed_forms",
]


def _times(tx_s, rtt_s, ack_s):
    return (check_real("tx_s", tx_s, 0.0, lo_open=True), check_real("rtt_s", rtt_s, 0.0),
            check_real("ack_s", ack_s, 0.0))


def stop_and_wait_utilisation(packet_bits: float, rate_bps: float, rtt_s: float) -> float:
    """Return K&R's stop-and-wait sender utilisation (L/R) / (RTT + L/R), dimensionless.

    K&R 3.4.2's example: L = 8000 bits, R = 1e9 bit/s, RTT = 30 ms gives 0.008 / 30.008 = 0.00027."""
    tx = check_real("packet_bits", packet_bits, 0.0, lo_open=True) / check_real("rate_bps", rate_bps, 0.0, lo_open=True)
    rtt = check_real("rtt_s", rtt_s, 0.0)
    return tx / (rtt + tx)


def pipelined_utilisation(window: int, tx_s: float, rtt_s: float, ack_s: float = 0.0) -> float:
    """Return min(1, N (L/R) / (L/R + RTT + ACK time)): a window of N packets, no loss."""
    n = check_int("window", window, 1)
    tx, rtt, ack = _times(tx_s, rtt_s, ack_s)
    return min(1.0, n * tx / (tx + rtt + ack))


def _probability(name, p):
    return check_real(name, p, 0.0, 1.0, hi_open=True)


def stop_and_wait_lossy_efficiency(tx_s: float, rtt_s: float, timeout_s: float, p_data: float, p_ack: float = 0.0,
                                   ack_s: float = 0.0) -> float:
    """Return stop-and-wait's efficiency (L/R) / (L/R + RTT + ACK + (1-q)/q * timeout), q = (1-p_data)(1-p_ack).

    Exact for the model when ``timeout_s >= L/R + RTT + ACK time`` (no timeout before an ACK could return);
    below that it is NaN (premature timeouts add duplicates the formula does not count)."""
    tx, rtt, ack = _times(tx_s, rtt_s, ack_s)
    to = check_real("timeout_s", timeout_s, 0.0, lo_open=True)
    q = (1.0 - _probability("p_data", p_data)) * (1.0 - _probability("p_ack", p_ack))
    if to < tx + rtt + ack:
        return math.nan
    return tx / (tx + rtt + ack + (1.0 - q) / q * to)


def selective_repeat_efficiency(p_data: float, p_ack: float = 0.0) -> float:
    """Return Selective Repeat's efficiency q = (1-p_data)(1-p_ack) when its window never binds (see
    ``sr_window_never_binds``): every packet needs 1/q transmissions on a link that is always busy."""
    return (1.0 - _probability("p_data", p_data)) * (1.0 - _probability("p_ack", p_ack))


def sr_window_never_binds(window: int, tx_s: float, rtt_s: float, timeout_s: float, ack_s: float = 0.0) -> bool:
    """Return whether N (L/R) >= timeout + 2 L/R + RTT + ACK time: then a packet lost once (its retransmission
    waits for the current transmission, then needs L/R + RTT + ACK to be acknowledged) does not stop the sender.
    A packet lost twice in a row (probability p^2) still can."""
    n = check_int("window", window, 1)
    tx, rtt, ack = _times(tx_s, rtt_s, ack_s)
    to = check_real("timeout_s", timeout_s, 0.0, lo_open=True)
    return n * tx >= to + 2.0 * tx + rtt + ack


def go_back_n_loss_costs_s(window: int, tx_s: float, rtt_s: float, timeout_s: float,
                           ack_s: float = 0.0) -> tuple[float, float]:
    """Return (D1, D2) in seconds: the time from a lost packet's transmission start to the go-back, for its first
    transmission (timer restarted by the previous packet's ACK: RTT + ACK + timeout later) and for a
    retransmission (timer started with it: timeout later). Each waits for the end of the transmission then on the
    link if the window still lets the sender send then (the first N packet times), else starts at once."""
    n = check_int("window", window, 1)
    tx, rtt, ack = _times(tx_s, rtt_s, ack_s)
    to = check_real("timeout_s", timeout_s, 0.0, lo_open=True)

    def go_back(x):
        return math.ceil(x / tx - 1e-9) * tx if x <= n * tx else x

    return go_back(rtt + ack + to), go_back(to)


def go_back_n_efficiency(window: int, tx_s: float, rtt_s: float, timeout_s: float, p_data: float,
                         ack_s: float = 0.0) -> float:
    """Return Go-Back-N's efficiency (L/R) / (L/R + p D1 + p^2 D2 / (1-p)) (``go_back_n_loss_costs_s``), for data
    loss p and no ACK loss, with K&R's single timer restarted by ACKs of new packets.

    Applies when the window keeps the link busy without loss (N L/R >= L/R + RTT + ACK) and the timeout is not
    premature (timeout >= L/R + RTT + ACK); NaN otherwise."""
    tx, rtt, ack = _times(tx_s, rtt_s, ack_s)
    p = _probability("p_data", p_data)
    n = check_int("window", window, 1)
    to = check_real("timeout_s", timeout_s, 0.0, lo_open=True)
    if n * tx < tx + rtt + ack or to < tx + rtt + ack or n == 1:
        return math.nan
    d1, d2 = go_back_n_loss_costs_s(n, tx, rtt, to, ack)
    return tx / (tx + p * d1 + p * p * d2 / (1.0 - p))


def go_back_n_classic_efficiency(p_data: float, k_packets: float) -> float:
    """Return (1-p) / (1 + (K-1) p): Go-Back-N going back exactly K packet times after each lost packet
    (Bertsekas & Gallager sec. 2.4; Stallings's (1-P)/(1+2aP) with K = 1 + 2a)."""
    p = _probability("p_data", p_data)
    k = check_real("k_packets", k_packets, 1.0)
    return (1.0 - p) / (1.0 + (k - 1.0) * p)


def closed_forms(params: RdtParams) -> dict[str, float]:
    """Return the closed forms at ``params``: 'lossless' (min(1, N (L/R)/(L/R+RTT+ACK))) and 'lossy' (the
    protocol's formula with loss; NaN where it does not apply), both dimensionless."""
    p = params
    tx, rtt, ack, to = p.packet_time_s, p.rtt_s, p.ack_time_s, p.timeout_s
    out = {"lossless": pipelined_utilisation(p.window, tx, rtt, ack)}
    if p.protocol == "saw" or p.window == 1:
        out["lossy"] = stop_and_wait_lossy_efficiency(tx, rtt, to, p.loss_data, p.loss_ack, ack)
    elif p.protocol == "sr":
        ok = sr_window_never_binds(p.window, tx, rtt, to, ack) and to >= tx + rtt + ack
        out["lossy"] = selective_repeat_efficiency(p.loss_data, p.loss_ack) if ok else math.nan
    else:
        out["lossy"] = (go_back_n_efficiency(p.window, tx, rtt, to, p.loss_data, ack)
                        if p.loss_ack == 0 and p.timer_restart == "new_ack" else math.nan)
    return out
