"""A real check on loopback: a real HTTP server and a real client, with the kernel's own segment counts.

The server is the standard library's ``http.server.ThreadingHTTPServer`` with ``SimpleHTTPRequestHandler``
serving a temporary folder from disk (HTTP/1.0: it closes the connection after every response, as the
paper's server did). It is started on 127.0.0.1, port chosen by the kernel, and stopped by
``loopback_fetch`` itself. The client is a plain socket speaking HTTP/1.0, so every connection's TCP_INFO
can be read (``tcp_info``): the connection is half-closed after the response, and the counters are read
once the kernel has finished the closing exchange, so they include SYN, FIN and every ACK.

Loopback is not the paper's hub: its MTU is 65536 (MSS 65483 here, not 1460), so a 10 KB file is one
segment; there is no shared medium and no 10 Mbit/s limit (memory copies, not a wire), and the kernel
acknowledges differently from a 2003 stack (quick ACKs at a connection's start). Its segment counts and
times are therefore not comparable in size with the paper's: only the direction of the package's gain is.
Requests go to 127.0.0.1 only, and the run is bounded: at most ``MAX_FILES`` files, ``MAX_TOTAL_BYTES``
bytes, ``MAX_REPEATS`` repeats and ``TIMEOUT_S`` per socket operation.
"""

from __future__ import annotations

import http.server
import os
import socket
import statistics
import tempfile
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial

from simcore._validate import check_choice, check_int, check_real

from .tcp_info import TcpInfo, available, read_tcp_info
from .wire import make_package

__all__ = ["MAX_FILES", "MAX_TOTAL_BYTES", "MAX_REPEATS", "TIMEOUT_S", "LoopbackResult", "serve_files",
           "fetch_one", "loopback_fetch", "available", "make_package"]

MAX_FILES = 500
MAX_TOTAL_BYTES = 20_000_000
MAX_REPEATS = 20
TIMEOUT_S = 5.0
PACKAGE_NAME = "page.opkg"


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.0"

    def log_message(self, format, *args):  # noqa: A002 - the stdlib's signature
        pass


@contextmanager
def serve_files(files: dict[str, bytes]):
    """Serve ``files`` (name -> bytes, written to a temporary folder) on 127.0.0.1; yield the port.
    The server thread is stopped and the folder removed on exit."""
    with tempfile.TemporaryDirectory(prefix="objpack-") as root:
        for name, data in files.items():
            if "/" in name or "\\" in name or name.startswith("."):
                raise ValueError(f"file name {name!r} is not allowed: must be a plain name")
            with open(os.path.join(root, name), "wb") as f:
                f.write(data)
        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(_QuietHandler, directory=root))
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        thread.start()
        try:
            yield server.server_address[1]
        finally:
            server.shutdown()
            server.server_close()
            thread.join(TIMEOUT_S)


def fetch_one(port: int, name: str) -> tuple[int, TcpInfo | None, float]:
    """GET /name over HTTP/1.0 on a new connection to 127.0.0.1:port; return (body bytes, TCP_INFO of the
    whole connection or None off Linux, seconds from connect() to the response's last byte). Only the
    exchange is timed: waiting for the closing handshake to finish, so that TCP_INFO counts it, is not.
    ValueError unless the status is 200."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(TIMEOUT_S)
        t0 = time.perf_counter()
        s.connect(("127.0.0.1", port))
        s.sendall(f"GET /{name} HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".encode("ascii"))
        chunks = []
        while True:
            b = s.recv(1 << 20)
            if not b:
                break
            chunks.append(b)
        elapsed = time.perf_counter() - t0  # the server's FIN: the response is complete
        s.shutdown(socket.SHUT_WR)  # our FIN; the server's ACK of it ends the exchange
        info = None
        if available():
            deadline = time.monotonic() + TIMEOUT_S
            info = read_tcp_info(s)
            while info.state not in (7, 6) and time.monotonic() < deadline:  # TCP_CLOSE, TCP_TIME_WAIT
                time.sleep(0.0005)
                info = read_tcp_info(s)
    data = b"".join(chunks)
    head, _, body = data.partition(b"\r\n\r\n")
    if not head.startswith(b"HTTP/1.0 200"):
        raise ValueError(f"GET /{name} failed: {head[:40]!r}")
    return len(body), info, elapsed


@dataclass(frozen=True)
class LoopbackResult:
    """Median over repeats of one way of fetching the files on loopback.

    ``time_s`` / ``times_s``: the sum over the fetch's connections of connect() to the response's last byte
    (the client's own work between connections and the wait for each closing handshake are not timed).

    ``segments_out`` / ``segments_in``: the client's TCP_INFO ``segs_out`` / ``segs_in`` summed over its
    connections (every SYN, FIN, ACK and data segment; on loopback the client's in is the server's out).
    """

    method: str
    n_files: int
    body_bytes: int
    time_s: float
    times_s: tuple[float, ...]
    segments_out: int
    segments_in: int
    data_segments_in: int
    n_connections: int
    mss_bytes: int

    @property
    def segments(self) -> int:
        """All segments of the exchange, both directions."""
        return self.segments_out + self.segments_in


def loopback_fetch(files: list[tuple[str, bytes, str]], method: str = "http10", repeats: int = 3) -> LoopbackResult:
    """Serve ``files`` (name, data, attribute) and their package from a real HTTP server on 127.0.0.1 and
    fetch them ``repeats`` times by ``method``: 'http10' (one connection per file, one after another) or
    'package' (one GET of the package). Return the median time and the kernel's segment counts."""
    check_choice("method", method, ("http10", "package"))
    check_int("repeats", repeats, 1, MAX_REPEATS)
    check_int("n_files", len(files), 1, MAX_FILES)
    total = sum(len(f[1]) for f in files)
    check_real("total bytes", total, 0, MAX_TOTAL_BYTES)
    served = {name: bytes(data) for name, data, _ in files}
    if len(served) != len(files):
        raise ValueError("file names must be unique")
    served[PACKAGE_NAME] = make_package(files)
    names = [f[0] for f in files] if method == "http10" else [PACKAGE_NAME]
    times, last = [], None
    with serve_files(served) as port:
        for _ in range(repeats):
            got = [fetch_one(port, n) for n in names]
            times.append(sum(t for _, _, t in got))
            last = got
    infos = [i for _, i, _ in last if i is not None]
    return LoopbackResult(
        method=method, n_files=len(files), body_bytes=sum(b for b, _, _ in last), time_s=statistics.median(times),
        times_s=tuple(times), segments_out=sum(i.segs_out for i in infos), segments_in=sum(i.segs_in for i in infos),
        data_segments_in=sum(i.data_segs_in for i in infos), n_connections=len(names),
        mss_bytes=max((i.snd_mss for i in infos), default=0),
    )
