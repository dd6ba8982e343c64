"""Chapter 4's predictions: answers checked against hand counts, and the panels they gate veiled until committed."""

import pytest

from simcore.chapters import delay_predict as dp
from simcore.chapters import delay_tcp as tcp_chapter
from simcore.delay.tcp_view import TcpPageParams, simulate_page_tcp


def test_report_answers_by_hand():
    time, fastest = dp.report_predictions()
    # §III.1's hand count: 6 handshakes (12 control) + 6 GETs = 18 control packets, 6 data packets
    assert time.answer(dp.REPORT_SETTING) == 18 * 266 + 6 * 738 == 9216
    # 1.1: 1 handshake (2) + 6 GETs = 8 control, 6 data: 6556 ms, less than "1.2"'s 12 x 266 + 6 x 738 = 7620
    assert fastest.answer(dp.REPORT_SETTING).startswith("HTTP/1.1")


def test_tcp_answers_by_hand():
    direction, gap = dp.tcp_predictions()
    # the simple formula by hand: 6 objects x (2 RTT + O/R) = 6 x (0.2 + 0.08) = 1.68 s; the slow-start formula
    # (Q7) 6 x 468.3 ms = 2.81 s, and the simulation is within a few per cent of it, so the gap is about -40 %
    assert direction.answer(dp.TCP_SETTING).startswith("too optimistic")
    assert -45.0 < gap.answer(dp.TCP_SETTING) < -35.0


@pytest.mark.parametrize("make, predictions", [
    (lambda g: __import__("simcore.chapters.delay", fromlist=["x"]).make_panel(gate=g), dp.report_predictions),
    (lambda g: tcp_chapter.make_panel(gate=g), dp.tcp_predictions)])
def test_panels_veiled_until_every_prediction_is_committed(make, predictions):
    preds = predictions()
    panel = make(preds)
    assert panel.veiled
    for p in preds:
        p.commit(p.choices[0] if hasattr(p, "choices") else 0.0)
    assert not panel.veiled


@pytest.mark.parametrize("handshake, opening", [("textbook", ["SYN", "SYN-ACK", "ACK + GET"]),
                                                ("real", ["SYN", "SYN-ACK", "ACK", "GET"])])
def test_diagram_labels_the_packets_a_student_counts(handshake, opening):
    """Non-persistent reference page: 6 connections, each opened as the handshake convention says (counted
    by hand: the GET rides on the ACK in the textbook, follows it in a real stack) and closed by a FIN from
    each side."""
    r = simulate_page_tcp(TcpPageParams(handshake=handshake), 1, trace=True)
    names = [n for _, _, n in tcp_chapter._packet_names(r.packet.packet_trace)]
    assert names == (opening + ["FIN", "FIN"]) * 6
