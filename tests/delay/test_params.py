"""Validation of DelayParams and the deterministic hit pattern."""

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.delay.params import DelayParams, hit_mask


@pytest.mark.parametrize(
    ("field", "value", "fragment"),
    [
        ("prop_delay_ms", -1.0, "prop_delay_ms=-1.0"),
        ("prop_delay_ms", math.nan, "prop_delay_ms=nan"),
        ("trans_ms_per_byte", -0.5, "trans_ms_per_byte=-0.5"),
        ("n_parents", 0, "n_parents=0"),
        ("n_parents", 2.0, "n_parents=2.0"),
        ("n_children", -1, "n_children=-1"),
        ("ctrl_size_bytes", -3, "ctrl_size_bytes=-3"),
        ("data_size_bytes", "269", "data_size_bytes='269'"),
        ("mode", "2.0", "mode='2.0'"),
        ("mode", 1.1, "mode=1.1"),
        ("cache", 1, "cache=1"),
        ("hit_ratio", 1.5, "hit_ratio=1.5"),
        ("handshake_size_bytes", -1.0, "handshake_size_bytes=-1.0"),
        ("mux_header_bytes", math.inf, "mux_header_bytes=inf"),
        ("pipelining", "yes", "pipelining='yes'"),
        ("warm_connection", 0, "warm_connection=0"),
        ("model", "tcp", "model='tcp'"),
    ],
)
def test_bad_values_raise_naming_the_parameter(field, value, fragment):
    with pytest.raises(ValueError, match=fragment.replace("(", r"\(").replace(".", r"\.")):
        DelayParams(**{field: value})


def test_too_many_objects_rejected():
    with pytest.raises(ValueError, match="n_parents \\* \\(1 \\+ n_children\\)"):
        DelayParams(n_parents=1000, n_children=1000)


def test_params_are_frozen():
    p = DelayParams()
    with pytest.raises(AttributeError):
        p.mode = "1.0"


def test_derived_quantities():
    p = DelayParams(n_parents=3, n_children=4, trans_ms_per_byte=1.0, prop_delay_ms=250.0,
                    mode="1.2", mux_header_bytes=25.0)
    assert p.n_objects == 15
    assert p.get_size_bytes == 33.0 + 25.0
    assert p.syn_size_bytes == p.ctrl_size_bytes
    assert p.link_rate_bps == 8000.0  # 1 ms per byte = 1000 bytes/s
    assert p.prop_delay_s == 0.25
    assert DelayParams(trans_ms_per_byte=0.0).link_rate_bps == math.inf
    assert DelayParams(mode="1.1", mux_header_bytes=25.0).get_size_bytes == 33.0  # header only on 1.2
    assert DelayParams(cache=False, hit_ratio=1.0).n_hits == 0


@settings(max_examples=200, deadline=None)
@given(n=st.integers(0, 500), num=st.integers(0, 40), den=st.integers(1, 40))
def test_hit_mask_count_is_floor_of_n_h(n, num, den):
    h = min(num / den, 1.0)
    mask = hit_mask(n, h)
    assert mask.shape == (n,)
    # exact rational floor, independent of floating point
    expected = n if num >= den else (n * num) // den
    assert int(mask.sum()) == expected
    # evenly spread: any prefix of length m holds floor(m h) hits (up to the same rounding)
    if n:
        m = n // 2
        assert int(mask[:m].sum()) == (m if num >= den else (m * num) // den)
