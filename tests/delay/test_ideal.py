"""The discrete-event simulation against the closed forms, and the trace against the ideal world's rules."""

import math
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from simcore.delay.closed_form import closed_form_ms, packet_counts
from simcore.delay.ideal import connection_plan, evaluate, evaluate_modes, simulate_ideal
from simcore.delay.params import MODES, PACKET_KINDS, DelayParams, hit_mask

# Integer-valued (or dyadic) inputs keep every sum exact in float64, so sim == closed form with ==.
exact_params = st.builds(
    DelayParams,
    prop_delay_ms=st.integers(0, 500).map(float),
    trans_ms_per_byte=st.sampled_from([0.0, 0.25, 0.5, 1.0, 2.0, 3.0, 29.0]),
    n_parents=st.integers(1, 6),
    n_children=st.integers(0, 6),
    ctrl_size_bytes=st.integers(0, 80).map(float),
    data_size_bytes=st.integers(0, 2000).map(float),
    mode=st.sampled_from(MODES),
    cache=st.booleans(),
    hit_ratio=st.sampled_from([0.0, 0.25, 1 / 3, 0.5, 0.7, 1.0]),
    handshake_size_bytes=st.one_of(st.none(), st.integers(0, 60).map(float)),
    mux_header_bytes=st.integers(0, 40).map(float),
    pipelining=st.booleans(),
    warm_connection=st.booleans(),
)


@settings(max_examples=300, deadline=None)
@given(p=exact_params)
def test_simulation_equals_closed_form_exactly(p):
    r = simulate_ideal(p)
    assert r.response_time_ms == closed_form_ms(p)
    c = packet_counts(p)
    assert r.trace.n_packets == c["n_packets"]
    assert r.n_ctrl_packets == c["n_ctrl_packets"]
    assert r.n_data_packets == c["n_data_packets"]


@settings(max_examples=100, deadline=None)
@given(
    prop=st.floats(0.0, 1000.0), tb=st.floats(0.0, 50.0), P=st.integers(1, 5), C=st.integers(0, 5),
    sc=st.floats(1.0, 100.0), sd=st.floats(1.0, 5000.0), mode=st.sampled_from(MODES), pipe=st.booleans(),
)
def test_simulation_equals_closed_form_for_arbitrary_reals(prop, tb, P, C, sc, sd, mode, pipe):
    p = DelayParams(prop_delay_ms=prop, trans_ms_per_byte=tb, n_parents=P, n_children=C,
                    ctrl_size_bytes=sc, data_size_bytes=sd, mode=mode, pipelining=pipe)
    # only the order of float additions differs: a few ulps of the total
    assert math.isclose(simulate_ideal(p).response_time_ms, closed_form_ms(p), rel_tol=1e-12, abs_tol=1e-9)


def _trace_rules(p):
    r = simulate_ideal(p)
    t = r.trace
    size = np.where(t.kind <= 1, p.syn_size_bytes, 0.0)
    # every packet: transmission = size x per-byte delay, arrival = end of transmission + propagation
    np.testing.assert_allclose(t.tx_end_ms - t.send_ms, t.size_bytes * p.trans_ms_per_byte, rtol=1e-12)
    np.testing.assert_allclose(t.arrive_ms - t.tx_end_ms, p.prop_delay_ms, rtol=1e-12, atol=1e-9)
    assert np.all(t.size_bytes[t.kind <= 1] == size[t.kind <= 1])
    # a link carries one packet at a time
    for side in (False, True):
        idx = np.flatnonzero(t.from_server == side)
        assert np.all(t.send_ms[idx][1:] >= t.tx_end_ms[idx][:-1] - 1e-9)
    # SYN/GET go client->server, ACK/data/304 server->client
    names = np.array(PACKET_KINDS)[t.kind]
    assert set(names[~t.from_server]) <= {"SYN", "GET"}
    assert set(names[t.from_server]) <= {"ACK", "data", "304"}
    # every object is requested once and answered once; hits answered 304
    hits = hit_mask(p.n_objects, p.hit_ratio if p.cache else 0.0)
    gets = t.object_id[names == "GET"]
    assert sorted(gets.tolist()) == list(range(p.n_objects))
    for o in range(p.n_objects):
        (resp,) = np.flatnonzero(t.from_server & (t.object_id == o))
        assert names[resp] == ("304" if hits[o] else "data")
        (get,) = np.flatnonzero(~t.from_server & (t.object_id == o))
        assert t.send_ms[resp] >= t.arrive_ms[get] - 1e-9  # the server answers only what it received
    # a child is requested only after its parent arrived (the client must parse the parent first)
    C = p.n_children
    for o in range(p.n_objects):
        if o % (C + 1):
            parent = o - o % (C + 1)
            (pr,) = np.flatnonzero(t.from_server & (t.object_id == parent))
            (g,) = np.flatnonzero(~t.from_server & (t.object_id == o))
            assert t.send_ms[g] >= t.arrive_ms[pr] - 1e-9
    return r


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("pipelining", [False, True])
@pytest.mark.parametrize("cache", [False, True])
def test_trace_obeys_the_ideal_world(mode, pipelining, cache):
    p = DelayParams(mode=mode, pipelining=pipelining, cache=cache, hit_ratio=0.5, n_parents=3, n_children=2,
                    handshake_size_bytes=3.0, mux_header_bytes=25.0)
    r = _trace_rules(p)
    t = r.trace
    if not pipelining or mode == "1.0":
        # stop-and-wait: each packet leaves when the previous one has arrived, never earlier
        assert np.all(t.send_ms[1:] == t.arrive_ms[:-1])
        assert t.send_ms[0] == 0.0
    assert r.response_time_ms == t.arrive_ms.max()


