"""SCTP's sender and receiver rules one at a time (``sctp.cc``, ``sctp.sack``), each against numbers
derived by hand from RFC 4960 (and RFC 2960 where the generations differ)."""

import numpy as np
import pytest

from simcore.packet.kernel import layout as L
from simcore.packet.sctp import cc as cc
from simcore.packet.sctp.sack import gap_blocks, sack_scan

MTU = 1500


def test_sending_is_allowed_while_flightsize_is_below_cwnd():
    # sec. 6.1 B; with cwnd 4380 (RFC 4960 IW for MTU 1500) and 1452-byte chunks: 0, 1452, 2904 and
    # 4356 < 4380 may send, so the initial flight is 4 chunks (5808 bytes), and 5808 may not
    sent, flight = 0, 0
    while cc.may_send(flight, 4380.0):
        flight += 1452
        sent += 1
    assert (sent, flight) == (4, 5808)


@pytest.mark.parametrize("cwnd, flight, burst, expected", [
    (20000.0, 0, 4, 6000.0),  # after a pause: flight 0 -> cwnd 4 MTU (the FTP study's design 3)
    (20000.0, 14000, 4, 20000.0),  # 14000 + 6000 = 20000 is not below cwnd: unchanged
    (20000.0, 13999, 4, 19999.0),
    (20000.0, 0, 0, 20000.0),  # Max.Burst 0: no limit
])
def test_max_burst_lowers_cwnd_before_new_data(cwnd, flight, burst, expected):
    assert cc.max_burst_cwnd(cwnd, flight, MTU, burst) == expected


def test_slow_start_grows_by_at_most_one_mtu_and_only_when_cwnd_was_full():
    # sec. 7.2.1: min(bytes acked, MTU), cumulative ack advanced, cwnd fully used, not in Fast Recovery
    args = dict(ssthresh_bytes=1e9, pba_bytes=0.0, mtu_bytes=MTU, cum_advanced=True, flight_after_bytes=1000,
                in_fast_recovery=False)
    assert cc.on_sack_cwnd(4380.0, acked_bytes=2904, flight_before_bytes=5808, **args)[0] == 4380 + 1500
    assert cc.on_sack_cwnd(4380.0, acked_bytes=1000, flight_before_bytes=5808, **args)[0] == 4380 + 1000
    assert cc.on_sack_cwnd(4380.0, acked_bytes=1452, flight_before_bytes=4000, **args)[0] == 4380  # not full
    assert cc.on_sack_cwnd(4380.0, acked_bytes=1452, flight_before_bytes=5808,
                           **{**args, "cum_advanced": False})[0] == 4380  # only gap acks
    assert cc.on_sack_cwnd(4380.0, acked_bytes=1452, flight_before_bytes=5808,
                           **{**args, "in_fast_recovery": True})[0] == 4380


def test_congestion_avoidance_adds_one_mtu_per_cwnd_of_acked_bytes():
    # sec. 7.2.2: cwnd 6000 > ssthresh 3000; acks of 1452 bytes each; pba 1452, 2904, 4356, 5808, 7260:
    # the 5th ack takes pba past 6000: pba 7260 - 6000 = 1260, cwnd 7500
    cwnd, pba = 6000.0, 0.0
    for k in range(5):
        cwnd, pba = cc.on_sack_cwnd(cwnd, 3000.0, pba, MTU, 1452, True, 8000, 6000, False)
        assert cwnd == (6000.0 if k < 4 else 7500.0)
    assert pba == 7260 - 6000
    # everything acknowledged: pba back to 0
    assert cc.on_sack_cwnd(6000.0, 3000.0, 4000.0, MTU, 1452, True, 8000, 0, False) == (6000.0, 0.0)
    # cwnd not fully used before the SACK: pba grows, cwnd does not
    assert cc.on_sack_cwnd(6000.0, 3000.0, 5000.0, MTU, 1452, True, 5000, 3000, False) == (6000.0, 6452.0)


