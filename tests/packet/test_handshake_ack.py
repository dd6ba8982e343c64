"""The handshake's third packet: the request riding on it (the textbook's convention) or a bare ACK (real stacks),
``TcpParams.request_on_handshake_ack``, counted packet by packet for HTTP/1.0 fetches, by hand.

Setting: one link each way (10 Mbit/s, 10 ms), MSS 1460, initial window 2, no delayed ACKs, no loss, a large
receive window. The client opens, writes a 100-byte request at once; the server writes a response of F bytes
when the request has arrived (the write is its own event, right after the arrival) and closes behind it
(HTTP/1.0), so its FIN rides on the last data segment. n = ceil(F / 1460) data segments.

By hand, request on the handshake's ACK:
  client -> server: SYN, ACK + request, one ACK per data segment but the last (n - 1), FIN + ACK (passive close
  on the server's FIN, which rides on the last data segment): n + 2;
  server -> client: SYN-ACK, the ACK of the request (owed when it arrives: the response is written only after),
  n data segments (slow start from 2: every segment is ACKed at once, so cwnd never holds one back for
  longer than it takes an ACK to come; n is fixed by F), the ACK of the client's FIN: n + 3.
  Total 2 n + 5: 1 KB (n = 1) 7, 4 KB (n = 3) 11, 10 KB (n = 8) 21.
With a bare ACK the client sends one packet more (the ACK, then the request as its own segment): 2 n + 6.
"""

import numpy as np
import pytest

from simcore.packet import Connection, LinkParams, Message, Network, Scenario, TcpParams, simulate

SYN, ACK = 1, 2


def _fetch(file_bytes, bare):
    link = LinkParams(rate_bps=10e6, delay_s=0.01, queue_packets=1000)
    net = Network(2, Network.duplex(0, 1, link))
    tcp = TcpParams(mss_bytes=1460, initial_window_segments=2, rwnd_bytes=1 << 20,
                    request_on_handshake_ack=not bare)
    msgs = (Message(0, 100, "client"), Message(0, file_bytes, "server", after_message=0))
    r = simulate(Scenario(net, (Connection(0, 1, tcp, closer="server"),), msgs, duration_s=10.0), trace=True)
    assert r.delivered_bytes[0].tolist() == [100, file_bytes]
    pt = r.packet_trace
    sent = pt.kind == 0
    return pt, sent


@pytest.mark.parametrize("file_bytes, n", [(1024, 1), (4096, 3), (10240, 8)])
@pytest.mark.parametrize("bare", [False, True])
def test_packets_of_an_http10_fetch_counted_by_hand(file_bytes, n, bare):
    pt, sent = _fetch(file_bytes, bare)
    client = int((sent & (pt.direction == 0)).sum())
    server = int((sent & (pt.direction == 1)).sum())
    assert (client, server) == (n + 2 + bare, n + 3)
    assert client + server == 2 * n + 5 + bare  # 7 / 11 / 21 with the request on the ACK, one more with a bare ACK


@pytest.mark.parametrize("bare", [False, True])
def test_the_handshakes_third_packet(bare):
    pt, sent = _fetch(1024, bare)
    c = np.flatnonzero(sent & (pt.direction == 0))
    assert pt.flags[c[0]] & SYN and pt.seqlen[c[0]] == 1  # the SYN
    third = c[1]
    assert pt.flags[third] & ACK and not pt.flags[third] & SYN and pt.ack[third] == 1  # acknowledges the SYN-ACK
    if bare:
        assert pt.seqlen[third] == 0  # a bare ACK, then the request, sent at the same instant, after it
        assert pt.seqlen[c[2]] == 100 and pt.seq[c[2]] == 1 and pt.time_s[c[2]] == pt.time_s[third]
    else:
        assert pt.seqlen[third] == 100 and pt.seq[third] == 1  # the request rides on it


def test_the_era_and_modern_presets_send_a_bare_ack_and_the_textbook_default_does_not():
    assert TcpParams().request_on_handshake_ack and TcpParams.preset("rfc5681").request_on_handshake_ack
    for name in ("bsd44lite", "freebsd46", "linux"):
        assert not TcpParams.preset(name).request_on_handshake_ack, name
    with pytest.raises(ValueError, match="request_on_handshake_ack"):
        TcpParams(request_on_handshake_ack="no")
