"""simcore.aimd: AIMD's convergence to fairness (Chiu & Jain 1989; K&R sec. 3.7.3), idealised and with two TCP
flows of simcore.packet."""

from simcore.aimd.chiu_jain import (
    AimdTrajectory,
    aimd_trajectory,
    decreases_to_fairness,
    gap_after_decreases,
    jain_index_pair,
    synchronised_share_ratio,
)
from simcore.aimd.two_flows import TwoFlowRun, TwoFlowSetting, run_two_flows

__all__ = ["AimdTrajectory", "aimd_trajectory", "decreases_to_fairness", "gap_after_decreases", "jain_index_pair",
           "synchronised_share_ratio", "TwoFlowRun", "TwoFlowSetting", "run_two_flows"]
