"""Replay TCP's timer over a measured RTT sequence: the timeouts it sets, the retransmissions it makes (needed or
spurious) and the samples it takes under Karn's rule or without it (``replay_timer``; the kernel is ``_replay``)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore._validate import check_choice, check_real
from simcore.rto import _replay as K
from simcore.rto.estimator import EstimatorParams
from simcore.rto.probes import MAX_PROBES

__all__ = ["SAMPLE_RULES", "TimerReplay", "replay_timer", "MIN_TIMER_S"]

# which RTT a probe sent more than once gives: none (Karn's rule), from its first copy, from its last copy
SAMPLE_RULES = ("karn", "first", "last")
MIN_TIMER_S = 1e-6  # a timer never shorter than a microsecond (one clock tick): a zero one would fire at once forever


@dataclass(frozen=True)
class TimerReplay:
    """What a retransmission timer does over one probe sequence (times in seconds).

    timeout_at_send_s: per probe, the timeout in force when it was sent. copies: per probe, how often it was sent.
    sample_at_s, sample_s, sample_used, sample_probe: per probe ACKed, when its first ACK came, the RTT the rule
        measures for it, whether the estimator took it (False: skipped by Karn's rule), which probe it was, and the
        RTT of the copy the ACK in fact answered (the one that reached the receiver first).
    state_at_s, estimated_s, dev_s, timeout_s: the estimator after each sample it took (row 0: the start, the
        initial timeout, no estimate yet).
    retx_at_s, retx_probe, retx_spurious: each retransmission, its probe, and whether it was needless (an earlier
        copy reached the receiver).
    truncated: True if the replay stopped early (more than 40 retransmissions per probe on average).
    """

    rule: str
    params: EstimatorParams
    timeout_at_send_s: np.ndarray
    copies: np.ndarray
    sample_at_s: np.ndarray
    sample_s: np.ndarray
    sample_used: np.ndarray
    sample_probe: np.ndarray
    sample_true_s: np.ndarray
    state_at_s: np.ndarray
    estimated_s: np.ndarray
    dev_s: np.ndarray
    timeout_s: np.ndarray
    retx_at_s: np.ndarray
    retx_probe: np.ndarray
    retx_spurious: np.ndarray
    truncated: bool

    @property
    def spurious(self) -> int:
        """Needless retransmissions: the probe (or an earlier copy) was on its way."""
        return int(np.count_nonzero(self.retx_spurious))

    @property
    def needed(self) -> int:
        """Retransmissions of probes lost in the run (the first copy after a loss)."""
        return int(self.retx_spurious.size - self.spurious)

    def wrong_samples(self, tolerance: float = 0.1) -> int:
        """Return how many samples the estimator took that differ from the true RTT of the answered copy by more
        than ``tolerance`` of it (never with Karn's rule: it takes only probes sent once)."""
        tol = check_real("tolerance", tolerance, 0.0)
        off = np.abs(self.sample_s - self.sample_true_s) > tol * self.sample_true_s
        return int(np.count_nonzero(off & self.sample_used))

    @property
    def skipped(self) -> int:
        """Samples Karn's rule left out (probes sent more than once)."""
        return int(np.count_nonzero(~self.sample_used))


def replay_timer(send_s, rtt_s, params: EstimatorParams | None = None, rule: str = "karn",
                 end_s: float | None = None) -> TimerReplay:
    """Replay the timer over probes sent at ``send_s`` (seconds, increasing) with round-trip times ``rtt_s``
    (seconds > 0, NaN for a probe lost in the run; a lost probe's first retransmission gets the RTT of the first
    probe that arrived among those sent at or after it). ``rule``: 'karn', 'first' or 'last'. ``end_s``: the end of
    the replay, seconds (default: the last probe's send time plus its RTT, or plus 1 s if it was lost)."""
    p = params or EstimatorParams()
    if not isinstance(p, EstimatorParams):
        raise ValueError(f"params={params!r} is not allowed: must be an EstimatorParams")
    check_choice("rule", rule, SAMPLE_RULES)
    send = np.asarray(send_s, dtype=float)
    rtt = np.asarray(rtt_s, dtype=float)
    if send.ndim != 1 or rtt.shape != send.shape:
        raise ValueError(f"send_s and rtt_s must be 1-D and of one length: got shapes {send.shape} and {rtt.shape}")
    if send.size > MAX_PROBES:
        raise ValueError(f"send_s has {send.size:,} probes: must have at most {MAX_PROBES:,}")
    if not np.all(np.isfinite(send)) or np.any(np.diff(send) < 0) or (send.size and send[0] < 0):
        raise ValueError("send_s is not allowed: must be finite times >= 0 s in increasing order")
    ok = ~np.isnan(rtt)
    if np.any(~np.isfinite(rtt[ok])) or np.any(rtt[ok] <= 0):
        raise ValueError("rtt_s is not allowed: must be finite times > 0 s (NaN for a lost probe)")
    if end_s is None:
        end_s = float(send[-1] + (rtt[-1] if ok[-1] else 1.0)) if send.size else 0.0
    end_s = check_real("end_s", end_s, 0.0)
    out = K.replay(send, rtt, send[ok].copy(), rtt[ok].copy(), p.alpha, p.beta, p.k,
                   max(p.min_timeout_s, MIN_TIMER_S), p.max_timeout_s, p.initial_timeout_s,
                   SAMPLE_RULES.index(rule), end_s)
    full, to_at_send, copies, _ack_at, st, sv, su, sp, strue, at, est, dev, to, rxt, rxp, rxs = out
    return TimerReplay(rule, p, to_at_send, copies, st, sv, su, sp, strue, at, est, dev, to, rxt, rxp, rxs, bool(full))
