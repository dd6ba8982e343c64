import ipywidgets as widgets
import pytest

from simcore.plotting import COLORS, LivePanel, color_for, float_slider, new_figure


def test_colors_are_consistent_and_case_insensitive():
    assert color_for("Reserve") == color_for("reserve") == COLORS["Reserve"]
    assert color_for("something new") == color_for("something new")


def _panel():
    fig = new_figure(widget=True)
    fig.add_scatter(x=[0], y=[0])
    slider = float_slider("x", 1.0, 0.0, 10.0, 0.5)

    def update(values):
        if values["x"] > 8:
            raise ValueError(f"x={values['x']} is out of range: must be <= 8")
        fig.data[0].y = [values["x"] ** 2]
        return f"x squared is {values['x'] ** 2:g}"

    return LivePanel({"x": slider}, update, [fig]), fig


def test_live_panel_redraws_on_slider_change():
    panel, fig = _panel()
    assert fig.data[0].y == (1.0,)
    panel.set(x=3.0)
    assert fig.data[0].y == (9.0,) and "x squared is 9" in panel.status.value
    assert isinstance(panel.widget, widgets.VBox) and panel.n_runs == 2


def test_live_panel_shows_errors_instead_of_raising_and_recovers():
    panel, fig = _panel()
    panel.set(x=9.0)  # must not raise
    assert isinstance(panel.last_error, ValueError)
    assert "Cannot run with these settings" in panel.status.value and "x=9.0" in panel.status.value
    assert fig.data[0].y == (1.0,)  # the figure keeps the last good drawing
    panel.set(x=2.0)
    assert panel.last_error is None and fig.data[0].y == (4.0,)


def _failing_panel(exc):
    fig = new_figure(widget=True)
    fig.add_scatter(x=[0], y=[0])
    state = {"raise": False}

    def update(values):
        if state["raise"]:
            raise exc
        fig.data[0].y = [values["x"]]

    return LivePanel({"x": float_slider("x", 1.0, 0.0, 10.0, 0.5)}, update, [fig]), state


@pytest.mark.parametrize("exc", [EOFError("Ran out of input"), TypeError("object of type 'int' has no len()"),
                                 MemoryError(), KeyError("rates")])
def test_an_internal_failure_is_not_blamed_on_the_settings(exc):
    """Only a ValueError (the model refusing these values) may say the settings cannot run; anything
    else is reported as the simulator's own failure, with its type, and the panel keeps working."""
    panel, state = _failing_panel(exc)
    state["raise"] = True
    panel.set(x=2.0)
    status = panel.status.value
    assert panel.last_error is exc and type(exc).__name__ in panel.last_traceback
    assert "Cannot run with these settings" not in status
    assert "not your settings" in status and type(exc).__name__ in status
    state["raise"] = False
    panel.set(x=3.0)
    assert panel.last_error is None and panel.last_traceback is None


def test_held_changes_run_the_update_once():
    panel, fig = _panel()
    runs = panel.n_runs
    with panel.held():
        panel.set(x=2.0)
        panel.set(x=3.0)
        assert panel.n_runs == runs  # nothing ran inside the block
    assert panel.n_runs == runs + 1 and fig.data[0].y == (9.0,)
    with panel.held():
        pass  # nothing changed: nothing runs
    assert panel.n_runs == runs + 1


def test_live_panel_rejects_unknown_control():
    panel, _ = _panel()
    with pytest.raises(ValueError, match="'y' is not a control"):
        panel.set(y=1)


def test_slider_from_range_picks_int_or_float_slider():
    from simcore.plotting import slider_from_range

    ranges = {"n": (1, 10, 1), "rate": (0.5, 20.0, 0.5)}
    n = slider_from_range(ranges, "n", "n", 3)
    rate = slider_from_range(ranges, "rate", "rate", 2.0, continuous_update=True)
    assert isinstance(n, widgets.IntSlider) and (n.min, n.max, n.step, n.value) == (1, 10, 1, 3)
    assert isinstance(rate, widgets.FloatSlider) and rate.continuous_update and rate.max == 20.0


def test_live_panel_is_a_widget_in_a_live_kernel(monkeypatch):
    monkeypatch.delenv("SIMCORE_STATIC", raising=False)
    panel, _ = _panel()
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "text/html" not in bundle


