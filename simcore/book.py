"""The chapters as a static website (Jupyter Book 1): execute each chapter once, build, check the links.

``python -m simcore book`` (``make book``) does three steps:

1. Execute every chapter (``labs/*.ipynb``) once, in ``labs/`` as a student would, with ``SIMCORE_STATIC=1``
   in the kernel's environment (``simcore.static``: live panels become snapshots with interactive plotly
   charts, and no progress bar is shown), and write it with all its outputs to ``book/labs/`` (generated,
   git-ignored). A chapter is not re-executed while its *inputs digest* is unchanged: the notebook, every
   ``simcore`` source, ``data/``, and the versions of the libraries that draw. Jupyter Book's own cache
   (jupyter-cache) keys on the notebook's code alone, so it would keep outputs made by an older simcore.
   Each run of deep-dive cells (tagged ``deep-dive``, ``simcore.lecture``) is put behind a toggle there: an
   HTML ``<details>`` whose summary is the deep dive's heading ("Deep dive: ..."), holding its markdown (headings
   inside become bold lines: a heading would open a new page section across the toggle) and its code cells.
2. Build the book with Jupyter Book 1 (Sphinx), execution off, every page re-read (so a warning from an
   unchanged page is reported again), warnings as errors (``-W --keep-going``). The pages load plotly.js and
   MathJax from the book itself (``_static/``), both copied from installed Python packages at build time
   (plotly; MathJax 3 from ``django-static-mathjax``, a PyPI copy of the MathJax distribution, in the
   ``course`` extras): the book works off line and nothing large is committed. Generated markdown outputs
   (``IPython.display.Markdown``) are rendered as MyST (``nb_render_markdown_format: myst`` in ``_config.yml``),
   so their tables are tables and their ``$$...$$`` math keeps its TeX (thin spaces included).
3. Check that every relative link, image and script in the built HTML resolves, fragments included.

The book's table of contents (``book/_toc.yml``) must list exactly the chapters in ``labs/``: a new chapter
cannot be left out (``missing_from_toc``; checked by the build and by tests/test_book.py).
"""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import nbformat

__all__ = ["BookReport", "chapter_notebooks", "toc_files", "missing_from_toc", "inputs_digest",
           "execute_chapters", "wrap_deep_dives", "write_mathjax", "build_html", "broken_links", "build"]

# Bump when the way chapters are executed for the book changes (this file is not part of the digest,
# so that editing the link checker does not re-execute every chapter).
EXECUTION_FORMAT = 3  # 3: deep dives behind toggles
DIGEST_KEY = "simcore_book"
_DRAWING_LIBRARIES = ("numpy", "numba", "plotly", "ipywidgets")


@dataclass(frozen=True)
class BookReport:
    """What a build did: chapters executed (name, seconds) or reused, the build's exit code and warnings."""

    executed: list[tuple[str, float]]
    reused: list[str]
    html_dir: Path
    returncode: int
    warnings: list[str] = field(default_factory=list)
    broken_links: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.warnings and not self.broken_links


def chapter_notebooks(root: Path) -> list[Path]:
    """Return the chapters, ``labs/*.ipynb`` under the repository ``root``, sorted by name."""
    return sorted((Path(root) / "labs").glob("*.ipynb"))


def toc_files(book_dir: Path) -> list[str]:
    """Return every ``file:`` entry of ``book_dir/_toc.yml`` (and its ``root``), in order."""
    import yaml

    toc = yaml.safe_load((Path(book_dir) / "_toc.yml").read_text())
    found: list[str] = [toc["root"]] if "root" in toc else []

    def walk(node):
        if isinstance(node, dict):
            if "file" in node:
                found.append(str(node["file"]))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    walk({k: v for k, v in toc.items() if k != "root"})
    return found


def missing_from_toc(root: Path) -> tuple[list[str], list[str]]:
    """Return (chapters in labs/ the toc lacks, toc entries under labs/ with no chapter), as ``labs/<stem>``."""
    chapters = {f"labs/{p.stem}" for p in chapter_notebooks(root)}
    listed = {re.sub(r"\.ipynb$", "", f) for f in toc_files(Path(root) / "book") if f.startswith("labs/")}
    return sorted(chapters - listed), sorted(listed - chapters)


def inputs_digest(root: Path, notebook: Path) -> str:
    """Return a SHA-256 over what a chapter's outputs depend on: the notebook, simcore's sources (but this
    file), data/, and the drawing libraries' versions."""
    from importlib.metadata import version

    root = Path(root)
    h = hashlib.sha256(f"format {EXECUTION_FORMAT}; python {sys.version_info[:2]}".encode())
    for lib in _DRAWING_LIBRARIES:
        h.update(f"{lib} {version(lib)};".encode())
    files = [Path(notebook), *sorted((root / "simcore").rglob("*.py")), *sorted((root / "data").glob("*.csv"))]
    for f in files:
        if f.resolve() == Path(__file__).resolve():
            continue
        h.update(str(f.relative_to(root) if f.is_relative_to(root) else f.name).encode())
        h.update(f.read_bytes())
    return h.hexdigest()


