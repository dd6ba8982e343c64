"""Predict, then check: a prediction holds its panel's result back until committed, then scores it.

Expected numbers are worked by hand beside each assertion (not read from the code's own output)."""

import re

import numpy as np
import pytest

from simcore.plotting import LivePanel, float_slider, new_figure
from simcore.predict import ChoicePrediction, NumberPrediction, gate, gated_output, nice_number
from simcore.predict.static_html import ANSWER_SUMMARY, RESULT_SUMMARY
from simcore.predict.view import VEIL_TEXT, parse_number


def _panel(**kw):
    fig = new_figure(widget=True)
    fig.add_scatter(x=[0], y=[0], name="dot")

    def update(values):
        fig.data[0].y = [values["x"] ** 2]
        return f"x squared is {values['x'] ** 2:g}"

    return LivePanel({"x": float_slider("x", 1.0, 0.0, 10.0, 0.5)}, update, [fig], title="squares", **kw), fig


def _square(**kw):
    return NumberPrediction("What is $x^2$ at x = 3?", answer=lambda s: s["x"] ** 2, unit="m²", setting={"x": 3.0},
                            explanation="Because $3 \\times 3 = 9$.", **kw)


def test_a_gated_panel_hides_plots_and_numbers_until_the_commit_then_shows_the_stated_setting():
    pred = _square()
    panel, fig = _panel(gate=pred)
    assert panel.veiled and "simcore-veiled" in panel.widget._dom_classes
    assert "simcore-result" in panel.result._dom_classes and fig.widget in panel.result.children
    assert "x squared" not in panel.status.value and VEIL_TEXT in panel.status.value
    panel.set(x=5.0)  # the controls stay usable; the panel redraws under the veil
    assert fig.data[0].y == (25.0,) and "25" not in panel.status.value and panel.veiled
    out = pred.commit(10)
    # answer 3^2 = 9 at the stated setting x = 3 (the panel is moved there first); 10 - 9 = +1, +1/9 = +11 %
    assert out.answer == 9.0 and out.abs_error == pytest.approx(1.0) and out.rel_error == pytest.approx(1 / 9)
    assert out.correct and out.setting == {"x": 3.0}  # within the default 20 %
    assert not panel.veiled and "simcore-veiled" not in panel.widget._dom_classes
    assert panel.values()["x"] == 3.0 and fig.data[0].y == (9.0,) and "x squared is 9" in panel.status.value
    assert "+11 %" in out.html and "9 m²" in out.html and "\\(3 \\times 3 = 9\\)" in out.html


def test_a_wrong_prediction_says_by_how_much_and_by_what_factor():
    pred = NumberPrediction("How long?", answer=10.8, unit="ms", rel_tol=0.1)
    out = pred.commit(np.float32(2.7))  # numpy scalars are the numbers they are
    # 2.7 - 10.8 = -8.1 ms, -8.1 / 10.8 = -75 %, 10.8 / 2.7 = a factor of 4 too low
    assert not out.correct and out.abs_error == pytest.approx(-8.1) and out.rel_error == pytest.approx(-0.75)
    assert "&minus;8.1 ms" in out.html and "&minus;75 %" in out.html and "factor of 4 too low" in out.html
    assert "within &plusmn;10 % of the answer" in out.tolerance


def test_a_word_unit_is_singular_for_one():
    pred = NumberPrediction("How many?", answer=1.0, unit=("packet", "packets"))
    assert pred.fmt(1.0) == "1 packet" and pred.fmt(2.0) == "2 packets" and "answer: <b>1 packet</b>" in \
        pred.commit(3).html


def test_the_absolute_tolerance_serves_answers_near_zero():
    pred = NumberPrediction("Loss?", answer=0.0, unit="%", rel_tol=0.1, abs_tol=0.5)
    out = pred.commit(0.4)
    assert out.correct and out.rel_error is None and "&plusmn;0.5 %" in out.tolerance


def test_several_prompts_on_one_panel_open_it_only_when_all_are_committed():
    a, b = _square(), NumberPrediction("And at x = 4?", answer=16.0, setting={"x": 4.0})
    panel, fig = _panel(gate=[a, b])
    a.commit(9)
    assert panel.veiled  # one of two committed: still veiled
    b.commit(16)
    assert not panel.veiled and panel.values()["x"] == 4.0  # the last commit's setting is shown


