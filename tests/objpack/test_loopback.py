"""TCP_INFO parsing from a hand-built struct, and the real loopback check (bounded: 4 small files)."""

import dataclasses
import socket
import struct
import time

import pytest

from simcore.objpack.loopback import MAX_FILES, fetch_one, loopback_fetch, serve_files
from simcore.objpack.tcp_info import TCP_INFO_BYTES, available, parse_tcp_info, read_tcp_info


def test_parse_reads_the_documented_offsets():
    raw = bytearray(TCP_INFO_BYTES)
    raw[0] = 7
    struct.pack_into("=I", raw, 16, 1460)
    struct.pack_into("=Q", raw, 128, 123456789)
    struct.pack_into("=II", raw, 136, 11, 13)
    struct.pack_into("=II", raw, 152, 5, 6)
    info = parse_tcp_info(bytes(raw))
    assert (info.state, info.snd_mss, info.bytes_received) == (7, 1460, 123456789)
    assert (info.segs_out, info.segs_in, info.data_segs_in, info.data_segs_out) == (11, 13, 5, 6)
    with pytest.raises(ValueError, match="too short"):
        parse_tcp_info(bytes(100))


linux = pytest.mark.skipif(not available(), reason="TCP_INFO counters need Linux")


@linux
def test_kernel_counts_a_fresh_connection():
    with socket.create_server(("127.0.0.1", 0)) as srv:
        c = socket.create_connection(srv.getsockname())
        a, _ = srv.accept()
        info = read_tcp_info(c)
        # the client sent SYN and ACK and received the SYN-ACK (RFC 793's three-way handshake)
        assert (info.segs_out, info.segs_in) == (2, 1)
        c.close()
        a.close()


@linux
def test_loopback_fetch_both_ways():
    files = [(f"f{k}.txt", bytes([65 + k]) * (500 + 100 * k), "text") for k in range(4)]
    http = loopback_fetch(files, "http10", repeats=1)
    pkg = loopback_fetch(files, "package", repeats=1)
    assert http.body_bytes == sum(len(d) for _, d, _ in files) and http.n_connections == 4
    # per connection at least SYN, SYN-ACK, ACK, GET, response, FIN, FIN, last ACK minus what may ride
    # together (the GET's ACK on the response, a FIN on an ACK): 7 or more
    assert http.segments >= 7 * 4
    assert pkg.n_connections == 1 and pkg.segments < http.segments
    # FORMAT.md: 9-byte fixed header (magic 4, version 1, count 4), per file 2 + name + 8 + 1, then data
    assert pkg.body_bytes == 9 + sum(2 + len(n) + 8 + 1 + len(d) for n, d, _ in files)


def test_loopback_is_bounded_and_refuses_bad_input():
    with pytest.raises(ValueError, match="n_files"):
        loopback_fetch([("a", b"1", "text")] * (MAX_FILES + 1))
    with pytest.raises(ValueError, match="method"):
        loopback_fetch([("a", b"1", "text")], "ftp")
    with pytest.raises(ValueError, match="plain name"), serve_files({"../x": b"1"}):
        pass


@linux
def test_missing_file_is_an_error():
    with serve_files({"a": b"1"}) as port, pytest.raises(ValueError, match="failed"):
        fetch_one(port, "nope")


@linux
def test_waiting_for_the_closing_handshake_is_not_timed(monkeypatch):
    # A fake clock that only the closing-handshake poll advances (by 1000 s a sleep), and TCP_INFO that reports
    # the connection open twice before it closes: the exchange itself takes no fake time, so the timed region
    # must read 0 whatever the poll waits.
    import types

    import simcore.objpack.loopback as lb

    clock = {"t": 0.0}
    fake_time = types.SimpleNamespace(perf_counter=lambda: clock["t"], monotonic=time.monotonic,
                                      sleep=lambda s: clock.__setitem__("t", clock["t"] + 1000.0))
    real_read = lb.read_tcp_info
    reads = {"n": 0}

    def slow_close(sock):
        reads["n"] += 1
        info = real_read(sock)
        return dataclasses.replace(info, state=1) if reads["n"] % 3 else info  # ESTABLISHED, twice

    monkeypatch.setattr(lb, "time", fake_time)
    monkeypatch.setattr(lb, "read_tcp_info", slow_close)
    r = loopback_fetch([("a.txt", b"x" * 300, "text"), ("b.txt", b"y" * 300, "text")], "http10", repeats=1)
    assert clock["t"] >= 2 * 2000.0  # the poll did wait (two sleeps per connection)
    assert r.time_s == 0.0 and r.segments > 0
