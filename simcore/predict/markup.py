"""A little markdown for prompts and explanations: paragraphs, lists, emphasis, code, links and TeX math.

Prompts and explanations are written in chapter modules as markdown (HTML allowed, as in a notebook's
markdown cell) and shown in an ipywidgets ``HTMLMath`` (JupyterLab, Notebook 7, Voila typeset its math
with the page's MathJax) and in the static book's HTML. The kernel has no markdown library to rely on
(``simcore``'s dependencies are numpy, numba, plotly, ipywidgets, anywidget, ciw, tqdm), so this module
converts the small subset such text needs:

- paragraphs (blank lines), ``* `` / ``- `` bullet lists;
- ``**bold**``, ``*italic*``, `` `code` ``, ``[text](url)``;
- math: ``$...$`` and ``\\(...\\)`` inline, ``$$...$$`` and ``\\[...\\]`` displayed, passed through untouched
  (only ``<``, ``>`` and ``&`` escaped) and written with the ``\\(...\\)`` / ``\\[...\\]`` delimiters, which
  JupyterLab's MathJax and the book's MathJax both typeset (the book's does not read ``$`` in HTML).

Everything else (HTML tags included) is passed through: the text is the chapter author's, not a user's.
"""

from __future__ import annotations

import html
import re

__all__ = ["to_html"]

_MATH = re.compile(
    r"\$\$(?P<d1>.+?)\$\$"  # $$ display $$
    r"|\\\[(?P<d2>.+?)\\\]"  # \[ display \]
    r"|\\\((?P<i2>.+?)\\\)"  # \( inline \)
    r"|(?<![\\$])\$(?P<i1>[^$\n]+?)\$(?!\$)",  # $ inline $ (not \$, not $$)
    re.S,
)
_INLINE = [
    (re.compile(r"`([^`]+)`"), r"<code>\1</code>"),
    (re.compile(r"\*\*(.+?)\*\*", re.S), r"<b>\1</b>"),
    (re.compile(r"(?<![*\w])\*(?!\s)(.+?)(?<!\s)\*(?![*\w])", re.S), r"<i>\1</i>"),
    (re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)"), r'<a href="\2" target="_blank" rel="noopener">\1</a>'),
]
_BULLET = re.compile(r"^\s*[*-]\s+")


def _inline(text: str) -> str:
    for pattern, repl in _INLINE:
        text = pattern.sub(repl, text)
    return text


def to_html(text: str, *, inline: bool = False) -> str:
    """Return ``text`` (the markdown subset above) as HTML, its math delimited for MathJax; ``inline``:
    one run of text (a choice, a verdict), without paragraph tags."""
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} is not a string: must be markdown text")
    maths: list[str] = []

    def keep(m: re.Match) -> str:
        body = next(g for g in (m.group("d1"), m.group("d2"), m.group("i1"), m.group("i2")) if g is not None)
        display = m.group("d1") is not None or m.group("d2") is not None
        body = html.escape(body, quote=False)
        maths.append(f"\\[{body}\\]" if display else f"\\({body}\\)")
        return f"\x00{len(maths) - 1}\x00"

    protected = _MATH.sub(keep, text.strip())
    if inline:
        out = _inline(" ".join(line.strip() for line in protected.split("\n")))
        return re.sub("\x00(\\d+)\x00", lambda m: maths[int(m.group(1))], out)
    blocks = []
    for block in re.split(r"\n\s*\n", protected):
        lines = block.strip("\n").split("\n")
        if lines and all(_BULLET.match(line) or line.startswith("  ") for line in lines) and _BULLET.match(lines[0]):
            items: list[str] = []
            for line in lines:
                if _BULLET.match(line):
                    items.append(_BULLET.sub("", line))
                else:
                    items[-1] += " " + line.strip()
            blocks.append("<ul>" + "".join(f"<li>{_inline(i)}</li>" for i in items) + "</ul>")
        elif block.strip():
            blocks.append(f"<p>{_inline(' '.join(line.strip() for line in lines))}</p>")
    out = "\n".join(blocks)
    return re.sub("\x00(\\d+)\x00", lambda m: maths[int(m.group(1))], out)
