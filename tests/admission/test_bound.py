"""The lower bound: SRPT completion times against brute force, and the bound against simulated runs."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.admission import AdmissionParams, Workload, session_lower_bound_s, simulate_admission
from simcore.admission._kernel import srpt_completion_s


def _brute_srpt(release, work, cap):
    n = len(release)
    rem = np.array(work, float)
    comp = np.full(n, np.nan)
    t = min(release)
    while np.isnan(comp).any():
        avail = [i for i in range(n) if release[i] <= t and np.isnan(comp[i])]
        later = [release[i] for i in range(n) if release[i] > t]
        if not avail:
            t = min(later)
            continue
        j = min(avail, key=lambda i: (rem[i], i))
        nxt = min(later, default=np.inf)
        fin = t + rem[j] / cap
        if fin <= nxt:
            comp[j], rem[j], t = fin, 0.0, fin
        else:
            rem[j] -= (nxt - t) * cap
            t = nxt
    return comp


def test_srpt_matches_brute_force_and_closed_form():
    rng = np.random.default_rng(1)
    for _ in range(25):
        r, w = rng.uniform(0, 5, 25), rng.exponential(1.0, 25)
        np.testing.assert_allclose(srpt_completion_s(r, w, 2.0), _brute_srpt(r, w, 2.0), rtol=1e-12)
    # all released at once: shortest first, completions are the cumulative sorted works
    w = rng.exponential(1.0, 50)
    comp = srpt_completion_s(np.zeros(50), w, 4.0)
    np.testing.assert_allclose(np.sort(comp), np.cumsum(np.sort(w)) / 4.0, rtol=1e-12)


@settings(max_examples=25, deadline=None)
@given(
    n=st.integers(1, 40),
    sockets=st.integers(1, 8),
    cap=st.floats(2_000.0, 200_000.0),
    policy=st.sampled_from(["HTTP", "FTP", "Reserve", "Ticket"]),
    seed=st.integers(0, 10_000),
)
def test_no_policy_beats_the_bound(n, sockets, cap, policy, seed):
    rng = np.random.default_rng(seed)
    k = rng.integers(1, 4, n)
    off = np.concatenate([[0], np.cumsum(k)]).astype(np.int64)
    sizes = rng.choice([1024.0, 10240.0, 102400.0, 1048576.0], off[-1])
    wl = Workload(np.sort(rng.uniform(0, 120, n)), rng.uniform(1600, 35000, n), off, sizes, 7)
    p = AdmissionParams(policy=policy, sockets=sockets, extra_sockets=1)
    r = simulate_admission(p, 0, workload=wl, capacity_Bps=cap)
    per, mean = session_lower_bound_s(wl, cap, p.connect_s + p.bind_s)
    assert np.all(r.session_s >= per * (1 - 1e-12))
    assert r.mean_session_s >= mean * (1 - 1e-12)
    # the mean bound is never weaker than the per-client one, and the aggregate (server) part binds
    # strictly when the server is slower than every client's access link and two or more clients share it
    assert mean >= per.mean() * (1 - 1e-12)
    if n >= 2 and cap < wl.access_Bps.min():
        assert mean > per.mean()