@pytest.mark.parametrize("k, cwnd, fr, t3", [
    (4, 20000.0, (10000.0, 10000.0), (1500.0, 10000.0)),  # RFC 4960 sec. 7.2.3
    (4, 8000.0, (6000.0, 6000.0), (1500.0, 6000.0)),  # floor 4 MTU = 6000 > 8000 / 2
    (2, 8000.0, (4000.0, 4000.0), (1500.0, 4000.0)),  # RFC 2960: floor 2 MTU = 3000 < 4000
    (2, 4000.0, (3000.0, 3000.0), (1500.0, 3000.0)),
])
def test_loss_cuts_cwnd_as_each_generation_says(k, cwnd, fr, t3):
    assert cc.on_fast_retransmit(cwnd, MTU, k) == fr
    assert cc.on_t3_expiry(cwnd, MTU, k) == t3


@pytest.mark.parametrize("k, idle, expected", [
    (4, 0.99, 40000.0),  # less than one RTO idle: unchanged
    (4, 1.0, 20000.0),
    (4, 2.5, 10000.0),  # two whole RTOs
    (4, 10.0, 6000.0),  # 40000 -> 20000 -> 10000 -> 6000 (floor 4 MTU), then stays
    (2, 10.0, 3000.0),  # RFC 2960: floor 2 MTU
])
def test_idle_decay_halves_cwnd_per_rto_down_to_the_floor(k, idle, expected):
    assert cc.idle_decay(40000.0, MTU, k, idle, 1.0) == expected
    assert cc.idle_decay(2000.0, MTU, k, idle, 1.0) == 2000.0  # never raised


def test_gap_blocks_of_the_rfc_example():
    # RFC 4960 sec. 3.3.4: TSNs 10, 11, 12, 14, 15, 17 held -> cumulative TSN ack 12, blocks 2-3 and 5-5.
    # The receiver's blocks [14, 16) and [17, 18), given in any order:
    lo, hi = np.array([17, 14]), np.array([18, 16])
    s, e = np.zeros(4, np.int64), np.zeros(4, np.int64)
    assert gap_blocks(lo, hi, 2, 12, s, e, 4) == 2
    assert (s[:2].tolist(), e[:2].tolist()) == ([2, 5], [3, 5])
    # room for one block only: the lowest
    assert gap_blocks(lo, hi, 2, 12, s, e, 1) == 1 and (s[0], e[0]) == (2, 3)
    assert gap_blocks(lo, hi, 0, 12, s, e, 4) == 0


def _ring(n, nbytes=1000, cap=16):
    r = np.zeros(cap, L.SEG)
    r["start"][:n] = 1 + nbytes * np.arange(n)
    r["len"][:n] = nbytes
    return r


def _sack(ring, state, cum, gaps, htna=True, fr=False, threshold=3):
    blocks = np.full(6, -1, np.int64)  # gap blocks (start, end) from cum -> TSN ranges [lo, hi)
    for k, (a, b) in enumerate(gaps):
        blocks[2 * k], blocks[2 * k + 1] = cum + a, cum + b + 1
    head, n, base, cb, gb, freed, hn, marked, mb, _unmarked = sack_scan(ring, state[0], state[1], state[2], cum, blocks,
                                                             htna, fr, threshold)
    assert mb == 1000 * marked
    state[:] = [head, n, base]
    return cb, gb, freed, hn, marked


@pytest.mark.parametrize("threshold, htna", [(3, True), (4, False)])
def test_a_lost_tsn_is_marked_on_exactly_the_nth_miss_indication(threshold, htna):
    # TSNs 1..8 of 1000 bytes outstanding; TSN 3 lost. A SACK per arriving packet: after TSN 1 (cum 1),
    # TSN 2 (cum 2), then TSN 4 (cum 2, gap 2-2), TSN 5 (gap 2-3), TSN 6 (gap 2-4), TSN 7 (gap 2-5).
    # Each gap SACK newly acks one TSN above 3, so TSN 3 gains one miss indication per SACK under either
    # rule: marked on the 3rd gap SACK (RFC 4960, after TSN 6) or the 4th (RFC 2960, after TSN 7).
    ring, st = _ring(8), [0, 8, 1]
    assert _sack(ring, st, 1, [], htna, threshold=threshold) == (1000, 0, 1000, 1, 0)
    assert _sack(ring, st, 2, [], htna, threshold=threshold) == (1000, 0, 1000, 2, 0)
    assert st == [2, 6, 3]
    for k, last in enumerate((2, 3, 4, 5), start=1):
        cb, gb, freed, hn, marked = _sack(ring, st, 2, [(2, last)], htna, threshold=threshold)
        assert (cb, gb, freed, hn) == (0, 1000, 1000, 2 + last)
        assert ring[2]["miss"] == k and ring[3]["miss"] == 0  # TSN 3 only; TSN 4 is acknowledged
        assert marked == (1 if k == threshold else 0)
        assert ring[2]["frtx"] == (1 if k >= threshold else 0)
    # cum 7: TSN 3 is newly acknowledged (1000 bytes), the 4 gap-acked chunks leave without counting again;
    # TSN 3 left the flight when it was marked (here nobody sent it again), so no flight is freed
    assert _sack(ring, st, 7, [], htna, threshold=threshold)[:3] == (1000, 0, 0)
    assert st == [7, 1, 8]


