"""RFC 6675's pipe over the sender's scoreboard (``kernel.scoreboard``) and what BBR does with it.

The pipe is worked by hand from RFC 6675 sec. 4 (SetPipe, with IsLost of sec. 4 / DupThresh 3): an unSACKed segment
counts once unless IsLost (3 or more SACKed segments above it, or more than 2 SMSS SACKed above it), and once more
if it was retransmitted in this recovery (at or below HighRxt).
"""

import dataclasses
from types import SimpleNamespace

import numpy as np
import pytest

from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell, simulate
from simcore.packet.kernel import layout as L
from simcore.packet.kernel import scoreboard
from simcore.packet.kernel.scoreboard import is_lost, pipe_bytes

MSS = 1000


class _Rows:
    """A scoreboard (``S.seg``) whose entries read as plain attributes (a numpy record's ``.flags`` is numpy's)."""

    def __init__(self, a):
        self.a, self.shape = a, a.shape

    def __getitem__(self, key):
        return SimpleNamespace(**{f: self.a[key][f] for f in self.a.dtype.names})


def _board(sacked, retransmitted, n=10, head=0, epoch=7):
    """A half with ``n`` segments of MSS bytes from byte 1 (segment i: [1 + 1000 i, 1 + 1000 (i + 1)))."""
    half = np.zeros(2, L.HALF).view(np.recarray)
    conn = np.zeros(1, L.CONN).view(np.recarray)
    conn[0].dupthresh, conn[0].mss = 3, MSS
    seg = np.zeros((1, 16), L.SEG)
    for i in range(n):
        k = (head + i) % 16
        seg[0, k]["start"], seg[0, k]["len"] = 1 + MSS * i, MSS
        seg[0, k]["flags"] = L.G_SACKED if i in sacked else 0
        seg[0, k]["epoch"] = epoch if i in retransmitted else 0
    half[0].seg_row, half[0].seg_head, half[0].seg_n, half[0].rec_epoch = 0, head, n, epoch
    return SimpleNamespace(half=half, conn=conn, seg=_Rows(seg))


def test_is_lost_is_three_sacked_segments_or_more_than_two_smss_above():
    assert not is_lost.py_func(2, 2 * MSS, 3, MSS)
    assert is_lost.py_func(3, 3 * MSS, 3, MSS)
    assert is_lost.py_func(1, 2 * MSS + 1, 3, MSS)  # one large SACKed block above: bytes decide


@pytest.fixture(autouse=True)
def _plain_is_lost(monkeypatch, request):
    """``pipe_bytes`` run as Python calls ``is_lost`` as Python too (the compiled one has no Python wrapper)."""
    if "probe_rtt" not in request.node.name:
        monkeypatch.setattr(scoreboard, "is_lost", is_lost.py_func)


@pytest.mark.parametrize("head", [0, 12])  # the ring wraps at 16 entries
def test_pipe_leaves_lost_segments_out_and_counts_retransmissions_again(head):
    # segments 5-8 SACKed: 0-4 each have 4 SACKed above (lost); 9 has none above (in flight)
    S = _board(sacked={5, 6, 7, 8}, retransmitted=set(), head=head)
    assert pipe_bytes.py_func(S, 0, 1) == 1 * MSS  # segment 9 only
    # segments 0 and 1 retransmitted in this recovery: each lost (0) but counted once as retransmitted
    S = _board(sacked={5, 6, 7, 8}, retransmitted={0, 1}, head=head)
    assert pipe_bytes.py_func(S, 0, 1) == 3 * MSS
    # only segments 8 and 9 SACKed: 0-7 have 2 above, none lost: all 8 in flight; 7 retransmitted counts twice
    S = _board(sacked={8, 9}, retransmitted={7}, head=head)
    assert pipe_bytes.py_func(S, 0, 1) == 9 * MSS


def test_pipe_counts_only_what_lies_above_the_ack():
    S = _board(sacked={8, 9}, retransmitted=set())
    assert pipe_bytes.py_func(S, 0, 1 + 3 * MSS) == 5 * MSS  # segments 3-7: 0-2 are acknowledged
    assert pipe_bytes.py_func(S, 0, 1 + 10 * MSS) == 0


@pytest.mark.parametrize("seed", [1, 3])
def test_bbr_probe_rtt_does_not_wait_for_every_hole_to_be_repaired(seed):
    """Ware et al. (IMC 2019, eq. 10) put a PROBE_RTT at (buffer drain + 200 ms + base RTT): 2.8 s for a 64-BDP
    buffer at 10 Mbit/s and 40 ms (2,133 packets of 1,500 bytes drain in 2.56 s), since BBR leaves it once its own
    in-flight data is down to 4 segments. A CUBIC flow keeps that buffer full and BBR's flight holds lost segments;
    counting them as in flight (Linux does not: ``tcp_packets_in_flight``) kept BBR at its 4-segment window until
    every hole was repaired a few segments per 2.6 s round trip: 14-17 s episodes in these runs. Bound: twice the
    model's 2.8 s (the floor also holds a recovery's first round trips)."""
    bn = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=2133)
    db = dumbbell(2, bn)
    tcps = [TcpParams(recovery="sack", congestion_control=cc, mss_bytes=1460, rwnd_bytes=16 * 2**20,
                      initial_window_segments=10, delayed_ack=True, delayed_ack_timeout_s=0.2, limited_transmit=True,
                      min_rto_s=0.2) for cc in ("bbr", "cubic")]
    sc = bulk_scenario(db.network, db.pairs, tcps[0], 120.0, (0.0, 0.1))
    sc = dataclasses.replace(sc, connections=tuple(dataclasses.replace(c, tcp=tp)
                                                   for c, tp in zip(sc.connections, tcps, strict=True)))
    tr = simulate(sc, seed=seed, trace=True).tcp_trace
    sel = (tr.conn == 0) & (tr.direction == 0)
    t, low = tr.time_s[sel], tr.cwnd_bytes[sel] <= 4 * 1460 + 1e-6
    starts = t[1:][low[1:] & ~low[:-1]]
    ends = t[1:][~low[1:] & low[:-1]]
    episodes = [ends[ends > s][0] - s for s in starts if (ends > s).any() and s > 40.0]
    assert len(episodes) >= 3, episodes  # one PROBE_RTT per ~10 s at least
    assert max(episodes) < 2 * 2.8, episodes
