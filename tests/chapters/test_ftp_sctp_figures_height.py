"""ftp_sctp_figures.space_time_height_px: the space-time diagram's height in pixels, by hand."""

import math

import pytest

from simcore.chapters.ftp_sctp_figures import space_time_height_px


def test_height_grows_120_px_a_second_from_320_and_stops_at_12_s():
    assert space_time_height_px(0.0) == 320
    assert space_time_height_px(2.5) == 320 + 300
    assert space_time_height_px(12.0) == space_time_height_px(60.0) == 320 + 1440


@pytest.mark.parametrize("bad", [-0.1, math.nan, math.inf, "3"])
def test_bad_span_is_refused_by_name(bad):
    with pytest.raises(ValueError, match="span_s="):
        space_time_height_px(bad)
