"""Chapter 4: the report's ideal-world HTTP delay model (Vu & Vu 2017, after Kurose & Ross).

Every packet costs ``prop_delay_ms + size_bytes * trans_ms_per_byte``; a page is P parents each
embedding C children; modes HTTP/1.0 (non-persistent), 1.1 (persistent), the report's "1.2"
(multiplexed lists), optional pipelining, and a client cache answered 200 or 304.

Public API:

- :class:`DelayParams` (every slider), :class:`IdealResult`, :class:`PacketTrace`;
- :func:`closed_form_ms`, :func:`packet_counts`, :func:`formula_latex` (closed forms);
- :func:`simulate_ideal` (exact discrete-event simulation with packet trace), :func:`evaluate_modes`,
  :func:`evaluate` (one slider update);
- :func:`parse_references`, :func:`generate_tree`, :func:`tree_shape` (the report's ``<<url>>`` markup);
- :func:`correctness_table`, :func:`appendix2_sweep`, :func:`calibrated_params` (the report next to
  ours; ``simcore.delay.report`` has the data loaders and the forensic fits);
- :func:`space_time_figure`, :func:`update_space_time`, :func:`sweep_figure` (plots).
"""

from simcore.delay.closed_form import closed_form_ms, formula_latex, packet_counts
from simcore.delay.compare import appendix2_sweep, calibrated_params, correctness_table
from simcore.delay.ideal import evaluate, evaluate_modes, simulate_ideal
from simcore.delay.markup import generate_tree, parse_references, tree_shape
from simcore.delay.params import MODES, DelayParams, IdealResult, PacketTrace
from simcore.delay.plots import space_time_figure, sweep_figure, update_space_time

__all__ = [
    "MODES",
    "DelayParams",
    "IdealResult",
    "PacketTrace",
    "closed_form_ms",
    "formula_latex",
    "packet_counts",
    "simulate_ideal",
    "evaluate_modes",
    "evaluate",
    "parse_references",
    "generate_tree",
    "tree_shape",
    "correctness_table",
    "appendix2_sweep",
    "calibrated_params",
    "space_time_figure",
    "update_space_time",
    "sweep_figure",
]
