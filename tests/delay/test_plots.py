"""The space-time diagram and the sweep figure."""

import numpy as np
import plotly.graph_objects as go
import pytest

from simcore.delay.compare import appendix2_sweep
from simcore.delay.ideal import simulate_ideal
from simcore.delay.params import PACKET_KINDS, DelayParams
from simcore.delay.plots import space_time_figure, sweep_figure, update_space_time


def _bands(fig, kind):
    k = PACKET_KINDS.index(kind)
    return fig.data[2 + 2 * k], fig.data[3 + 2 * k]


def test_space_time_diagram_has_one_band_per_packet():
    r = simulate_ideal(DelayParams(mode="1.0", cache=True, hit_ratio=0.5))
    fig = space_time_figure(r)
    assert isinstance(fig, go.Figure)
    for kind in PACKET_KINDS:
        n = int(np.sum(np.array(r.trace.kind_names()) == kind))
        band, label = _bands(fig, kind)
        assert int(np.isnan(np.asarray(band.x, float)).sum()) == n  # polygons separated by NaN
        assert len(label.x) == n and list(label.text) == [kind] * n
    # a SYN goes from the client axis (x=0) at its send time to the server axis (x=1) one delay later
    band, _ = _bands(fig, "SYN")
    t = r.trace
    assert tuple(band.x[:2]) == (0.0, 1.0)
    assert band.y[0] == t.send_ms[0] and band.y[1] == t.send_ms[0] + 200.0
    assert fig.layout.yaxis.autorange == "reversed"
    assert fig.data[0].y[1] == r.response_time_ms


def test_update_replaces_packets_and_labels_switch_off_for_big_pages():
    fig = space_time_figure(simulate_ideal(DelayParams(mode="1.1")))
    big = simulate_ideal(DelayParams(mode="1.0", n_parents=10, n_children=20))
    update_space_time(fig, big.trace, max_labels=50)
    band, label = _bands(fig, "GET")
    assert len(label.x) == 210 and set(label.text) == {""}
    assert all("GET" in h for h in label.hovertext)
    with pytest.raises(ValueError, match="PacketTrace"):
        update_space_time(fig, [1, 2, 3])


def test_sweep_figure():
    fig = sweep_figure(appendix2_sweep("transmission", simulate=False, calibrated=False), cache=False)
    names = [d.name for d in fig.data]
    assert len(names) == 6  # 3 closed-form lines + 3 report series
    fig = sweep_figure(appendix2_sweep("transmission", simulate=False), cache=True)
    assert len(fig.data) == 3 * 2 + 1  # closed form + calibrated per mode, report's cached 1.0 points
    assert any("report (per run)" in n for n in names)
    with pytest.raises(ValueError, match="records"):
        sweep_figure([])
