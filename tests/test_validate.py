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


def test_numpy_scalars_become_the_python_numbers_they_are():
    import numpy as np

    from simcore._validate import check_bool, check_choice, python_number

    assert type(python_number(np.int64(7))) is int and python_number(np.uint8(255)) == 255
    assert type(python_number(np.float32(0.5))) is float and python_number(np.float32(0.5)) == 0.5
    assert python_number(np.bool_(True)) is True and type(python_number(np.str_("a"))) is str
    t = python_number((np.int64(1), 2.5, np.float64(3.0)))
    assert t == (1, 2.5, 3.0) and [type(x) for x in t] == [int, float, float]
    keep = (1, 2)
    assert python_number(keep) is keep  # nothing to convert: the same object
    a = np.arange(3)
    assert python_number(a) is a  # arrays are left alone
    assert check_bool("flag", np.bool_(False)) is False
    assert check_choice("n", np.int64(2), (1, 2)) == 2 and type(check_choice("n", np.int64(2), (1, 2))) is int
    with pytest.raises(ValueError, match="flag=1 is not allowed: must be True or False"):
        check_bool("flag", 1)
    with pytest.raises(ValueError, match="is not allowed: must be one of"):
        check_choice("n", np.arange(2), (1, 2))
