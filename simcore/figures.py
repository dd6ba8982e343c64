"""Static figures of every chapter: a registry of builders and the writer behind
``python -m simcore figures [chapter|all]``.

A chapter module registers a builder with ``@register_figures("name")``; the builder returns
``{figure_name: go.Figure}``. ``write_figures`` writes each as ``figures/<chapter>/<figure_name>.png`` (for
the README) and ``.html`` (interactive; the HTML files share one ``plotly.min.js`` in ``figures/`` so they
work offline without a CDN, and the repository stays small). PNGs go through ``simcore._png_export``
(kaleido offline, in a child process with a time limit).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from pathlib import Path

import plotly.graph_objects as go

from simcore._png_export import export_pngs

__all__ = ["register_figures", "chapters", "build_figures", "write_figures", "CHAPTER_MODULES"]

FigureBuilder = Callable[[], dict[str, go.Figure]]

# Modules that register figure builders when imported, in chapter order.
CHAPTER_MODULES: dict[str, str] = {
    "start_here": "simcore.chapters.start_here",
    "tcp_primer": "simcore.chapters.tcp_primer",
    "reliable_transfer": "simcore.chapters.reliable_transfer",
    "admission": "simcore.chapters.admission",
    "satellite": "simcore.chapters.satellite_figures",
    "delay": "simcore.chapters.delay",
    "ftp_sctp": "simcore.chapters.ftp_sctp",
    "packaging": "simcore.chapters.objpack",
}

_BUILDERS: dict[str, FigureBuilder] = {}


def register_figures(chapter: str) -> Callable[[FigureBuilder], FigureBuilder]:
    """Return a decorator that registers ``builder() -> {name: go.Figure}`` for ``chapter``."""

    def decorate(builder: FigureBuilder) -> FigureBuilder:
        _BUILDERS[chapter] = builder
        return builder

    return decorate


def chapters() -> list[str]:
    """Return the names of chapters that have figures, in chapter order."""
    return list(CHAPTER_MODULES)


def build_figures(chapter: str) -> dict[str, go.Figure]:
    """Return the static figures of ``chapter`` by name."""
    if chapter not in CHAPTER_MODULES:
        raise ValueError(f"chapter={chapter!r} is not allowed: must be one of {chapters() + ['all']}")
    importlib.import_module(CHAPTER_MODULES[chapter])
    return _BUILDERS[chapter]()


def write_figures(chapter: str, out_dir: str | Path = "figures", *, png: bool = True,
                  progress: bool = True) -> list[Path]:
    """Write the figures of ``chapter`` (or 'all') under ``out_dir``; return the paths written."""
    from tqdm.auto import tqdm

    names = chapters() if chapter == "all" else [chapter]
    for name in names:
        if name not in CHAPTER_MODULES:
            raise ValueError(f"chapter={name!r} is not allowed: must be one of {chapters() + ['all']}")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    bar = tqdm(names, desc="figures", unit="chapter", disable=not progress)
    for name in bar:
        bar.set_postfix_str(name)
        figs = build_figures(name)
        chapter_dir = out / name
        chapter_dir.mkdir(exist_ok=True)
        pngs = {}
        for fig_name, fig in figs.items():
            html_path = chapter_dir / f"{fig_name}.html"
            fig.write_html(html_path, include_plotlyjs="../plotly.min.js", full_html=True,
                           div_id=f"{name}-{fig_name}")  # a fixed id: regenerating gives the same file
            written.append(html_path)
            pngs[chapter_dir / f"{fig_name}.png"] = fig
        if png:
            export_pngs(pngs, width=900, height=500)
            written += list(pngs)
    js = out / "plotly.min.js"
    if not js.exists():
        from plotly.offline import get_plotlyjs

        js.write_text(get_plotlyjs(), encoding="utf-8")
    return written
