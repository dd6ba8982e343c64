"""Session times on the loss-free testbed (1 Mbit/s, 35 ms each way), derived by hand from round trips
and transmission times.

Transmission time of a packet with n payload bytes: a(n) = (n + 40) * 8 / 1e6 s (IP + TCP header 40 B).
On arrival of a segment the receiver sends its pure ACK at once (delayed ACKs off here), then its
application writes; so a command or reply of n bytes crossing an idle link costs hop(n) = a(0) + a(n) + d
(the ACK of what just arrived goes first). An initial window of 10 segments sends a 10 KB file in one
flight, so no slow-start rounds enter the sums.
"""

import pytest

from simcore.ftp import FtpParams, run_transfer
from simcore.packet import TcpParams

D = 0.035
RTT = 2 * D
TCP = TcpParams(mss_bytes=1460, rwnd_bytes=32768, initial_window_segments=10, delayed_ack=False,
                initial_rto_s=3.0)


def a(n):
    return (n + 40) * 8 / 1e6


def hop(n):
    return a(0) + a(n) + D


def test_design1_one_small_file_takes_the_hand_computed_time():
    t = run_transfer(FtpParams(n_files=1, file_size_bytes=10240, design="ftp", tcp=TCP))
    # listing: PORT (19 B) ->, 200 (30 B) <-, NLST * (8 B) ->
    nlst_at_server = hop(19) + hop(30) + hop(8)
    # ftpd connect(): its ACK of NLST, then SYN (server -> client), SYN-ACK back: 3 a(0) + 2 d
    connected = nlst_at_server + 3 * a(0) + 2 * D
    # handshake ACK, 150 (58 B), listing "file01\r\n" (8 B) with the FIN on it (RFC 793 allows FIN on the
    # last data segment; the engine sends it so when the application closes behind its last write), 226 (24 B)
    listed = connected + a(0) + a(58) + a(8) + a(24) + D
    # file: PORT (19) ->, 200 (30) <-, SIZE file01 (13) ->, 213 10240 (11) <-, RETR file01 (13) ->
    retr_at_server = listed + hop(19) + hop(30) + hop(13) + hop(11) + hop(13)
    connected = retr_at_server + 3 * a(0) + 2 * D
    # handshake ACK, 150 (69 B), 10240 B = 7 x 1460 + 20 (the FIN rides on the last one), 226
    end = connected + a(0) + a(69) + 7 * a(1460) + a(20) + a(24) + D
    assert t.time_s == pytest.approx(end, abs=1e-8)
    assert t.complete_s == pytest.approx(end, abs=1e-8)  # the 226 left behind the file's last segment
    assert 7 * RTT < t.time_s < 7 * RTT + 0.1  # 7 round trips plus about 10 KB at 1 Mbit/s


@pytest.mark.parametrize("n", [2, 5])
def test_a_persistent_data_connection_saves_port_and_connect_two_round_trips_per_file(n):
    kw = dict(n_files=n, file_size_bytes=100, tcp=TCP)
    t1 = run_transfer(FtpParams(design="ftp", **kw)).time_s
    tb = run_transfer(FtpParams(design="persistent_data", **kw)).time_s
    # per file, design 1 adds PORT/200 (1 RTT) and RETR -> SYN -> SYN-ACK -> data instead of RETR -> data
    # (1 RTT); it also transmits PORT, 200, SYN, SYN-ACK, the handshake ACK, a FIN and their ACKs
    extra_tx = n * (a(19) + a(30) + a(69) + 8 * a(0))
    assert 0 <= (t1 - tb) - 2 * n * RTT <= extra_tx


@pytest.mark.parametrize("design", ["single", "persistent_data"])
def test_pipelining_saves_two_round_trips_for_every_file_after_the_first(design):
    n = 5
    kw = dict(n_files=n, file_size_bytes=100, tcp=TCP)
    t_seq = run_transfer(FtpParams(design=design, **kw)).time_s
    t_pipe = run_transfer(FtpParams(design=design + ("_pipelined"), **kw)).time_s
    # sequential: SIZE/213 and RETR/data per file, 2 RTT each; pipelined: all SIZEs in one round trip,
    # all RETRs in the next. The per-file packets (SIZE, 213, RETR, 150/125, data, 226 and their ACKs)
    # are serialized differently in the two, which bounds the difference.
    per_file_tx = 2 * a(13) + a(11) + a(69) + a(100) + a(24) + 6 * a(0)
    assert abs((t_seq - t_pipe) - 2 * (n - 1) * RTT) <= n * per_file_tx
