"""Graded assignments (nbgrader format): every solution passes its own tests, every student version generates.

Each chapter's assignments live in assignments/source/<chapter>/<name>.ipynb, the layout of an nbgrader course
directory (assignments/ is the course root, each chapter one nbgrader assignment). Running a source notebook
runs the solutions *and* the hidden tests, so a clean run proves the solutions pass. ``nbgrader
generate_assignment`` then writes the students' copies into a temporary course directory; we check that the
solutions and the hidden tests are gone from them and that the answer cells now raise NotImplementedError.

An assignment gives each student their own numbers (``simcore.grading.student_params``; its setup cell prints
a line starting "Your numbers"). Each is run as two students (``SIMCORE_STUDENT``): the two must print different
numbers, each one's solution must pass its own tests, and the first student's answers must fail the second
student's tests (the graded cells run again after the identity is switched in the same kernel).
"""

import os
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
    answers = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution") and c.cell_type == "code"]
    assert answers and all("### BEGIN SOLUTION" in c.source and "### END SOLUTION" in c.source for c in answers)
    assert graded and all(c.metadata["nbgrader"]["points"] > 0 for c in graded)
    assert any("### BEGIN HIDDEN TESTS" in c.source for c in graded)
    ids = [c.metadata["nbgrader"]["grade_id"] for c in nb.cells if "nbgrader" in c.metadata]
    assert len(ids) == len(set(ids))


STUDENTS = ("student-a", "student-b")
_SWITCH = "import os\nos.environ['SIMCORE_STUDENT'] = {!r}  # injected by the test: another student grades"


def _name(path: Path) -> str:
    return f"{path.parent.name}/{path.stem}"


def _execute(nb, student: str, tmp_path: Path, *, allow_errors: bool = False):
    env = {**os.environ, "SIMCORE_STUDENT": student}
    env.pop("NBGRADER_EXECUTION", None)
    NotebookClient(nb, timeout=300, kernel_name="python3", allow_errors=allow_errors,
                   resources={"metadata": {"path": str(tmp_path)}}).execute(env=env)
    return nb


def _errors(cell) -> list[str]:
    return [f"{o.get('ename')}: {o.get('evalue', '')[:300]}" for o in cell.get("outputs", [])
            if o.output_type == "error"]


def _numbers(nb) -> str:
    return "".join(line for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", [])
                   if o.output_type == "stream" for line in o.text.splitlines(True) if line.startswith("Your numbers"))


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_solution_passes_its_own_tests(path, tmp_path):
    nb = nbformat.read(path, as_version=4)
    first, second = STUDENTS
    graded = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code"]
    n = len(nb.cells)
    nb.cells += [nbformat.v4.new_code_cell(_SWITCH.format(second))] + [nbformat.v4.new_code_cell(c.source)
                                                                         for c in graded]
    ran = _execute(nb, first, tmp_path, allow_errors=True)
    own = {i: _errors(c) for i, c in enumerate(ran.cells[:n]) if _errors(c)}
    assert not own, f"{_name(path)}: {first}'s solution fails its own tests: {own}"
    crossed = [e for c in ran.cells[n + 1:] for e in _errors(c)]
    assert any(e.startswith("AssertionError") for e in crossed), (
        f"{_name(path)}: {first}'s answers pass {second}'s tests: the numbers are not personal enough")
    other = _execute(nbformat.read(path, as_version=4), second, tmp_path)  # raises if the solution fails
    numbers = (_numbers(ran), _numbers(other))
    assert all(numbers), f"{_name(path)}: the setup cell prints no 'Your numbers' line"
    assert numbers[0] != numbers[1], f"{_name(path)}: two students got the same numbers: {numbers[0]}"


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
        code_answers = [c for c in answers if c.cell_type == "code"]
        assert code_answers and all("NotImplementedError" in c.source for c in code_answers), p.name
        # a free-text answer (manually graded) is emptied for the student
        assert all(c.source.strip() == "YOUR ANSWER HERE" for c in answers if c.cell_type == "markdown"), p.name
