"""The book's rendering of predictions: the question in the open, the answer behind a "show" toggle.

A static page has no kernel to commit to, so each answer, and each panel or output a prediction holds
back, sits inside an HTML ``<details>`` element the reader opens after predicting. Plots drawn inside a
closed ``<details>`` have no width yet: opening it asks plotly to fit them (``ontoggle``). The class
``tex2jax_process`` has the book's MathJax typeset the math inside (Sphinx has it skip raw HTML otherwise).
"""

from __future__ import annotations

import html

from simcore.predict.markup import to_html

__all__ = ["prediction_html", "veiled_html", "ANSWER_SUMMARY", "RESULT_SUMMARY"]

ANSWER_SUMMARY = "Show the answer (write your prediction down first)"
RESULT_SUMMARY = "Show the result (predict first)"
_FIT = ("if (this.open && window.Plotly) this.querySelectorAll('.js-plotly-plot')"
        ".forEach(function (p) { window.Plotly.Plots.resize(p); })")


def veiled_html(inner: str, summary: str = RESULT_SUMMARY) -> str:
    """Return ``inner`` (trusted HTML) behind a toggle labelled ``summary``."""
    return (f"<details class='simcore-reveal tex2jax_process' ontoggle=\"{_FIT}\">"
            f"<summary><b>{html.escape(summary)}</b></summary>\n{inner}\n</details>")


def prediction_html(pred) -> str:
    """Return a prediction for a static page: title, question (and choices), and behind a toggle the
    answer with its explanation (and, for choices, the note on each choice)."""
    rounds = pred.settings or [{}]
    parts = ["<div class='simcore-prediction-static tex2jax_process' "
             "style='border-left:4px solid #0072B2;padding:2px 10px'>"]
    for i in range(len(rounds)):
        pred.round = i
        parts.append(f"<p><b>{html.escape(pred.title)}.</b> {to_html(pred.question_text(), inline=True)}</p>")
        if pred.kind == "choice":
            parts.append("<ol type='A'>" + "".join(f"<li>{to_html(c, inline=True)}</li>" for c in pred.choices)
                         + "</ol>")
        inner = pred.answer_html()
        if pred.kind == "choice" and pred.feedback:
            inner += "<ul>" + "".join(
                f"<li>{to_html(c, inline=True)}: {to_html(pred.feedback[c], inline=True)}</li>"
                for c in pred.choices if c in pred.feedback) + "</ul>"
        parts.append(veiled_html(inner, ANSWER_SUMMARY))
    pred.round = 0
    parts.append("<p style='color:#555'><i>In the live lab you commit a prediction and the answer appears "
                 "with how far off it was.</i></p></div>")
    return "\n".join(parts)
