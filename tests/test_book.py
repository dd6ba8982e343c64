"""The static book (Jupyter Book 1): every chapter in it, built without warnings, every internal link resolving.

The fast tests check the table of contents against labs/, the intro's chapter table against the README, and
the link checker and the inputs digest on small hand-made cases. The ``book`` test builds the real book as
``make book`` does (it reuses chapters executed earlier whose inputs have not changed) and checks it.
"""

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import nbformat
import pytest

from simcore.book import (
    MATHJAX_SCRIPT,
    broken_links,
    build,
    build_html,
    chapter_notebooks,
    inputs_digest,
    missing_from_toc,
    toc_files,
    wrap_deep_dives,
    write_mathjax,
)
from simcore.lecture import DEEP_DIVE_TAG, deep_dive_runs

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
    assert (html / "_static" / MATHJAX_SCRIPT).stat().st_size > 500_000  # MathJax from the book itself
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
        problems = page_problems(page)
        assert not problems, f"{nb.stem}: {problems[:5]}"
        runs = deep_dive_runs(nbformat.read(nb, 4))
        assert page.count('<details class="simcore-deep-dive">') == len(runs), f"{nb.stem}: deep dives not toggled"
        executed = json.loads((ROOT / "book" / "labs" / nb.name).read_text())
        assert executed["metadata"]["simcore_book"]["inputs_sha256"] == inputs_digest(ROOT, nb)


class _Text(HTMLParser):
    """The text of each <p> (code and math spans left out) and every script's src, of one built page."""

    def __init__(self):
        super().__init__()
        self.paragraphs: list[str] = []
        self.scripts: list[str] = []
        self._p: list[str] | None = None
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "script" and a.get("src"):
            self.scripts.append(a["src"])
        if tag == "p":
            self._p = []
        elif tag in ("code", "pre") or (tag == "span" and "math" in (a.get("class") or "").split()):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag == "p" and self._p is not None:
            self.paragraphs.append("".join(self._p))
            self._p = None
        elif tag in ("code", "pre", "span") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if self._p is not None and not self._skip:
            self._p.append(data)


def page_problems(page: str) -> list[str]:
    """Return what a reader would see broken in a built page: a markdown pipe table left as text, display math
    (``$$``) left in a paragraph, a TeX thin space turned into a comma, a script loaded from another site."""
    t = _Text()
    t.feed(page)
    problems = [f"raw pipe table: {p.strip()[:80]!r}" for p in t.paragraphs
                if re.search(r"^\s*\|.*\|\s*$", p, re.M) and re.search(r"\|\s*[-\u2014:]+\s*\|", p)]
    problems += [f"$$ in a paragraph: {p.strip()[:80]!r}" for p in t.paragraphs if "$$" in p]
    problems += [f"script from another site: {src}" for src in t.scripts if re.match(r"^(https?:)?//", src)]
    return problems


def test_page_problems_finds_what_the_old_book_showed():
    old = ("<p>| element | paper | our model |\n| \u2014 | \u2014 | \u2014 |\n| satellite | E3 | two links |</p>"
           "<p>$$T = 2K,d_h + N,d_{get}$$</p>"
           '<script defer="defer" src="https://cdn.jsdelivr.net/npm/mathjax@3/es5/tex-mml-chtml.js"></script>')
    assert len(page_problems(old)) == 3
    fine = ('<table><tr><td>a</td></tr></table><div class="math">\\[T = 2K\\,d_h\\]</div>'
            "<p>a | b is not a table</p><pre>| x | y |\n|---|---|</pre>"
            '<script src="../_static/mathjax/tex-mml-chtml.js"></script>')
    assert page_problems(fine) == []


def test_deep_dives_go_behind_one_toggle_each_in_the_book():
    md, code = nbformat.v4.new_markdown_cell, nbformat.v4.new_code_cell
    cells = [md("# Chapter\n\nMain path."), md("## Deep dive: the fine print\n\nText.\n\n### A detail\n\nMore."),
             code("print(1)"), md("Back on the path."), code("print(2)"), md("Then more.")]
    for c in (cells[1], cells[2], cells[4]):
        c.metadata["tags"] = [DEEP_DIVE_TAG]
    nb = nbformat.v4.new_notebook(cells=cells)
    assert wrap_deep_dives(nb) == 2
    src = [c.source for c in nb.cells]
    assert src[1].startswith('<details class="simcore-deep-dive">\n<summary><b>Deep dive: the fine print</b>')
    assert "## Deep dive" not in src[1] and "**A detail**" in src[1] and "###" not in src[1]
    assert src[3] == "</details>" and src[4] == "Back on the path."
    assert src[5].startswith('<details class="simcore-deep-dive">\n<summary><b>Deep dive</b> ')  # a code cell first
    assert nb.cells[6].source == "print(2)" and src[7] == "</details>" and src[8] == "Then more."
    assert deep_dive_runs(nb) == [(1, 3), (6, 7)]  # the tags stay on the cells themselves


def test_mathjax_is_copied_into_the_book_from_an_installed_package(tmp_path):
    folder = write_mathjax(tmp_path)
    script = folder / "tex-mml-chtml.js"
    assert script.stat().st_size > 500_000 and (folder / "LICENSE").is_file()
    assert any((folder / "output" / "chtml" / "fonts").rglob("*.woff"))  # the fonts it loads
    assert any((folder / "input" / "tex" / "extensions").glob("*.js"))  # TeX extensions loaded on demand
    assert MATHJAX_SCRIPT == "mathjax/tex-mml-chtml.js" and folder.name == "mathjax"
    assert write_mathjax(tmp_path) == folder  # a second build reuses it
    config = (ROOT / "book" / "_config.yml").read_text()
    assert f"mathjax_path: {MATHJAX_SCRIPT}" in config and "nb_render_markdown_format: myst" in config


@pytest.mark.book
def test_generated_markdown_renders_as_tables_and_math_and_deep_dives_fold(tmp_path):
    """A one-chapter book with the real _config.yml: a Markdown output's table and $$ formula with \\, render."""
    book = tmp_path / "book"
    (book / "labs").mkdir(parents=True)
    (book / "_config.yml").write_text((ROOT / "book" / "_config.yml").read_text())
    (book / "_toc.yml").write_text("format: jb-book\nroot: intro\nchapters:\n  - file: labs/ch\n")
    (book / "intro.md").write_text("# Intro\n")
    table = "| element | paper | ours |\n| --- | --- | --- |\n| link | E3 | two links |\n\n$$T = 2K\\,d_h$$\n"
    out = nbformat.v4.new_output("display_data", data={"text/markdown": table, "text/plain": "<Markdown>"})
    deep = nbformat.v4.new_markdown_cell("## Deep dive: details\n\nHidden $x$.")
    deep.metadata["tags"] = [DEEP_DIVE_TAG]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_markdown_cell("# Ch\n\nText."),
                                         nbformat.v4.new_code_cell("Markdown(t)", outputs=[out]), deep])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    wrap_deep_dives(nb)
    nbformat.write(nb, book / "labs" / "ch.ipynb")
    code, warnings, html = build_html(tmp_path)
    assert code == 0 and not warnings, warnings
    page = (html / "labs" / "ch.html").read_text()
    assert page_problems(page) == [], page_problems(page)
    assert "<table" in page and "2K\\,d_h" in page and (html / "_static" / MATHJAX_SCRIPT).is_file()
    assert page.count('<details class="simcore-deep-dive">') == 1 and "<b>Deep dive: details</b>" in page
