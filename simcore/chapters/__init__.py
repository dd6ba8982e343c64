"""Chapter wiring: what each notebook calls (panels, tables, static figures).

plotly.js goes to the page when ``simcore`` itself is imported (``simcore._page_plotly``), before numba and the
chapter's kernels: the page evaluates it while the kernel is still importing, not after.
"""
