"""TcpParams chooses loss recovery and congestion control apart; ``variant`` stays the shorthand of ``recovery``."""

import dataclasses

import pytest

from simcore.packet import CONGESTION_CONTROLS, RECOVERIES, VARIANTS, TcpParams


def test_defaults_are_the_textbook_tcp():
    tp = TcpParams()
    assert (tp.recovery, tp.variant, tp.congestion_control) == ("newreno", "newreno", "reno")


def test_variant_is_the_shorthand_of_recovery():
    assert VARIANTS == RECOVERIES == ("reno", "newreno", "sack")
    for v in VARIANTS:
        a, b = TcpParams(variant=v), TcpParams(recovery=v)
        assert a == b and a.recovery == a.variant == v and a.congestion_control == "reno"
        assert hash(a) == hash(b)
    assert TcpParams("sack").recovery == "sack"  # positional, as older code wrote it


def test_replace_may_change_either_name():
    tp = TcpParams(recovery="newreno", congestion_control=CONGESTION_CONTROLS[-1])
    assert dataclasses.replace(tp, variant="sack").recovery == "sack"
    assert dataclasses.replace(tp, recovery="sack").variant == "sack"
    assert dataclasses.replace(tp, variant="sack").congestion_control == CONGESTION_CONTROLS[-1]
    assert dataclasses.replace(tp, mss_bytes=1000).recovery == "newreno"


def test_two_names_that_disagree_are_refused():
    with pytest.raises(ValueError, match="variant='sack' and recovery='reno'"):
        TcpParams(variant="sack", recovery="reno")
    assert TcpParams(variant="sack", recovery="sack").recovery == "sack"


def test_bad_names_name_the_parameter_given():
    with pytest.raises(ValueError, match="variant"):
        TcpParams(variant="vegas")
    with pytest.raises(ValueError, match="recovery"):
        TcpParams(recovery="rack")
    with pytest.raises(ValueError, match="congestion_control"):
        TcpParams(congestion_control="vegas")
    assert "reno" in CONGESTION_CONTROLS


def test_preset_variant_override_replaces_the_recovery_only():
    base = TcpParams.preset("bsd44lite")
    assert base.recovery == "reno"
    tp = TcpParams.preset("bsd44lite", variant="sack")
    assert tp.recovery == "sack" and tp.congestion_control == base.congestion_control
    assert tp.initial_window_segments == base.initial_window_segments