def test_live_panel_is_a_static_snapshot_in_a_book_build(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    panel, _ = _panel()
    panel.set(x=3.0)
    bundle = panel._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    page = bundle["text/html"]
    assert page.count("plotly-graph-div") == 1  # the one figure, drawn by plotly.js
    assert "x <b>3</b>" in page and "x squared is 9" in page  # the settings it shows, and its status line
    assert "re-ran in" not in page  # no timing in a static page
    assert "<script src" not in page and "cdn" not in page.lower()  # plotly.js comes from the page, once
    assert '"y":[9.0]' in page  # drawn at the settings shown


def test_static_snapshot_shows_the_error_when_the_last_move_failed(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    panel, _ = _panel()
    panel.set(x=9.0)
    assert "Cannot run with these settings" in panel.static_html()


def test_static_renderer_draws_figures_without_embedding_plotly_js():
    import plotly.io as pio

    from simcore import static

    before = pio.renderers.default
    try:
        static.use_static_renderer()
        fig = new_figure(title="t")
        fig.add_scatter(x=[0, 1], y=[2, 3])
        bundle = pio.renderers[static.RENDERER].to_mimebundle(fig.to_dict())
        assert pio.renderers.default == static.RENDERER and list(bundle) == ["text/html"]
        assert "Plotly.newPlot" in bundle["text/html"] and "<script src" not in bundle["text/html"]
    finally:
        pio.renderers.default = before


def test_tick_path_draws_one_short_line_per_point():
    from simcore.plotting import tick_path

    assert tick_path([1.0, 2.5], [3, 4], half_width=0.25) == "M0.75,3.0H1.25M2.25,4.0H2.75"
    assert tick_path([10.0], [7], half_height=0.4, decimals=2) == "M10.0,6.6V7.4"
    assert tick_path([], []) == ""


def _read_png(data: bytes) -> tuple[list[tuple[int, ...]], list[list[int]]]:
    """Decode an 8-bit indexed PNG by the PNG spec (chunks, CRCs, zlib, filter 0): (palette RGBA, rows)."""
    import struct
    import zlib

    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, {}
    while pos < len(data):
        (n,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + n]
        assert struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])[0] == zlib.crc32(kind + body)
        chunks[kind] = chunks.get(kind, b"") + body
        pos += 12 + n
    w, h, depth, color_type = struct.unpack(">IIBB", chunks[b"IHDR"][:10])
    assert (depth, color_type) == (8, 3)
    raw = zlib.decompress(chunks[b"IDAT"])
    rows = [list(raw[r * (w + 1) + 1:(r + 1) * (w + 1)]) for r in range(h)]
    assert all(raw[r * (w + 1)] == 0 for r in range(h))
    rgb, alpha = chunks[b"PLTE"], chunks[b"tRNS"]
    return [(*rgb[3 * i:3 * i + 3], alpha[i]) for i in range(len(alpha))], rows


def test_tick_image_puts_each_tick_in_its_row_and_column():
    import base64

    from simcore.plotting import tick_image

    # 3 rows, x in [0, 10] cut into 10 columns of 1: x = 2.5 -> column 2, x = 9.99 -> column 9
    img = tick_image([([2.5, 9.99], [1, 2], "#000000"), ([2.2], [1], "#D55E00")], n_rows=3, x_end=10.0,
                     columns=10, tick_columns=1, xref="x2", yref="y2")
    palette, rows = _read_png(base64.b64decode(img["source"].split(",", 1)[1]))
    assert palette == [(255, 255, 255, 0), (0, 0, 0, 255), (0xD5, 0x5E, 0x00, 255)]
    assert rows == [[0] * 10, [0, 0, 2, 0, 0, 0, 0, 0, 0, 0], [0] * 9 + [1]]  # the later group on top
    # the image covers x 0..10 and rows -0.5..2.5 of a reversed axis (row 0 on top)
    assert (img["x"], img["sizex"], img["y"], img["sizey"], img["yanchor"]) == (0.0, 10.0, -0.5, 3, "top")
    wide = tick_image([([5.0], [0], "#000000")], n_rows=1, x_end=10.0, columns=10, tick_columns=3)
    assert _read_png(base64.b64decode(wide["source"].split(",", 1)[1]))[1] == [[0, 0, 0, 0, 1, 1, 1, 0, 0, 0]]
    at_zero = tick_image([([0.0], [0], "#000000")], n_rows=1, x_end=0.0, columns=4, tick_columns=1)  # no span
    assert _read_png(base64.b64decode(at_zero["source"].split(",", 1)[1]))[1] == [[1, 0, 0, 0]]


