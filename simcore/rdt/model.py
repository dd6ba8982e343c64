"""Run stop-and-wait, Go-Back-N or Selective Repeat (``simulate_rdt``) and read its records (``RdtResult``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_real
from simcore.rdt import _kernel as K
from simcore.rdt.params import RdtParams
from simcore.rng import SeedLike, make_generator

__all__ = ["RdtResult", "simulate_rdt", "ACTIONS"]

ACTIONS = {K.ACT_LOST: "lost", K.ACT_DELIVER: "delivered", K.ACT_BUFFER: "buffered", K.ACT_DISCARD: "discarded",
           K.ACT_DUPLICATE: "duplicate", K.ACT_IGNORE: "ignored"}


@dataclass(frozen=True)
class RdtResult:
    """The records of one run, in sending order; times in seconds from the start.

    data_start_s, data_seq, data_retx, data_arrive_s, data_action: per data transmission: when its
        transmission started, its sequence number, whether it repeats an earlier transmission, when its last
        bit reached the receiver (NaN: lost) and what the receiver did (``ACTIONS``: lost, delivered, buffered,
        discarded, duplicate, ignored).
    ack_start_s, ack_no, ack_arrive_s: per ACK: when it left the receiver, the number it carries (GBN: the
        highest in-order packet received, -1 before any; SR and saw: the packet it acknowledges) and when it
        reached the sender (NaN: lost).
    timeout_at_s, timeout_seq: each expiry of a timer and the packet it was set for (GBN: the base).
    delivered_at_s: per sequence number, when the packet reached the receiving application (NaN: not yet).
    end_s: the end of the run (``duration_s``, or when the last of ``n_packets`` was acknowledged, or when
        ``max_sends`` transmissions had started). completed: all ``n_packets`` acknowledged. cut: stopped by
        ``max_sends``.
    """

    params: RdtParams
    data_start_s: np.ndarray
    data_seq: np.ndarray
    data_retx: np.ndarray
    data_arrive_s: np.ndarray
    data_action: np.ndarray
    ack_start_s: np.ndarray
    ack_no: np.ndarray
    ack_arrive_s: np.ndarray
    timeout_at_s: np.ndarray
    timeout_seq: np.ndarray
    delivered_at_s: np.ndarray
    end_s: float
    completed: bool
    cut: bool = False

    @property
    def delivered(self) -> int:
        """Packets delivered in order to the receiving application by ``end_s``."""
        return int(np.count_nonzero(self.delivered_at_s <= self.end_s))

    @property
    def transmissions(self) -> int:
        """Data transmissions started (retransmissions included)."""
        return int(self.data_seq.size)

    @property
    def retransmissions(self) -> int:
        """Data transmissions that repeat an earlier transmission of the same packet."""
        return int(np.count_nonzero(self.data_retx))

    @property
    def timeouts(self) -> int:
        """Timer expiries."""
        return int(self.timeout_at_s.size)

    @property
    def duplicates(self) -> int:
        """Data packets that reached a receiver which had received them before (needless retransmissions)."""
        return int(np.count_nonzero(self.data_action == K.ACT_DUPLICATE))

    @property
    def utilisation(self) -> float:
        """K&R's sender utilisation: the fraction of ``end_s`` the sender spent sending bits, retransmissions
        included (transmissions that ended by ``end_s``)."""
        tx = self.params.packet_time_s
        busy = np.clip(self.end_s - self.data_start_s, 0.0, tx).sum()
        return float(busy / self.end_s)

    @property
    def efficiency(self) -> float:
        """The useful fraction of the link: delivered packets times L/R over ``end_s`` (goodput / R)."""
        return self.delivered * self.params.packet_time_s / self.end_s

    def efficiency_after(self, warmup_s: float) -> float:
        """Return the efficiency over (warmup_s, end_s]: packets delivered then times L/R over the interval's
        length. In a stationary regime it has no end bias (packets still in flight at the end are balanced by
        those that were in flight at ``warmup_s``); the start from an empty pipe is left out."""
        w = check_real("warmup_s", warmup_s, 0.0, self.end_s, hi_open=True)
        d = self.delivered_at_s
        n = np.count_nonzero((d > w) & (d <= self.end_s))
        return n * self.params.packet_time_s / (self.end_s - w)

    @property
    def goodput_bps(self) -> float:
        """Application bits delivered per second."""
        return self.delivered * 8.0 * self.params.packet_bytes / self.end_s


def simulate_rdt(params: RdtParams, seed: SeedLike = 0) -> RdtResult:
    """Run ``params`` with losses drawn from ``seed``; the same seed gives the same run.

    The draws: ``make_generator(seed)`` gives one uniform to each data packet as its transmission starts and one
    to each ACK as it leaves the receiver, in the order of those events; a packet is lost if its uniform is below
    ``loss_data`` (``loss_ack``) or its number is in ``drop_data`` (``drop_ack``)."""
    if not isinstance(params, RdtParams):
        raise ValueError(f"params={params!r} is not allowed: must be an RdtParams")
    rng = make_generator(seed)
    p = params
    drops = [np.unique(np.asarray(d, np.int64)) for d in (p.drop_data, p.drop_ack)]
    out = K.run(K.SR if p.protocol == "sr" else K.GBN, p.window, p.packet_time_s, p.ack_time_s, p.rtt_s / 2.0,
                p.timeout_s, p.duration_s, p.n_packets, p.timer_restart == "every_ack", rng, p.loss_data, p.loss_ack,
                drops[0], drops[1], min(p.max_transmissions, p.max_sends or p.max_transmissions), p.max_sends)
    (d_t, d_seq, d_retx, d_arr, d_act, a_t, a_no, a_arr, to_t, to_seq, deliv, counts, end_s) = out
    n_seq = int(d_seq.max()) + 1 if d_seq.size else 0
    return RdtResult(params, d_t, d_seq, d_retx, d_arr, d_act, a_t, a_no, a_arr, to_t, to_seq, deliv[:n_seq].copy(),
                     float(end_s), bool(counts[K.OUT_DONE] == 1), bool(counts[K.OUT_DONE] == 2))
