"""``LiveFigure``: a plotly figure that redraws in the browser with only what changed.

A ``LiveFigure`` is a ``go.Figure`` (build and update it with the usual plotly API, ``batch_update()``
included) that also has a small anywidget view (``fig.widget``; displaying the figure shows it). Why not
plotly's own ``go.FigureWidget`` (checked with plotly 7.1 in JupyterLab 4.6, see benchmarks/bench_browser.py):
each FigureWidget ships its own 4.96 MB copy of plotly.js to the page; after every redraw it sends
``_js2py_traceDeltas`` / ``_js2py_widget_layoutDelta`` back, keeping the kernel busy 100-200 ms and
raising a ValueError in ``_remove_overlapping_props`` when traces hold numpy arrays (plotly.py #4160);
and names and styles set before display can be missing on first display.

Here instead:
- plotly.js reaches the page once per kernel: one shared ``PlotlyLibrary`` widget holds the installed
  plotly package's ``plotly.min.js`` gzipped (about 1.4 MB instead of 4.8 MB), sent first thing when
  ``simcore`` is imported in a kernel (``simcore._page_plotly``). In JupyterLab the page does not even unpack
  it: JupyterLab's plotly extension (jupyterlab-plotly, from the same plotly package) loads the very same
  plotly.js with the page and evaluates it when asked (``window.Plotly`` after a static plotly output, or
  through the extension's renderer: 0.7 s of the page's main thread instead of 1.25 s to unpack and
  evaluate our copy); elsewhere our copy is unpacked once per page.
- Until the page has shown the figure, its full state travels in the widget's own state (``_snapshot``,
  kept current after every change), so the page draws it as soon as the output appears, even while the
  kernel is still busy running the notebook's later cells (a request-and-answer handshake waited behind
  them: 25-35 s to the first live plot). The page then says "hello" with the version it drew (a newer
  full snapshot is sent if it is behind); after that, every change (a
  ``batch_update()`` block, or a single assignment outside one) sends only the trace properties and
  layout keys that differ from what the page has, numeric arrays as binary buffers (8 bytes a number
  instead of about 18 characters of JSON), and long lists of repeated strings (hover text per point,
  one story per client) as their distinct strings plus a 4-byte index per point.
- Nothing is echoed back, so the kernel is idle as soon as it has sent the update: the page itself
  writes how long the student waited (input event to redraw) into the enclosing ``LivePanel``'s note.
  ``on_drawn(callback)`` asks the page for a tiny ``drawn`` acknowledgement after each redraw (it wakes
  the kernel once more per move, 30-50 ms on a loaded 2-core machine, so panels do not ask by default).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import math
import time
import uuid
import zlib
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

import anywidget
import ipywidgets as widgets
import numpy as np
import plotly.graph_objects as go
import traitlets

from simcore import _page_plotly

__all__ = ["LiveFigure", "encode", "held_together"]

_TYPED = {"f8", "f4", "i4", "u4", "i2", "u2", "i1", "u1"}
_LIST_AS_ARRAY = 64  # numeric lists longer than this travel as float64 buffers (None -> NaN, a gap)
# A message (JSON and buffers) larger than this travels deflated (zlib) in one buffer: hover stories, SVG
# paths and small integers shrink 3-10x, for ~1 ms of zlib here and the browser's own DecompressionStream.
_PACK_BYTES = 8192
_PACK_LEVEL = 6


def _pack(msg: dict, buffers: list) -> tuple[dict, list]:
    """Return ``(msg, buffers)`` as one zlib-deflated buffer ({"type": "packed", "sizes"}: the byte
    lengths of the message's JSON and of each buffer, in that order) if that is worth it, else as given."""
    parts = [json.dumps(msg, separators=(",", ":"), allow_nan=False).encode(), *map(bytes, buffers)]
    if sum(map(len, parts)) < _PACK_BYTES:
        return msg, buffers
    return {"type": "packed", "sizes": [len(p) for p in parts]}, [zlib.compress(b"".join(parts), _PACK_LEVEL)]


def _send(view: anywidget.AnyWidget, msg: dict, buffers: list) -> None:
    view.send(*_pack(msg, buffers))


class _FigureView(anywidget.AnyWidget):
    _esm = Path(__file__).with_name("_livefigure.js")
    _uid = traitlets.Unicode().tag(sync=True)
    _height = traitlets.Int(400).tag(sync=True)
    # the figure's full state until the page has shown it (numeric arrays as bytes, see _inline)
    _snapshot = traitlets.Dict().tag(sync=True)
    _library = traitlets.Instance(_page_plotly.library_class()).tag(sync=True, **widgets.widget_serialization)
    # answer {"type": "drawn", "seq"} after each redraw (set by LiveFigure.on_drawn)
    _ack_drawn = traitlets.Bool(False).tag(sync=True)


def _is_number(v) -> bool:
    return v is None or (isinstance(v, (int, float, np.number)) and not isinstance(v, (bool, np.bool_)))


def encode(value, buffers: list, strings: dict | None = None) -> object:
    """Return ``value`` as JSON-ready data for the page, numeric numpy arrays (and long numeric lists)
    replaced by ``{"__nd__": i, "dtype": ...}`` with their bytes appended to ``buffers``; NaN and
    infinities in plain numbers become None (a gap for plotly). With ``strings`` (a dict, string -> number,
    shared by everything in one message), long lists of repeated strings refer into that one table
    (``{"__stri__": index buffer}``), so hover text that two traces share travels once."""
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "iuf" and value.ndim == 1:
            arr = _narrow(value)
            code = f"{arr.dtype.kind}{arr.dtype.itemsize}"
            if code not in _TYPED:
                arr, code = arr.astype(np.float64), "f8"
            buffers.append(np.ascontiguousarray(arr).astype(arr.dtype.newbyteorder("<"), copy=False).tobytes())
            return {"__nd__": len(buffers) - 1, "dtype": code}
        return encode(value.tolist(), buffers, strings)
    if isinstance(value, dict):
        return {k: encode(v, buffers, strings) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        if len(value) > _LIST_AS_ARRAY and all(map(_is_number, value)):
            return encode(np.array([np.nan if v is None else v for v in value], dtype=np.float64), buffers)
        if len(value) > _LIST_AS_ARRAY and all(isinstance(v, str) or v is None for v in value):
            words = _string_table(value, buffers, strings)
            if words is not None:
                return words
        return [encode(v, buffers, strings) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _narrow(arr: np.ndarray) -> np.ndarray:
    """Return an integer array in the narrowest of int8 / uint8 / int16 / uint16 / int32 that holds its
    values exactly (client numbers, indices: 1-2 bytes a number instead of 4-8), other arrays as given."""
    if arr.dtype.kind not in "iu" or arr.size == 0:
        return arr
    lo, hi = int(arr.min()), int(arr.max())
    for t in (np.int8, np.uint8, np.int16, np.uint16, np.int32):
        info = np.iinfo(t)
        if info.min <= lo and hi <= info.max:
            return arr.astype(t) if np.dtype(t).itemsize < arr.dtype.itemsize else arr
    return arr


def _index(values: Iterable, table: dict, count: int) -> np.ndarray:
    """Return the index into ``table`` (string -> number, grown as needed) of each of ``values``."""
    return np.fromiter((table.setdefault(v, len(table)) for v in values), dtype=np.int64, count=count)


def _string_table(value: list | tuple, buffers: list, strings: dict | None = None) -> dict | None:
    """Return a long list of strings (or None) as {"__strs__": distinct strings, "index": buffer} when
    its strings repeat (hover text per point that is one story per client), else None; with ``strings``
    (the message's table) as {"__stri__": buffer of indices into it}."""
    if strings is not None:
        if 2 * len(set(value)) > len(value):
            return None
        return {"__stri__": encode(_index(value, strings, len(value)), buffers)}
    table: dict = {}
    index = _index(value, table, len(value))
    if 2 * len(table) > len(value):
        return None
    return {"__strs__": list(table), "index": encode(index, buffers)}


def _inline(value, buffers: list):
    """Return ``value`` from ``encode`` with every buffer reference replaced by the bytes themselves (the
    form a widget's state carries: ipywidgets sends nested bytes as binary buffers)."""
    if isinstance(value, dict):
        if "__nd__" in value and isinstance(value["__nd__"], int):
            return {**value, "__nd__": buffers[value["__nd__"]]}
        return {k: _inline(v, buffers) for k, v in value.items()}
    if isinstance(value, list):
        return [_inline(v, buffers) for v in value]
    return value


def _same(a, b) -> bool:
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        if not (isinstance(a, np.ndarray) and isinstance(b, np.ndarray)) or a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if type(a) is not type(b):
        return False
    return a == b or (isinstance(a, float) and a != a and b != b)


def _snap(value):
    """Return a copy of ``value`` that later in-place edits of the figure cannot change (plotly stores
    arrays read-only, so numpy arrays are kept by reference)."""
    if isinstance(value, dict):
        return {k: _snap(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_snap(v) for v in value]
    return value


@contextlib.contextmanager
def held_together(figures: Iterable) -> Iterator[None]:
    """Hold the updates of ``figures`` (the ``LiveFigure`` among them) made inside the block and send them
    at its end, all but the last flagged ``more``: the page draws them in one go, one layout and paint for
    all instead of one per figure (``LivePanel`` wraps every update in this)."""
    live = [f for f in figures if isinstance(f, LiveFigure)]
    for fig in live:
        fig._held = []
    try:
        yield
    finally:
        out = []
        for fig in live:
            out += [(fig, msg, buffers) for msg, buffers in fig._held]
            fig._held = None
        for k, (fig, msg, buffers) in enumerate(out):
            if k < len(out) - 1:
                msg["more"] = True
            _send(fig._view, msg, buffers)


class LiveFigure(go.Figure):
    """A ``go.Figure`` that mirrors itself into the page (see the module's docstring).

    ``fig.widget`` is the view to put into a layout; ``on_drawn(callback)`` calls ``callback(seq)``
    whenever the page has drawn the update ``seq`` (the value ``push()`` returned)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._view = _FigureView(_uid=uuid.uuid4().hex, _library=_page_plotly.library(),
                                 _height=int(self.layout.height or 400))
        self._ready = False
        self._state_pending = False
        self._view.on_msg(self._on_msg)
        self._seq = 0
        self._sent_data: list[dict] = []
        self._sent_layout: dict = {}
        self._drawn_callbacks: list[Callable[[int], None]] = []
        self._ready_callbacks: list[Callable[[], None]] = []
        self._last_push_s = 0.0

    @property
    def widget(self) -> _FigureView:
        """The figure's widget (what to put into a VBox)."""
        return self._view

    def on_drawn(self, callback: Callable[[int], None]) -> None:
        """Call ``callback(seq)`` when the page reports it has drawn update ``seq`` (from now on the page
        acknowledges every redraw, which keeps the kernel busy a little after each one)."""
        self._drawn_callbacks.append(callback)
        self._view._ack_drawn = True

    def on_ready(self, callback: Callable[[], None]) -> None:
        """Call ``callback()`` when a page has loaded this figure's module (its first "hello"; at once if one
        has): ``simcore.live_fallback`` shows plain plotly copies where none does."""
        if self._ready:
            callback()
        else:
            self._ready_callbacks.append(callback)

    # plotly calls these after every change (in a batch: once, when it ends); a plain Figure ignores them
    def _send_addTraces_msg(self, *_args, **_kwargs):
        self.push()

    _send_moveTraces_msg = _send_deleteTraces_msg = _send_restyle_msg = _send_addTraces_msg
    _send_relayout_msg = _send_update_msg = _send_addTraces_msg

    def _on_msg(self, _widget, content, _buffers) -> None:
        kind = content.get("type") if isinstance(content, dict) else None
        if kind == "hello":
            first = not self._ready
            self._ready = True
            if content.get("seq") != self._seq:  # the page drew an older state (or none): resend it all
                self._send_snapshot()
            if first:
                for callback in self._ready_callbacks:
                    callback()
                self._ready_callbacks.clear()
        elif kind == "drawn":
            for callback in list(self._drawn_callbacks):
                callback(int(content.get("seq", -1)))

    def _send_snapshot(self, as_state: bool = False) -> None:
        """Send the whole figure: as a message, or (``as_state``, before the page has shown it) as the
        widget's ``_snapshot`` state."""
        self._seq += 1
        buffers: list = []
        data = [encode(t, buffers) for t in self._data]
        layout = encode(self._layout, buffers)
        if as_state:
            self._view._snapshot = {"seq": self._seq, "data": _inline(data, buffers),
                                    "layout": _inline(layout, buffers)}
        else:
            _send(self._view, {"type": "snapshot", "seq": self._seq, "data": data, "layout": layout}, buffers)
        self._sent_data = [_snap(t) for t in self._data]
        self._sent_layout = _snap(self._layout)

    def _schedule_state(self) -> None:
        """Store the whole figure in the widget's state once the running cell (or message handler) is
        done, not after each of its changes (building a figure trace by trace sent it again per trace);
        at once if no event loop runs (plain Python)."""
        if self._state_pending:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            self._send_snapshot(as_state=True)
            return
        self._state_pending = True
        loop.call_soon(self._flush_state)

    def _flush_state(self) -> None:
        self._state_pending = False
        if not self._ready:
            self._send_snapshot(as_state=True)

    def push(self) -> int | None:
        """Send what changed since the last push; return its sequence number, or None if nothing was
        sent (nothing changed, or the figure has not appeared in a page yet)."""
        if not hasattr(self, "_ready"):  # plotly's own __init__ is still adding traces
            return None
        if not self._ready:  # the page has not shown the figure yet: keep its state current
            self._schedule_state()
            return None
        start = time.perf_counter()
        buffers: list = []
        strings: dict = {}
        traces: dict[str, dict] = {}
        for i, trace in enumerate(self._data):
            old = self._sent_data[i] if i < len(self._sent_data) else {}
            changed = {k: encode(v, buffers, strings) for k, v in trace.items()
                       if k not in old or not _same(v, old[k])}
            changed.update({k: None for k in old if k not in trace})
            if changed:
                traces[str(i)] = changed
        layout = {k: encode(v, buffers, strings) for k, v in self._layout.items()
                  if k not in self._sent_layout or not _same(v, self._sent_layout[k])}
        layout.update({k: None for k in self._sent_layout if k not in self._layout})
        if not traces and not layout and len(self._data) == len(self._sent_data):
            return None
        self._seq += 1
        msg = {"type": "patch", "seq": self._seq, "traces": traces, "layout": layout,
               "n_traces": len(self._data), "strings": list(strings)}
        held = getattr(self, "_held", None)
        if held is not None:
            held.append((msg, buffers))
        else:
            _send(self._view, msg, buffers)
        prev = self._sent_data
        self._sent_data = [_snap(t) if (str(i) in traces or i >= len(prev)) else prev[i]
                           for i, t in enumerate(self._data)]
        for k in layout:
            if k in self._layout:
                self._sent_layout[k] = _snap(self._layout[k])
            else:
                self._sent_layout.pop(k, None)
        self._last_push_s = time.perf_counter() - start
        return self._seq

    def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
        return self._view._repr_mimebundle_(include=include, exclude=exclude, **kwargs)

    def _ipython_display_(self):
        from IPython.display import display

        display(self._view)
