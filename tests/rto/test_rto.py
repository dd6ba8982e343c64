"""simcore.rto: the RTT estimator against RFC 6298 by hand and against simcore.packet's own TCP, its closed-form
step response, the timer replay on hand-worked probe sequences, and the probes measured on simcore.packet."""

import math

import numpy as np
import pytest

from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.rto import (
    EstimatorParams,
    ProbeSetting,
    estimate,
    measure_probes,
    replay_timer,
    samples_to_settle,
    step_response,
)


def test_first_samples_by_hand_rfc6298():
    # R1 = 100 ms: SRTT = 100, RTTVAR = 50, RTO = 300; R2 = 200 ms: RTTVAR = 0.75*50 + 0.25*|100-200| = 62.5
    # (with the SRTT from before), SRTT = 0.875*100 + 0.125*200 = 112.5, RTO = 112.5 + 4*62.5 = 362.5
    e = estimate([0.1, 0.2])
    assert np.allclose(e.estimated_s, [0.1, 0.1125]) and np.allclose(e.dev_s, [0.05, 0.0625])
    assert np.allclose(e.timeout_s, [0.3, 0.3625])
    # RFC 6298 2.4's floor of 1 s, and K&R's formula with K = 0
    assert np.allclose(estimate([0.1, 0.2], EstimatorParams(min_timeout_s=1.0)).timeout_s, [1.0, 1.0])
    assert np.allclose(estimate([0.1, 0.2], EstimatorParams(k=0)).timeout_s, [0.1, 0.1125])


def test_step_response_is_the_geometric_closed_form():
    before, after = 0.1, 0.3
    e = estimate([before] * 200 + [after] * 40)
    for n in (1, 5, 17, 40):
        assert e.estimated_s[199 + n] == pytest.approx(step_response(n, before, after), rel=1e-12)
    # 90 % of the step after ln(0.1)/ln(7/8) = 17.24 samples: the 17th leaves a bit more than 10 %, the 18th less
    assert samples_to_settle(0.1) == pytest.approx(math.log(0.1) / math.log(0.875))
    assert after - e.estimated_s[199 + 17] > 0.1 * (after - before) > after - e.estimated_s[199 + 18]


def _timed_samples(res):
    """The RTT samples simcore.packet's TCP takes, read from its packet trace with the rules of RFC 6298 / BSD:
    one segment timed at a time (the SYN, then the first new segment sent while none is timed), sampled when an ACK
    covers it, timing abandoned when anything is retransmitted (Karn)."""
    pt = res.packet_trace
    timing, t0, una, samples, times = -1, 0.0, 0, [], []
    for i in np.flatnonzero((pt.conn == 0) & ((pt.flags & 8) == 0)):
        t, kind, d, seq, ln, ack, fl = (pt.time_s[i], pt.kind[i], pt.direction[i], pt.seq[i], pt.seqlen[i], pt.ack[i],
                                        pt.flags[i])
        if kind == 0 and d == 0:
            if fl & 1:
                timing, t0 = 1, t
            elif ln > 0 and fl & 16:
                timing = -1
            elif ln > 0 and timing < 0:
                timing, t0 = seq + ln, t
        elif kind == 1 and d == 1 and fl & 2 and ack > una:
            if 0 <= timing <= ack:
                samples.append(t - t0)
                times.append(t)
                timing = -1
            una = ack
    return np.array(samples), np.array(times)


def test_estimator_gives_simcore_packets_rfc6298_numbers():
    # a lossy, queueing TCP flow (timeouts and retransmissions included) with a 1 ms RTO floor, so the RTO is the
    # formula's; the estimator fed with the samples TCP took must give the SRTT and RTO TCP recorded
    link = LinkParams(rate_bps=2e6, delay_s=0.03, queue_packets=20, loss_prob=0.01)
    db = dumbbell(1, link)
    tcp = TcpParams.preset("rfc5681", variant="newreno", mss_bytes=1000, rwnd_bytes=1 << 20, min_rto_s=1e-3)
    res = simulate(bulk_scenario(db.network, db.pairs, tcp, duration_s=10.0), seed=3, trace=True)
    assert res.timeouts[0, 0] > 0 and res.retransmits[0, 0] > 0
    samples, times = _timed_samples(res)
    e = estimate(samples, EstimatorParams(min_timeout_s=1e-3))
    tr = res.tcp_trace
    m = (tr.conn == 0) & (tr.direction == 0)
    row = np.searchsorted(tr.time_s[m], times, side="right") - 1
    assert np.allclose(tr.srtt_s[m][row], e.estimated_s, rtol=1e-12, atol=0)
    assert np.allclose(tr.rto_s[m][row], e.timeout_s, rtol=1e-12, atol=0)
    changes = np.count_nonzero(np.diff(np.nan_to_num(tr.srtt_s[m])) != 0)
    assert changes == samples.size  # no sample of TCP's was missed


# one probe a second (never two in flight): 0.1 s RTT for five probes, then 0.3 s for three
SEND = np.arange(8.0)
STEP = np.array([0.1] * 5 + [0.3] * 3)


