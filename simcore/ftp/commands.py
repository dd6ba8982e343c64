r"""FTP control commands and replies (RFC 959), byte for byte, as a BSD ``ftp`` client and ``ftpd`` send them.

RFC 959 sec. 4.1/5.3 gives commands as ``<verb> [SP <argument>] CRLF`` and sec. 4.2 replies as
``<3-digit code> SP <text> CRLF``; RFC 3659 sec. 4 gives the SIZE reply ``213 SP <size in octets> CRLF``.
The texts are those of the 4.4BSD-lineage ``ftpd`` of the paper's era (as in FreeBSD 4.x: ``reply(150,
"Opening %s mode data connection for '%s'%s.", ..., " (%qd bytes)")`` in ``dataconn()``, ``reply(226,
"Transfer complete.")`` in ``send_data()``). Addresses are the model's testbed addresses (client
10.1.1.2, server 10.1.2.3); the client's data ports count up from 1026, as FreeBSD's ephemeral range
(1024-5000) hands them out. File names are ``file01``, ``file02``, ... (at least two digits).

An ``mget`` of N files as the BSD client performs it (active mode, after login); sizes are bytes::

    step   from    bytes on the wire (N = 10 files of 10 KB; file 1 shown)                 size
    login  server  220 10.1.2.3 FTP server (Version 6.00LS) ready.\r\n                   49   (not timed)
    login  client  USER ftp\r\n  /  331 Password required for ftp.\r\n                    10 / 32
    login  client  PASS ftp@\r\n  /  230 User ftp logged in.\r\n                         11 / 25
    login  client  TYPE I\r\n  /  200 Type set to I.\r\n                                  8 / 20
    list   client  PORT 10,1,1,2,4,2\r\n  /  200 PORT command successful.\r\n           19 / 30  (timing starts)
    list   client  NLST *\r\n  (mget *)                                                   8
    list   server  150 Opening BINARY mode data connection for 'file list'.\r\n          58
    list   server  data connection: file01\r\n ... file10\r\n                           8 per name = 80
    list   server  226 Transfer complete.\r\n                                             24
    file   client  PORT 10,1,1,2,4,3\r\n  /  200 PORT command successful.\r\n           19 / 30  (20 from port 1034)
    file   client  SIZE file01\r\n  /  213 10240\r\n                                    13 / 11
    file   client  RETR file01\r\n                                                       13
    file   server  150 Opening BINARY mode data connection for 'file01' (10240 bytes).\r\n  69
    file   server  data connection: the file                                             10240
    file   server  226 Transfer complete.\r\n                                             24  (timing ends at the last)
    end    client  QUIT\r\n  /  221 Goodbye.\r\n                                          6 / 14  (not timed)

Passive mode replaces PORT/200 by ``PASV\r\n`` (6) / ``227 Entering Passive Mode (10,1,2,3,4,2)\r\n``
(42). A persistent data connection answers RETR with
``125 Using existing data connection for 'file01' (10240 bytes).\r\n`` (64) instead of the 150. Every size above is
``len()`` of the string built here; the tests recompute them from the RFC formats independently.
"""

from __future__ import annotations

from simcore._validate import check_int

__all__ = [
    "CLIENT_ADDR",
    "SERVER_ADDR",
    "FIRST_DATA_PORT",
    "USER",
    "PASSWORD",
    "CRLF",
    "command",
    "reply",
    "file_name",
    "port_command",
    "pasv_reply",
    "size_reply",
    "opening_reply",
    "existing_reply",
    "listing_bytes",
    "GREETING",
    "TRANSFER_COMPLETE",
]

CRLF = "\r\n"
CLIENT_ADDR = "10.1.1.2"
SERVER_ADDR = "10.1.2.3"
FIRST_DATA_PORT = 1026
USER = "ftp"
PASSWORD = "ftp@"


def command(verb: str, argument: str | None = None) -> bytes:
    """Return an RFC 959 command: ``verb [SP argument] CRLF`` (ASCII)."""
    text = verb if argument is None else f"{verb} {argument}"
    return (text + CRLF).encode("ascii")


def reply(code: int, text: str) -> bytes:
    """Return a single-line RFC 959 reply: ``code SP text CRLF``; ``code`` in 100..599."""
    check_int("code", code, 100, 599)
    return f"{code} {text}{CRLF}".encode("ascii")


def file_name(k: int, n_files: int) -> str:
    """Return the name of file ``k`` (1-based) of ``n_files``: ``file01`` ... (at least two digits)."""
    check_int("n_files", n_files, 1)
    check_int("k", k, 1, n_files)
    return f"file{k:0{max(2, len(str(n_files)))}d}"


def _host_port(addr: str, port: int) -> str:
    check_int("port", port, 1, 65535)
    return ",".join(addr.split(".") + [str(port // 256), str(port % 256)])


def port_command(port: int) -> bytes:
    """Return ``PORT h1,h2,h3,h4,p1,p2 CRLF`` for the client's data ``port`` (RFC 959 sec. 4.1.2)."""
    return command("PORT", _host_port(CLIENT_ADDR, port))


def pasv_reply(port: int) -> bytes:
    """Return the BSD ftpd's ``227 Entering Passive Mode (h1,h2,h3,h4,p1,p2)`` reply for ``port``."""
    return reply(227, f"Entering Passive Mode ({_host_port(SERVER_ADDR, port)})")


def size_reply(size_bytes: int) -> bytes:
    """Return RFC 3659's ``213 SP size CRLF``."""
    return reply(213, str(check_int("size_bytes", size_bytes, 0)))


def opening_reply(name: str, size_bytes: int | None) -> bytes:
    """Return ftpd's 150 reply for a new data connection (BINARY type; size given for RETR, not NLST)."""
    sizebuf = "" if size_bytes is None else f" ({size_bytes} bytes)"
    return reply(150, f"Opening BINARY mode data connection for '{name}'{sizebuf}.")


def existing_reply(name: str, size_bytes: int | None) -> bytes:
    """Return ftpd's 125 reply when the data connection is already open (a persistent data connection)."""
    sizebuf = "" if size_bytes is None else f" ({size_bytes} bytes)"
    return reply(125, f"Using existing data connection for '{name}'{sizebuf}.")


def listing_bytes(n_files: int) -> bytes:
    """Return the NLST listing sent on the data connection: one ``name CRLF`` per file."""
    return "".join(file_name(k, n_files) + CRLF for k in range(1, n_files + 1)).encode("ascii")


GREETING = reply(220, f"{SERVER_ADDR} FTP server (Version 6.00LS) ready.")
TRANSFER_COMPLETE = reply(226, "Transfer complete.")
