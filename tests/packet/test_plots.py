"""Plot helpers draw what the traces contain."""

import numpy as np
import plotly.graph_objects as go
import pytest

from simcore.packet import LinkParams, TcpParams, chain, request_response_scenario, simulate
from simcore.packet.plots import cwnd_figure, queue_figure, space_time_figure, time_sequence_figure


@pytest.fixture(scope="module")
def traced():
    link = LinkParams(rate_bps=2e6, delay_s=0.02, queue_packets=6)
    sc = request_response_scenario(chain(1, link), 0, 1, 300, [40_000, 60_000],
                                   TcpParams(initial_window_segments=8, min_rto_s=0.2), duration_s=20.0)
    return simulate(sc, trace=True)


def test_figures_show_the_traced_quantities(traced):
    r = traced
    assert r.link_drops_queue.sum() > 0
    cw = cwnd_figure(r)
    assert isinstance(cw, go.Figure)
    tr = r.tcp_trace
    sel = (tr.conn == 0) & (tr.direction == 1)
    assert np.allclose(cwnd_figure(r, direction=1).data[0].y, tr.cwnd_bytes[sel] / 1460)
    ts = time_sequence_figure(r, direction=1)
    drops = [d for d in ts.data if d.name == "dropped"][0]
    assert len(drops.x) == r.link_drops_queue[1]  # the server's data crosses link 1
    q = queue_figure(r, 1)
    assert max(q.data[0].y) == 6
    st = space_time_figure(r)
    delivered = [d for d in st.data if d.name == "delivered"][0]
    n_delivered = np.sum(r.packet_trace.kind == 1)
    assert len(delivered.x) == 3 * n_delivered
    assert [d for d in st.data if d.name == "drop"][0].x is not None


def test_figures_require_traces():
    link = LinkParams()
    r = simulate(request_response_scenario(chain(1, link), 0, 1, 100, [100], duration_s=1.0))
    with pytest.raises(ValueError, match="trace=True"):
        cwnd_figure(r)


def test_association_plots_label_chunks_and_draw_sacks_in_bytes():
    from simcore.packet import Connection, Message, Network, Scenario, SctpParams

    # TSN 1 lost (offered packet 3: INIT, COOKIE-ECHO, TSN 0, TSN 1), a SACK per packet
    fwd = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100, drop_sequence=(3,))
    back = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=100)
    conn = Connection(0, 1, transport="sctp", closer="client",
                      sctp=SctpParams(initial_cwnd_mtus=3, delayed_sack=False))
    sc = Scenario(Network(2, Network.duplex(0, 1, fwd, back)), (conn,), (Message(0, 6 * 1452),), duration_s=3.0)
    r = simulate(sc, trace=True)
    st = space_time_figure(r)
    labels = [t for d in st.data if d.name in ("delivered", "lost") for t in d.text if t]
    for want in ("INIT", "INIT-ACK", "COOKIE-ECHO", "COOKIE-ACK", "DATA tsn 0", "DATA tsn 1", "SACK 0",
                 "SACK 0+2-2", "SACK 0+2-3", "DATA tsn 1 (retx)", "SACK 5", "SHUTDOWN", "SHUTDOWN-ACK",
                 "SHUTDOWN-COMPLETE"):
        assert want in labels, want
    ts = time_sequence_figure(r)
    sack = [d for d in ts.data if d.name == "SACK received"][0]
    # the cumulative TSN ack drawn at the end of that chunk's bytes: 1 + (k + 1) * 1452 for TSN k, and the
    # last SACK covers all 6 chunks
    assert set(np.asarray(sack.y).tolist()) <= {1 + (k + 1) * 1452 for k in range(6)}
    assert sack.y[-1] == 1 + 6 * 1452
