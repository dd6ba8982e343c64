"""FtpParams refuses bad values with the parameter's name."""

import pytest

from simcore.ftp import FtpParams, paper_design, run_transfer


@pytest.mark.parametrize("kw, match", [
    ({"n_files": 0}, "n_files=0"),
    ({"file_size_bytes": -5}, "file_size_bytes=-5"),
    ({"design": "ftp2"}, "design='ftp2'"),
    ({"transport": "udp"}, "transport='udp'"),
    ({"loss": 1.0}, "loss=1.0"),
    ({"loss": float("nan")}, "loss=nan"),
    ({"rate_bps": 0}, "rate_bps=0"),
    ({"one_way_delay_s": -0.1}, "one_way_delay_s=-0.1"),
    ({"queue_packets": 0}, "queue_packets=0"),
    ({"tcp": "newreno"}, "tcp='newreno'"),
    ({"n_parallel": 3}, "n_parallel=3 is not allowed with design='ftp'"),
    ({"design": "single", "mode": "passive"}, "mode='passive'"),
    ({"design": "ftp", "transport": "tcp_streams"}, "transport='tcp_streams'"),
    ({"sndbuf_bytes": 0}, "sndbuf_bytes=0"),
])
def test_bad_parameters_name_the_parameter_and_the_value(kw, match):
    with pytest.raises(ValueError, match=match):
        FtpParams(**kw)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_sctp_designs_are_accepted_and_bad_calls_refused(n):
    assert FtpParams(**paper_design(n)).transport == "sctp"
    with pytest.raises(ValueError, match="params="):
        run_transfer({"design": "ftp"})
    with pytest.raises(ValueError, match="n=5"):
        paper_design(5)


def test_paper_design_1_runs_and_rtt_is_twice_the_delay():
    p = FtpParams(**paper_design(1), n_files=1, file_size_bytes=100)
    assert p.rtt_s == pytest.approx(0.07)
    assert run_transfer(p).completed


def test_loss_direction_is_validated_and_puts_loss_on_one_pipe_only():
    with pytest.raises(ValueError, match="loss_direction='up'"):
        FtpParams(loss_direction="up")
    from simcore.ftp import run_traced

    for direction, lossy in (("client_to_server", (True, False)), ("server_to_client", (False, True)),
                             ("both", (True, True))):
        _, res, _ = run_traced(FtpParams(n_files=3, loss=0.2, loss_direction=direction), 1)
        # link 0 carries the client's packets to the server (node 0 -> node 1), link 1 the way back
        assert [bool(d > 0) for d in res.link_drops_loss] == list(lossy), direction


def test_spared_retransmissions_reach_the_lossy_pipes_only_and_are_validated():
    with pytest.raises(ValueError, match="spared_retransmissions\\[0\\]='quic'"):
        FtpParams(spared_retransmissions=("quic",))
    from simcore.ftp.session import build_plan

    p = FtpParams(loss=0.1, loss_direction="client_to_server", spared_retransmissions=["sctp"])
    assert p.spared_retransmissions == ("sctp",)
    links = build_plan(p).scenario().network.links
    assert [lk.params.spared_retransmissions for lk in links] == [("sctp",), ()]


def test_with_sctp_retransmissions_spared_no_sctp_retransmission_is_lost():
    from simcore.ftp import run_traced

    p = FtpParams(design="single_pipelined", transport="sctp", loss=0.3, n_files=3, max_time_s=1e5,
                  spared_retransmissions=("sctp",))
    t, res, _ = run_traced(p, 2)
    pt = res.packet_trace
    assert res.retransmits.sum() > 0 and (pt.kind == 3).sum() > 0
    assert not ((pt.kind == 3) & (pt.flags & 16 > 0)).any()  # flag 16: a retransmission