def test_htna_counts_only_below_the_highest_tsn_newly_acknowledged():
    # TSNs 1..6 outstanding; SACK cum 1, gap 2-2 (TSN 3): TSN 2 reported missing below HTNA 3 -> 1 miss.
    # The same SACK again (nothing newly acknowledged): RFC 4960's HTNA adds nothing; RFC 2960 counts it.
    for htna, expected in ((True, 1), (False, 2)):
        ring, st = _ring(6), [0, 6, 1]
        _sack(ring, st, 1, [(2, 2)], htna)
        _sack(ring, st, 1, [(2, 2)], htna)
        assert ring[1]["miss"] == expected
    # TSNs 1..6; SACK cum 1, gap 4-4 acks TSN 5 (and TSN 1): TSNs 2, 3, 4 lie below HTNA 5 and
    # gain 1 each; the next acks TSN 3 (gaps 2-2, 4-4): HTNA 3, so only TSN 2 gains (2), TSN 4 stays at 1
    ring, st = _ring(6), [0, 6, 1]
    _sack(ring, st, 1, [(4, 4)])
    assert ring["miss"][1:4].tolist() == [1, 1, 1]
    _sack(ring, st, 1, [(2, 2), (4, 4)])
    assert ring["miss"][1:5].tolist() == [2, 1, 1, 0]


@pytest.mark.parametrize("fr, expected", [(False, 1), (True, 2)])
def test_in_fast_recovery_a_cumulative_advance_counts_every_tsn_reported_missing(fr, expected):
    # TSNs 1..6; SACK cum 0, gap 3-3 (TSN 3): TSNs 1, 2 below HTNA 3 gain 1. Then SACK cum 1, gap 2-2:
    # only TSN 1 is new (HTNA 1), so HTNA alone adds nothing to TSN 2; in Fast Recovery the cumulative
    # advance makes every TSN below the highest reported (3) count: TSN 2 gains its 2nd (sec. 7.2.4)
    ring, st = _ring(6), [0, 6, 1]
    _sack(ring, st, 0, [(3, 3)])
    assert ring["miss"][:2].tolist() == [1, 1]
    _sack(ring, st, 1, [(2, 2)], fr=fr)
    assert ring[1]["miss"] == expected


def test_a_tsn_is_marked_for_fast_retransmission_once():
    ring, st = _ring(8), [0, 8, 1]
    total = 0
    for last in range(1, 7):  # TSN 1 lost, TSNs 2..7 gap-acked one SACK at a time
        total += _sack(ring, st, 0, [(2, last + 1)], threshold=3)[4]
    assert ring[0]["miss"] == 6 and total == 1


def test_a_sack_reports_the_marked_chunks_it_acknowledges():
    # TSNs 1..4 of 1000 bytes outstanding; a T3 timeout marked TSNs 1, 2 and 4 for retransmission (mark = 1,
    # out of the flight). The SACK cum 2 with gap block TSN 4 acknowledges all three before they are resent:
    # the sender's count of marked chunks must drop by 3 (else it leaks and T3 is re-armed with nothing to
    # resend), and no byte of them leaves the flight a second time.
    ring = _ring(4)
    ring["mark"][[0, 1, 3]] = 1
    blocks = np.full(6, -1, np.int64)
    blocks[0], blocks[1] = 4, 5
    out = sack_scan(ring, 0, 4, 1, 2, blocks, True, False, 3)
    head, n, base, cb, gb, freed, hn, marked, mb, unmarked = out
    assert (head, n, base) == (2, 2, 3)
    assert (cb, gb, freed) == (2000, 1000, 0)
    assert (marked, unmarked) == (0, 3)
    assert ring["mark"].sum() == 0
