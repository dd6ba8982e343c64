"""Chapter wiring: what each notebook calls (panels, tables, static figures).

Importing any chapter first has plotly.js sent to the page (``livefigure.preload``, in a kernel only), before
the chapter's own imports (numba and its kernels take 0.3-1 s more): the page evaluates plotly.js (0.7 s of
its main thread) while the kernel is still importing, not after.
"""

from simcore import livefigure as _livefigure

_livefigure.preload()