def test_a_commit_is_final_and_try_another_moves_to_the_next_setting_and_veils_again():
    pred = NumberPrediction("Square of x?", answer=lambda s: s["x"] ** 2, setting=[{"x": 2.0}, {"x": 7.0}])
    panel, fig = _panel()
    gate(panel, pred)
    pred.commit(4)
    with pytest.raises(RuntimeError, match="already committed"):
        pred.commit(5)
    assert not panel.veiled and pred.can_try_another
    pred.try_another()
    assert panel.veiled and not pred.committed and pred.setting == {"x": 7.0}
    out = pred.commit(40)  # 7^2 = 49; -9/49 = -18 %: within 20 %
    assert out.answer == 49.0 and out.correct and not panel.veiled and panel.values()["x"] == 7.0
    with pytest.raises(RuntimeError, match="no other setting"):
        pred.try_another()
    assert [o.answer for o in pred.history] == [4.0, 49.0]


@pytest.mark.parametrize("value", ["9", None, True, float("nan"), [9]])
def test_a_commit_of_the_wrong_type_is_refused_naming_the_parameter_and_changes_nothing(value):
    pred = _square()
    panel, _ = _panel(gate=pred)
    with pytest.raises(ValueError, match=r"^prediction="):
        pred.commit(value)
    assert not pred.committed and panel.veiled and panel.values()["x"] == 1.0


def test_a_prediction_out_of_its_bounds_is_refused():
    pred = NumberPrediction("Probability?", answer=0.3, bounds=(0, 1))
    with pytest.raises(ValueError, match=r"prediction=1\.5 is out of range: must be a finite number in \[0, 1\]"):
        pred.commit(1.5)


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(question="", answer=1.0), "question"),
    (dict(question="q", answer="one"), "answer"),
    (dict(question="q", answer=1.0, rel_tol=-0.1), "rel_tol"),
    (dict(question="q", answer=1.0, rel_tol=0, abs_tol=0), "rel_tol"),
    (dict(question="q", answer=1.0, bounds=(2, 1)), "bounds"),
    (dict(question="q", answer=1.0, setting=[1, 2]), "setting"),
    (dict(question="q", answer=1.0, unit=3), "unit"),
    (dict(question="q", answer=1.0, explanation=5), "explanation"),
])
def test_a_number_prediction_checks_its_parameters(kwargs, name):
    q = kwargs.pop("question")
    with pytest.raises(ValueError, match=rf"^{name}="):
        NumberPrediction(q, **kwargs)


def test_an_answer_computed_at_commit_is_checked_too():
    pred = NumberPrediction("q", answer=lambda: "nine")
    with pytest.raises(ValueError, match="^answer="):
        pred.commit(9)
    assert not pred.committed


def test_a_choice_prediction_takes_the_text_or_the_index_and_names_the_misconception():
    choices = ["it halves", "it stays the same", "it doubles"]
    why = {"it doubles": "That would be the delay in packets, not in seconds."}
    pred = ChoicePrediction("Double R and a: the queueing delay?", choices=choices, answer="it halves", feedback=why)
    out = pred.commit(2)
    assert out.guess == "it doubles" and not out.correct and out.abs_error is None
    assert "(A) it halves" in out.html and "in packets, not in seconds" in out.html
    other = ChoicePrediction("again", choices=choices, answer="it halves")
    assert other.commit("it halves").correct
    with pytest.raises(ValueError, match=r"^prediction=3 is out of range"):
        ChoicePrediction("q", choices=choices, answer="it halves").commit(3)
    with pytest.raises(ValueError, match=r"^prediction='it triples' is not allowed"):
        ChoicePrediction("q", choices=choices, answer="it halves").commit("it triples")


