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
