"""Assignments with each student's own numbers, graded from independent answers with feedback that says what
is wrong.

- ``student_id``, ``student_params`` (``Grid``, ``Nice``, ``Choice``): a student's parameters, drawn from the
  identity in ``SIMCORE_STUDENT`` (instructor/README.md says how to set it).
- ``Feedback`` (``number``, ``equal``, ``true``, ``choice``), ``check_number``, the common mistakes (``COMMON``,
  ``factor``, ``offset``, ``one_rtt_missing``), ``show_choices``: hidden tests' checks and messages, and
  multiple-choice "why" questions in each student's own order.
- ``simcore.grading.pcap``: a capture reader written from the pcap / pcapng formats, for trace assignments.

CONTRIBUTING.md ("How to write an assignment") shows the layout of an assignment notebook.
"""

from simcore.grading.feedback import (
    BITS_BYTES,
    COMMON,
    FACTOR_2,
    PERCENT,
    SIGN,
    UNITS,
    Feedback,
    Mistake,
    check_number,
    choice_letters,
    factor,
    offset,
    one_rtt_missing,
    show_choices,
)
from simcore.grading.identity import ENV_VAR, Choice, Grid, Nice, shuffled, student_id, student_params

__all__ = ["ENV_VAR", "student_id", "student_params", "Grid", "Nice", "Choice", "shuffled", "Feedback",
           "check_number", "Mistake", "factor", "offset", "one_rtt_missing", "COMMON", "UNITS", "BITS_BYTES",
           "FACTOR_2", "PERCENT", "SIGN", "choice_letters", "show_choices"]
