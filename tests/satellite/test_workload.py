"""The synthetic NZIX stand-in: rates, sizes, tail index, server parameters, merging, determinism.

Expected values are derived here from the stated distributions (closed forms with math.erf), not taken
from the generator; bounds are 4 standard errors computed in the test.
"""

from __future__ import annotations

import csv
import math
import pathlib

import numpy as np
import pytest

from simcore.satellite import WorkloadParams, day_traces, merge_traces, reply_mean_bytes, sample_pages

DATA = pathlib.Path(__file__).resolve().parents[2] / "data"


def _phi(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


@pytest.fixture(scope="module")
def big():
    """10^6 requests: 10 day-traces of 10^5 requests each."""
    p = WorkloadParams(requests_per_interval=1e5, n_days=10)
    return p, day_traces(p, 7)


def test_requests_per_interval_is_421_per_day_on_average():
    p = WorkloadParams(n_days=200)
    w = day_traces(p, 3)
    counts = np.bincount(w.day, minlength=200)
    se = math.sqrt(421.0 / 200)  # Poisson counts
    assert abs(counts.mean() - 421.0) < 4 * se
    assert abs(counts.var(ddof=1) / 421.0 - 1.0) < 4 * math.sqrt(2.0 / 199)  # Poisson: variance = mean
    assert w.time_s.min() >= 0.0 and w.time_s.max() < 600.0
    assert abs((w.time_s < 300.0).mean() - 0.5) < 4 * math.sqrt(0.25 / len(w))


def test_reply_sizes_mean_tail_fraction_and_body_median(big):
    p, w = big
    x = w.reply_bytes.astype(float)
    n = x.size
    mu, s, c, pt = math.log(p.reply_body_median_bytes), p.reply_body_sigma, p.reply_tail_start_bytes, p.reply_tail_prob
    a, M = p.reply_tail_alpha, p.reply_max_bytes
    zc = (math.log(c) - mu) / s
    # first and second moments of the body (lognormal restricted to x < c) and tail (Pareto on [c, M])
    m1b = math.exp(mu + s * s / 2) * _phi(zc - s) / _phi(zc)
    m2b = math.exp(2 * mu + 2 * s * s) * _phi(zc - 2 * s) / _phi(zc)
    norm = 1 - (c / M) ** a
    m1t = a * c**a / (a - 1) * (c ** (1 - a) - M ** (1 - a)) / norm
    m2t = a * c**a / (2 - a) * (M ** (2 - a) - c ** (2 - a)) / norm
    mean = (1 - pt) * m1b + pt * m1t
    sd = math.sqrt((1 - pt) * m2b + pt * m2t - mean**2)
    assert abs(x.mean() - mean) < 4 * sd / math.sqrt(n) + 0.5  # + rounding up to whole bytes
    assert abs(reply_mean_bytes(p) - mean) < 1e-6 * mean
    frac_tail = (x >= c).mean()
    assert abs(frac_tail - pt) < 4 * math.sqrt(pt * (1 - pt) / n)
    below_median = (1 - pt) * 0.5 / _phi(zc)  # P(X <= body median)
    assert abs((x <= p.reply_body_median_bytes).mean() - below_median) < 4 * math.sqrt(0.25 / n)


def test_reply_tail_index_by_hill_estimator(big):
    p, w = big
    u = 2 * p.reply_tail_start_bytes
    y = w.reply_bytes[w.reply_bytes > u].astype(float)
    a, M = p.reply_tail_alpha, p.reply_max_bytes
    hill = 1.0 / np.mean(np.log(y / u))
    r = (u / M) ** a  # truncation at M lowers E[log(X/u)] below 1/alpha:
    expected = 1.0 / (1.0 / a - math.log(M / u) * r / (1 - r))
    assert abs(hill - expected) < 4 * a / math.sqrt(y.size)
    assert y.max() <= M


def test_server_mss_window_and_request_sizes_follow_the_stated_distributions(big):
    p, w = big
    n = len(w)
    for values, probs, col in ((p.mss_values, p.mss_probs, w.server_mss_bytes),
                               (p.window_values, p.window_probs, w.server_window_bytes)):
        for v, q in zip(values, probs, strict=True):
            assert abs((col == v).mean() - q) < 4 * math.sqrt(q * (1 - q) / n) + 1e-12
    assert p.mss_values[int(np.argmax(p.mss_probs))] == 1480  # the paper's most common MSS
    lmean = p.request_median_bytes * math.exp(p.request_sigma**2 / 2)
    lsd = lmean * math.sqrt(math.exp(p.request_sigma**2) - 1)
    assert abs(w.request_bytes.mean() - lmean) < 4 * lsd / math.sqrt(n) + 0.5 + 1e-3 * lmean  # rint, clipping
    assert 20 < reply_mean_bytes(p) / lmean < 60  # application bytes; on the wire ~19 (tests/test_model)


def test_heavier_loads_merge_days_then_offset_copies():
    p = WorkloadParams(n_days=4)
    days = day_traces(p, 11)
    w = merge_traces(days, 10, 4, 600.0)  # days 0,1 thrice, days 2,3 twice; 3 copies, offsets 0, 200, 400 s
    per_day = np.bincount(days.day, minlength=4)
    assert len(w) == 3 * per_day[:2].sum() + 2 * per_day[2:].sum()
    assert np.all(np.diff(w.time_s) >= 0)
    d0 = np.sort(days.time_s[days.day == 0])
    for c in range(3):
        got = np.sort(w.time_s[(w.day == 0) & (w.copy == c)])
        assert np.allclose(got, np.sort(np.mod(d0 + 200.0 * c, 600.0)))
    assert w.reply_bytes.sum() == 3 * days.reply_bytes[days.day < 2].sum() + 2 * days.reply_bytes[days.day >= 2].sum()
    one = merge_traces(days, 4, 4, 600.0)
    assert math.isclose(merge_traces(days, 8, 4, 600.0).presented_load_bps(600.0), 2 * one.presented_load_bps(600.0))


def test_merging_until_a_time_keeps_the_same_requests_in_the_same_order():
    """``until_s`` filters before sorting: the result must be the whole merge's requests made before it, row for row
    (ties in time included: two copies of a day at the same offset tie, and go by day, then copy)."""
    p = WorkloadParams(n_days=3)
    days = day_traces(p, 5)
    for n_traces, until in ((7, 60.0), (7, 0.0), (3, 599.0), (12, 600.0), (6, 1e4)):
        whole = merge_traces(days, n_traces, 3, 600.0)
        part = merge_traces(days, n_traces, 3, 600.0, until_s=until)
        keep = whole.time_s < until
        assert len(part) == int(keep.sum())
        for f in whole.__dict__:
            assert getattr(part, f).tobytes() == getattr(whole, f)[keep].tobytes(), f
    with pytest.raises(ValueError, match="until_s=-1"):
        merge_traces(days, 3, 3, 600.0, until_s=-1.0)


def test_same_seed_same_traces_and_a_day_does_not_depend_on_the_number_of_days():
    a, b = day_traces(WorkloadParams(n_days=5), 42), day_traces(WorkloadParams(n_days=5), 42)
    for f in a.__dict__:
        assert np.array_equal(getattr(a, f), getattr(b, f))
    c = day_traces(WorkloadParams(n_days=9), 42)
    assert np.array_equal(a.reply_bytes[a.day == 3], c.reply_bytes[c.day == 3])
    assert not np.array_equal(a.time_s, day_traces(WorkloadParams(n_days=5), 43).time_s[: len(a)])


def test_stored_workload_is_what_the_generator_gives():
    with (DATA / "satellite_workload.csv").open() as f:
        rows = list(csv.DictReader(f))
    w = day_traces(WorkloadParams(), 1997)
    assert len(rows) == len(w) and (DATA / "satellite_workload.csv").stat().st_size < 1_000_000
    got = {k: np.array([float(r[k]) for r in rows]) for k in rows[0] if k != "source"}
    assert np.array_equal(got["day"], w.day) and np.array_equal(got["reply_bytes"], w.reply_bytes)
    assert np.array_equal(got["server_mss_bytes"], w.server_mss_bytes)
    assert np.abs(got["time_s"] - w.time_s).max() <= 5e-5
    assert np.abs(got["us_delay_ms"] - w.us_delay_s * 1e3).max() <= 5e-3
    assert all(r["source"] for r in rows)


def test_sample_pages_are_fixed_and_span_the_reply_distribution(big):
    p, w = big
    s = sample_pages(p)
    assert np.array_equal(s.reply_bytes, sample_pages(WorkloadParams()).reply_bytes)
    q = (np.arange(p.n_sample_pages) + 0.5) / p.n_sample_pages
    ecdf = np.searchsorted(np.sort(w.reply_bytes), s.reply_bytes, side="right") / len(w)
    assert np.all(np.abs(ecdf - q) < 4 * np.sqrt(q * (1 - q) / len(w)) + 2e-4)  # + ceil to whole bytes


@pytest.mark.parametrize("kw, name", [
    (dict(requests_per_interval=0), "requests_per_interval"),
    (dict(mss_probs=(0.5, 0.5, 0.0, 0.0, 0.1)), "mss_probs"),
    (dict(window_values=(100,), window_probs=(1.0,)), "window_values"),
    (dict(reply_tail_start_bytes=1000.0), "reply_body_median_bytes"),
    (dict(n_days=0), "n_days"),
])
def test_bad_workload_parameters_are_refused_by_name(kw, name):
    with pytest.raises(ValueError, match=name):
        WorkloadParams(**kw)
    with pytest.raises(ValueError, match="n_traces"):
        merge_traces(day_traces(WorkloadParams(n_days=1), 0), 0, 1, 600.0)


def test_different_seeds_share_no_day_trace_and_their_loads_differ_by_the_heavy_tail():
    """Seeds 2 and 3 at 590 day-traces present 41.79 Mbit/s each over 60 s, to 0.01 %: a coincidence of the
    heavy tail, not shared draws. Each seed draws its own day seeds (``day_traces``: one uint64 per day from
    ``make_generator(seed)``), so no day-trace of one seed is a day-trace of another."""
    p = WorkloadParams()
    traces = {s: day_traces(p, s) for s in (1, 2, 3)}
    firsts = {s: {tuple(w.reply_bytes[w.day == d][:8]) for d in range(p.n_days)} for s, w in traces.items()}
    assert all(len(f) == p.n_days for f in firsts.values())  # 31 different days within each seed
    assert not (firsts[1] & firsts[2]) and not (firsts[2] & firsts[3]) and not (firsts[1] & firsts[3])
    loads = {s: merge_traces(w, 590, p.n_days, p.interval_s).presented_load_bps(60.0) for s, w in traces.items()}
    assert loads[2] != loads[3] and abs(loads[2] / loads[3] - 1) < 2e-4  # the coincidence, to the digit
    assert len(traces[2]) != len(traces[3])
