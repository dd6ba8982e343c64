"""Notebooks are stored with only the outputs nbval checks (readable diffs, small files)."""

from pathlib import Path

import nbformat
import pytest

from simcore.notebooks import CHECK_MARK, CHECK_TAG, is_checked, strip_unchecked_outputs

NOTEBOOKS = sorted((Path(__file__).resolve().parents[1] / "labs").glob("*.ipynb"))


def test_there_are_notebooks():
    assert any(p.name == "00_start_here.ipynb" for p in NOTEBOOKS)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.name)
def test_only_checked_cells_keep_outputs(path):
    nb = nbformat.read(path, as_version=4)
    checked = [c for c in nb.cells if is_checked(c)]
    assert checked, f"{path.name} has no checked cell (tag {CHECK_TAG})"
    for cell in nb.cells:
        if cell.cell_type == "code" and not is_checked(cell):
            assert cell.outputs == [], f"{path.name}: unchecked cell stores output: {cell.source[:60]!r}"
    for cell in checked:
        assert cell.outputs, f"{path.name}: checked cell has no stored output: {cell.source[:60]!r}"
    assert "widgets" not in nb.metadata


def test_strip_keeps_checked_outputs_only():
    nb = nbformat.v4.new_notebook(cells=[
        nbformat.v4.new_code_cell("1", outputs=[nbformat.v4.new_output("stream", text="x")]),
        nbformat.v4.new_code_cell(f"{CHECK_MARK}\nprint(2)", outputs=[nbformat.v4.new_output("stream", text="2")]),
    ])
    out = strip_unchecked_outputs(nb)
    assert out.cells[0].outputs == [] and out.cells[1].outputs[0]["text"] == "2"
    assert out.cells[0].execution_count is None and out.cells[1].execution_count == 1


def test_strip_reads_the_tag_as_well_as_the_comment():
    tagged = nbformat.v4.new_code_cell("print(3)", outputs=[nbformat.v4.new_output("stream", text="3")])
    tagged.metadata["tags"] = [CHECK_TAG]
    other = nbformat.v4.new_code_cell("print(4)", outputs=[nbformat.v4.new_output("stream", text="4")])
    other.metadata["tags"] = ["nbval-ignore-output"]
    out = strip_unchecked_outputs(nbformat.v4.new_notebook(cells=[tagged, other]))
    assert out.cells[0].outputs[0]["text"] == "3" and out.cells[0].execution_count == 1
    assert out.cells[1].outputs == [] and out.cells[1].execution_count is None
