"""The lecture path a class follows: deep dives folded, a short main path, no wrapping lines, no development history.

Every chapter, and every new one, is held to the same limits: at most MAIN_PATH_WORDS_GOAL words outside deep
dives, no wrapping line, no banned phrase. (When the check was added the main paths had 1,681 / 3,452 / 3,540 /
3,698 / 3,851 / 5,161 / 4,423 words in start-here, the primer and chapters 1-5; they were trimmed by tagging
reference material `deep-dive`.)
"""

import re
from pathlib import Path

import nbformat
import pytest

from simcore.lecture import (
    DEEP_DIVE_TAG,
    deep_dive_runs,
    fold_deep_dives,
    is_deep_dive,
    is_folded,
    main_path_words,
    wrapping_lines,
)
from simcore.notebooks import fold_and_store

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "labs").glob("*.ipynb"))
MAIN_PATH_WORDS_GOAL = 1500
# words (regex \w+) in markdown cells not tagged deep-dive
MAIN_PATH_WORDS = {p.stem: MAIN_PATH_WORDS_GOAL for p in NOTEBOOKS}
# lines of the main path that wrap at 1400 px with the file browser open (simcore.lecture.wrapping_lines: each
# table too wide, each stored printed line over 120 characters)
WRAPPING_LINES = {p.stem: 0 for p in NOTEBOOKS}
# Development history has no place in student text: phrases found (or typical), as regexes, case-insensitive.
BANNED = [
    r"\b120 s runs\b", r"\bthe brief\b", r"\bwe used to\b", r"\bused to be\b", r"\bthis issue\b",
    r"\bearlier versions? of (this|the) (lab|chapter|code)", r"\bprevious versions? of (this|the) (lab|chapter|code)",
    r"\bthe review(er)?\b", r"\bthe lead\b", r"\bwas fixed\b", r"\bnow fixed\b", r"\bTODO\b", r"\bFIXME\b",
]
# occurrences found when this test was added (file -> {pattern: count}); owners remove them, then the entry
KNOWN_HISTORY = {
}
STUDENT_TEXT = [*NOTEBOOKS, *sorted((ROOT / "simcore").glob("**/ASSUMPTIONS.md"))]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_deep_dives_open_folded_and_the_main_path_does_not(path):
    nb = nbformat.read(path, as_version=4)
    unfolded = [i for i, c in enumerate(nb.cells) if is_deep_dive(c) and not is_folded(c)]
    assert not unfolded, (f"{path.name}: deep-dive cells {unfolded} are not folded: "
                          f"run python -m simcore notebooks --fold labs/{path.name}")
    hidden = [i for i, c in enumerate(nb.cells) if c.cell_type == "markdown" and not is_deep_dive(c)
              and c.metadata.get("jupyter", {}).get("source_hidden")]
    assert not hidden, f"{path.name}: main-path markdown cells {hidden} are hidden"


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_each_deep_dive_opens_with_its_title(path):
    """A folded cell shows its first line: a deep dive's first cell starts with a heading "Deep dive: ..."."""
    nb = nbformat.read(path, as_version=4)
    for start, _end in deep_dive_runs(nb):
        first = nb.cells[start]
        line = first.source.strip().split("\n")[0]
        assert first.cell_type == "markdown" and re.match(r"#{1,6} Deep dive: \S", line), (
            f"{path.name}: the deep dive at cell {start} opens with {line[:60]!r}, not '## Deep dive: <title>'")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_the_main_path_stays_under_its_word_limit(path):
    words = main_path_words(nbformat.read(path, as_version=4))
    limit = MAIN_PATH_WORDS[path.stem]
    assert words <= limit, (f"{path.name}: {words} words outside deep dives, limit {limit} (goal "
                            f"{MAIN_PATH_WORDS_GOAL}): trim, or tag reference material '{DEEP_DIVE_TAG}'")


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_more_main_path_lines_wrap_than_its_limit(path):
    lines = wrapping_lines(nbformat.read(path, as_version=4))
    limit = WRAPPING_LINES[path.stem]
    assert len(lines) <= limit, f"{path.name}: {len(lines)} wrapping lines, limit {limit}:\n" + "\n".join(lines[:10])


@pytest.mark.parametrize("path", STUDENT_TEXT, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_development_history_in_student_text(path):
    name = str(path.relative_to(ROOT))
    text = path.read_text()
    if path.suffix == ".ipynb":
        text = "\n".join(c.source for c in nbformat.read(path, as_version=4).cells)
    allowed = KNOWN_HISTORY.get(name, {})
    found = {p: len(re.findall(p, text, flags=re.I)) for p in BANNED}
    over = {p: n for p, n in found.items() if n > allowed.get(p, 0)}
    assert not over, f"{name}: development history in student text: {over}"


# -- the tools themselves, on small notebooks built here -------------------------------------------------------
def _nb():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md("# Title\n\nOne two three."), md("## Deep dive: why\n\nfour five"), code("print(1)"),
             md("Back on the path, six.")]
    for c in cells[1:3]:
        c.metadata["tags"] = [DEEP_DIVE_TAG]
    cells[3].metadata["jupyter"] = {"source_hidden": True}  # hidden by hand: the main path must show
    return nbformat.v4.new_notebook(cells=cells)


def test_fold_hides_deep_dives_and_shows_the_main_path(tmp_path):
    nb = _nb()
    assert main_path_words(nb) == 4 + 5  # Title One two three / Back on the path six
    assert deep_dive_runs(nb) == [(1, 3)]
    path = tmp_path / "x.ipynb"
    nbformat.write(nb, path)
    assert fold_and_store(path) == 3 and fold_and_store(path) == 0  # idempotent
    nb = nbformat.read(path, as_version=4)
    assert nb.cells[1].metadata["jupyter"] == {"source_hidden": True}
    assert nb.cells[2].metadata["jupyter"] == {"source_hidden": True, "outputs_hidden": True}
    assert "jupyter" not in nb.cells[3].metadata and "jupyter" not in nb.cells[0].metadata
    assert fold_deep_dives(nb) == 0


def test_wrapping_lines_finds_wide_tables_and_long_printouts():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    narrow = "| a | b |\n|---|---|\n| 1 | 2 |"
    # 13 px DejaVu Sans: 'w' is 10.63 px, so 90 of them (957 px) overflow the 928 px of a markdown cell
    wide = f"| name | value |\n|---|---|\n| {'w' * 90} | 2 |"
    long_print = code("print()", outputs=[nbformat.v4.new_output("stream", text="x" * 121 + "\n" + "y" * 120)])
    deep = md(wide)
    deep.metadata["tags"] = [DEEP_DIVE_TAG]
    nb = nbformat.v4.new_notebook(cells=[md(narrow), md(wide), long_print, deep])
    found = wrapping_lines(nb)
    assert len(found) == 2 and found[0].startswith("cell 1: table") and "121 characters" in found[1]
