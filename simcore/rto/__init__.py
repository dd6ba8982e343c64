"""simcore.rto: TCP's RTT estimator and retransmission timeout (K&R sec. 3.5.3, RFC 6298), Karn's rule, and the
sample RTTs of probes measured on simcore.packet."""

from simcore.rto.estimator import Estimates, EstimatorParams, estimate, samples_to_settle, step_response
from simcore.rto.probes import MAX_PROBES, ProbeRun, ProbeSetting, measure_probes
from simcore.rto.replay import MIN_TIMER_S, SAMPLE_RULES, TimerReplay, replay_timer

__all__ = ["EstimatorParams", "Estimates", "estimate", "samples_to_settle", "step_response", "ProbeSetting",
           "ProbeRun", "measure_probes", "MAX_PROBES", "SAMPLE_RULES", "TimerReplay", "replay_timer", "MIN_TIMER_S"]