def test_replay_of_a_step_with_karns_rule_by_hand():
    r = replay_timer(SEND, STEP, EstimatorParams(), "karn")
    # timeouts by hand: 1 s before any sample; after 0.1 s samples RTTVAR = 0.05 * 0.75^(n-1), RTO = 0.1 + 4 RTTVAR
    expected_to = [1.0, 0.3, 0.25, 0.2125, 0.184375, 0.16328125]
    assert np.allclose(r.timeout_at_send_s[:6], expected_to)
    # probe 5 (RTT 0.3) expires at 5.16328125: a needless retransmission; its timer doubles to 0.3265625, which
    # probe 6 keeps (no valid sample since); probe 5's ACK (5.3) is skipped; probe 6's (6.3 < 6.3265625) is taken
    assert np.allclose(r.retx_at_s, [5.16328125]) and list(r.retx_spurious) == [True]
    assert r.timeout_at_send_s[6] == pytest.approx(0.3265625)
    assert list(r.sample_used) == [True] * 5 + [False, True, True]
    # after probe 6: RTTVAR = 0.75*0.0158203125 + 0.25*|0.1 - 0.3|, SRTT = 0.875*0.1 + 0.125*0.3
    assert r.dev_s[6] == pytest.approx(0.061865234375) and r.estimated_s[6] == pytest.approx(0.125)
    assert r.timeout_at_send_s[7] == pytest.approx(0.125 + 4 * 0.061865234375)
    assert r.spurious == 1 and r.needed == 0 and r.skipped == 1 and r.wrong_samples() == 0


def test_replay_measuring_from_the_last_copy_underestimates():
    r = replay_timer(SEND, STEP, EstimatorParams(), "last")
    # probe 5's ACK (answering the original, sent at 5.0) measured from the copy at 5.16328125: 0.13671875 s
    assert r.sample_s[5] == pytest.approx(5.3 - 5.16328125) and r.sample_true_s[5] == pytest.approx(0.3)
    # RTTVAR = 0.75*0.0158203125 + 0.25*0.03671875, SRTT = 0.875*0.1 + 0.125*0.13671875 -> probe 6 times out too
    assert r.timeout_at_send_s[6] == pytest.approx(0.10458984375 + 4 * 0.021044921875)
    assert r.copies[6] == 2 and r.wrong_samples() >= 2 and r.spurious >= 2


def test_replay_of_a_lost_probe_by_hand():
    rtt = np.array([0.1] * 8)
    rtt[2] = np.nan  # lost: its timer (0.25 s, set at 2.0) fires at 2.25; the copy gets probe 3's RTT
    for rule, sample in (("karn", None), ("first", 0.35), ("last", 0.1)):
        r = replay_timer(SEND, rtt, EstimatorParams(), rule)
        assert np.allclose(r.retx_at_s, [2.25]) and list(r.retx_spurious) == [False], rule
        assert r.sample_at_s[2] == pytest.approx(2.35) and r.sample_true_s[2] == pytest.approx(0.1)
        assert r.sample_used[2] == (sample is not None), rule
        if sample is not None:
            assert r.sample_s[2] == pytest.approx(sample), rule
        assert r.wrong_samples() == (1 if rule == "first" else 0), rule


def test_probes_through_an_empty_queue_take_the_base_rtt():
    # no TCP flow (it would open at the end): every probe's RTT is propagation + its and its ACK's transmissions
    s = ProbeSetting(rtt_ms=60.0, rate_mbps=2.0, tcp_start_s=5.0, duration_s=5.0, probe_interval_ms=50.0)
    run = measure_probes(s)
    by_hand = 0.060 + 100 * 8 / 2e6 + 2 * 100 * 8 / 1e9 + 40 * 8 / 2e6 + 2 * 40 * 8 / 1e9
    assert s.base_rtt_s == pytest.approx(by_hand)
    assert run.lost == 0 and np.allclose(run.rtt_s, by_hand, rtol=1e-9)
    assert np.allclose(np.diff(run.send_s), 0.05)


def test_probes_behind_a_tcp_flow_wait_at_most_a_full_buffer():
    s = ProbeSetting(seed=2)
    run = measure_probes(s)
    ok = ~np.isnan(run.rtt_s)
    before = run.send_s < s.tcp_start_s
    assert np.allclose(run.rtt_s[before & ok], s.base_rtt_s)
    waits = run.rtt_s[ok] - s.base_rtt_s
    assert waits.max() <= s.max_queue_s + 1e-9 and waits.max() > 0.5 * s.max_queue_s  # the sawtooth fills it
    again = measure_probes(s)
    assert np.array_equal(run.rtt_s, again.rtt_s, equal_nan=True)


@pytest.mark.parametrize("bad, match", [
    (dict(alpha=0.0), r"alpha=0.0 is out of range.*\(0, 1\]"),
    (dict(k=-1), r"k=-1 is out of range.*\[0, 16\]"),
    (dict(min_timeout_s=2.0, max_timeout_s=1.0), r"max_timeout_s=1.0 is out of range"),
])
def test_bad_estimator_parameters_are_refused(bad, match):
    with pytest.raises(ValueError, match=match):
        EstimatorParams(**bad)


def test_bad_inputs_are_refused():
    with pytest.raises(ValueError, match=r"probe_interval_ms=2.0 is out of range.*60,000 probes"):
        ProbeSetting(probe_interval_ms=2.0, duration_s=120.0)
    with pytest.raises(ValueError, match=r"more than 300,000 .*must be at most 36 s at this rate"):
        ProbeSetting(rate_mbps=100.0, duration_s=120.0, probe_interval_ms=50.0)
    with pytest.raises(ValueError, match="rule='fast'"):
        replay_timer(SEND, STEP, rule="fast")
    with pytest.raises(ValueError, match="rtt_s is not allowed"):
        replay_timer(SEND, -STEP)
    with pytest.raises(ValueError, match="samples_s"):
        estimate([0.1, float("inf")])
    assert replay_timer(SEND, STEP, EstimatorParams(alpha=np.float64(0.25), k=np.int64(2))).sample_s.size == 8
