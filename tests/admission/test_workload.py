"""Client draws: determinism, the thesis's stated workload shares, and the required bandwidth."""

import csv
from itertools import combinations
from math import comb
from pathlib import Path

import numpy as np
import pytest

from simcore.admission import (
    FILE_CATALOG_KB,
    FILES_PER_CLIENT,
    AdmissionParams,
    draw_workload,
    required_bandwidth_Bps,
)

DATA = Path(__file__).resolve().parents[2] / "data"


def _exact_shares(experiment):
    """Exact P(total < 10 KB), P(total < 20 KB), P(wants the largest file) for k uniform, distinct files."""
    cat = FILE_CATALOG_KB[experiment]
    lo, hi = FILES_PER_CLIENT[experiment]
    out = np.zeros(3)
    for k in range(lo, hi + 1):
        subsets = list(combinations(range(len(cat)), k))
        assert len(subsets) == comb(len(cat), k)
        tot = np.array([sum(cat[j] for j in s) for s in subsets])
        big = np.array([len(cat) - 1 in s for s in subsets])
        out += np.array([np.mean(tot < 10), np.mean(tot < 20), np.mean(big)]) / (hi - lo + 1)
    return out


def _sample_shares(experiment, seeds):
    tot, big = [], []
    for s in seeds:
        p = AdmissionParams(experiment=experiment)
        w = draw_workload(p, s)
        kb = w.bytes_per_client / p.kilobyte_bytes
        tot.append(kb)
        big.append(np.maximum.reduceat(w.file_size_bytes, w.file_off[:-1]) >= 1024 * p.kilobyte_bytes)
    tot = np.concatenate(tot)
    big = np.concatenate(big)
    return np.array([np.mean(tot < 10), np.mean(tot < 20), np.mean(big)]), tot.size


@pytest.mark.parametrize("experiment", [1, 2])
def test_sampler_matches_exact_shares_and_thesis_shares(experiment):
    exact = _exact_shares(experiment)
    est, n = _sample_shares(experiment, range(40))
    se = np.sqrt(exact * (1 - exact) / n)
    assert np.all(np.abs(est - exact) < 5 * se), (est, exact)
    # the thesis's shares come from one sample of 200 / 400 clients: compare with binomial tolerance
    rows = [
        r for r in csv.DictReader(open(DATA / "admission_workload.csv")) if r["experiment"] == str(experiment)
    ]
    th = {r["quantity"]: float(r["value"]) / 100 for r in rows}
    thesis = np.array(
        [
            th["pct_clients_total_under_10kb"],
            th["pct_clients_total_under_20kb"],
            th["pct_clients_requesting_largest"],
        ]
    )
    n_thesis = AdmissionParams(experiment=experiment).clients
    tol = 3 * np.sqrt(exact * (1 - exact) / n_thesis) + 0.005  # + rounding of the printed percentages
    assert np.all(np.abs(thesis - exact) < tol), (thesis, exact, tol)


def test_same_seed_same_clients_and_distinct_files():
    p = AdmissionParams(experiment=1)
    a, b = draw_workload(p, 7), draw_workload(p, 7)
    for f in ("arrival_s", "access_Bps", "file_off", "file_size_bytes"):
        assert np.array_equal(getattr(a, f), getattr(b, f))
    assert a.token_key == b.token_key
    assert not np.array_equal(a.arrival_s, draw_workload(p, 8).arrival_s)
    assert np.all(np.diff(a.arrival_s) >= 0)
    assert a.arrival_s.min() >= 0 and a.arrival_s.max() < p.window_s
    assert a.access_Bps.min() >= 1600 and a.access_Bps.max() <= 35000
    # experiment 1: the four catalog files are all different, so a client's files are all different
    for i in range(a.n_clients):
        files = a.file_size_bytes[a.file_off[i] : a.file_off[i + 1]]
        assert 1 <= files.size <= 4 and np.unique(files).size == files.size
    # the policy does not change the clients (control comparisons rely on it)
    c = draw_workload(AdmissionParams(experiment=1, policy="Ticket", extra_sockets=6), 7)
    assert np.array_equal(a.file_size_bytes, c.file_size_bytes)


@pytest.mark.parametrize("order", ["small_first", "large_first"])
def test_file_order_reorders_each_clients_files_only(order):
    base = draw_workload(AdmissionParams(experiment=2), 3)
    w = draw_workload(AdmissionParams(experiment=2, file_order=order), 3)
    for i in range(w.n_clients):
        sl = slice(w.file_off[i], w.file_off[i + 1])
        got = w.file_size_bytes[sl]
        assert np.array_equal(np.sort(got), np.sort(base.file_size_bytes[sl]))
        d = np.diff(got)
        assert np.all(d >= 0) if order == "small_first" else np.all(d <= 0)


def test_required_bandwidth_counts_only_what_clients_can_take():
    p = AdmissionParams(experiment=1)
    w = draw_workload(p, 1)
    req = required_bandwidth_Bps(w, p.window_s)
    total = w.bytes_per_client.sum() / p.window_s
    assert 0 < req <= total
    # late or slow clients are truncated: a client arriving at the very end adds nothing
    late = np.minimum(w.bytes_per_client, w.access_Bps * (p.window_s - w.arrival_s))
    assert req == pytest.approx(late.sum() / p.window_s)
    assert np.any(late < w.bytes_per_client)
