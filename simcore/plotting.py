"""Plots and widget panels shared by every chapter.

- ``color_for(name)``: one colour per protocol, policy or data source across the whole lab.
- ``new_figure(widget=...)``: a plotly figure (static ``go.Figure`` or live ``LiveFigure``, see
  ``simcore.livefigure``: plotly.js sent once per page, updates as deltas) in the lab's style.
- ``LivePanel``: sliders + figures built once; on every slider change the chapter's ``update`` runs
  inside ``batch_update()`` of each figure (one redraw, no flicker). Errors (a bad combination of
  values) are shown in the panel's status line, never raised into the kernel. Grey notes give the
  Python time and (written by the page itself, no message back to the kernel) the time from the
  student's input to the last plot redrawn.
- ``float_slider`` / ``int_slider`` / ``dropdown``: controls with consistent layout.

With ``SIMCORE_STATIC=1`` (the book's execution step, ``simcore.static``) panels and figures render as
plain HTML snapshots instead of widgets.
"""

from __future__ import annotations

import base64
import contextlib
import functools
import html
import math
import struct
import time
import traceback
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import ExitStack

import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
from ipywidgets.widgets.widget_description import DescriptionStyle
from ipywidgets.widgets.widget_int import SliderStyle
from ipywidgets.widgets.widget_string import HTMLStyle

from simcore import figure_display, static
from simcore._validate import check_int, check_real
from simcore.livefigure import LiveFigure, held_together
from simcore.shared_models import shared

__all__ = [
    "COLORS",
    "color_for",
    "new_figure",
    "LivePanel",
    "error_sentence",
    "float_slider",
    "int_slider",
    "dropdown",
    "slider_from_range",
    "same_value",
    "downsample_indices",
    "tick_path",
    "tick_image",
    "grid_float32",
    "LiveFigure",
]

# One colour per thing, everywhere in the lab (Okabe-Ito palette, safe for colour-blind readers).
COLORS: dict[str, str] = {
    # data sources
    "simulation": "#0072B2",
    "simcore": "#0072B2",
    "closed form": "#000000",
    "theory": "#000000",
    "ciw": "#E69F00",
    "paper": "#D55E00",  # the papers' own numbers: never reused for a model's series in the same chapter
    "bound": "#999999",
    # admission-control policies (chapter 1)
    "HTTP": "#0072B2",
    "FTP": "#E69F00",
    "Reserve": "#009E73",
    "Ticket": "#CC79A7",
    # transports (chapters 2, 3)
    "TCP": "#0072B2",
    "SCTP": "#009E73",
    "Reno": "#56B4E9",
    "NewReno": "#0072B2",
    "SACK": "#009E73",
    "proxy": "#CC79A7",
    # HTTP modes (chapter 4)
    "non-persistent": "#E69F00",
    "persistent": "#0072B2",
    "multiplexed": "#009E73",
    "pipelined": "#CC79A7",
    # reliable data transfer (chapter 0c): the three protocols, and what a space-time diagram shows
    "stop-and-wait": "#E69F00",
    "GBN": "#0072B2",
    "SR": "#009E73",
    "data packet": "#0072B2",
    "retransmission": "#CC79A7",
    "ACK": "#009E73",
    "timeout": "#000000",
    # queue disciplines (the bufferbloat figure)
    "drop-tail": "#E69F00",
    "CoDel": "#0072B2",
    "FQ-CoDel": "#009E73",
    # levels
    "fluid": "#56B4E9",
    "packet": "#0072B2",
    # states
    "waiting": "#F0E442",
    "connected": "#0072B2",
    "drop": "#D55E00",
}

if static.is_static():  # a book build: figures shown in cells render as HTML divs (simcore.static)
    static.use_static_renderer()
else:  # in a kernel (plotly.js went to the page on ``import simcore``: simcore._page_plotly)
    figure_display.install()  # static figures shown without plotly's renderers' 1-2.5 s first import

