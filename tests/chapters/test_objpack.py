"""Chapter 5's panel never raises from a slider and stays veiled until its predictions are committed; the
predictions' answers are worked by hand where the question allows; its figures are registered and built."""

import pytest

from simcore.chapters import objpack as chapter
from simcore.chapters import objpack_predict as predict
from simcore.chapters.objpack_figures import one_file_breakdown, one_file_space_time
from simcore.figures import build_figures
from simcore.objpack import ObjpackParams, simulate_objpack


def test_panel_runs_at_every_slider_end():
    panel = chapter.make_panel()
    assert panel.last_error is None and "HTTP/1.0" in panel.status.value
    defaults = panel.values()
    for name, (lo, hi, _) in chapter.SLIDER_RANGES.items():
        for v in (lo, hi):
            if name == "n_files" and v == hi:
                continue  # 200 files: covered with small files below
            panel.set(**{name: v})
            assert panel.last_error is None, (name, v, panel.last_error)
        panel.set(**{name: defaults[name]})
    panel.set(n_files=200, mean_kb=0.5, distribution="lognormal", method="multistream", compress="on")
    assert panel.last_error is None
    assert len(panel.figures[1].data) == 6 and max(panel.figures[1].data[0].y) == 200


def test_the_fitted_server_cost_is_a_slider_value():
    lo, hi, step = chapter.SLIDER_RANGES["file_ms"]
    k = (chapter.PANEL_SETTING["file_ms"] - lo) / step
    assert abs(k - round(k)) < 1e-9 and chapter.PANEL_SETTING["file_ms"] == pytest.approx(4.45)


def test_panel_is_veiled_until_both_predictions_are_committed():
    preds = predict.panel_predictions()
    panel = chapter.make_panel(gate=preds)
    assert panel.veiled
    panel.set(file_ms=10.0, n_files=5)  # the student moves sliders: the commit sets the question's setting back
    out = preds[0].commit(50)
    assert panel.veiled  # one of two
    r = {m: simulate_objpack(ObjpackParams(method=m)) for m in ("http10", "package")}
    cut = 100 * (r["http10"].response_time_s - r["package"].response_time_s) / r["http10"].response_time_s
    assert out.answer == pytest.approx(cut)
    # packets 700 -> 112 against bytes 177800 -> 108657: the package cuts packets by the larger share
    assert preds[1].commit("packets").correct
    assert not panel.veiled and panel.values()["n_files"] == 100 and panel.values()["file_ms"] == pytest.approx(4.45)
    preds[0].try_another()  # the same question with no per-file server cost: veiled again
    assert panel.veiled and preds[0].setting["file_ms"] == 0.0
    assert preds[0].commit(40).answer < cut  # a fast server leaves less to save
    assert not panel.veiled and panel.values()["file_ms"] == 0.0


def test_one_file_answers_are_worked_by_hand():
    q1, q2 = predict.one_file_predictions()
    # SYN, SYN-ACK, bare ACK, GET, response + FIN, FIN + ACK, ACK (tests/objpack/test_model.py)
    assert q1.commit(6).answer == 7 and not q1.outcome.correct
    parts = one_file_breakdown()
    one = simulate_objpack(ObjpackParams(n_files=1))
    assert sum(parts.values()) == pytest.approx(one.response_time_s, abs=1e-12)
    # 4.45 ms + 162 ns x 1000 of 6.44 ms
    assert q2.commit(70).answer == pytest.approx(100 * (4.45e-3 + 162e-9 * 1000) / one.response_time_s)
    assert "80 ns per byte" in q2.question_text() and "4.45 ms" in q2.question_text()


def test_figure5_and_methods_predictions_have_answers():
    shape, two = predict.figure5_predictions()
    rows = {r["n_files"]: r["response_time_reduction_pct"] for r in predict.figure5_rows()}
    assert abs(rows[1]) < 2 and rows[10] > 0.85 * rows[100]
    assert shape.commit(0).correct  # near 0 for one file, flat from about ten
    assert two.commit(rows[2]).correct
    m = predict.methods_prediction()
    assert m.commit("6 parallel").correct  # the six connections overlap the file accesses


def test_window_prediction_has_an_answer_at_both_settings():
    w = predict.window_prediction()
    assert w.commit("package").answer in ("package", "6 parallel")
    w.try_another()
    assert w.setting["rtt_ms"] == 20.0 and w.commit("6 parallel").answer == "6 parallel"


def test_one_file_diagram_names_its_seven_packets():
    fig = one_file_space_time()
    names = [t for tr in fig.data if tr.mode == "text" for t in tr.text if t and t[0].isdigit()]
    assert names == ["1. SYN", "2. SYN-ACK", "3. ACK", "4. GET", "5. response + FIN", "6. FIN + ACK", "7. ACK"]


def test_packaging_figures_registered():
    figs = build_figures("packaging")
    assert set(figs) == {"figure4_reductions", "figure5_files_sweep", "methods_1k", "files_usable_1k",
                         "space_time_one_file"}
    assert figs["figure5_files_sweep"].layout.xaxis.dtick == 1  # a log axis labelled at decades only