def test_handshakes_per_mode():
    base = DelayParams(n_parents=3, n_children=2)
    syn = {m: int(np.sum(simulate_ideal(replace(base, mode=m)).trace.kind == 0)) for m in MODES}
    assert syn == {"1.0": 9, "1.1": 1, "1.2": 4}
    assert int(np.sum(simulate_ideal(replace(base, mode="1.2", n_children=0)).trace.kind == 0)) == 1
    conns, hs = connection_plan(replace(base, mode="1.2"))
    assert conns[0] == [0, 3, 6] and conns[1:] == [[1, 2], [4, 5], [7, 8]] and all(hs)


def _pipelined_list_by_recursion(t0, prop, tb, g, r):
    """The server's queue step by step (not the unrolled max-plus formula of the closed form)."""
    e = -math.inf
    for k in range(1, len(r) + 1):
        arrive = t0 + tb * k * g + prop
        e = max(arrive, e) + tb * r[k - 1]
    return e + prop - t0


@pytest.mark.parametrize("C", [1, 3])
@pytest.mark.parametrize(("sc", "sd"), [(33.0, 269.0), (300.0, 20.0), (50.0, 50.0)])
def test_pipelining_matches_the_queue_recursion(C, sc, sd):
    p = DelayParams(mode="1.2", pipelining=True, n_parents=2, n_children=C, ctrl_size_bytes=sc,
                    data_size_bytes=sd, cache=True, hit_ratio=0.5, prop_delay_ms=100.0, trans_ms_per_byte=2.0)
    hits = hit_mask(p.n_objects, 0.5)
    resp = np.where(hits, sc, sd)
    lists = [[0, C + 1]] + [[q * (C + 1) + 1 + j for j in range(C)] for q in range(2)]
    d_h = 100.0 + 2.0 * sc
    expected = 2 * len(lists) * d_h + sum(
        _pipelined_list_by_recursion(0.0, 100.0, 2.0, sc, resp[ids].tolist()) for ids in lists)
    assert simulate_ideal(p).response_time_ms == pytest.approx(expected, rel=1e-12)


@settings(max_examples=60, deadline=None)
@given(p=exact_params)
def test_physical_limits(p):
    t_pipe = closed_form_ms(replace(p, pipelining=True))
    t_wait = closed_form_ms(replace(p, pipelining=False))
    assert t_pipe <= t_wait  # sending GETs earlier never delays anything
    # without propagation, a stop-and-wait page costs exactly its bytes
    q = replace(p, prop_delay_ms=0.0, pipelining=False)
    r = simulate_ideal(q)
    assert r.response_time_ms == pytest.approx(q.trans_ms_per_byte * r.trace.size_bytes.sum(), rel=1e-12)
    # with free transmission, every packet costs one propagation delay (pipelined lists: 2 per list)
    z = replace(p, trans_ms_per_byte=0.0, pipelining=False)
    assert closed_form_ms(z) == z.prop_delay_ms * packet_counts(z)["n_packets"]


def test_persistent_beats_multiplexed_beats_non_persistent():
    # the report's hypothesis holds in the ideal world whenever the sizes are equal across modes
    for P, C in [(1, 0), (2, 0), (2, 2), (5, 9)]:
        m = evaluate_modes(DelayParams(n_parents=P, n_children=C), simulate=False)
        t = {k: v["closed_form_ms"] for k, v in m.items()}
        assert t["1.1"] <= t["1.2"] <= t["1.0"]
        assert (t["1.1"] == t["1.2"]) == (C == 0)


def test_evaluate_bundles_one_slider_update():
    out = evaluate(DelayParams(mode="1.2"))
    assert out["result"].response_time_ms == out["closed_form_ms"]
    assert set(out["modes"]) == set(MODES)
    for m, v in out["modes"].items():
        assert v["closed_form_ms"] == v["simulated_ms"], m


def test_packet_model_is_not_run_here():
    with pytest.raises(ValueError, match="model='packet'"):
        simulate_ideal(DelayParams(model="packet"))
    with pytest.raises(ValueError, match="DelayParams"):
        simulate_ideal({"mode": "1.0"})


@pytest.mark.parametrize(
    ("mode", "k_text"), [("1.0", "K = N"), ("1.1", "K = 1"), ("1.2", r"K = 1 + P\,[C>0]")]
)
def test_formula_latex_shows_the_mode_and_the_number(mode, k_text):
    from simcore.delay.closed_form import formula_latex

    p = DelayParams(mode=mode, prop_delay_ms=150.0, trans_ms_per_byte=3.0)
    md = formula_latex(p)
    assert k_text in md and f"HTTP/{mode}" in md
    assert md.count("$$") % 2 == 0
    assert f"T = {closed_form_ms(p):.6g}" in md
    assert "d_h = 150 + 3\\cdot33 = 249" in md
    assert "max" in formula_latex(replace(p, pipelining=True), substitute=False) or mode == "1.0"
    assert "K = 0" in formula_latex(DelayParams(mode="1.1", warm_connection=True))