_FALLBACK = ["#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"]


def color_for(name: str) -> str:
    """Return the lab's hex colour for ``name`` (case-insensitive); unknown names get a stable colour."""
    for key, value in COLORS.items():
        if key.lower() == str(name).lower():
            return value
    return _FALLBACK[sum(map(ord, str(name))) % len(_FALLBACK)]


def new_figure(
    *,
    widget: bool = False,
    title: str = "",
    xaxis_title: str = "",
    yaxis_title: str = "",
    height: int = 420,
) -> go.Figure:
    """Return an empty ``LiveFigure`` (widget=True) or ``go.Figure`` in the lab's style."""
    fig = LiveFigure() if widget else go.Figure()
    fig.update_layout(
        template="plotly_white",
        title=title,
        xaxis_title=xaxis_title,
        yaxis_title=yaxis_title,
        height=height,
        margin=dict(l=60, r=20, t=50 if title else 20, b=50),
        legend=dict(orientation="h", yanchor="bottom", y=1.02, x=0),
        hovermode="closest",
    )
    return fig


def _gate_predictions(gate) -> tuple:
    """Return the predictions a panel is gated on (``gate``: one Prediction or a sequence of them) as a tuple;
    raise ValueError naming ``gate`` for anything else."""
    from simcore.predict import Prediction

    preds = (gate,) if isinstance(gate, Prediction) else \
        tuple(gate) if isinstance(gate, (list, tuple)) else None
    if not preds or not all(isinstance(p, Prediction) for p in preds):
        raise ValueError(f"gate={gate!r} is not allowed: must be a simcore.predict Prediction or a non-empty "
                         "list or tuple of them")
    return preds


def _control_layout(style: type):
    """A control's layout and style: the kernel's shared ones (``simcore.shared_models``; ``LivePanel`` gives the
    controls it holds its own shared layout)."""
    return dict(style=shared(style, description_width="initial"), layout=shared(widgets.Layout, width="340px"))


def same_value(a, b, rel: float = 1e-9) -> bool:
    """Return whether two control values are equal, floats within ``rel`` (a slider's value after a round
    trip through the browser can be 19.999999999999996 for 20)."""
    if isinstance(a, float) or isinstance(b, float):
        try:
            return math.isclose(float(a), float(b), rel_tol=rel, abs_tol=rel)
        except (TypeError, ValueError):
            return False
    return a == b


def float_slider(description: str, value: float, min: float, max: float, step: float, *,
                 continuous_update: bool = False, readout_format: str = ".3g") -> widgets.FloatSlider:
    """Return a FloatSlider with the lab's layout (continuous_update off unless the run is cheap)."""
    return widgets.FloatSlider(value=value, min=min, max=max, step=step, description=description,
                               continuous_update=continuous_update, readout_format=readout_format,
                               **_control_layout(SliderStyle))


def int_slider(description: str, value: int, min: int, max: int, step: int = 1, *,
               continuous_update: bool = False) -> widgets.IntSlider:
    """Return an IntSlider with the lab's layout."""
    return widgets.IntSlider(value=value, min=min, max=max, step=step, description=description,
                             continuous_update=continuous_update, **_control_layout(SliderStyle))


def dropdown(description: str, options: Sequence, value=None) -> widgets.Dropdown:
    """Return a Dropdown with the lab's layout."""
    return widgets.Dropdown(options=list(options), value=value if value is not None else list(options)[0],
                            description=description, **_control_layout(DescriptionStyle))


def slider_from_range(ranges: Mapping[str, tuple], name: str, description: str, value, *,
                      readout_format: str = ".3g", continuous_update: bool = False) -> widgets.Widget:
    """Return a slider over ``ranges[name] = (min, max, step)``: an IntSlider if all three are ints,
    else a FloatSlider. Chapters keep one ranges table that their sliders and their tests both use."""
    lo, hi, step = ranges[name]
    if all(isinstance(v, int) for v in (lo, hi, step)):
        return int_slider(description, value, lo, hi, step, continuous_update=continuous_update)
    return float_slider(description, value, lo, hi, step, continuous_update=continuous_update,
                        readout_format=readout_format)


