"""Parallel FTP sessions against a competing bulk flow (the paper's "TCP-unfriendly" argument)."""

import pytest

from simcore.ftp import FtpParams
from simcore.ftp.competition import compete


@pytest.fixture(scope="module")
def runs():
    return {n: compete(n, seed=0) for n in (1, 8)}


def test_more_sessions_take_more_of_the_bottleneck(runs):
    assert runs[8].ftp_share > runs[1].ftp_share
    assert runs[8].competitor_rate_bps < runs[1].competitor_rate_bps
    assert runs[8].time_s < runs[1].time_s


def test_both_flows_together_fit_in_the_link(runs):
    # payload bytes of both during the mget cannot exceed 1 Mbit/s x its duration (headers take the rest)
    for c in runs.values():
        assert c.ftp_bytes + c.competitor_bytes <= 1e6 / 8 * c.time_s
        assert c.ftp_bytes == 10 * 100 * 1024


def test_bad_parameters_are_refused():
    with pytest.raises(ValueError, match="n_parallel=0"):
        compete(0)
    with pytest.raises(ValueError, match="params="):
        compete(2, params={"loss": 0.1})
    with pytest.raises(ValueError, match="max_time_s"):
        compete(1, params=FtpParams(file_size_bytes=1 << 20, max_time_s=5.0))
