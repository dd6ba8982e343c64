"""The server's costs are a least-squares fit to Table 3: the testbed is linear in them, the fit is a minimum,
and the defaults are the fit (so the chapter may call the response-time match a fit, not evidence)."""

import numpy as np
import pytest

from simcore.objpack import ObjpackParams, simulate_objpack
from simcore.objpack.calibrate import fit_server_costs, fit_text


@pytest.fixture(scope="module")
def fit():
    return fit_server_costs()


def test_the_testbed_is_linear_in_the_server_costs(fit):
    # HTTP/1.0 pays the per-file work once per file, in series; the package once: T = T0 + a n + b bytes
    for row in fit.rows[:2]:
        p = ObjpackParams(mean_file_bytes={"1K": 1000, "4K": 4000, "10K": 10000}[row.size],
                          method="http10" if row.method == "existing" else "package",
                          server_file_s=fit.server_file_s, server_copy_s_per_byte=fit.server_copy_s_per_byte)
        assert simulate_objpack(p).response_time_s == pytest.approx(fit.fitted_s(row), rel=1e-12)
    one = {r.method: r for r in fit.rows if r.size == "1K"}
    assert one["existing"].accesses == 100 and one["existing"].copied_bytes == 100 * 1000
    assert one["package"].accesses == 1 and one["package"].copied_bytes > 100 * 1000  # plus its header


def test_the_fit_minimises_the_squared_relative_errors(fit):
    def sse(a, b):
        return sum(((r.zero_cost_s + a * r.accesses + b * r.copied_bytes - r.paper_s) / r.paper_s) ** 2
                   for r in fit.rows)

    best = sse(fit.server_file_s, fit.server_copy_s_per_byte)
    for da, db in ((1e-5, 0), (-1e-5, 0), (0, 1e-10), (0, -1e-10), (1e-5, -1e-10)):
        assert sse(fit.server_file_s + da, fit.server_copy_s_per_byte + db) > best


def test_the_defaults_are_the_fit(fit):
    p = ObjpackParams()
    assert abs(p.server_file_s - fit.server_file_s) < 0.005e-3  # 4.45 ms
    assert abs(p.server_copy_s_per_byte - fit.server_copy_s_per_byte) < 0.5e-9  # 162 ns per byte


def test_fit_text_reports_the_largest_miss_from_the_numbers(fit):
    errs = {(r.size, r.method): fit.error_pct(r) for r in fit.rows}
    worst = max(errs, key=lambda k: abs(errs[k]))
    text = fit_text(fit)
    assert f"{errs[worst]:+.1f} %" in text
    assert f"{sum(abs(e) <= 5 for e in errs.values())} of 6 within 5 %" in text
    assert np.isfinite(list(errs.values())).all()