def downsample_indices(y: np.ndarray, max_points: int = 2000) -> np.ndarray:
    """Return sorted indices (at most ``max_points``) into ``y`` keeping its first and last samples and
    the first, last, smallest and largest sample of each of ``max_points // 4`` equal index buckets.

    NaNs are never chosen as a bucket's minimum or maximum unless the whole bucket is NaN.
    """
    try:
        y = np.asarray(y, dtype=float)
    except (TypeError, ValueError):
        y = None
    if y is None or y.ndim != 1:
        raise ValueError("y is not allowed: must be a 1-D sequence of numbers")
    n = y.size
    check_int("max_points", max_points, 4)
    if n <= max_points:
        return np.arange(n)
    b = max_points // 4
    k = -(-n // b)
    idx = np.minimum(np.arange(b * k), n - 1).reshape(b, k)
    yy = y[idx]
    nan = np.isnan(yy)
    lo = np.argmin(np.where(nan, np.inf, yy), axis=1)
    hi = np.argmax(np.where(nan, -np.inf, yy), axis=1)
    rows = np.arange(b)
    keep = np.concatenate([idx[:, 0], idx[:, -1], idx[rows, lo], idx[rows, hi], [0, n - 1]])
    return np.unique(keep)


def grid_float32(values, span: float, steps: int = 4000) -> np.ndarray:
    """Return ``values`` as float32 rounded to a power-of-two step no coarser than ``span / steps`` (a
    quarter pixel or finer on a 1000 px plot when ``span`` is the axis range): the low mantissa bits are
    then zero and a live figure's deflated update is about half as large. NaN stays NaN."""
    check_int("steps", steps, 1)
    v = np.asarray(values, dtype=float)
    if not (span > 0 and math.isfinite(span)):  # an empty or degenerate axis: nothing to round to
        return v.astype(np.float32)
    step = 2.0 ** math.floor(math.log2(span / steps))
    return (np.round(v / step) * step).astype(np.float32)


def _show_transient(text: str):
    """Display ``text`` below the running cell now (a first run may take a while) and return its display
    handle, or None outside IPython."""
    try:
        from IPython import get_ipython
        from IPython.display import HTML, display

        if get_ipython() is None:
            return None
        return display(HTML(f"<span style='color:#777'>{html.escape(text)}</span>"), display_id=True)
    except Exception:  # no IPython: nothing to show
        return None


def tick_path(x: np.ndarray, y: np.ndarray, *, half_width: float = 0.0, half_height: float = 0.0,
              decimals: int = 6) -> str:
    """Return one SVG path (for a layout shape in data coordinates) with a short line at every (x, y):
    horizontal (``half_width`` each side, x units) or vertical (``half_height``, y units); coordinates
    rounded to ``decimals``. Thousands of markers cost one SVG element each and most of a redraw in the
    browser; one path costs one. Shapes have no hover: pair them with an invisible line trace."""
    x = np.round(np.asarray(x, dtype=float), decimals)
    y = np.round(np.asarray(y, dtype=float), decimals)
    if half_height > 0:
        lo, hi = np.round(y - half_height, decimals).tolist(), np.round(y + half_height, decimals).tolist()
        return "".join([f"M{a!r},{b!r}V{c!r}" for a, b, c in zip(x.tolist(), lo, hi, strict=True)])
    lo, hi = np.round(x - half_width, decimals).tolist(), np.round(x + half_width, decimals).tolist()
    return "".join([f"M{a!r},{b!r}H{c!r}" for a, b, c in zip(lo, y.tolist(), hi, strict=True)])


def _png_indexed(pixels: np.ndarray, rgba: Sequence[tuple[int, int, int, int]]) -> bytes:
    """Return a PNG (8-bit indexed colour) of ``pixels`` (uint8 indices into ``rgba``, row 0 on top)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    h, w = pixels.shape
    rows = np.zeros((h, w + 1), np.uint8)  # each row starts with filter type 0 (none)
    rows[:, 1:] = pixels
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 3, 0, 0, 0))
            + chunk(b"PLTE", bytes(c for r, g, b, _ in rgba for c in (r, g, b)))
            + chunk(b"tRNS", bytes(a for *_, a in rgba))
            + chunk(b"IDAT", zlib.compress(rows.tobytes(), 6)) + chunk(b"IEND", b""))


def _rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def tick_image(groups: Sequence[tuple[np.ndarray, np.ndarray, str]], *, n_rows: int, x_end: float,
               columns: int = 3000, tick_columns: int = 5, xref: str = "x", yref: str = "y") -> dict:
    """Return a layout image (a PNG in data coordinates) with a short vertical tick at every (x, row) of
    each group ``(x, row, colour)`` (later groups drawn over earlier ones): rows 0..n_rows-1 (one pixel
    row each, on a reversed y axis, row 0 on top, row k spanning k +- 0.5), x in [0, x_end] cut into
    ``columns`` pixel columns, each tick ``tick_columns`` wide (5 of 3000: about 1.5 px on a 900 px plot,
    sharp up to a zoom of 3).

    Thousands of ticks as one SVG path cost the browser about 100 ms per redraw (and 20 bytes each on the
    wire); as an image they cost a few ms and a few KB. An image has no hover: pair it with a trace."""
    check_int("n_rows", n_rows, 1)
    check_int("columns", columns, 1)
    check_int("tick_columns", tick_columns, 1, columns)
    check_real("x_end", x_end, 0.0)
    check_int("number of groups", len(groups), 0, 254)  # one palette entry each, beside the transparent one
    pixels = np.zeros((n_rows, columns), np.uint8)
    half = tick_columns // 2
    for code, (x, row, _color) in enumerate(groups, start=1):
        x = np.asarray(x, float)
        row = np.asarray(row, np.int64)
        if x.shape != row.shape:
            raise ValueError(f"tick_image group {code - 1}: x has shape {x.shape}, row {row.shape}: they must match")
        if not np.isfinite(x).all():
            raise ValueError(f"tick_image group {code - 1}: x holds NaN or infinity: every tick needs a finite x")
        if row.size and (row.min() < 0 or row.max() >= n_rows):
            raise ValueError(f"tick_image group {code - 1}: rows {row.min()}..{row.max()} must lie in 0..{n_rows - 1}")
        col = np.floor(x / x_end * columns).astype(np.int64) if x_end > 0 else np.zeros(x.size, np.int64)
        for dx in range(-half, tick_columns - half):
            pixels[row, np.clip(col + dx, 0, columns - 1)] = code
    rgba = [(255, 255, 255, 0)] + [(*_rgb(color), 255) for *_, color in groups]
    png = _png_indexed(pixels, rgba)
    return dict(source="data:image/png;base64," + base64.b64encode(png).decode(), xref=xref, yref=yref,
                x=0.0, y=-0.5, sizex=x_end, sizey=n_rows, sizing="stretch", xanchor="left", yanchor="top",
                layer="above")


def error_sentence(exc: BaseException) -> str:
    """Return what a panel's status line says about a failed run: a ``ValueError`` is the model refusing
    these settings (its message says why); anything else is an internal failure (a bug, a damaged cache,
    memory), never blamed on the settings."""
    if isinstance(exc, ValueError):
        return f"Cannot run with these settings: {exc}"
    detail = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if isinstance(exc, MemoryError):
        return (f"The simulator ran out of memory (an internal failure, not your settings: {detail}). "
                "Move the slider again; if it repeats, restart the kernel.")
    return (f"The simulator failed (an internal error, not your settings: {detail}). Move the slider "
            "again; if it repeats, restart the kernel (Kernel > Restart) and tell your instructor.")


class LivePanel:
    """Controls and figures built once; ``update(values)`` redraws the figures on every control change.

    controls: name -> ipywidget with a ``value``; the names are the keys of the dict passed to ``update``.
    update: ``update(values: dict) -> str | None`` changes the figures' traces in place (it runs inside
        ``batch_update()`` of every figure) and may return a short HTML status (e.g. key numbers).
    figures: the figures ``update`` draws into (``LiveFigure`` from ``new_figure(widget=True)``; a plotly
        ``go.FigureWidget`` still works, without the redraw timing).
    title: shown above the controls. columns: at most this many controls per row; the grid shrinks to
        the notebook's width.
    idle: optional ``idle(values) -> {control name: reason}`` naming controls that change nothing at
        these values; they are greyed out, with the reason in their tooltip and under the plots.

    A failing update is caught and shown in the status line in red (``error_sentence``): a ``ValueError``
    as settings that cannot run (its message says why), any other exception as an internal failure, not
    the student's settings; the last error is kept in ``last_error`` (its traceback in
    ``last_traceback``). The panel never raises from a slider. ``held()`` groups changes into one run.
    compile_notice: optional ``() -> str | None`` asked before the first run (e.g.
        ``functools.partial(simcore.warm.cold_notice, "packet")``); a message (kernels still cold) is shown
        at once below the cell and in the status line while the first run compiles, then removed.
    gate: a ``simcore.predict`` Prediction, or several: until each is committed the panel is veiled (its
        plots blurred under an overlay, its status line replaced by a note; controls stay usable and the
        plots keep redrawing underneath), see ``simcore.predict.gate``. ``set_veiled`` does it by hand.
    ``last_run_ms`` is the Python time of the last update. The page writes the time the student waited
    (input event to the last plot redrawn) into the note under the status line (``wait_note``, a widget
    Python never changes), with no message back to the kernel. redraw_ack: also have the page
    acknowledge every redraw to Python (``last_redraw_ms``: from the kernel receiving the change to the
    page reporting every plot redrawn; None until it has): it keeps the kernel busy once more per move,
    so it is off by default.
    """

    def __init__(
        self,
        controls: Mapping[str, widgets.ValueWidget],
        update: Callable[[dict], str | None],
        figures: Sequence[go.Figure],
        *,
        title: str = "",
        columns: int = 2,
        idle: Callable[[dict], Mapping[str, str]] | None = None,
        compile_notice: Callable[[], str | None] | None = None,
        redraw_ack: bool = False,
        gate=None,
    ):
        gate = None if gate is None else _gate_predictions(gate)  # (checked before any widget is made)
        self.controls = dict(controls)
        self.update = update
        self.figures = list(figures)
        self.title = title
        self.idle = idle
        # layouts and styles shared by the kernel (simcore.shared_models): each model not made is one the page
        # does not build before the first plot
        self.status = widgets.HTML(value="", layout=shared(widgets.Layout), style=shared(HTMLStyle))
        # (CSS classes given as each widget is made, and the veil too when a gate will veil the panel: changed
        # afterwards, each is one more message, and the page handles a Run All's messages one after another
        # while the first plot waits)
        self.wait_note = widgets.HTML(value="", layout=shared(widgets.Layout),
                                      style=shared(HTMLStyle, text_color="#777"), _dom_classes=("simcore-wait",))
        self.message = ""  # the last update's status message (HTML), without the timing
        self.last_error: Exception | None = None
        self.last_traceback: str | None = None
        self.last_run_ms: float = 0.0
        self.last_redraw_ms: float | None = None
        self.n_runs = 0
        self._message = ""
        self._idle_note = ""
        self._pending: dict[int, int] = {}
        self._holding = False
        self._held_change = False
        self._timing = ""
        self._t_change = 0.0
        self.veiled = False
        self._style = None
        self._fallback = None  # plain plotly copies where the page cannot load the live figures (live_fallback)
        for control in self.controls.values():
            control.observe(self._on_change, names="value")
            if control.layout is _control_layout(SliderStyle)["layout"]:  # the kernel's: swap for the panel's
                control.layout = shared(widgets.Layout, width="auto", min_width="0")
            else:  # a layout of the control's own
                control.layout.width = "auto"
                control.layout.min_width = "0"
        for fig in self.figures:
            if redraw_ack and isinstance(fig, LiveFigure):
                fig.on_drawn(functools.partial(self._on_drawn, id(fig)))
        grid = widgets.GridBox(
            list(self.controls.values()),
            layout=shared(widgets.Layout, grid_template_columns=f"repeat({columns}, minmax(0, 1fr))",
                          grid_gap="2px 12px", width="100%"),
        )
        parts: list[widgets.Widget] = []
        if title:
            parts.append(widgets.HTML(f"<b>{html.escape(title)}</b>", layout=shared(widgets.Layout),
                                      style=shared(HTMLStyle)))
        # the plots: what a prediction's gate veils (simcore.predict)
        self.result = widgets.VBox([f.widget if isinstance(f, LiveFigure) else f for f in self.figures],
                                   layout=shared(widgets.Layout, width="100%"), _dom_classes=("simcore-result",))
        parts += [grid, self.result, self.status, self.wait_note]
        classes = ("simcore-live-panel",)
        if gate is not None and not all(p.committed for p in gate):  # veiled from the start (set_veiled: no change)
            from simcore.predict.view import style_widget

            self.veiled = True
            self._style = style_widget()
            parts.append(self._style)
            classes += ("simcore-veiled",)
        self.widget = widgets.VBox(parts, layout=shared(widgets.Layout, width="100%"), _dom_classes=classes)
        self.compile_note = compile_notice() if compile_notice else None
        shown = None
        if self.compile_note:
            self.status.value = f"<span style='color:#777'>{html.escape(self.compile_note)}</span>"
            shown = _show_transient(self.compile_note)
        self.refresh()
        if shown is not None:
            from IPython.display import HTML

            shown.update(HTML(""))
        if gate is not None:
            from simcore.predict import gate as _gate

            _gate(self, *gate)

    def set_veiled(self, veiled: bool) -> None:
        """Veil the panel (plots blurred under an overlay, status line replaced by a note) or reveal it."""
        from simcore.predict.view import style_widget

        self.veiled = bool(veiled)
        if self.veiled and self._style is None:  # the veil's CSS travels with the panel
            self._style = style_widget()
            self.widget.children = (*self.widget.children, self._style)
        if self.veiled:
            self.widget.add_class("simcore-veiled")
        else:
            self.widget.remove_class("simcore-veiled")
        self._show(self._timing)
        if self._fallback is not None:  # plain copies too hold the answer back until the commit
            self._fallback.redraw()

    def values(self) -> dict:
        """Return the controls' current values by name."""
        return {name: control.value for name, control in self.controls.items()}

    def _on_change(self, _change) -> None:
        if self._holding:
            self._held_change = True
            return
        self.refresh()

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """Change several controls inside the block and re-run ``update`` once at its end (if any changed):
        ``with panel.held(): panel.set(a=1, b=2)`` is one move, not two."""
        outer = self._holding
        self._holding = True
        try:
            yield
        finally:
            self._holding = outer
            if not outer and self._held_change:
                self._held_change = False
                self.refresh()

    def _mark_idle(self, values: dict) -> None:
        reasons = dict(self.idle(values)) if self.idle else {}
        for name, control in self.controls.items():
            reason = reasons.get(name)
            control.disabled = reason is not None
            if hasattr(control, "tooltip"):
                control.tooltip = reason
        self._idle_note = "".join(
            f"<br><span style='color:#777'>{html.escape(getattr(self.controls[n], 'description', n))}: "
            f"{html.escape(r)}</span>" for n, r in reasons.items() if n in self.controls)

    def refresh(self) -> None:
        """Re-run ``update`` with the current values and redraw; show errors in the status line."""
        start = time.perf_counter()
        self._t_change = start
        seqs = {id(f): f._seq for f in self.figures if isinstance(f, LiveFigure)}
        try:
            values = self.values()
            self._mark_idle(values)
            with ExitStack() as stack:
                stack.enter_context(held_together(self.figures))  # entered first: sends after every batch
                for fig in self.figures:
                    stack.enter_context(fig.batch_update())
                message = self.update(values)
        except Exception as exc:  # a slider must never crash the kernel: show, keep, go on
            self.last_error = exc
            self.last_traceback = traceback.format_exc()
            self.status.value = f"<span style='color:#b00020'>{html.escape(error_sentence(exc))}</span>"
            return
        self.last_error = None
        self.last_traceback = None
        self.message = message or ""
        self.n_runs += 1
        self.last_run_ms = 1000.0 * (time.perf_counter() - start)
        self._pending = {id(f): f._seq for f in self.figures if isinstance(f, LiveFigure) and f._seq > seqs[id(f)]}
        self._message = message or ""
        self.last_redraw_ms = None
        self._show(f"(Python {self.last_run_ms:.0f} ms)")
        if self._fallback is not None:
            self._fallback.redraw()

    def _on_drawn(self, key: int, seq: int) -> None:
        if key in self._pending and seq >= self._pending[key]:
            del self._pending[key]
            if not self._pending and self.last_error is None:
                self.last_redraw_ms = 1000.0 * (time.perf_counter() - self._t_change)
                self._show(f"(redrawn {self.last_redraw_ms:.0f} ms after the slider reached Python; "
                           f"Python {self.last_run_ms:.0f} ms)")

    def _show(self, timing: str) -> None:
        self._timing = timing
        if self.last_error is not None:
            return  # the error stays in the status line (it tells the student why nothing was drawn)
        message = self._message
        if self.veiled:
            from simcore.predict.view import VEIL_TEXT

            message = f"<i>{VEIL_TEXT}: the numbers appear here once it is committed.</i>"
        self.status.value = f"{message} <span style='color:#777'>{timing}</span>{self._idle_note}"

    def set(self, **values) -> None:
        """Set controls by name (as a student moving sliders would); ``update`` runs once, after all of them."""
        for name in values:
            if name not in self.controls:
                raise ValueError(f"{name!r} is not a control of this panel: must be one of {list(self.controls)}")
        with self.held():
            for name, value in values.items():
                self.controls[name].value = value

    def _ipython_display_(self):
        """Show the panel; below it, plain plotly copies of its figures should the page not load the live
        figures' module (``simcore.live_fallback``)."""
        from IPython.display import display

        display(self._repr_mimebundle_(), raw=True)
        if not static.is_static():
            from simcore import live_fallback

            self._fallback = live_fallback.attach(self)

    def _repr_mimebundle_(self, **kwargs):
        if static.is_static():  # a book build: no kernel behind the page, show a snapshot
            return {"text/html": self.static_html(), "text/plain": f"<LivePanel {self.title!r}>"}
        return self.widget._repr_mimebundle_(**kwargs)

    def static_html(self) -> str:
        """Return the panel as static HTML: its settings, its figures as plotly charts, its status line."""
        settings = [(getattr(c, "description", "") or name, c.value) for name, c in self.controls.items()]
        status = self.status.value if self.last_error else self.message
        page = static.panel_html(self.title, settings, self.figures, status)
        if self.veiled:  # nothing committed in a book: the snapshot sits behind a toggle
            from simcore.predict.static_html import veiled_html

            settings_html = ", ".join(f"{html.escape(label)} <b>{html.escape(static._format_value(v))}</b>"
                                      for label, v in settings)
            head = f"<p><b>{html.escape(self.title)}</b> ({settings_html})</p>" if self.title else ""
            return head + veiled_html(page)
        return page
