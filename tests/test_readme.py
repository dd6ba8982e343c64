"""The README and the start-here chapter point at things that exist."""

import re
from pathlib import Path

import nbformat

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#?]+)\)")


def _local_links(text: str) -> list[str]:
    return [t for t in LINK.findall(text) if not t.startswith(("http://", "https://"))]


def test_readme_links_exist_and_commands_are_make_targets():
    readme = (ROOT / "README.md").read_text()
    links = _local_links(readme)
    assert "labs/00_start_here.ipynb" in links
    missing = [t for t in links if not (ROOT / t).exists()]
    assert not missing, missing
    makefile = (ROOT / "Makefile").read_text()
    for target in ("lab", "test", "figures", "book"):
        assert f"make {target}" in readme and re.search(rf"^{target}:", makefile, re.M), target


def test_start_here_chapter_table_links_exist():
    nb = nbformat.read(ROOT / "labs" / "00_start_here.ipynb", as_version=4)
    links = _local_links(nb.cells[0].source)
    assert len(links) >= 3
    assert all((ROOT / "labs" / t).exists() for t in links), links
