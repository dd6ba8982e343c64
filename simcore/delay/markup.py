"""The report's markup language: plain ASCII text with references to other files written ``<<url>>``.

Example (section II.2 of the report)::

    pA1.txt:   data data data data <<home/cA11.txt>> data data
    cA11.txt:  Hi. I am cA11.txt

- :func:`parse_references` returns the URLs a file embeds, rejecting malformed markup with a ValueError
  that says what is wrong and where;
- :func:`generate_tree` writes a page of ``n_parents`` parent files each embedding ``n_children``
  children (the report's naming: parents ``pA2.txt``, ``pB2.txt``; children ``cA2_1.txt`` ...);
- :func:`tree_shape` reads such a set of files back into (P, C, sizes), which is what the delay model
  needs; it checks that every reference resolves and that the tree has the report's two levels.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from simcore._validate import check_int

__all__ = ["parse_references", "generate_tree", "tree_shape", "parent_name", "child_name"]

OPEN = "<<"
CLOSE = ">>"
_FORBIDDEN_IN_URL = set(" \t\r\n<>")


def parse_references(text: str) -> list[str]:
    """Return the URLs referenced as ``<<url>>`` in ``text``, in order of appearance (a list of str).

    Raises ValueError for: a ``>>`` with no opening ``<<``, a ``<<`` never closed, a ``<<`` inside a
    reference, an empty reference, or a URL containing whitespace or ``<``/``>``; and for non-ASCII text
    (the report's files are ASCII).
    """
    if not isinstance(text, str):
        raise ValueError(f"text={text!r} is not allowed: must be a str")
    if not text.isascii():
        bad = next(i for i, ch in enumerate(text) if not ch.isascii())
        raise ValueError(f"text is not ASCII: character {text[bad]!r} at offset {bad}")
    refs: list[str] = []
    pos = 0
    while True:
        i_open = text.find(OPEN, pos)
        i_close = text.find(CLOSE, pos)
        if i_open < 0:
            if i_close >= 0:
                raise ValueError(f"malformed markup: '>>' at offset {i_close} has no opening '<<'")
            return refs
        if 0 <= i_close < i_open:
            raise ValueError(f"malformed markup: '>>' at offset {i_close} has no opening '<<'")
        start = i_open + len(OPEN)
        end = text.find(CLOSE, start)
        if end < 0:
            raise ValueError(f"malformed markup: '<<' at offset {i_open} is never closed by '>>'")
        url = text[start:end]
        nested = url.find(OPEN)
        if nested >= 0:
            raise ValueError(
                f"malformed markup: '<<' at offset {start + nested} inside the reference opened at {i_open}"
            )
        if not url:
            raise ValueError(f"malformed markup: empty reference '<<>>' at offset {i_open}")
        bad = [ch for ch in url if ch in _FORBIDDEN_IN_URL]
        if bad:
            raise ValueError(
                f"malformed markup: reference {url!r} at offset {i_open} contains {bad[0]!r}; "
                "URLs may not contain whitespace, '<' or '>'"
            )
        refs.append(url)
        pos = end + len(CLOSE)


def _letters(i: int) -> str:
    """Return A, B, ..., Z, AA, AB, ... for i = 0, 1, ..."""
    s = ""
    i += 1
    while i > 0:
        i, r = divmod(i - 1, 26)
        s = chr(ord("A") + r) + s
    return s


def parent_name(p: int, n_children: int) -> str:
    """Return the file name of parent ``p`` of a page with ``n_children`` children per parent (str)."""
    return f"p{_letters(p)}{n_children}.txt"


def child_name(p: int, j: int, n_children: int) -> str:
    """Return the file name of child ``j`` of parent ``p`` (str), e.g. ``cA2_1.txt``."""
    return f"c{_letters(p)}{n_children}_{j + 1}.txt"


def _body(name: str, size_bytes: int) -> str:
    head = f"I am {name}. "
    filler = "data " * (max(size_bytes - len(head), 0) // 5 + 1)
    return (head + filler)[:size_bytes] if size_bytes >= len(head) else head[:size_bytes]


def generate_tree(n_parents: int, n_children: int, body_bytes: int = 200,
                  prefix: str = "home/") -> tuple[dict[str, str], list[str]]:
    """Return ``(files, roots)``: a page of P parents each embedding C children, in the report's markup.

    ``files`` maps a URL to its text; ``roots`` lists the parents' URLs (what the client requests).
    Every child holds ``body_bytes`` bytes of text; a parent holds ``body_bytes`` bytes of text followed
    by its references, one ``<<url>>`` per line.
    """
    check_int("n_parents", n_parents, 1, 10_000)
    check_int("n_children", n_children, 0, 10_000)
    check_int("body_bytes", body_bytes, 0, 10**8)
    if not isinstance(prefix, str) or any(ch in _FORBIDDEN_IN_URL for ch in prefix):
        raise ValueError(f"prefix={prefix!r} is not allowed: must be a str without whitespace, '<' or '>'")
    files: dict[str, str] = {}
    roots: list[str] = []
    for p in range(n_parents):
        pname = prefix + parent_name(p, n_children)
        kids = [prefix + child_name(p, j, n_children) for j in range(n_children)]
        files[pname] = _body(pname, body_bytes) + "".join(f"\n<<{k}>>" for k in kids) + "\n"
        for k in kids:
            files[k] = _body(k, body_bytes)
        roots.append(pname)
    return files, roots


def tree_shape(files: Mapping[str, str], roots: Sequence[str]) -> dict:
    """Return ``{"n_parents", "n_children", "parent_sizes_bytes", "child_sizes_bytes"}`` of a page.

    Raises ValueError when a root or reference is missing from ``files``, when a child embeds further
    files (the report's model has two levels), or when parents embed different numbers of children.
    """
    if len(roots) == 0:
        raise ValueError("roots=[] is not allowed: a page needs at least one parent file")
    counts, psizes, csizes = [], [], []
    for r in roots:
        if r not in files:
            raise ValueError(f"root {r!r} is not among the files")
        refs = parse_references(files[r])
        counts.append(len(refs))
        psizes.append(len(files[r].encode("ascii")))
        for ref in refs:
            if ref not in files:
                raise ValueError(f"{r!r} references {ref!r}, which is not among the files")
            if parse_references(files[ref]):
                raise ValueError(
                    f"{ref!r} (a child of {r!r}) embeds further files: the model has only two levels"
                )
            csizes.append(len(files[ref].encode("ascii")))
    if len(set(counts)) != 1:
        raise ValueError(f"parents embed different numbers of children {counts}: the model needs one C")
    return {
        "n_parents": len(roots),
        "n_children": counts[0],
        "parent_sizes_bytes": psizes,
        "child_sizes_bytes": csizes,
    }
