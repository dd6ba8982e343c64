"""The lecture path: a chapter's main path (what a class reads) and its deep dives (cells tagged ``deep-dive``).

- ``fold_deep_dives(nb)``: every deep-dive cell folded when the notebook opens: its input hidden
  (``metadata.jupyter.source_hidden``; JupyterLab 4 and Notebook 7 then show the cell's first line, e.g.
  "## Deep dive: ...", as a one-line bar a click unfolds) and, for code cells, its outputs hidden too
  (``outputs_hidden``). Cells not tagged are unfolded if a markdown cell was hidden by hand: the main path is
  always in sight. ``python -m simcore notebooks --fold`` applies it; the store step does it on every write.
- ``main_path_words(nb)``: words (regex ``\\w+`` tokens) in the markdown cells outside deep dives.
- ``wrapping_lines(nb)``: main-path lines that would wrap at 1400 px with JupyterLab's file browser open:
  markdown table rows wider than the rendered markdown's width, and printed lines (stored outputs) longer
  than an output line holds. Widths measured in JupyterLab 4.6 / Chromium (``MARKDOWN_WIDTH_PX`` ...).
"""

from __future__ import annotations

import re

import nbformat

__all__ = ["DEEP_DIVE_TAG", "is_deep_dive", "is_folded", "fold_deep_dives", "deep_dive_runs", "main_path_words",
           "main_path_markdown", "table_rows", "wrapping_lines", "PRINT_CHARS", "MARKDOWN_WIDTH_PX"]

DEEP_DIVE_TAG = "deep-dive"
# JupyterLab 4.6 in Chromium at a 1400 px wide window, file browser open (250 px): a rendered markdown cell's
# text is 928 px wide (968 px less 20 px padding each side); an output's <pre> is 960 px wide and holds 122
# characters of its 13 px monospace font (7.83 px each), wrapping anywhere after that (word-break: break-all).
MARKDOWN_WIDTH_PX = 928
PRINT_CHARS = 120  # a little under 122: another monospace font may be a touch wider
_CELL_PAD_PX = 14.0  # a table cell's padding (6.5 px each side) and border
_CODE_CHAR_PX = 7.83


def is_deep_dive(cell) -> bool:
    """Return whether ``cell`` is tagged ``deep-dive``."""
    return DEEP_DIVE_TAG in cell.get("metadata", {}).get("tags", [])


def is_folded(cell) -> bool:
    """Return whether ``cell`` opens folded: input hidden, and for a code cell its outputs hidden too."""
    j = cell.get("metadata", {}).get("jupyter", {})
    return bool(j.get("source_hidden")) and (cell.cell_type != "code" or bool(j.get("outputs_hidden")))


def fold_deep_dives(nb: nbformat.NotebookNode) -> int:
    """Fold every deep-dive cell and unfold hidden main-path markdown (see the module docstring); return the
    number of cells changed."""
    changed = 0
    for cell in nb.cells:
        meta = cell.setdefault("metadata", {})
        if is_deep_dive(cell):
            if is_folded(cell):
                continue
            j = meta.setdefault("jupyter", {})
            j["source_hidden"] = True
            if cell.cell_type == "code":
                j["outputs_hidden"] = True
            changed += 1
        elif cell.cell_type == "markdown" and meta.get("jupyter", {}).get("source_hidden"):
            del meta["jupyter"]["source_hidden"]
            if not meta["jupyter"]:
                del meta["jupyter"]
            changed += 1
    return changed


def deep_dive_runs(nb: nbformat.NotebookNode) -> list[tuple[int, int]]:
    """Return each run of consecutive deep-dive cells as (first index, last index + 1)."""
    runs, start = [], None
    for i, cell in enumerate([*nb.cells, None]):
        if cell is not None and is_deep_dive(cell):
            start = i if start is None else start
        elif start is not None:
            runs.append((start, i))
            start = None
    return runs


def main_path_markdown(nb: nbformat.NotebookNode) -> list[str]:
    """Return the sources of the markdown cells outside deep dives."""
    return [c.source for c in nb.cells if c.cell_type == "markdown" and not is_deep_dive(c)]


def main_path_words(nb: nbformat.NotebookNode) -> int:
    """Return the main path's length in words: regex ``\\w+`` tokens over its markdown cells."""
    return sum(len(re.findall(r"\w+", s)) for s in main_path_markdown(nb))


