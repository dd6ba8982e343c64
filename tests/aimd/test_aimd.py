"""simcore.aimd: Chiu and Jain's iteration against its closed forms, and two TCP flows of simcore.packet."""

import numpy as np
import pytest

from simcore.aimd import (
    TwoFlowSetting,
    aimd_trajectory,
    decreases_to_fairness,
    gap_after_decreases,
    jain_index_pair,
    run_two_flows,
    synchronised_share_ratio,
)


def test_each_decrease_halves_the_gap_and_increases_keep_it():
    tr = aimd_trajectory(10.0, 0.0, 10.0, 0.5, 0.5, 400)
    gap = tr.x1 - tr.x2
    dec = np.flatnonzero(tr.decreased)
    assert dec.size >= 6
    # by hand: the gap starts at 10, each halving halves it, each increase adds 0.5 to both
    for m, k in enumerate(dec, start=1):
        assert gap[k] == pytest.approx(gap_after_decreases(10.0, m)) == pytest.approx(10.0 / 2**m)
    inc = np.flatnonzero(~tr.decreased[1:]) + 1
    assert np.allclose(gap[inc], gap[inc - 1])
    assert tr.jain[-1] > 0.999 and tr.jain[0] == pytest.approx(0.5)


def test_decreases_to_fairness_closed_form():
    assert decreases_to_fairness(1.0, 0.1) == 4  # 1/16 < 0.1 < 1/8
    assert decreases_to_fairness(1.0, 0.125) == 3
    assert decreases_to_fairness(0.05, 0.1) == 0
    tr = aimd_trajectory(10.0, 0.0, 10.0, 0.5, 0.5, 400)
    first_below = np.flatnonzero(np.abs(tr.x1 - tr.x2) < 1.0)[0]
    assert tr.decreased[: first_below + 1].sum() == 4


def test_unequal_increments_settle_in_proportion():
    # synchronised halving with increments a1 = 4 a2 (RTT2 = 2 RTT1): the fixed point is x1/x2 = 4
    tr = aimd_trajectory(5.0, 5.0, 10.0, (0.04, 0.01), 0.5, 20_000)
    assert tr.x1[-1] / tr.x2[-1] == pytest.approx(synchronised_share_ratio(0.04, 0.08), rel=0.02)


def test_jain_index_by_hand():
    assert jain_index_pair(1.0, 1.0) == 1.0
    assert jain_index_pair(1.0, 0.0) == 0.5
    assert jain_index_pair(3.0, 1.0) == pytest.approx(16 / 20)


def test_two_equal_flows_converge_and_fill_the_link():
    s = TwoFlowSetting(rate_mbps=5.0, buffer_packets=20, start2_s=3.0, duration_s=20.0)
    run = run_two_flows(s)
    m1, m2 = run.mean_rates_bps(11.5)
    assert jain_index_pair(m1, m2) > 0.99
    assert 0.9 * s.payload_rate_bps < m1 + m2 <= s.payload_rate_bps * 1.001
    # while the queue is not empty, the two cwnd/RTT rates add up to the link (the full-utilisation line)
    after = run.time_s > 12.0
    total = run.rate1_bps[after] + run.rate2_bps[after]
    assert np.median(total) == pytest.approx(s.rate_mbps * 1e6, rel=0.05)
    assert np.array_equal(run.rate1_bps, run_two_flows(s).rate1_bps)  # deterministic


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match=r"decrease=1.0 is out of range"):
        aimd_trajectory(1.0, 1.0, 2.0, 0.1, 1.0)
    with pytest.raises(ValueError, match=r"increase=\(1, 2, 3\)"):
        aimd_trajectory(1.0, 1.0, 2.0, (1, 2, 3))
    with pytest.raises(ValueError, match=r"start2_s=50.0 is out of range"):
        TwoFlowSetting(start2_s=50.0)
    with pytest.raises(ValueError, match=r"more than 100,000 .*must be at most 12 s at this rate"):
        TwoFlowSetting(rate_mbps=100.0, duration_s=120.0)
