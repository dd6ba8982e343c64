"""The static book (Jupyter Book 1): every chapter in it, built without warnings, every internal link resolving.

The fast tests check the table of contents against labs/, the intro's chapter table against the README, and
the link checker and the inputs digest on small hand-made cases. The ``book`` test builds the real book as
``make book`` does (it reuses chapters executed earlier whose inputs have not changed) and checks it.
"""

import json
import re
from pathlib import Path

import nbformat
import pytest

from simcore.book import (
    broken_links,
    build,
    build_html,
    chapter_notebooks,
    inputs_digest,
    missing_from_toc,
    toc_files,
)

ROOT = Path(__file__).resolve().parents[1]
BINDER = "https://mybinder.org/v2/gh/simcore-lab/simcore-lab/HEAD?urlpath=lab/tree/labs/{}"


def test_toc_lists_exactly_the_chapters_in_labs():
    missing, extra = missing_from_toc(ROOT)
    assert not missing, f"add {missing} to book/_toc.yml"
    assert not extra, f"book/_toc.yml lists chapters that labs/ lacks: {extra}"
    files = toc_files(ROOT / "book")
    assert files[0] == "intro" and "instructor" in files


def _mini_repo(tmp_path: Path, chapters: list[str], toc_entries: list[str]) -> Path:
    (tmp_path / "labs").mkdir()
    for name in chapters:
        nbformat.write(nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell(f"# {name}")]),
                       tmp_path / "labs" / f"{name}.ipynb")
    (tmp_path / "book").mkdir()
    lines = ["format: jb-book", "root: intro", "parts:", "  - caption: Chapters", "    chapters:"]
    lines += [f"      - file: {e}" for e in toc_entries]
    (tmp_path / "book" / "_toc.yml").write_text("\n".join(lines) + "\n")
    return tmp_path


def test_a_chapter_missing_from_the_toc_is_found(tmp_path):
    root = _mini_repo(tmp_path, ["00_a", "05_new"], ["labs/00_a", "labs/03_gone"])
    assert missing_from_toc(root) == (["labs/05_new"], ["labs/03_gone"])


def test_intro_shows_the_readme_chapter_table():
    readme = (ROOT / "README.md").read_text()
    start, end = "<!-- chapters:start -->", "<!-- chapters:end -->"
    assert readme.count(start) == 1 and readme.count(end) == 1 and readme.index(start) < readme.index(end)
    table = readme.split(start)[1].split(end)[0]
    for nb in chapter_notebooks(ROOT):  # a chapter in labs/ is in the book, so in the table it shows
        assert f"](labs/{nb.name})" in table, f"README's chapter table lacks labs/{nb.name}"
        assert BINDER.format(nb.name) in table, f"README's chapter table lacks the Binder link of {nb.name}"
    intro = (ROOT / "book" / "intro.md").read_text()
    assert re.search(r"```\{include\} \.\./README\.md\n:start-after: " + re.escape(start) +
                     r"\n:end-before: " + re.escape(end), intro)


def _page(path: Path, body: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"<html><body>{body}</body></html>")


def test_link_checker_finds_missing_files_and_fragments(tmp_path):
    _page(tmp_path / "index.html", '<a href="labs/a.html#results">ok</a> <a href="labs/b.html">no file</a>'
          ' <a href="https://example.org/x">external</a> <a href="#top">no id here</a>'
          ' <img src="_static/logo.png"> <script src="//cdn.example.org/x.js"></script>')
    _page(tmp_path / "labs" / "a.html", '<h1 id="results">r</h1><a href="../index.html">up</a>'
          ' <a href="a.html#nowhere">bad fragment</a> <a href="../sub/">a folder</a>')
    _page(tmp_path / "sub" / "index.html", "")
    broken = broken_links(tmp_path)
    assert sorted(broken) == sorted([
        "index.html: labs/b.html (no file)",
        "index.html: #top (no id 'top')",
        "index.html: _static/logo.png (no file)",
        "labs/a.html: a.html#nowhere (no id 'nowhere')",
    ])


def test_inputs_digest_follows_simcore_and_data_not_other_files(tmp_path):
    root = _mini_repo(tmp_path, ["00_a"], ["labs/00_a"])
    (root / "simcore").mkdir()
    (root / "simcore" / "model.py").write_text("RATE = 1\n")
    (root / "data").mkdir()
    (root / "data" / "paper.csv").write_text("x,source\n1,fig 1\n")
    nb = root / "labs" / "00_a.ipynb"
    first = inputs_digest(root, nb)
    (root / "README.md").write_text("not an input\n")
    assert inputs_digest(root, nb) == first
    (root / "simcore" / "model.py").write_text("RATE = 2\n")
    second = inputs_digest(root, nb)
    assert second != first
    (root / "data" / "paper.csv").write_text("x,source\n2,fig 1\n")
    assert inputs_digest(root, nb) not in (first, second)


@pytest.mark.book
def test_a_warning_fails_the_build(tmp_path):
    """The build's warning check is not vacuous: a reference to a missing page fails it."""
    book = tmp_path / "book"
    book.mkdir()
    (book / "_config.yml").write_text("title: t\nexecute:\n  execute_notebooks: 'off'\nonly_build_toc_files: true\n")
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\n")
    (book / "intro.md").write_text("# Intro\n\nSee {doc}`missing_page`.\n")
    code, warnings, _ = build_html(tmp_path)
    assert code != 0 and any("missing_page" in w for w in warnings), warnings


@pytest.mark.book
def test_book_builds_without_warnings_and_its_links_resolve():
    report = build(ROOT, jobs=1)
    assert report.returncode == 0 and not report.warnings, "\n".join(report.warnings[:20])
    assert not report.broken_links, "\n".join(report.broken_links[:20])
    html = report.html_dir
    assert (html / "_static" / "plotly.min.js").stat().st_size > 1_000_000
    assert (html / "instructor.html").exists()
    intro = (html / "intro.html").read_text()
    for nb in chapter_notebooks(ROOT):
        page = (html / "labs" / f"{nb.stem}.html").read_text()
        assert BINDER.format(nb.name) in page, f"{nb.stem}: no Binder launch button to labs/{nb.name}"
        assert f'href="labs/{nb.stem}.html"' in intro, f"the intro does not link to {nb.stem}"
        # every live panel is a static snapshot with its plotly charts; no widget view left behind
        n_panels = sum("make_panel(" in c.source for c in nbformat.read(nb, 4).cells if c.cell_type == "code")
        assert page.count("class='simcore-static-panel'") == n_panels, nb.stem
        assert "application/vnd.jupyter.widget-view+json" not in page, nb.stem
        if n_panels:
            assert "plotly-graph-div" in page, nb.stem
        executed = json.loads((ROOT / "book" / "labs" / nb.name).read_text())
        assert executed["metadata"]["simcore_book"]["inputs_sha256"] == inputs_digest(ROOT, nb)