# Advance widths (px) of the characters in a table cell (13 px, system-ui as JupyterLab sets it, which resolves
# to DejaVu Sans in Debian's Chromium: the widest of the common UI fonts, so a row that fits here fits
# elsewhere), measured with a canvas in Chromium; characters not listed count as "M".
_WIDTH_GROUPS = [
    ("'", 3.57),
    ('ijl', 3.61),
    ('IJ', 3.83),
    (' ,.·‘’', 4.13),
    ('/:;\\|', 4.38),
    ('f', 4.58),
    ('-', 4.69),
    ('()[]', 5.07),
    ('t', 5.1),
    ('!²³', 5.21),
    ('r', 5.34),
    ('"', 5.98),
    ('*_`°–', 6.5),
    ('“”', 6.73),
    ('s', 6.77),
    ('z', 6.82),
    ('?', 6.9),
    ('c', 7.15),
    ('L', 7.24),
    ('F', 7.48),
    ('k', 7.53),
    ('vxyλ', 7.69),
    ('P', 7.84),
    ('TY', 7.94),
    ('o', 7.95),
    ('a', 7.97),
    ('e', 8),
    ('E', 8.21),
    ('hnuσ', 8.24),
    ('Sbdgpqρ', 8.25),
    ('$0123456789{}µμ€', 8.27),
    ('√', 8.28),
    ('β', 8.3),
    ('K', 8.52),
    ('α', 8.57),
    ('AVΔ', 8.89),
    ('XZ', 8.91),
    ('B', 8.92),
    ('R', 9.03),
    ('C', 9.08),
    ('U', 9.52),
    ('N', 9.72),
    ('H', 9.78),
    ('D', 10.01),
    ('G', 10.07),
    ('&', 10.14),
    ('OQ', 10.23),
    ('w', 10.63),
    ('∞', 10.83),
    ('#+<=>^~±×←→−≈≠≤≥', 10.89),
    ('M', 11.22),
    ('%', 12.35),
    ('½', 12.6),
    ('m', 12.66),
    ('W', 12.85),
    ('@—…', 13),
]
_WIDTHS = {ch: px for chars, px in _WIDTH_GROUPS for ch in chars}


def _text_px(text: str) -> float:
    """Width in px of ``text`` as a table cell shows it (markdown and TeX markup roughly removed)."""
    code = sum(len(m) for m in re.findall(r"`([^`]*)`", text))
    text = re.sub(r"`[^`]*`", "", text)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)  # links: their text
    text = re.sub(r"\\[a-zA-Z]+\s?|[{}$*_^]", "", text)  # TeX commands and markup characters
    text = text.replace("&nbsp;", " ").replace("<br>", " ")
    default = _WIDTHS.get("M", 11.0)
    return code * _CODE_CHAR_PX + sum(_WIDTHS.get(ch, default) for ch in text)


def table_rows(source: str) -> list[list[str]]:
    """Return the rows (lists of cell texts) of every pipe table in a markdown ``source``, separators left out."""
    rows = []
    for line in source.splitlines():
        s = line.strip()
        if not (s.startswith("|") and s.endswith("|") and len(s) > 1):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", s[1:-1])]
        if all(re.fullmatch(r":?-{2,}:?", c) for c in cells if c):
            continue
        rows.append(cells)
    return rows


def _table_px(rows: list[list[str]]) -> float:
    n = max(len(r) for r in rows)
    widths = [_row_px(r, k == 0) for k, r in enumerate(rows)]
    cols = [max((w[i] for w in widths if i < len(w)), default=0.0) for i in range(n)]
    return sum(cols) + n * _CELL_PAD_PX


def _row_px(row: list[str], header: bool) -> list[float]:
    bold = 1.1 if header else 1.0  # a header row is bold
    return [bold * _text_px(c) for c in row]


def wrapping_lines(nb: nbformat.NotebookNode) -> list[str]:
    """Return the main path's lines that would wrap at 1400 px with the file browser open: each table whose
    widest row does not fit in ``MARKDOWN_WIDTH_PX`` (one entry per table, its first row quoted), and each
    stored printed line longer than ``PRINT_CHARS`` characters."""
    out = []
    for i, cell in enumerate(nb.cells):
        if is_deep_dive(cell):
            continue
        if cell.cell_type == "markdown":
            tables: list[list[list[str]]] = []
            prev_table = False
            for line in cell.source.splitlines():
                row = table_rows(line)
                is_row = line.strip().startswith("|")
                if is_row and not prev_table:
                    tables.append([])
                if row:
                    tables[-1].append(row[0])
                prev_table = is_row
            for rows in tables:
                if rows and _table_px(rows) > MARKDOWN_WIDTH_PX:
                    out.append(f"cell {i}: table {' | '.join(rows[0])[:60]!r} is {_table_px(rows):.0f} px wide, "
                               f"{MARKDOWN_WIDTH_PX} px fit")
        elif cell.cell_type == "code":
            for o in cell.get("outputs", []):
                text = o.get("text", "") if o.get("output_type") == "stream" else \
                    o.get("data", {}).get("text/plain", "") if "data" in o else ""
                for line in (text if isinstance(text, str) else "".join(text)).splitlines():
                    if len(line) > PRINT_CHARS:
                        out.append(f"cell {i}: printed line of {len(line)} characters ({PRINT_CHARS} fit): "
                                   f"{line[:50]!r}")
    return out
