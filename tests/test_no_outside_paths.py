"""Nothing a student gets may point outside the repository.

A student's clone and Binder have only the repository: `../shared`, `shared/papers` or an absolute path on a
developer's machine (`/work/...`) is a dead link there. This test reads every text a student or a user of
simcore can see: the chapters (every cell, outputs included), the README, the assignments and the
instructor's guide, the book's sources, and simcore's own sources and notes.
"""

import re
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
# ../shared or ..\shared; shared/papers anywhere; an absolute /work/ path (not preceded by a word or dot).
OUTSIDE = re.compile(r"\.\.[/\\]shared\b|\bshared[/\\]papers\b|(?<![\w.~])/work/")
SCANNED = ["README.md", "CONTRIBUTING.md", "labs", "simcore", "assignments", "instructor", "book", "data", "deploy"]
SUFFIXES = {".py", ".md", ".ipynb", ".csv", ".yml", ".yaml", ".txt", ".toml", ".sh", ""}


def _files() -> list[Path]:
    out = []
    for name in SCANNED:
        p = ROOT / name
        if p.is_file():
            out.append(p)
        elif p.is_dir():
            out += [f for f in sorted(p.rglob("*")) if f.is_file() and f.suffix in SUFFIXES and "_build" not in f.parts]
    return out


def _texts(path: Path) -> list[tuple[str, str]]:
    """Return (where, text) pairs: one per notebook cell (source and outputs), else the whole file."""
    if path.suffix != ".ipynb":
        return [(str(path.relative_to(ROOT)), path.read_text(encoding="utf-8"))]
    nb = nbformat.read(path, as_version=4)
    out = []
    for i, cell in enumerate(nb.cells):
        parts = [cell.source] + [str(o) for o in cell.get("outputs", [])]
        out.append((f"{path.relative_to(ROOT)} cell {i}", "\n".join(parts)))
    return out


def test_the_pattern_catches_what_it_must():
    for bad in ("see ../shared/papers/INDEX.md", "`shared/papers/000.txt`", "(/work/shared/x.txt)",
                "..\\shared\\papers", "open /work/main/labs"):
        assert OUTSIDE.search(bad), bad
    for fine in ("bandwidth shared by flows", "shared_state", "https://example.org/work/x", "homework/"):
        assert not OUTSIDE.search(fine), fine


def test_scanned_folders_exist():
    assert (ROOT / "labs").is_dir() and (ROOT / "simcore").is_dir() and (ROOT / "README.md").is_file()


@pytest.mark.parametrize("path", _files(), ids=lambda p: str(p.relative_to(ROOT)))
def test_no_path_outside_the_repository(path):
    hits = [(where, m.group(0)) for where, text in _texts(path) for m in OUTSIDE.finditer(text)]
    assert not hits, f"points outside the repository: {hits}"
