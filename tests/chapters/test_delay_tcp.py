import functools
from dataclasses import replace

import numpy as np
import plotly.graph_objects as go
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scapy.layers.inet import TCP
from scapy.utils import PcapNgReader

from simcore.chapters import delay_tcp as ch
from simcore.delay.tcp_view import TCP_MODES, TcpPageParams, formula_times_s, simulate_page_tcp


@functools.cache
def _panel():
    return ch.make_panel()


def test_first_slider_is_rtt_and_moving_it_redraws_both_plots():
    panel = ch.make_panel()
    assert list(panel.controls)[0] == "rtt_ms" and panel.last_error is None
    bars, diagram = panel.figures
    before_bars = tuple(bars.data[0].y)
    before_diag = tuple(diagram.data[2].y)
    panel.set(rtt_ms=200.0)
    assert panel.last_error is None
    assert tuple(bars.data[0].y) != before_bars and tuple(diagram.data[2].y) != before_diag
    # the bars are the simulation of every mode, the markers the textbook's formulas at the same setting
    p = ch.panel_params(panel.values())
    assert p.rtt_ms == 200.0
    for i, mode in enumerate(TCP_MODES):
        q = TcpPageParams(**{**p.__dict__, "mode": mode})
        assert bars.data[0].y[i] == simulate_page_tcp(q, ch.REFERENCE_SEED).response_time_s
        f = formula_times_s(q)
        assert bars.data[1].y[i] == pytest.approx(f["simple_s"])
        assert bars.data[2].y[i] == pytest.approx(f["slow_start_s"])
    assert "Simulated" in panel.status.value and "with slow start" in panel.status.value


def test_mode_and_parallel_controls_change_diagram_and_labels():
    panel = _panel()
    diagram = panel.figures[1]
    panel.set(mode="pipelined")
    assert diagram.layout.title.text.startswith("persistent + pipelining")
    assert "1 connection;" in diagram.layout.title.text
    panel.set(mode="non-persistent", parallel=3)
    assert panel.last_error is None
    assert diagram.layout.title.text.startswith("non-persistent, 3 parallel")
    assert panel.figures[0].data[0].x[0] == "non-persistent, 3 parallel"
    # every connection's SYN is drawn: 6 connections (base + 5 objects)
    texts = [t for t in diagram.data[2].text if t]
    assert sum(1 for t in texts if t.startswith("SYN") and "ACK" not in t) == 2 * 6  # two points a line
    panel.set(parallel=1, mode="persistent")


def test_diagram_keeps_end_markers_for_the_reference_page_only_when_few_packets():
    panel = ch.make_panel()
    diagram = panel.figures[1]
    up, down = diagram.data[2], diagram.data[5]
    # the reference page: base + 5 objects of 10 kB, about 110 packets, each drawn with its end markers
    assert up.mode == down.mode == "lines+markers"
    panel.set(object_kb=200.0, n_objects=20)  # hundreds of packets (the diagram stops at 600): lines only
    assert panel.last_error is None
    assert (len(up.x) + len(down.x)) // 3 > 150
    assert up.mode == down.mode == "lines"
    assert diagram.data[2].name == ch.UP_NAME and diagram.data[5].name == ch.DOWN_NAME  # styles kept
    panel.set(object_kb=10.0, n_objects=5)
    assert up.mode == down.mode == "lines+markers"


def test_merged_space_time_needs_a_trace():
    with pytest.raises(ValueError, match="trace"):
        ch.merged_space_time(simulate_page_tcp(TcpPageParams(), 0, trace=False))


def test_reference_table_slow_start_closer_with_small_window_and_simple_fine_with_large():
    rows = ch.reference_rows()
    assert len(rows) == 6
    for r in rows:
        if r["initial_window"] == 1:
            assert abs(r["slow_start_err_pct"]) < abs(r["simple_err_pct"])
            assert abs(r["slow_start_err_pct"]) < 5.0
        else:
            assert -5.0 < r["simple_err_pct"] < 0.0  # headers: the formula is a little optimistic
            assert r["slow_start_s"] == pytest.approx(r["simple_s"])
    text = ch.reference_text()
    assert text.count("\n") == 8 and "pipelined" in text


def test_figures_and_warm():
    ch.warm()
    figs = ch.figures()
    assert set(figs) == {"tcp_modes_vs_formulas", "tcp_rtt_sweep", "tcp_space_time_pipelined"}
    for fig in figs.values():
        assert isinstance(fig, go.Figure) and len(fig.data) > 0
    sweep = figs["tcp_rtt_sweep"]
    # simulated page time grows with the RTT in every mode
    for tr in sweep.data:
        if tr.name.endswith("simulation"):
            assert np.all(np.diff(np.asarray(tr.y)) > 0)


_R = ch.SLIDER_RANGES


def _grid(name):
    lo, hi, step = _R[name]
    n = int(round((hi - lo) / step))
    return st.integers(0, n).map(lambda k, lo=lo, step=step: lo + k * step)


@settings(max_examples=12, deadline=None)
@given(rtt=_grid("rtt_ms"), rate=_grid("rate_mbps"), kb=_grid("object_kb"), n=_grid("n_objects"),
       par=_grid("parallel"), iw=_grid("initial_window"), load=_grid("cross_load"), hit=_grid("hit_ratio"),
       mode=st.sampled_from([m for _, m in ch.MODE_OPTIONS]))
def test_every_slider_setting_is_valid_and_redraws(rtt, rate, kb, n, par, iw, load, hit, mode):
    panel = _panel()
    values = dict(rtt_ms=float(rtt), rate_mbps=float(rate), object_kb=float(kb), n_objects=int(n),
                  parallel=int(par), initial_window=int(iw), cross_load=float(load), hit_ratio=float(hit),
                  mode=mode)
    status = panel.update(values)  # what the panel runs on a slider move (it only adds error display)
    assert "Simulated" in status
    y = np.asarray(panel.figures[0].data[0].y, float)
    assert y.shape == (3,) and np.all(np.isfinite(y)) and np.all(y > 0)


def test_capture_button_saves_every_connection_of_the_diagram_mode(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = replace(ch.REFERENCE, n_objects=2, mode="non-persistent")
    panel = ch.make_panel(p)
    path = panel.capture.save()
    assert panel.capture.last_error is None and path.name.startswith("page_non-persistent_1par_rtt100ms")
    syns = [f for f in PcapNgReader(str(path)) if f[TCP].flags == "S"]
    assert len(syns) == 3  # non-persistent: one connection per object, base + 2 embedded
