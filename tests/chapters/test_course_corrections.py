"""The review's corrections (issue 14) stay corrected: each test derives its expectation independently."""

import math

import pytest

from simcore.chapters import admission as ch1
from simcore.chapters import admission_summary as summary
from simcore.chapters import start_here as ch0


def _erlang_c(c: int, a: float) -> float:
    """Erlang's C formula by hand: probability that an arrival waits in M/M/c with offered load a."""
    top = a**c / math.factorial(c) * c / (c - a)
    return top / (sum(a**k / math.factorial(k) for k in range(c)) + top)


def test_start_here_q3_four_slow_links_queue_less_but_take_longer():
    one = ch0.RouterSetting(arrival_rate_pps=600, servers=1, link_rate_mbps=10)
    four = ch0.RouterSetting(arrival_rate_pps=600, servers=4, link_rate_mbps=2.5)
    assert four.mean_service_s == pytest.approx(4 * one.mean_service_s) == pytest.approx(4.8e-3)
    assert one.intensity == pytest.approx(four.intensity) == pytest.approx(0.72)
    wq_one = 0.72 / (1 - 0.72) * 1.2e-3  # M/M/1
    wq_four = _erlang_c(4, 600 * 4.8e-3) / (4 * (1 - 0.72)) * 4.8e-3  # M/M/4
    assert wq_four < wq_one and wq_four + 4.8e-3 > wq_one + 1.2e-3
    p_one, p_four = ch0.operating_point(one), ch0.operating_point(four)
    assert p_one["theory_ms"] == pytest.approx(1e3 * wq_one, rel=1e-9)
    assert p_four["theory_ms"] == pytest.approx(1e3 * wq_four, rel=1e-9)


def test_link_rate_is_validated():
    with pytest.raises(ValueError, match="link_rate_mbps"):
        ch0.RouterSetting(link_rate_mbps=0.1)


def test_panel_has_a_link_rate_slider():
    panel = ch0.make_panel()
    assert "link_rate_mbps" in panel.controls


@pytest.fixture(scope="module")
def small():
    sweep = ch1.run_thesis_sweep(seeds=range(2))
    return sweep, ch1.reproduction_table(sweep)


def test_thesis_net_share_shows_the_printed_value_where_it_differs(small):
    _, table = small
    text = ch1.format_reproduction(table, 1)
    # figure 7, FTP +0%: 124 of 200 clients net faster = 62 %, printed 31 % (net / 400)
    ftp = next(line for line in text.splitlines() if line.startswith("FTP +0%"))
    assert "62 [31]" in ftp and "[printed]" in text
    assert "[" not in next(line for line in ch1.format_reproduction(table, 2).splitlines()
                           if line.startswith("FTP +0%")).split("(")[0]


def test_generated_prose_quotes_the_table(small):
    sweep, table = small
    reserved = [r for r in table if r["experiment"] == 2 and r["load"] != "sufficient"
                and r["policy"] in ("Reserve", "Ticket") and r["extra_sockets"]]
    net = [r["net_faster_pct"] for r in reserved]
    text = summary.agreement_markdown(table)
    assert f"{min(net):.0f}-{max(net):.0f} % of clients are significantly faster" in text
    ctrl = {r["load"]: r for r in table if r["experiment"] == 2 and r["policy"] == "HTTP" and not r["extra_sockets"]}
    ratios = [ctrl[k]["thesis_mean_session_s"] / ctrl[k]["mean_session_s"] for k in ctrl]
    assert f"{min(ratios):.1f}-{max(ratios):.1f} times shorter" in text
    assert "far too optimistic" in summary.bound_markdown(sweep, table)
