"""Hidden tests' feedback: each wrong part named, with the slip it looks like (numbers worked by hand)."""

import pytest

from simcore.grading import COMMON, Feedback, check_number, choice_letters, factor, one_rtt_missing, show_choices


def _fail(fb_calls) -> str:
    fb = Feedback("A1")
    fb_calls(fb)
    with pytest.raises(AssertionError) as e:
        fb.done()
    return str(e.value)


def test_a_right_number_passes_and_the_count_is_printed(capsys):
    with Feedback("A1") as fb:
        fb.number("delay (wq_ms)", 10.85, 10.8, rel_tol=0.01, unit="ms")  # 0.05 / 10.8 = 0.46 % < 1 %
    assert "all 1 parts right" in capsys.readouterr().out


@pytest.mark.parametrize(("got", "says"), [
    (0.0108, "factor of 1000"), (10800.0, "factor of 1000"), (86.4, "bits vs bytes"), (1.35, "bits vs bytes"),
    (5.4, "factor of 2"), (21.6, "factor of 2"), (1080.0, "fraction vs a percentage"), (-10.8, "wrong sign"),
    (10.8 * 1024, "KiB vs KB"),
])
def test_a_wrong_number_names_the_part_the_expected_value_and_the_slip(got, says):
    msg = _fail(lambda fb: fb.number("delay at rho = 0.9 (wq_ms[0.9])", got, 10.8, rel_tol=0.01, unit="ms"))
    assert "1 of 1 parts wrong" in msg and "delay at rho = 0.9 (wq_ms[0.9])" in msg
    assert "expected 10.8 ms (within 1 %)" in msg and says in msg


def test_no_slip_is_claimed_when_none_fits():
    msg = _fail(lambda fb: fb.number("x", 13.0, 10.8, rel_tol=0.01, unit="ms"))
    assert msg.endswith("found 13 ms")


def test_every_wrong_part_is_listed_and_the_right_ones_counted():
    def calls(fb):
        fb.number("first", 1.0, 1.0)
        fb.number("second", "ten", 10.0)
        fb.equal("count of SYNs", 3, 2)
        fb.true("sorted", False, "the list must be in time order")
    msg = _fail(calls)
    assert "3 of 4 parts wrong" in msg and "second: expected a number" in msg
    assert "count of SYNs: expected 2, found 3" in msg and "sorted: the list must be in time order" in msg


def test_one_rtt_missing_and_custom_factors():
    rtt = one_rtt_missing(0.54, "s")
    msg = _fail(lambda fb: fb.number("page time", 1.62, 2.16, rel_tol=0.01, unit="s", mistakes=[rtt]))
    assert "one round-trip time (0.54 s)" in msg
    half = factor(2, "M/D/1 waits half as long as M/M/1: which formula did you use?")
    msg = _fail(lambda fb: fb.number("M/D/1 wait", 10.8, 5.4, mistakes=[half, *COMMON]))
    assert "M/D/1 waits half" in msg


def test_check_number_raises_at_once_with_the_message():
    check_number("x", 2.0, 2.0)
    with pytest.raises(AssertionError, match="x: expected 2 "):
        check_number("x", 3.0, 2.0)


CHOICES = ["the queue is full", "the delay grows as 1/(1 - rho)", "packets are lost", "the link slows down"]


def test_a_why_question_is_in_each_students_own_order_and_names_the_misconception():
    a = choice_letters("q1", CHOICES, student="alice")
    orders = {tuple(choice_letters("q1", CHOICES, student=f"s{i}").values()) for i in range(20)}
    assert sorted(a.values()) == sorted(CHOICES) and len(orders) > 5
    right = CHOICES[1]
    letter = next(k for k, v in a.items() if v == right)
    wrong = next(k for k, v in a.items() if v == "the queue is full")
    why = {"the queue is full": "an infinite buffer is never full: the delay grows without any loss"}
    with Feedback() as fb:
        fb.choice("why (why_answer)", f"({letter.lower()})", question="q1", choices=CHOICES, right=right,
                  student="alice")
    msg = _fail(lambda fb: fb.choice("why (why_answer)", wrong, question="q1", choices=CHOICES, right=right,
                                     why=why, student="alice"))
    assert f"({wrong}) is not the reason: an infinite buffer is never full" in msg
    msg = _fail(lambda fb: fb.choice("why", "Z", question="q1", choices=CHOICES, right=right, student="alice"))
    assert "expected one letter of ['A', 'B', 'C', 'D'], found 'Z'" in msg
    shown = show_choices("q1", CHOICES, student="alice")
    assert f"**({letter})** {right}" in getattr(shown, "data", shown)
