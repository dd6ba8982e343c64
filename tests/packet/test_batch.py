"""``simulate_many`` gives, run by run, what separate ``simulate`` calls give (every field, bit for bit), over
seeds of one scenario and over lists of scenarios: lossy TCP, non-persistent connections, SCTP, CBR, and every
scenario of the golden check run back to back in one call of the event loop (``kernel.batch``)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from simcore.packet import (
    CbrSource,
    Connection,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    build_cache,
    bulk_scenario,
    dumbbell,
    request_response_scenario,
    simulate,
)
from simcore.packet.batch import simulate_many


def _files(loss):
    net = Network(2, Network.duplex(0, 1, LinkParams(rate_bps=1e6, delay_s=0.035, queue_packets=50, loss_prob=loss)))
    return request_response_scenario(net, 0, 1, 100, [10 * 1024] * 10, TcpParams(), persistent=False,
                                     duration_s=600.0)


def _sctp():
    net = Network(2, Network.duplex(0, 1, LinkParams(rate_bps=4e6, delay_s=0.03, queue_packets=40, loss_prob=0.02)))
    msgs = tuple(Message(0, 20_000 + 3000 * k, "client" if k % 3 else "server", stream=k % 4, start_time_s=0.02 * k)
                 for k in range(8))
    return Scenario(net, (Connection(0, 1, transport="sctp", closer="client"),), msgs, duration_s=20.0)


def _cbr():
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50, loss_prob=0.01))
    cbr = (CbrSource(db.left[0], db.right[0], (3e6, 0.0, 5e6), (0.0, 1.0, 2.0), 1000, 0.5, 4.0),)
    return bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), 4.0, cbr=cbr)


@pytest.mark.parametrize("make", [lambda: _files(0.03), _sctp, _cbr], ids=["files-3%-loss", "sctp-loss", "cbr-sack"])
def test_many_seeds_of_one_scenario_are_separate_runs(make, assert_same, eager):
    sc = make()
    seeds = [0, 7, 7, 2**40]
    got = simulate_many(sc, seeds)
    assert len(got) == len(seeds)
    for s, r in zip(seeds, got, strict=True):
        assert_same(r, eager(sc, s), f"seed {s}")
    # the runs differ where the seeds do (losses drawn per link from each seed), and repeat where they repeat
    assert got[0].packets_dropped_loss != got[1].packets_dropped_loss or not np.array_equal(
        got[0].message_done_s, got[1].message_done_s, equal_nan=True)
    assert_same(got[1], got[2], "repeated seed")


def test_a_list_of_scenarios_with_one_seed_or_one_seed_each(assert_same, eager):
    scs = [_files(lo) for lo in (0.0, 0.01, 0.1)]
    for seeds in (5, [5, 6, 7]):
        got = simulate_many(scs, seeds)
        for i, (sc, r) in enumerate(zip(scs, got, strict=True)):
            assert_same(r, eager(sc, seeds if isinstance(seeds, int) else seeds[i]), f"scenario {i}")


def test_bad_arguments_are_refused_before_any_run():
    sc = _files(0.0)
    build_cache.clear()
    with pytest.raises(ValueError, match="seeds"):
        simulate_many(sc, 3)  # one scenario needs a sequence of seeds
    with pytest.raises(ValueError, match=r"seeds\[1\]"):
        simulate_many(sc, [1, -2])
    assert not build_cache._cache  # nothing run
    with pytest.raises(ValueError, match="one per scenario"):
        simulate_many([sc, sc], [1, 2, 3])
    with pytest.raises(ValueError, match=r"scenario\[1\]"):
        simulate_many([sc, "x"], 1)
    with pytest.raises(ValueError, match="trace"):
        simulate_many(sc, [1], trace="yes")
    assert simulate(sc, seed=1).events == simulate_many(sc, [1])[0].events


def _golden_scenarios():
    spec = importlib.util.spec_from_file_location("_golden_packet", _GOLDEN)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return [(name, sc) for name, sc, _ in mod._scenarios()]


_GOLDEN = Path(__file__).resolve().parents[2] / "benchmarks" / "_golden_packet.py"
GOLDEN = _golden_scenarios()


@pytest.mark.parametrize("name,sc", GOLDEN, ids=[n for n, _ in GOLDEN])
def test_runs_back_to_back_in_the_kernel_are_separate_runs(name, sc, assert_same, eager):
    """Every kernel path of the golden check (TCP variants, BBR and CUBIC with their own streams, AQM with ECN,
    SCTP, relays, pools, CBR, fluid), as a batch the event loop runs back to back (``kernel.batch``): a seed
    again, a seed between, the first seed again (its state reset from the template after other runs)."""
    build_cache.clear()
    seeds = [3, 11, 3, 2**33 + 5]
    got = simulate_many(sc, seeds)
    for s, r in zip(seeds, got, strict=True):
        assert_same(r, eager(sc, s), f"{name}/seed {s}")


def test_a_run_that_must_grow_a_table_ends_its_batch_and_is_redone_alone(monkeypatch, assert_same, eager):
    """With first row tables of two rows, a run that has more scoreboards open at once pauses for rows: in a batch,
    that run is redone alone by ``simulate`` and the batch goes on after it; every result as a separate run's."""
    from simcore.packet.kernel import batch as kb

    sim_mod = importlib.import_module("simcore.packet.simulate")  # (the package's ``simulate`` is the function)
    monkeypatch.setattr(sim_mod, "_FIRST_ROWS", 2)
    build_cache.clear()
    sc = _files(0.03)
    calls = []
    real = sim_mod.run_kernel

    def counting(S):
        real(S)
        calls.append((int(S.bat[kb.B_N]), int(S.bat[kb.B_I])))

    monkeypatch.setattr("simcore.packet.batch.run_kernel", counting)
    seeds = list(range(12))
    got = simulate_many(sc, seeds)
    assert any(n > 0 and i < n for n, i in calls)  # some batch ended early
    monkeypatch.setattr(sim_mod, "_FIRST_ROWS", 4096)
    build_cache.clear()
    for s, r in zip(seeds, got, strict=True):
        assert_same(r, eager(sc, s), f"seed {s}")


