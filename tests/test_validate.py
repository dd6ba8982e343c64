import math

import pytest

from simcore._validate import check_bool, check_choice, check_int, check_real


def test_check_real_accepts_and_converts():
    assert check_real("x_s", 3, 0.0) == 3.0
    assert isinstance(check_real("x_s", 3, 0.0), float)


@pytest.mark.parametrize("value", [-1.0, 0.0, math.nan, math.inf, "1", None, True])
def test_check_real_rejects_with_name_value_and_range(value):
    with pytest.raises(ValueError) as err:
        check_real("rate_bps", value, 0.0, 1e9, lo_open=True)
    msg = str(err.value)
    assert "rate_bps=" in msg and repr(value) in msg and "(0, 1e+09]" in msg


def test_check_int_bounds_and_types():
    assert check_int("n", 5, 1, 5) == 5
    for bad in (0, 6, 2.5, "3", True):
        with pytest.raises(ValueError, match=r"n=.* \[1, 5\]"):
            check_int("n", bad, 1, 5)


def test_check_choice_and_bool():
    assert check_choice("variant", "reno", ["reno", "newreno"]) == "reno"
    with pytest.raises(ValueError, match=r"variant='vegas'.*\['reno', 'newreno'\]"):
        check_choice("variant", "vegas", ["reno", "newreno"])
    with pytest.raises(ValueError, match="flag=1"):
        check_bool("flag", 1)
