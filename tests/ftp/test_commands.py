"""FTP command and reply bytes against RFC 959 / RFC 3659 formats, written out by hand here."""

import pytest

from simcore.ftp import commands as C


def test_commands_follow_the_rfc959_grammar_byte_for_byte():
    # RFC 959 sec. 5.3: <verb> SP <argument> CRLF; host-port = h1,h2,h3,h4,p1,p2 with port = p1*256 + p2
    assert C.command("RETR", "file01") == b"RETR file01\r\n" and len(b"RETR file01\r\n") == 13
    assert C.command("QUIT") == b"QUIT\r\n"
    assert C.port_command(1026) == b"PORT 10,1,1,2,4,2\r\n"
    assert C.port_command(1034) == b"PORT 10,1,1,2,4,10\r\n"
    assert C.pasv_reply(1026) == b"227 Entering Passive Mode (10,1,2,3,4,2)\r\n"


def test_replies_have_a_code_a_space_and_crlf_and_rfc3659_size():
    assert C.size_reply(10240) == b"213 10240\r\n"  # RFC 3659 sec. 4.2: "213" SP 1*DIGIT CRLF
    assert C.TRANSFER_COMPLETE == b"226 Transfer complete.\r\n"
    assert C.opening_reply("file01", 10240) == (b"150 Opening BINARY mode data connection for 'file01' "
                                                b"(10240 bytes).\r\n")
    assert C.opening_reply("file list", None) == b"150 Opening BINARY mode data connection for 'file list'.\r\n"
    assert C.existing_reply("file02", 5) == b"125 Using existing data connection for 'file02' (5 bytes).\r\n"
    with pytest.raises(ValueError, match="code=99"):
        C.reply(99, "x")


def test_file_names_and_listing():
    assert [C.file_name(k, 10) for k in (1, 10)] == ["file01", "file10"]
    assert C.file_name(7, 120) == "file007"
    assert C.listing_bytes(3) == b"file01\r\nfile02\r\nfile03\r\n"
    with pytest.raises(ValueError, match="k=11"):
        C.file_name(11, 10)
