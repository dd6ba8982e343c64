"""Notebook housekeeping: execute a chapter and store it with only the outputs nbval checks.

Stored notebooks keep outputs only in the cells nbval checks (the chapter's key reproduced numbers):
cells tagged ``nbval-check-output`` (the tag keeps the marker out of students' sight; nbval reads tags),
or, in older notebooks, whose source contains ``# NBVAL_CHECK_OUTPUT``. So diffs stay readable and files
stay small; plots re-render when a student runs
the chapter. ``python -m simcore notebooks labs/*.ipynb`` runs this on each file. Storing also folds the
deep dives (``simcore.lecture.fold_deep_dives``: cells tagged ``deep-dive`` open folded);
``python -m simcore notebooks --fold labs/*.ipynb`` does only that, without executing.
"""

from __future__ import annotations

from pathlib import Path

import nbformat

from simcore.lecture import fold_deep_dives

__all__ = ["CHECK_MARK", "CHECK_TAG", "is_checked", "strip_unchecked_outputs", "execute_and_store", "fold_and_store"]

CHECK_MARK = "# NBVAL_CHECK_OUTPUT"
CHECK_TAG = "nbval-check-output"


def is_checked(cell: nbformat.NotebookNode) -> bool:
    """Return True if nbval compares ``cell``'s output: a code cell tagged CHECK_TAG or marked CHECK_MARK."""
    return cell.cell_type == "code" and (
        CHECK_TAG in cell.get("metadata", {}).get("tags", []) or CHECK_MARK in cell.source
    )


def strip_unchecked_outputs(nb: nbformat.NotebookNode) -> nbformat.NotebookNode:
    """Return ``nb`` with outputs and execution counts removed from every code cell nbval does not check."""
    count = 0
    for cell in nb.cells:
        if cell.cell_type != "code":
            continue
        cell.metadata.pop("execution", None)
        if not is_checked(cell):
            cell.outputs = []
            cell.execution_count = None
            continue
        # nbval treats a cell with outputs but no execution count as never run: number checked cells 1..k.
        count += 1
        cell.execution_count = count
        for out in cell.outputs:
            if out.get("output_type") == "execute_result":
                out["execution_count"] = count
    nb.metadata.pop("widgets", None)
    return nb


def execute_and_store(path: str | Path, timeout_s: int = 600) -> Path:
    """Execute the notebook at ``path`` in its folder, keep only checked outputs, write it back; return path."""
    from nbclient import NotebookClient

    p = Path(path)
    nb = nbformat.read(p, as_version=4)
    NotebookClient(nb, timeout=timeout_s, kernel_name="python3", resources={"metadata": {"path": str(p.parent)}}
                   ).execute()
    nb = strip_unchecked_outputs(nb)
    fold_deep_dives(nb)
    nbformat.write(nb, p)
    return p


def fold_and_store(path: str | Path) -> int:
    """Fold the deep dives of the notebook at ``path`` (nothing executed); write it back if anything changed.
    Return the number of cells changed."""
    p = Path(path)
    nb = nbformat.read(p, as_version=4)
    changed = fold_deep_dives(nb)
    if changed:
        nbformat.write(nb, p)
    return changed
