"""A chapter's stored outputs reveal no held-back answer.

JupyterLab shows a widget output's ``text/plain`` when the widget's model is gone, which is the case for every
stored widget output of a chapter opened before its cells run (and GitHub or nbviewer always show it). So the
stored ``text/plain`` of every widget output must be a gated output's fingerprint line, never the answer.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest

from simcore.predict.gate import HELD_BACK

LABS = sorted((Path(__file__).resolve().parents[2] / "labs").glob("*.ipynb"))
WIDGET = "application/vnd.jupyter.widget-view+json"


@pytest.mark.parametrize("path", LABS, ids=lambda p: p.stem)
def test_no_stored_widget_output_holds_an_answer(path):
    nb = nbformat.read(path, as_version=4)
    leaks = []
    for i, cell in enumerate(nb.cells):
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            if WIDGET in data:
                text = data.get("text/plain", "")
                text = "".join(text) if isinstance(text, list) else text
                if not text.startswith(HELD_BACK):
                    leaks.append((i, text[:80]))
    assert not leaks, f"{path.name}: stored widget outputs show text other than the held-back line: {leaks}"
