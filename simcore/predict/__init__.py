"""Predict, then check: questions a student answers before the lab shows the result.

A chapter module builds its predictions (``NumberPrediction``, ``ChoicePrediction``) beside its live panel and
gates the panel with them (``LivePanel(..., gate=[...])`` or ``gate(panel, ...)``); outputs that print an answer
go through ``gated_output``. Until each gating prediction is committed the panel shows its controls and setting
but not its plots or numbers (also after Run All: nothing is ever committed for the student). On commit the
answer appears with how far off the prediction was and an explanation. In the book the answers and the gated
results sit behind "show" toggles; in tests, ``prediction.commit(value)`` commits programmatically.

See CONTRIBUTING.md ("Predict, then check") for the rules a chapter follows.
"""

from simcore.predict.gate import Gate, GatedOutput, gate, gated_output
from simcore.predict.question import ChoicePrediction, NumberPrediction, Outcome, Prediction, nice_number

__all__ = ["Prediction", "NumberPrediction", "ChoicePrediction", "Outcome", "Gate", "GatedOutput", "gate",
           "gated_output", "nice_number"]
