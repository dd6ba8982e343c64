"""The fluid kernels: max-min fair water-filling, draining, next completion."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.fluid._kernel import (
    advance_remaining,
    max_min_rates,
    max_min_rates_scratch,
    next_completion,
    water_level,
)

REL = 1e-12


def _reference_rates(caps, active, capacity):
    """Max-min rates by bisection on the water level L solving sum(min(cap, L)) = capacity.

    An independent algorithm (no sorting, no water-filling loop) used to cross-check the kernel.
    """
    caps = np.asarray(caps, float)
    a = caps[active]
    out = np.zeros_like(caps)
    if a.size == 0:
        return out
    if np.sum(a) <= capacity:  # every flow held by its cap (sum may be inf, then not)
        out[active] = a
        return out
    lo, hi = 0.0, capacity
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if np.sum(np.minimum(a, mid)) > capacity:
            hi = mid
        else:
            lo = mid
    out[active] = np.minimum(a, lo)
    return out


cap_values = st.one_of(
    st.floats(min_value=1e-3, max_value=1e6, allow_nan=False, allow_infinity=False),
    st.just(math.inf),
)


@st.composite
def instances(draw):
    n = draw(st.integers(min_value=0, max_value=40))
    caps = np.array(draw(st.lists(cap_values, min_size=n, max_size=n)), dtype=np.float64)
    active = np.array(draw(st.lists(st.booleans(), min_size=n, max_size=n)), dtype=np.bool_)
    capacity = draw(st.floats(min_value=1e-2, max_value=1e7, allow_nan=False, allow_infinity=False))
    return caps, active, capacity


@settings(max_examples=300, deadline=None)
@given(instances())
def test_max_min_rates_is_feasible_and_max_min_fair(inst):
    caps, active, capacity = inst
    out = np.full(caps.shape, -1.0)
    total = max_min_rates(caps, active, capacity, out)
    # feasibility: no negative rate, no flow above its cap, inactive flows get 0, total <= capacity
    assert np.all(out >= 0.0)
    assert np.all(out <= caps)
    assert np.all(out[~active] == 0.0)
    assert total == pytest.approx(out.sum(), rel=REL, abs=0.0)
    assert total <= capacity * (1 + REL)
    if not active.any():
        assert total == 0.0
        return
    r = out[active]
    c = caps[active]
    at_cap = r == c
    # work conservation: capacity left over only when every active flow is at its cap
    if not at_cap.all():
        assert total == pytest.approx(capacity, rel=REL)
        # bottleneck property (<=> max-min fairness on one link): a flow below its cap has the maximal
        # rate, so raising it would need lowering a flow whose rate is not larger
        assert np.all(r[~at_cap] >= r.max() * (1 - REL))
        # and it got no more than any capped flow's share would allow: capped flows are below the level
        assert np.all(c[at_cap] <= r[~at_cap].max() * (1 + REL))
    # cross-check against an independent algorithm
    ref = _reference_rates(caps, active, capacity)
    np.testing.assert_allclose(out, ref, rtol=1e-9, atol=capacity * 1e-12)


@settings(max_examples=100, deadline=None)
@given(instances())
def test_scratch_variant_matches_and_level_is_consistent(inst):
    caps, active, capacity = inst
    a = np.zeros(caps.shape)
    b = np.zeros(caps.shape)
    ta = max_min_rates(caps, active, capacity, a)
    tb = max_min_rates_scratch(caps, active, capacity, b, np.empty(caps.shape[0] + 3))
    assert ta == tb
    np.testing.assert_array_equal(a, b)
    m = int(active.sum())
    # all active caps passed as candidates, or only those below the capacity: the same rates
    level = water_level(np.sort(caps[active]), m, m, capacity)
    low = np.sort(caps[active & (caps < capacity)])
    level_low = water_level(low, low.size, m, capacity)
    np.testing.assert_array_equal(a[active], np.minimum(caps[active], level_low))
    np.testing.assert_array_equal(a[active], np.minimum(caps[active], level))


def test_max_min_rates_small_cases_by_hand():
    out = np.zeros(4)
    # no caps: equal split
    assert max_min_rates(np.full(4, np.inf), np.ones(4, np.bool_), 8.0, out) == 8.0
    np.testing.assert_array_equal(out, [2.0, 2.0, 2.0, 2.0])
    # caps 1 and 2 bind, the two others share 10 - 3 = 7
    caps = np.array([1.0, np.inf, 2.0, 100.0])
    assert max_min_rates(caps, np.ones(4, np.bool_), 10.0, out) == 10.0
    np.testing.assert_array_equal(out, [1.0, 3.5, 2.0, 3.5])
    # all capped below capacity: total is the sum of caps
    caps = np.array([1.0, 2.0, 3.0, 4.0])
    active = np.array([True, False, True, True])
    assert max_min_rates(caps, active, 100.0, out) == 8.0
    np.testing.assert_array_equal(out, [1.0, 0.0, 3.0, 4.0])
    # nobody active
    out[:] = 7.0
    assert max_min_rates(caps, np.zeros(4, np.bool_), 1.0, out) == 0.0
    np.testing.assert_array_equal(out, 0.0)


def test_advance_remaining_and_next_completion():
    remaining = np.array([10.0, 4.0, 6.0, 1.0])
    rates = np.array([1.0, 2.0, 3.0, 0.0])
    active = np.array([True, True, False, True])
    # flow 1 finishes first: 4 bytes at 2 B/s; inactive flow 2 and zero-rate flow 3 are ignored
    idx, dt = next_completion(remaining, rates, active)
    assert (idx, dt) == (1, 2.0)
    delivered = advance_remaining(remaining, rates, active, 1.5)
    assert delivered == 1.5 + 3.0
    np.testing.assert_array_equal(remaining, [8.5, 1.0, 6.0, 1.0])
    # overshooting floors at zero and counts only what was left
    delivered = advance_remaining(remaining, rates, active, 10.0)
    assert delivered == 8.5 + 1.0
    np.testing.assert_array_equal(remaining, [0.0, 0.0, 6.0, 1.0])
    idx, dt = next_completion(remaining, np.zeros(4), active)
    assert idx == -1 and dt == math.inf