@pytest.mark.parametrize(("kwargs", "name"), [
    (dict(choices=["one"], answer="one"), "choices"),
    (dict(choices=["a", "a"], answer="a"), "choices"),
    (dict(choices=["a", "b"], answer="c"), "answer"),
    (dict(choices=["a", "b"], answer="a", feedback={"c": "x"}), "feedback"),
])
def test_a_choice_prediction_checks_its_parameters(kwargs, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        ChoicePrediction("q", **kwargs)


def test_the_widget_commits_what_the_student_typed_and_shows_errors_instead_of_raising():
    pred = NumberPrediction("How long?", answer=10.8, unit="ms")
    view_widget = pred.widget
    view = pred._view
    view.entry.value = "ten"
    view.button.click()
    assert not pred.committed and "not a number" in view.feedback.value  # shown, not raised
    view.entry.value = "10 ms"
    view.button.click()
    assert pred.committed and pred.outcome.guess == 10.0 and view.button.disabled and view.entry.disabled
    assert "10.8 ms" in view.feedback.value and "simcore-prediction" in view_widget._dom_classes
    view.button.click()  # a disabled button clicked anyway (e.g. by a test): still nothing raised
    assert "already committed" in view.feedback.value or pred.outcome.guess == 10.0
    assert view.another is None  # one setting: no "Try another setting" button at all


def test_a_choice_needs_a_pick_before_its_commit():
    pred = ChoicePrediction("q", choices=["a", "b"], answer="b")
    assert pred.widget is pred._view.widget
    view = pred._view
    view.button.click()
    assert not pred.committed and "pick one of the choices" in view.feedback.value
    view.entry.value = 1
    view.button.click()
    assert pred.committed and pred.outcome.guess == "b"


def test_another_setting_shows_its_button_only_when_there_is_one_left():
    pred = NumberPrediction(lambda s: f"At {s['x']}?", answer=lambda s: float(s["x"]), setting=[{"x": 1}, {"x": 2}])
    view = (pred.widget, pred._view)[1]
    assert "simcore-hidden" in view.another._dom_classes  # nothing committed yet
    view.entry.value = "1"
    view.button.click()
    assert "simcore-hidden" not in view.another._dom_classes
    view.another.click()
    assert pred.round == 1 and not pred.committed and not view.button.disabled and view.entry.value == ""
    assert "setting 2 of 2" in view.heading.value and "simcore-hidden" in view.another._dom_classes


def test_a_programmatic_commit_updates_the_widget():
    pred = ChoicePrediction("q", choices=["a", "b"], answer="b")
    assert pred.widget is pred._view.widget  # built on first use
    view = pred._view
    pred.commit("a")
    assert view.entry.value == 0 and view.entry.disabled and "Not this one" in view.feedback.value


def test_a_prediction_costs_the_page_few_widget_models():
    # every model is a message and a view the page builds while Run All draws the first live plot (the
    # 25-model version made 50 of the primer's 127 models before its panel). Counted from ipywidgets'
    # registry, after the models a kernel shares (one layout, one style per widget type, the CSS carrier).
    from ipywidgets.widgets import widget as registry

    shown = [NumberPrediction("How long?", answer=10.8, unit="ms").widget,
             ChoicePrediction("q", choices=["a", "b", "c"], answer="b").widget]
    before = set(registry._instances)
    shown += [NumberPrediction("How long?", answer=10.8, unit="ms").widget,
              ChoicePrediction("q", choices=["a", "b", "c"], answer="b").widget]
    assert len(shown) == 4 and len(set(registry._instances) - before) == 7 + 6


@pytest.mark.parametrize(("text", "value"), [("9", 9.0), (" 10.8 ", 10.8), ("1.2e3", 1200.0), ("1,200", 1200.0),
                                             ("0,5", 0.5), ("\u22123", -3.0), ("12 ms", 12.0), (".5", 0.5)])
def test_parse_number_reads_what_students_type(text, value):
    assert parse_number(text, "ms") == value
    assert parse_number("1 transmission time", "transmission times", "transmission time") == 1.0


@pytest.mark.parametrize("text", ["", "ten", "1.2.3", "1,2,3", "5 kg"])
def test_parse_number_refuses_the_rest(text):
    with pytest.raises(ValueError, match="is not a number"):
        parse_number(text, "ms")


@pytest.mark.parametrize(("x", "text"), [(9.0, "9"), (10.8, "10.8"), (0.6731, "0.673"), (4321.0, "4,320"),
                                         (1.2e-5, "1.2e-5"), (-3.14159, "-3.14"), (0.0, "0")])
def test_nice_number(x, text):
    assert nice_number(x) == text


def _outside_details(page: str) -> str:
    return re.sub(r"<details.*?</details>", "", page, flags=re.S)


def test_the_book_shows_the_question_and_keeps_the_answer_behind_a_toggle(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    pred = NumberPrediction("How long at load 0.9?", answer=10.8, unit="ms", explanation="Nine times $L/R$.")
    page = pred._repr_mimebundle_()["text/html"]
    assert "How long at load 0.9?" in _outside_details(page) and ANSWER_SUMMARY in page
    assert "tex2jax_process" in page  # the book's MathJax (Sphinx's config) typesets only such HTML
    assert "10.8 ms" in page and "10.8" not in _outside_details(page) and "Nine times" not in _outside_details(page)
    choice = ChoicePrediction("Which?", choices=["faster", "slower"], answer="slower", feedback={"faster": "No."})
    page = choice._repr_mimebundle_()["text/html"]
    assert "<li>faster</li>" in _outside_details(page) and "Answer:" not in _outside_details(page)
    assert "(B) slower" in page


def test_the_book_keeps_a_gated_panel_behind_a_toggle(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    panel, _ = _panel(gate=_square())
    page = panel._repr_mimebundle_()["text/html"]
    assert RESULT_SUMMARY in page and page.count("<details") == 1
    outside = _outside_details(page)
    assert "plotly-graph-div" not in outside and "x squared" not in outside
    assert "squares" in outside and "x <b>1</b>" in outside  # the title and setting are shown
    assert "x squared is 1" in page  # behind the toggle: the snapshot with its status line


def test_a_gated_output_appears_on_commit_and_only_its_checked_texts_fingerprint_is_stored(capsys):
    pred = _square()
    calls = []

    def table():
        calls.append(1)
        print("x  x^2\n3  9")

    later = gated_output(table, pred)
    checked = gated_output(table, pred, check=True)
    assert calls == [1] and later.veiled and not later.rendered  # check=True ran it once, at once
    bundle = checked._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle and "3  9" not in bundle["text/plain"]
    # the fingerprint is SHA-256 of exactly what render printed (worked out with hashlib, by hand)
    assert bundle["text/plain"].endswith("[answer fingerprint de576a0107291116]") and checked.text() == "x  x^2\n3  9\n"
    pred.commit(9)
    assert later.rendered and checked.rendered and calls == [1, 1]  # the checked one replays its capture


def test_a_gated_output_in_the_book_is_rendered_behind_a_toggle(monkeypatch):
    monkeypatch.setenv("SIMCORE_STATIC", "1")
    out = gated_output(lambda: print("answer 42"), _square())
    page = out._repr_mimebundle_()["text/html"]
    assert "answer 42" in page and "42" not in _outside_details(page)


def test_a_gate_needs_a_prediction_and_a_target():
    panel, _ = _panel()
    with pytest.raises(ValueError, match=r"^predictions="):
        gate(panel)
    with pytest.raises(ValueError, match=r"^target="):
        gate(object(), _square())


def test_a_panel_refuses_a_gate_that_is_not_predictions_before_making_any_widget():
    import ipywidgets as widgets

    slider = float_slider("a", 1.0, 0.0, 2.0, 0.1)
    for bad in (5, "x", [], [1], (_square(), 2)):
        fig = new_figure(widget=True)
        made = len(widgets.widgets.widget._instances)
        with pytest.raises(ValueError, match=r"^gate="):
            LivePanel({"a": slider}, lambda v: "ok", [fig], gate=bad)
        assert len(widgets.widgets.widget._instances) == made, bad
    panel = LivePanel({"a": slider}, lambda v: "ok", [new_figure(widget=True)], gate=(_square(),))
    assert panel.veiled and "simcore-veiled" in panel.widget._dom_classes


def test_a_kind_of_prediction_that_forgets_a_hook_cannot_be_built():
    from simcore.predict.question import NumberPrediction, Prediction

    class Half(Prediction):  # provides none of the hooks
        pass

    with pytest.raises(TypeError, match="abstract"):
        Half("q?", 1.0, "because")
    assert not NumberPrediction.__abstractmethods__
