"""plotly.js for the page: one library widget per kernel, sent as early as the kernel can.

The page needs plotly.js before it can draw a live figure (``simcore.livefigure``). In JupyterLab it evaluates
the copy that JupyterLab's plotly extension carries (0.7-0.9 s of the page's main thread on a 2-core machine,
``benchmarks/bench_browser.py``); elsewhere it unpacks the installed plotly's ``plotly.min.js``, gzipped (1.4
MB), from this widget. Either way the page starts when this widget's model reaches it, and while its main thread
evaluates plotly.js every later message of the kernel waits. So ``import simcore`` sends it first thing, before
numba and the kernels are imported (0.2-0.3 s), and the page evaluates plotly.js while the kernel goes on
importing rather than after. So this module is light: it imports anywidget only when it makes the widget, and
plotly only for a file name and a version; in a script (IPython not imported) ``import simcore`` imports neither.

Nothing is sent outside a kernel (a script, a test) or in a book build (``SIMCORE_STATIC=1``).
"""

from __future__ import annotations

import gzip
import os
import sys
import zlib
from pathlib import Path

__all__ = ["STATIC_ENV_VAR", "is_static", "library", "library_class", "preload", "warm"]

STATIC_ENV_VAR = "SIMCORE_STATIC"  # set by the book build (``simcore.book``): panels render as plain HTML


def is_static() -> bool:
    """Return True if this process renders for a static page (``SIMCORE_STATIC=1``)."""
    return os.environ.get(STATIC_ENV_VAR, "") == "1"


_CLASS: list[type] = []
_LIBRARY: list = []


def library_class() -> type:
    """Return the widget class that holds plotly.js (gzipped) for the page (made, importing anywidget, once)."""
    if not _CLASS:
        import anywidget
        import traitlets

        class PlotlyLibrary(anywidget.AnyWidget):
            """Holds plotly.js (gzipped) for the page; never displayed. One per kernel (``library()``)."""

            _esm = Path(__file__).with_name("_livefigure.js")  # its initialize() starts loading plotly.js
            bundle_gz = traitlets.Bytes().tag(sync=True)
            version = traitlets.Unicode().tag(sync=True)  # plotly.js's version: a page that has it uses its own

        _CLASS.append(PlotlyLibrary)
    return _CLASS[0]


def _bundle_gz() -> bytes:
    """Return the installed plotly's plotly.min.js gzipped. Compressing takes ~0.5 s, so the result is kept
    under NUMBA_CACHE_DIR (set by the Makefile and Binder) when that is set; a damaged copy is redone."""
    import plotly

    folder = os.environ.get("NUMBA_CACHE_DIR")
    path = Path(folder) / "simcore-web" / f"plotly-{plotly.__version__}.min.js.gz" if folder else None
    if path is not None and path.is_file():
        try:
            data = path.read_bytes()
            gzip.decompress(data)  # checks length and CRC
            return data
        except (OSError, EOFError, gzip.BadGzipFile, zlib.error):
            pass
    from plotly.offline import get_plotlyjs

    data = gzip.compress(get_plotlyjs().encode(), compresslevel=9, mtime=0)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
            tmp.write_bytes(data)
            os.replace(tmp, path)
        except OSError:
            pass
    return data


def library():
    """Return this kernel's library widget, making it (and so sending it to the page) on the first call."""
    if not _LIBRARY:
        from plotly.offline import get_plotlyjs_version

        _LIBRARY.append(library_class()(bundle_gz=_bundle_gz(), version=get_plotlyjs_version()))
    return _LIBRARY[0]


def preload() -> None:
    """Inside a running kernel (and not a book build), send plotly.js to the page now."""
    ipython = sys.modules.get("IPython")  # a kernel has imported it long before; a script has not
    if ipython is None or is_static():
        return
    shell = ipython.get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return
    library()


def warm() -> None:
    """Prepare the gzipped plotly.js (``python -m simcore warm`` runs this on Binder's build)."""
    _bundle_gz()