def test_grid_float32_rounds_to_a_power_of_two_step_finer_than_span_over_steps():
    import numpy as np

    from simcore.plotting import grid_float32

    # span 1000, 4000 steps: 0.25 is the largest power of two <= 1000 / 4000
    out = grid_float32([0.1, 0.2, 999.88, float("nan")], 1000.0)
    assert out.dtype == np.float32
    assert out[:3].tolist() == [0.0, 0.25, 1000.0] and np.isnan(out[3])
    # span 1500: step 0.25 as well (1500 / 4000 = 0.375); never coarser than span / steps
    assert grid_float32([0.37], 1500.0).tolist() == [0.25]
    assert grid_float32([3.0], 0.0).tolist() == [3.0]  # no span: as float32


def test_tick_image_and_grid_float32_refuse_bad_values_by_name():
    import pytest

    from simcore.plotting import grid_float32, tick_image

    good = [([1.0], [0], "#000000")]
    for kwargs, name in ((dict(n_rows=0, x_end=1.0), "n_rows"), (dict(n_rows=1, x_end=-1.0), "x_end"),
                         (dict(n_rows=1, x_end=float("nan")), "x_end"),
                         (dict(n_rows=1, x_end=1.0, tick_columns=0), "tick_columns"),
                         (dict(n_rows=1, x_end=1.0, columns=0), "columns")):
        with pytest.raises(ValueError, match=name):
            tick_image(good, **kwargs)
    with pytest.raises(ValueError, match=r"rows 0\.\.3 must lie in 0\.\.1"):  # a row past the image
        tick_image([([1.0, 2.0], [0, 3], "#000000")], n_rows=2, x_end=4.0)
    with pytest.raises(ValueError, match="shape"):
        tick_image([([1.0, 2.0], [0], "#000000")], n_rows=2, x_end=4.0)
    with pytest.raises(ValueError, match="finite x"):
        tick_image([([float("nan")], [0], "#000000")], n_rows=1, x_end=4.0)
    with pytest.raises(ValueError, match="number of groups"):
        tick_image([([1.0], [0], "#000000")] * 255, n_rows=1, x_end=4.0)
    with pytest.raises(ValueError, match="steps"):
        grid_float32([1.0], 10.0, steps=0)


def _models() -> int:
    return len(widgets.widgets.widget._instances)


def test_panels_share_their_controls_layouts_and_styles_and_a_layout_of_its_own_stays_its_own():
    from simcore.plotting import dropdown

    def panel(n):
        controls = {f"x{i}": float_slider(f"x{i}", 1.0, 0.0, 2.0, 0.1) for i in range(n)}
        controls["d"] = dropdown("d", ["a", "b"])
        return LivePanel(controls, lambda v: "ok", [new_figure(widget=True)], title="t"), controls

    panel(1)  # makes the kernel's shared models
    before = _models()
    _, c2 = panel(2)
    two = _models() - before
    before = _models()
    _, c6 = panel(6)
    six = _models() - before
    # four more sliders are four more slider models: no layout or style of their own
    assert six - two == 4, (two, six)
    assert len({id(c.layout) for c in c6.values()}) == 1
    assert len({id(c.style) for k, c in c6.items() if k != "d"}) == 1
    assert c6["x0"].layout.width == "auto" and c6["x0"].layout.min_width == "0"
    # a control given a layout of its own keeps it, made to fit the grid; the shared ones are not touched
    own = float_slider("own", 1.0, 0.0, 2.0, 0.1)
    own.layout = widgets.Layout(width="500px", grid_column="1 / -1")
    LivePanel({"own": own}, lambda v: "ok", [new_figure(widget=True)])
    assert own.layout.grid_column == "1 / -1" and own.layout.width == "auto"
    assert c2["x0"].layout.grid_column is None and float_slider("s", 1.0, 0.0, 2.0, 0.1).layout.width == "340px"