def _stored_digest(path: Path) -> str | None:
    if not path.exists():
        return None
    try:
        return nbformat.read(path, as_version=4).metadata.get(DIGEST_KEY, {}).get("inputs_sha256")
    except Exception:  # a half-written or foreign file: execute again
        return None


def _execute_one(source: str, target: str, digest: str, timeout_s: int) -> float:
    """Execute ``source`` in its folder with SIMCORE_STATIC=1; write it with all outputs to ``target``."""
    from nbclient import NotebookClient

    from simcore.static import ENV_VAR

    start = time.perf_counter()
    src = Path(source)
    nb = nbformat.read(src, as_version=4)
    client = NotebookClient(nb, timeout=timeout_s, kernel_name="python3", store_widget_state=False,
                            resources={"metadata": {"path": str(src.parent)}})
    client.execute(env={**os.environ, ENV_VAR: "1"})
    nb.metadata.pop("widgets", None)
    wrap_deep_dives(nb)
    nb.metadata[DIGEST_KEY] = {"inputs_sha256": digest, "source": f"labs/{src.name}"}
    out = Path(target)
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_suffix(".ipynb.part")  # never leave a half-written chapter behind
    nbformat.write(nb, tmp)
    tmp.replace(out)
    return time.perf_counter() - start


def execute_chapters(root: Path, *, jobs: int = 2, force: bool = False, timeout_s: int = 600
                     ) -> tuple[list[tuple[str, float]], list[str]]:
    """Execute the chapters whose inputs changed into ``book/labs/``; return (executed, reused).

    jobs: chapters executed at once (each in its own kernel). Copies of chapters no longer in labs/ are
    removed, so the book cannot show a deleted chapter.
    """
    root = Path(root)
    out_dir = root / "book" / "labs"
    todo, reused = [], []
    for nb in chapter_notebooks(root):
        target = out_dir / nb.name
        digest = inputs_digest(root, nb)
        if not force and _stored_digest(target) == digest:
            reused.append(nb.name)
        else:
            todo.append((str(nb), str(target), digest, timeout_s))
    names = {p.name for p in chapter_notebooks(root)}
    for stale in out_dir.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    if jobs <= 1 or len(todo) <= 1:
        seconds = [_execute_one(*args) for args in todo]
    else:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            seconds = list(pool.map(_execute_one, *zip(*todo, strict=True)))
    executed = [(Path(args[0]).name, s) for args, s in zip(todo, seconds, strict=True)]
    return executed, reused


def _write_plotly_js(book_dir: Path) -> None:
    """Write the installed plotly's plotly.min.js where the book's pages load it from (once per page)."""
    from plotly.offline import get_plotlyjs

    target = book_dir / "_build" / "static" / "plotly.min.js"
    text = get_plotlyjs()
    if not target.exists() or target.read_text() != text:
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text)


# What the book needs of the MathJax 3 distribution: the combined TeX + MathML input / CommonHTML output
# component, what it may load on demand (TeX extensions, fonts, the menu and its accessibility parts), and the
# licence. The speech rule engine's data (sre/, 4 MB) is left out: only the menu's explorer would ask for it.
_MATHJAX_PARTS = ("tex-mml-chtml.js", "input", "output/chtml", "ui", "a11y", "LICENSE")
MATHJAX_SCRIPT = "mathjax/tex-mml-chtml.js"  # under the book's _static (book/_config.yml: mathjax_path)


def _mathjax_source() -> Path:
    """Return the folder of the installed MathJax 3 distribution (package django-static-mathjax)."""
    try:
        from importlib.resources import files

        root = Path(str(files("mathjax"))) / "static" / "mathjax"
    except ModuleNotFoundError:
        root = None
    if root is None or not (root / "es5" / "tex-mml-chtml.js").is_file():
        raise RuntimeError("MathJax for the book is missing: pip install 'django-static-mathjax>=3.2.2' "
                           "(in simcore's 'course' extras; make install installs it)")
    return root


def write_mathjax(book_dir: Path) -> Path:
    """Copy the MathJax files the book needs into ``book_dir/_build/static/mathjax`` (the build copies them to
    ``_static/``); return that folder. A copy of another version is replaced whole."""
    import json
    import shutil

    src = _mathjax_source()
    version = json.loads((src / "package.json").read_text())["version"] if (src / "package.json").is_file() else "?"
    target = Path(book_dir) / "_build" / "static" / "mathjax"
    stamp = target / ".version"
    if stamp.is_file() and stamp.read_text() == version and (target / "tex-mml-chtml.js").is_file():
        return target
    tmp = target.with_name("mathjax.part")
    shutil.rmtree(tmp, ignore_errors=True)
    for part in _MATHJAX_PARTS:
        origin = src / ("es5" if part != "LICENSE" else "") / part
        dest = tmp / part
        dest.parent.mkdir(parents=True, exist_ok=True)
        if origin.is_dir():
            shutil.copytree(origin, dest)
        else:
            shutil.copyfile(origin, dest)
    (tmp / ".version").write_text(version)
    shutil.rmtree(target, ignore_errors=True)
    tmp.replace(target)
    return target