def _derived(parent, shift_s: float, every: int):
    """``parent`` with every ``every``-th message written ``shift_s`` later (only start times changed), recorded as
    derived from it (``build_cache.derive``, as ``simcore.ftp``'s fixed point makes one per pass)."""
    import copy

    msgs = tuple(copy.copy(m) for m in parent.messages)
    for k in range(0, len(msgs), every):
        object.__setattr__(msgs[k], "start_time_s", msgs[k].start_time_s + shift_s)
    child = copy.copy(parent)
    object.__setattr__(child, "messages", msgs)
    build_cache.derive(child, parent)
    return child


@pytest.mark.parametrize("make", [_sctp, lambda: _files(0.03)], ids=["sctp-loss", "files-3%-loss"])
def test_runs_of_scenarios_derived_from_one_root_share_a_batch(make, monkeypatch, assert_same, eager):
    """A root and scenarios derived from it (other message start times: other known events) run in one call of the
    event loop, each from its own starting block (``kernel.batch``), and each gives what a fresh build of it gives
    alone; a scenario of another root ends the batch."""
    from simcore.packet.kernel import batch as kb

    build_cache.clear()
    root = make()
    a, b = _derived(root, 0.05, 2), _derived(root, 0.3, 3)
    c = _derived(a, 0.01, 5)  # derived from a derived one: the same root
    other = _files(0.01)
    calls = []
    real = importlib.import_module("simcore.packet.simulate").run_kernel

    def counting(S):
        real(S)
        calls.append(int(S.bat[kb.B_N]))

    monkeypatch.setattr("simcore.packet.batch.run_kernel", counting)
    simulate_many(root, [0, 1])  # keeps root's state (a template)
    calls.clear()
    scs = [a, root, b, c, a, other]
    seeds = [4, 4, 9, 2**35, 5, 4]
    got = simulate_many(scs, seeds)
    assert calls[0] == 5  # the five runs made from root's template went together
    for i, (sc, s, r) in enumerate(zip(scs, seeds, got, strict=True)):
        assert r.scenario is sc
        assert_same(r, eager(sc, s), f"run {i}")
    # the shifted start times are in the runs: a derived scenario's run is not its root's
    assert not np.array_equal(got[0].message_write_s, got[1].message_write_s, equal_nan=True)
