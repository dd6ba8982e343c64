"""A traced run's traces are assembled when first read (``trace_result``, ``lazy_result.traced_result``): every field
must be what assembling them all at once gives, bit for bit, in any order of reading; a trace not read is never
assembled; the result pickles as a plain ``PacketResult``; later runs do not write into a result still held.

The reference is the code path every traced run took before: ``simulate._result`` with every trace made at once
(``traced_result`` replaced by a function that builds them all immediately).
"""

from __future__ import annotations

import dataclasses
import importlib
import importlib.util
import pickle
from pathlib import Path

import pytest

from simcore.packet import PacketResult, simulate
from simcore.packet.lazy_result import LazyPacketResult
from simcore.packet.trace_result import TRACE_FIELDS, all_traces

sim = importlib.import_module("simcore.packet.simulate")  # the module (the package exports the function)
_GOLDEN = Path(__file__).resolve().parents[2] / "benchmarks" / "_golden_packet.py"


def _golden_scenarios():
    spec = importlib.util.spec_from_file_location("_golden_packet", _GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(name, sc) for name, sc, _ in mod._scenarios()]


SCENARIOS = _golden_scenarios()


@pytest.fixture
def eager_traced(monkeypatch):
    """``eager_traced(scenario, seed)``: the traced run with every trace assembled at once (the reference)."""

    def at_once(full, views):
        return dataclasses.replace(full, **all_traces(views))

    def run(sc, seed):
        with monkeypatch.context() as m:
            m.setattr(sim, "traced_result", at_once)
            res = simulate(sc, seed=seed, trace=True)
        assert type(res) is PacketResult
        return res

    return run


@pytest.mark.parametrize("name,sc", SCENARIOS, ids=[n for n, _ in SCENARIOS])
def test_traces_assembled_when_read_are_bit_identical(name, sc, assert_same, eager_traced):
    want = eager_traced(sc, 7)
    assert want.packet_trace is not None and want.sojourn_trace is not None
    got = simulate(sc, seed=7, trace=True)
    assert isinstance(got, LazyPacketResult)
    assert_same(got, want, name)


def test_a_trace_not_read_is_never_assembled_and_the_result_pickles_whole(assert_same, eager_traced):
    name, sc = next((n, s) for n, s in SCENARIOS if "sack" in n)
    want = eager_traced(sc, 2)
    res = simulate(sc, seed=2, trace=True)
    res.sojourn_trace  # noqa: B018 (read one trace)
    assert "sojourn_trace" in res.__dict__
    assert not {"packet_trace", "hop_trace", "tcp_trace", "queue_trace"} & set(res.__dict__)
    back = pickle.loads(pickle.dumps(res))
    assert type(back) is PacketResult
    assert_same(back, want, f"{name}/pickled")
    assert_same(res, want, f"{name}/after pickling")
    assert "_src" not in res.__dict__  # every trace read: the views are let go


def test_later_runs_do_not_write_into_the_traces_of_a_result_still_held(assert_same, eager_traced):
    name, sc = next((n, s) for n, s in SCENARIOS if "sack" in n)
    want = eager_traced(sc, 4)
    held = simulate(sc, seed=4, trace=True)
    for seed in (5, 6, 7):
        simulate(sc, seed=seed, trace=True).packet_trace  # noqa: B018
    assert_same(held, want, f"{name}/held")


def test_an_untraced_run_has_no_traces():
    _, sc = SCENARIOS[0]
    res = simulate(sc, seed=1)
    assert all(getattr(res, n) is None for n in TRACE_FIELDS)
