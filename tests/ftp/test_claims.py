"""The claims' verdicts: intervals checked against hand arithmetic (Student t table values), and each rule
against made-up samples whose answer is plain."""

import math

import pytest

from simcore.ftp.claims import VISIBLE_CHANGE, PointStats, ratio_interval, verdicts, welch
from simcore.ftp.readings import READINGS


def P(mean, sd=0.0, n=100, gave_up=0):
    return PointStats(n_runs=n + gave_up, n_done=n, n_gave_up=gave_up, mean_s=mean, sd_s=sd)


def test_welch_interval_of_a_difference_by_hand():
    # 10 +- sd 2 (n 25) minus 8 +- sd 2 (n 25): se = sqrt(4/25 + 4/25) = 0.565685; Welch df = 48;
    # t_{0.95, 48} = 1.6772 (t table), half-width 0.9488
    iv = welch([(1.0, P(10, 2, 25)), (-1.0, P(8, 2, 25))])
    assert iv.value == pytest.approx(2.0)
    assert iv.hi - iv.value == pytest.approx(1.6772 * 0.565685, abs=2e-3)
    assert iv.above(1.0) and iv.below(2.95) and not iv.below(2.94)


def test_a_deterministic_point_has_a_point_interval():
    iv = welch([(1.0, P(6.5)), (-1.0, P(2.6))])
    assert (iv.lo, iv.value, iv.hi) == pytest.approx((3.9, 3.9, 3.9))


def test_fieller_with_an_exact_denominator_is_the_numerator_interval_scaled():
    # den exact (sd 0): the ratio's interval is num's t-interval / den; num: 50 +- sd 10, n 16, df 15,
    # t_{0.95, 15} = 1.753: 50 +- 1.753 * 10 / 4 = 50 +- 4.3825, over 100
    iv = ratio_interval(P(50, 10, 16), P(100))
    assert iv.value == pytest.approx(0.5)
    assert (iv.lo, iv.hi) == pytest.approx(((50 - 4.3825) / 100, (50 + 4.3825) / 100), abs=1e-6)


def test_fieller_interval_holds_exactly_the_ratios_not_rejected():
    # var of the means 144/40 = 3.6 and 400/40 = 10; at r = 0.5 Welch's df = (3.6 + 2.5)^2 / ((3.6^2 + 2.5^2) / 39)
    # = 75.5, so t_{0.95, 75} = 1.6654 (t table)
    num, den = P(30, 12, 40), P(60, 20, 40)
    iv = ratio_interval(num, den)
    assert iv.lo < 0.5 < iv.hi
    for r in (iv.lo, iv.hi):  # at the ends, num - r den is exactly t standard errors from 0
        se = math.sqrt(num.var_of_mean + r * r * den.var_of_mean)
        assert abs(num.mean_s - r * den.mean_s) / se == pytest.approx(1.6654, abs=2e-4)


def _records(reading, size, times):
    """times: {(loss, design): PointStats}"""
    return [{"reading": reading, "file_size_bytes": size, "loss": lo, "design": d, "n_runs": p.n_runs,
             "n_done": p.n_done, "n_gave_up": p.n_gave_up, "mean_s": p.mean_s, "sd_s": p.sd_s}
            for (lo, d), p in times.items()]


def _judge(points):
    recs = _records("fraction", 10240, points)
    return {v.claim: v for v in verdicts(recs, {"fraction": READINGS["fraction"]})}


def _points(t1, t3, t4):
    """t1, t3, t4: three (mean, sd) per design, at losses 0, 10%, 30%"""
    out = {}
    for d, ts in ((1, t1), (2, t1), (3, t3), (4, t4)):
        for lo, (m, sd) in zip((0.0, 0.1, 0.3), ts, strict=True):
            out[(lo, d)] = P(m, sd if lo > 0 else 0.0)
    return out


def test_the_issue_30_percent_case_is_not_resolved_for_c3_and_c1():
    # design 3 at 30%: 0.98 x design 1 with a difference whose interval is about +-242 s
    v = _judge(_points(t1=[(6.5, 0), (43.6, 22), (1058.7, 900)], t3=[(2.6, 0), (21, 12), (1037, 900)],
                       t4=[(1.15, 0), (4.8, 2.4), (525.2, 500)]))
    assert v["C3"].verdict == "not resolved"  # faster by 2%, far inside the noise
    assert v["C1"].verdict == "not resolved"  # 0.496, its interval straddles 0.5


def test_c1_c2_c3_hold_when_the_gain_is_large_and_grows():
    v = _judge(_points(t1=[(6.5, 0), (17, 6), (129, 90)], t3=[(2.6, 0), (6, 3), (56, 50)],
                       t4=[(1.15, 0), (1.8, 1.2), (10.7, 18)]))
    assert v["C1"].verdict == v["C2"].verdict == v["C3"].verdict == "yes"


def test_c2_too_small_to_see_and_c2_reversed():
    small = _judge(_points(t1=[(6.5, 0), (6.8, 0.5), (7.3, 1.1)], t3=[(2.6, 0), (2.7, 0.3), (2.9, 0.5)],
                           t4=[(1.15, 0), (1.19, 0.16), (1.22, 0.22)]))
    assert small["C2"].verdict == "no" and "too small to see" in small["C2"].why
    growth = (1.15 / 6.5) - (1.22 / 7.3)
    assert 0 < growth < VISIBLE_CHANGE  # the improvement does grow, by about one point
    rev = _judge(_points(t1=[(6.5, 0), (43.6, 22), (1100, 500)], t3=[(2.6, 0), (21, 12), (1100, 550)],
                         t4=[(1.15, 0), (4.8, 2.4), (600, 440)]))
    assert rev["C2"].verdict == "no" and "shrinks from 10% to 30%" in rev["C2"].why


def test_c3_no_when_design_3_is_significantly_slower():
    v = _judge(_points(t1=[(6.5, 0), (20, 2), (100, 10)], t3=[(2.6, 0), (30, 2), (150, 10)],
                       t4=[(1.15, 0), (2, 1), (10, 5)]))
    assert v["C3"].verdict == "no"


def test_too_few_finished_sessions_are_not_measurable_and_give_ups_are_reported():
    pts = _points(t1=[(6.5, 0), (17, 6), (129, 90)], t3=[(2.6, 0), (6, 3), (56, 50)],
                  t4=[(1.15, 0), (1.8, 1.2), (10.7, 18)])
    pts[(0.3, 1)] = P(129, 90, n=50, gave_up=3)
    v = _judge(pts)
    assert "design 1 at 30%: 3 of 53 gave up" in v["C1"].why
    pts[(0.3, 4)] = P(10.7, math.nan, n=1, gave_up=99)
    assert _judge(pts)["C1"].verdict == "not measurable"
