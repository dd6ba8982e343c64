"""Chapter 3's wiring: the panel survives every slider's ends, the diagrams show the RFC 959 exchange
counted by hand, figure 1 restarts slow start per data connection, and the loss-reading argument holds
on the stored sweep."""

import functools

import numpy as np
import pytest
from scapy.utils import PcapNgReader

from simcore.chapters import ftp_sctp as ch
from simcore.chapters import ftp_sctp_figures as figs
from simcore.ftp import run_traced
from simcore.ftp.figure_sweep import curve_params


@functools.cache
def _panel():
    return ch.make_panel()


def test_panel_draws_and_reports_each_design_shown():
    p = _panel()
    assert p.last_error is None
    shown = ch.DESIGN_GROUPS[p.values()["designs"]]
    assert len(p.figures[0].data[0].x) == len(shown)
    assert "11 server TIME-WAIT" in p.message  # design 1: the listing + 10 files, each closed by ftpd


@pytest.mark.parametrize("name", ["loss_pct", "n_files", "rtt_ms", "rate_mbps", "run"])
def test_every_slider_end_runs_without_error(name):
    p = _panel()
    lo, hi, _ = ch.SLIDER_RANGES[name]
    for v in (lo, hi, p.controls[name].value):
        p.set(**{name: v})
        assert p.last_error is None, (name, v, p.last_error)


def test_every_design_group_runs_and_stand_ins_are_labelled():
    p = _panel()
    for g in ch.DESIGN_GROUPS:
        p.set(designs=g)
        assert p.last_error is None
        if "patterns" in g:
            assert "NOT SCTP" in p.message
    p.set(designs="paper's designs 1-4")


def test_panel_params_map_the_sliders_to_the_testbed():
    v = {"loss_pct": 0.3, "n_files": 4, "rtt_ms": 70, "rate_mbps": 1.0, "run": 0, "file_kb": 10,
         "designs": "1 vs TCP alternatives A-C"}
    prm = ch.panel_params(v, "ftp_tcp")
    assert prm.loss == pytest.approx(0.003) and prm.one_way_delay_s == pytest.approx(0.035)
    assert prm.file_size_bytes == 10240 and prm.rate_bps == 1e6 and prm.n_files == 4


def test_space_time_diagram_shows_the_hand_counted_commands():
    def labels(curve):
        fig = figs.space_time_figure(curve)  # 2 files of 10 KB, no loss
        texts = next(t for t in fig.data if t.name.startswith("commands")).text  # written together: joined
        shakes = next(t for t in fig.data if t.name.startswith("handshake")).text
        return [part for t in texts for part in t.split(", ")] + list(shakes)

    one = labels("ftp_tcp")
    # design 1: a PORT for the listing and for each of the 2 files, SIZE and RETR per file, a 226 each
    assert one.count("PORT") == 3 and one.count("RETR file01") == 1 and one.count("226") == 3
    # ... and a data connection per transfer, each opened by ftpd (active mode): one SYN and one SYN-ACK each
    assert one.count("SYN") == 3 and one.count("SYN-ACK") == 3
    c = labels("C_persistent_pipelined")
    assert c.count("PORT") == 1 and c.count("SIZE file02") == 1  # one data connection, then pipelined
    assert c.count("SYN") == 1
    two = labels("sctp2_ftp")  # an association per transfer: INIT, INIT-ACK, COOKIE-ECHO, COOKIE-ACK
    assert [two.count(k) for k in ("INIT", "INIT-ACK", "COOKIE-ECHO", "COOKIE-ACK")] == [3, 3, 3, 3]


def test_figure_1_design_1_restarts_at_one_segment_per_data_connection():
    t, res, pl = run_traced(curve_params("ftp_tcp", 0.0, 100 * 1024), 0)
    x, y = figs.server_cwnd(res, pl, t.start_s)
    pieces = [s for s in np.split(y, np.flatnonzero(np.isnan(y))) if s[~np.isnan(s)].size]
    assert len(pieces) == 11  # the listing and 10 files, each on its own connection
    assert all(s[~np.isnan(s)][0] == 1.0 for s in pieces)  # FreeBSD 4.6: initial window 1 segment


