"""Chapter 1's predictions: the panel and the tables stay veiled until committed; the answers are right.

The answers are checked against numbers derived here: Ticket's gain from the runs' per-client session times
with the thesis's formula written out, the 'ideal' verdict from the bound computed on runs made here, and
the ranking rule on made-up means whose right choice is plain.
"""

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

from simcore.admission import AdmissionParams, simulate_admission
from simcore.chapters import admission as ch
from simcore.chapters import admission_predict as pr
from simcore.chapters.admission_panel import PanelSetting
from simcore.predict import gated_output


@pytest.fixture(scope="module")
def sweep():
    with ThreadPoolExecutor(max_workers=1) as pool:
        return ch.run_thesis_sweep((0, 1), executor=pool, progress=False, experiments=(2,))


def test_the_panel_is_veiled_until_both_predictions_are_committed_and_then_shows_their_setting():
    preds = ch.panel_predictions()
    panel = ch.make_panel(PanelSetting(bandwidth_fraction=1.0, seed=3), gate=preds)
    out = gated_output(lambda: print("Ticket 155 s"), *preds)
    assert panel.veiled and out.veiled and not out.rendered
    rank, gain = preds
    rank.commit(pr.RANK_CHOICES[0])
    assert panel.veiled and out.veiled  # one of two committed: still veiled
    gain.commit(70.0)
    assert not panel.veiled and not out.veiled and out.rendered
    # the commit set the panel to the question's setting: experiment 2, half the bandwidth, 6 extra, seed 0
    assert panel.values()["bandwidth_fraction"] == 0.5 and panel.values()["seed"] == 0
    assert panel.values()["extra_sockets"] == 6 and panel.values()["experiment"] == 2
    assert rank.outcome.answer == pr.RANK_CHOICES[2] and not rank.outcome.correct
    with pytest.raises(RuntimeError):
        gain.commit(50.0)


def test_ticket_gain_is_the_relative_difference_of_the_mean_sessions():
    gain = ch.panel_predictions()[1]
    s = pr.PANEL_SETTING
    control = simulate_admission(AdmissionParams(experiment=2, bandwidth_fraction=0.5), s["seed"])
    ticket = simulate_admission(AdmissionParams(experiment=2, bandwidth_fraction=0.5, policy="Ticket",
                                                extra_sockets=6), s["seed"])
    mc, mt = np.mean(control.session_s), np.mean(ticket.session_s)  # every client completes here
    expected = 100 * (mc - mt) / mc
    o = gain.commit(expected + 9.0)
    assert o.answer == pytest.approx(expected, abs=1e-9) and o.correct  # within 10 percentage points
    assert 40 < o.answer < 70  # short jobs first roughly halves the mean (the thesis: 70-72 %)
    assert f"{expected:.0f} %" in o.html


def test_ranking_rule_on_means_whose_answer_is_plain():
    assert pr.fastest_choice({"HTTP": 350, "FTP": 320, "Reserve": 160, "Ticket": 161}) == pr.RANK_CHOICES[2]
    assert pr.fastest_choice({"HTTP": 100, "FTP": 95, "Reserve": 99, "Ticket": 104}) == pr.RANK_CHOICES[3]
    assert pr.fastest_choice({"HTTP": 300, "FTP": 200, "Reserve": 250, "Ticket": 260}) == pr.RANK_CHOICES[1]
    assert pr.fastest_choice({"HTTP": 200, "FTP": 210, "Reserve": 150, "Ticket": 300}) == pr.RANK_CHOICES[0]


def test_the_ideal_verdict_comes_from_the_bound_over_the_sets_of_clients(sweep):
    d = pr.ideal_numbers(sweep)
    assert d["n"] == 2
    for k, seed in enumerate((0, 1)):  # the bound at heavy load over the control at full bandwidth, run here
        heavy = simulate_admission(AdmissionParams(experiment=2, bandwidth_fraction=0.5), seed)
        full = simulate_admission(AdmissionParams(experiment=2, bandwidth_fraction=1.0), seed)
        assert d["pct"][k] == pytest.approx(100 * heavy.lower_bound_mean_session_s / np.mean(full.session_s))
    ideal = ch.bound_prediction(sweep)
    o = ideal.commit(pr.IDEAL_CHOICES[0])
    assert o.answer == (pr.IDEAL_CHOICES[2] if d["above_200"] > 1 else pr.IDEAL_CHOICES[0])
    assert f"above 200 % on {d['above_200']} of them" in o.html


def test_every_wrong_choice_says_what_it_gets_wrong():
    rank = ch.panel_predictions()[0]
    assert set(rank.feedback) == set(pr.RANK_CHOICES)
    assert set(pr.IDEAL_FEEDBACK) == set(pr.IDEAL_CHOICES) - {pr.IDEAL_CHOICES[2]}


def test_the_headline_table_fits_a_printed_line_and_holds_both_numbers(sweep):
    table = ch.reproduction_table(sweep)
    text = ch.format_headline(table)
    assert max(map(len, text.splitlines())) <= 100
    assert "1265" in text and "2184" in text  # figure 19: HTTP +0% and FTP +0% at heavy overload
    control = next(r for r in table if r["load"] == "heavy" and r["scenario"] == "HTTP +0%")
    assert f"{control['mean_session_s']:.0f} ({control['mean_session_s_sd']:>2.0f})" in text
    full = ch.format_reproduction(table, 2)
    assert max(map(len, full.splitlines())) <= 100 and full.count("Ticket +20%") == 3
    # the thesis's 258 of 400 (64.5 %) printed as 65 %: no bracket for a rounding difference
    assert "64 [65]" not in full
