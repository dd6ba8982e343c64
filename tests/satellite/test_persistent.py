"""HTTP/1.1 from the NZ proxy (beyond the paper): Zipf server popularity, connection reuse, validation."""

from __future__ import annotations

import numpy as np
import pytest

from simcore.satellite import SatelliteParams, Workload, build_satellite, simulate_satellite
from simcore.satellite.persistent import server_ids


def test_server_popularity_is_zipf_like():
    ids = server_ids(400_000, 50, 0.8, np.random.default_rng(3))
    f = np.bincount(ids, minlength=50) / ids.size
    # by hand: P(rank 1) / P(rank k) = k ** 0.8
    assert f[0] / f[1] == pytest.approx(2**0.8, rel=0.03)
    assert f[0] / f[9] == pytest.approx(10**0.8, rel=0.05)
    assert np.array_equal(ids, server_ids(400_000, 50, 0.8, np.random.default_rng(3)))


def _two_requests():
    n = 2
    return Workload(np.array([5.0, 20.0]), np.full(n, 300), np.full(n, 1000), np.full(n, 1460), np.full(n, 8760),
                    np.full(n, 0.03), np.full(n, 1e6), np.zeros(n, np.int64), np.zeros(n, np.int64))


def test_a_second_request_to_the_same_server_saves_the_handshake():
    """One server: both requests share one connection; the second skips SYN/SYN-ACK, one satellite round
    trip (0.64 s) plus the server link's round trip (2 x its class delay, < 0.4 s)."""
    p = SatelliteParams(http_version="1.1", n_servers=1, duration_s=40.0, measure_buffers=False)
    sc, plan = build_satellite(p, 0, _two_requests())
    assert sc.n_connections == 1 and plan.server_conn[0] == plan.server_conn[1]
    assert sc.msg_after[2] == 1  # the second request waits for the first reply (no pipelining)
    r = simulate_satellite(p, 0, requests=_two_requests())
    saved = r.request_time_s[0] - r.request_time_s[1]
    assert 0.64 < saved < 0.64 + 0.4
    h10 = simulate_satellite(SatelliteParams(duration_s=40.0, measure_buffers=False), 0, requests=_two_requests())
    assert h10.request_time_s[1] == pytest.approx(h10.request_time_s[0], abs=0.05)  # both pay it in HTTP/1.0


def test_http11_runs_and_reuses_connections():
    p = SatelliteParams(http_version="1.1", n_traces=3, duration_s=60.0, measure_buffers=False)
    a, b = simulate_satellite(p, 2), simulate_satellite(p, 2)
    assert np.array_equal(a.request_time_s, b.request_time_s, equal_nan=True)
    assert a.slots < a.requests  # fewer connections than requests
    assert np.isfinite(a.sample_latency_s).all()


@pytest.mark.parametrize("kw, name", [(dict(http_version="2"), "http_version"),
                                      (dict(http_version="1.1", architecture="us_proxy"), "http_version"),
                                      (dict(n_servers=0), "n_servers"),
                                      (dict(server_zipf_alpha=-1.0), "server_zipf_alpha")])
def test_bad_http_parameters_are_refused(kw, name):
    with pytest.raises(ValueError, match=name):
        SatelliteParams(**kw)