_HEADING = re.compile(r"^(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$", re.M)


def wrap_deep_dives(nb: nbformat.NotebookNode) -> int:
    """Put each run of deep-dive cells of an executed chapter behind one toggle (see the module docstring);
    return the number of runs wrapped. The first cell's first heading is the toggle's summary."""
    import html

    from simcore.lecture import deep_dive_runs

    runs = deep_dive_runs(nb)
    for start, end in reversed(runs):
        first = nb.cells[start]
        title = "Deep dive"
        if first.cell_type == "markdown":
            m = _HEADING.search(first.source)
            if m and not first.source[: m.start()].strip():
                title = m.group(2)
                first.source = first.source[m.end():].lstrip("\n")
        for cell in nb.cells[start:end]:
            if cell.cell_type == "markdown":
                cell.source = _HEADING.sub(lambda h: f"**{h.group(2)}**", cell.source)
        if not title.lower().startswith("deep dive"):
            title = f"Deep dive: {title}"
        opening = (f'<details class="simcore-deep-dive">\n<summary><b>{html.escape(title)}</b> '
                   '<i>(click to open)</i></summary>\n\n')
        if first.cell_type == "markdown":
            first.source = opening + first.source
        else:
            nb.cells.insert(start, nbformat.v4.new_markdown_cell(opening))
            end += 1
        nb.cells.insert(end, nbformat.v4.new_markdown_cell("</details>"))
    return len(runs)


_WARNING = re.compile(r"(WARNING|ERROR|CRITICAL|SEVERE):")


def build_html(root: Path) -> tuple[int, list[str], Path]:
    """Build book/ into book/_build/html with warnings as errors; return (exit code, warnings, html dir).

    Every page is re-read (``--all``) so that warnings of unchanged pages are reported again.
    """
    book_dir = Path(root) / "book"
    _write_plotly_js(book_dir)
    write_mathjax(book_dir)
    cmd = [sys.executable, "-c", "from jupyter_book.cli.main import main; main()", "build", str(book_dir), "--all",
           "--warningiserror", "--keep-going"]
    run = subprocess.run(cmd, capture_output=True, text=True, cwd=root)
    log = run.stdout + run.stderr
    (book_dir / "_build").mkdir(exist_ok=True)
    (book_dir / "_build" / "build.log").write_text(log)
    warnings = [line.strip() for line in log.splitlines() if _WARNING.search(line)]
    return run.returncode, warnings, book_dir / "_build" / "html"


class _Refs(HTMLParser):
    """Collect a page's ids and its href/src references."""

    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.refs: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("id", "name") and value:
                self.ids.add(value)
            elif value and ((name == "href" and tag in ("a", "link", "area")) or
                            (name == "src" and tag in ("img", "script", "iframe", "source"))):
                self.refs.append(value)


def _parse(page: Path) -> _Refs:
    parser = _Refs()
    parser.feed(page.read_text(errors="replace"))
    return parser


def broken_links(html_dir: Path) -> list[str]:
    """Return every relative link of the built pages whose target file, or fragment in it, does not exist.

    Absolute URLs (a scheme or ``//``) are not followed: this check needs no network. Pages under
    ``_static`` and ``_sources`` (the theme's and the sources' copies) are not scanned.
    """
    html_dir = Path(html_dir).resolve()
    pages = [p for p in sorted(html_dir.rglob("*.html")) if p.relative_to(html_dir).parts[0] not in
             ("_static", "_sources")]
    parsed: dict[Path, _Refs] = {}
    broken = []
    for page in pages:
        refs = parsed.setdefault(page, _parse(page))
        for ref in refs.refs:
            parts = urlsplit(ref)
            if parts.scheme or ref.startswith("//"):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            where = f"{page.relative_to(html_dir)}: {ref}"
            if not target.exists():
                broken.append(f"{where} (no file)")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed.setdefault(target, _parse(target)).ids
                if unquote(parts.fragment) not in ids:
                    broken.append(f"{where} (no id {parts.fragment!r})")
    return broken


def build(root: Path, *, jobs: int = 2, force: bool = False) -> BookReport:
    """Execute what changed, build the book, check its links; return the report (never raises on warnings)."""
    root = Path(root)
    missing, extra = missing_from_toc(root)
    if missing or extra:
        raise ValueError(f"book/_toc.yml does not match labs/: add {missing}, remove {extra}")
    executed, reused = execute_chapters(root, jobs=jobs, force=force)
    code, warnings, html_dir = build_html(root)
    links = broken_links(html_dir) if html_dir.exists() else ["no HTML was built"]
    return BookReport(executed, reused, html_dir, code, warnings, links)
