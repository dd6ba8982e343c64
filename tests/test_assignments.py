"""Graded assignments (nbgrader format): every solution passes its own tests, every student version generates.

Each chapter's assignments live in assignments/source/<chapter>/<name>.ipynb, the layout of an nbgrader course
directory (assignments/ is the course root, each chapter one nbgrader assignment). Running a source notebook
runs the solutions *and* the hidden tests, so a clean run proves the solutions pass. ``nbgrader
generate_assignment`` then writes the students' copies into a temporary course directory; we check that the
solutions and the hidden tests are gone from them and that the answer cells now raise NotImplementedError.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
SOURCE = ROOT / "assignments" / "source"
NOTEBOOKS = sorted(SOURCE.glob("*/*.ipynb"))
CHAPTERS = sorted({p.parent.name for p in NOTEBOOKS})


def test_there_are_assignments():
    assert len(NOTEBOOKS) >= 8 and len(CHAPTERS) >= 4


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_source_has_nbgrader_cells(path):
    nb = nbformat.read(path, as_version=4)
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade")]
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    assert answers and all("### BEGIN SOLUTION" in c.source and "### END SOLUTION" in c.source for c in answers)
    assert graded and all(c.metadata["nbgrader"]["points"] > 0 for c in graded)
    assert any("### BEGIN HIDDEN TESTS" in c.source for c in graded)
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_passes_its_own_tests(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    NotebookClient(nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}).execute()


@pytest.mark.parametrize("chapter", CHAPTERS)
def test_student_version_generates(chapter, tmp_path):
    shutil.copytree(SOURCE / chapter, tmp_path / "source" / chapter)
    cmd = [sys.executable, "-m", "nbgrader", "generate_assignment", chapter, "--no-db", "--force",
           f"--CourseDirectory.root={tmp_path}", "--log-level=WARN"]
    run = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    released = sorted((tmp_path / "release" / chapter).glob("*.ipynb"))
    assert [p.name for p in released] == sorted(p.name for p in (SOURCE / chapter).glob("*.ipynb"))
    for p in released:
        text = p.read_text()
        assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text, p.name
        nb = nbformat.read(p, as_version=4)
        answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
        assert answers and all("NotImplementedError" in c.source for c in answers), p.name