def test_figure_1_max_burst_clamps_design_3_between_files_and_design_4_stays_open():
    # RFC 2960 + implementers' guide: before new data, cwnd = min(cwnd, flightsize + Max.Burst * MTU); after
    # a pause nothing is in flight, so design 3 starts every file after the first at 4 * 1500 = 6000 bytes,
    # 6000 / 1452 (payload of a full DATA chunk) = 4.13 chunks; its first file starts at 2 MTU (RFC 2960 IW)
    d3 = figs.cwnd_at_file_starts("sctp3_multistream")
    assert d3[0] == pytest.approx(3000 / 1452) and d3[1:] == pytest.approx([6000 / 1452] * 9)
    d4 = figs.cwnd_at_file_starts("sctp4_pipelined")  # pipelined: the next file is written with data in flight
    assert min(d4[1:]) > 3 * 6000 / 1452


def test_the_claims_table_and_balance_come_from_the_stored_verdicts():
    from simcore.chapters import ftp_sctp_claims as cl
    from simcore.ftp.reading_sweep import load_verdicts

    stored = {(r["claim"], r["reading"], r["file_size_bytes"]): r["verdict"] for r in load_verdicts()}
    table = cl.claims_table_text().splitlines()
    row = next(line for line in table if line.startswith("C1 10 KB"))
    cells = {"yes": "yes", "no": "no", "not resolved": "unresolved", "not measurable": "n/m"}
    assert row.split()[3:] == [cells[stored[("C1", n, 10240)]] for n in cl.READINGS]
    assert cl.verdict_of("C3", "percent", 1 << 20) == stored[("C3", "percent", 1 << 20)]
    assert "sample-size rule" in cl.balance_text() and "6 checks" in cl.balance_text()


def test_capture_button_saves_the_first_design_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    p = ch.make_panel()
    path = p.capture.save()
    assert p.capture.last_error is None and path.suffix == ".pcapng" and path.name.startswith("ftp_ftp_tcp")
    frames = list(PcapNgReader(str(path)))
    assert len(frames) > 100  # the whole session as the client's interface saw it


def test_static_figures_are_registered():
    from simcore.figures import CHAPTER_MODULES

    assert CHAPTER_MODULES["ftp_sctp"] == "simcore.chapters.ftp_sctp"


def test_warm_runs():
    ch.warm()


def test_head_of_line_blocking_alone_delays_a_reply_on_one_byte_stream():
    b = figs.first_blocked_reply(loss=0.03, seed=4)
    # the two runs are identical up to this message; on one byte stream it can only be read later
    assert b["read_one_stream_s"] > b["read_per_stream_s"] >= b["written_s"] + 0.035  # one-way delay at least
    assert b["label"] in ("150", "213", "226")  # a control reply, held behind file data


def test_predictions_hold_the_panel_back_and_answer_by_hand_or_by_the_run():
    import math as _m

    from simcore.ftp import FtpParams, paper_design, run_transfer
    from simcore.ftp.reading_sweep import load_readings

    preds = ch.predictions()
    p = ch.make_panel(gate=preds["panel"])
    assert p.veiled  # Run All commits nothing: the panel shows no answer
    o = preds["panel"].commit(0.5)
    assert not p.veiled and p.values()["loss_pct"] == 0.3  # the commit set the panel to the question's setting
    kw = dict(n_files=10, file_size_bytes=10240, loss=0.003, max_time_s=900.0)
    ratio = (run_transfer(FtpParams(**paper_design(4), **kw), 0).time_s
             / run_transfer(FtpParams(**paper_design(1), **kw), 0).time_s)
    assert o.answer == pytest.approx(ratio, rel=1e-9)  # the run at the stated setting
    # PORT/200 (1) + SIZE/213 (1) + RETR to the server (1/2) + ftpd's SYN/SYN-ACK (1)
    assert preds["round_trips"].commit(3.5).correct and preds["round_trips"].outcome.answer == 3.5
    # Max.Burst: cwnd = flightsize (0 after the pause) + 4 MTU = 6000 bytes = 4.13 full chunks of 1452 bytes
    w = preds["window"].commit(1)
    assert w.correct and "4 MTU" in w.answer
    assert figs.cwnd_at_file_starts("sctp3_multistream")[1] == pytest.approx(4 * 1500 / 1452)
    # the sample size at 30% each way, design 1, 10 KB: (1.645 sigma / 0.5)^2 from the stored sigma
    sd = next(r["sd_s"] for r in load_readings() if r["reading"] == "fraction" and r["file_size_bytes"] == 10240
              and r["loss"] == 0.3 and r["design"] == 1)
    n = _m.ceil((1.645 * sd / 0.5) ** 2)
    s = preds["sample_size"].commit(3)
    assert s.answer == ("more than a million" if n > 1e6 else "1,000 to a million") and s.correct == (n > 1e6)
    share = preds["parallel"].commit(0.5)
    assert 0.0 < share.answer < 1.0
