"""simcore.sweep: grid expansion, grid order, identical results on thread / process / Dask executors."""

from __future__ import annotations

import concurrent.futures as cf
import math
import time
from dataclasses import dataclass

import numpy as np
import pytest

from simcore.fluid import FluidParams, fluid_summary, simulate_fluid
from simcore.rng import make_generator
from simcore.sweep import SweepError, SweepResult, expand_grid, run_sweep

# ---------------------------------------------------------------- module-level helpers (picklable)


def noisy_mean(rate: float, n: int, seed: int) -> dict:
    """A tiny seeded model: mean of n exponential draws, plus a value depending on the parameters only."""
    rng = make_generator(seed)
    x = rng.exponential(1.0 / rate, n)
    return {"mean_s": np.float64(x.mean()), "n_big": np.int64((x > 1.0 / rate).sum()), "label": f"{rate}:{n}"}


def slow_first(i: int, seed: int) -> dict:
    """Earlier grid points take longer, so on a pool they finish last."""
    time.sleep(0.02 * (5 - i))
    return {"value": i * 100 + seed}


def fluid_point(arrival_rate_per_s: float, seed: int):
    """A real model returning a dataclass: its scalar fields are kept, its arrays dropped."""
    return simulate_fluid(FluidParams(n_flows=50, arrival_rate_per_s=arrival_rate_per_s), seed)


@dataclass(frozen=True)
class _Out:
    total: float
    samples: np.ndarray


def dataclass_out(a: int, seed: int) -> _Out:
    return _Out(total=float(a + seed), samples=np.arange(3))


def fails_on_seed_2(a: int, seed: int) -> dict:
    if seed == 2:
        raise ZeroDivisionError("boom")
    return {"x": a}


def returns_array(a: int, seed: int) -> dict:
    return {"x": np.arange(3)}


def returns_list(a: int, seed: int):
    return [a, seed]


def clashing_keys(a: int, seed: int) -> dict:
    return {"a": 1}


def varying_keys(a: int, seed: int) -> dict:
    return {"x": 1} if a == 1 else {"y": 1}


GRID = {"rate": [1.0, 2.5], "n": [10, 200, 30]}
SEEDS = [3, 1, 4]


def _expected_records():
    rows = []
    for rate in GRID["rate"]:
        for n in GRID["n"]:
            for seed in SEEDS:
                rows.append({"rate": rate, "n": n, "seed": seed, **noisy_mean(rate, n, seed)})
    return rows


def _normalise(rows):
    # the expected rows were built from numpy scalars; the sweep returns Python scalars
    return [{k: (v.item() if isinstance(v, np.generic) else v) for k, v in r.items()} for r in rows]


# ---------------------------------------------------------------- grid order and tidy table


def test_expand_grid_is_cartesian_with_last_name_fastest():
    pts = expand_grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert pts == [{"a": a, "b": b} for a in (1, 2) for b in ("x", "y", "z")]
    assert expand_grid([{"a": 1, "b": 2}, {"b": 3, "a": 4}]) == [{"a": 1, "b": 2}, {"a": 4, "b": 3}]
    assert expand_grid({"a": np.array([0.5, 1.5])}) == [{"a": 0.5}, {"a": 1.5}]
    assert expand_grid({}) == [{}]


def test_thread_pool_gives_grid_order_and_exact_values():
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        res = run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=False, chunksize=1)
    assert isinstance(res, SweepResult)
    assert res.columns == ("rate", "n", "seed", "mean_s", "n_big", "label")
    assert len(res) == 2 * 3 * 3
    assert res.to_records() == _normalise(_expected_records())
    cols = res.to_columns()
    assert cols["mean_s"].dtype == np.float64 and cols["n"].dtype.kind == "i"
    np.testing.assert_array_equal(res.column("seed"), SEEDS * 6)
    with pytest.raises(ValueError, match="name"):
        res.column("nope")


def test_order_is_grid_order_when_completion_order_is_not():
    finished = []

    def spy(i, seed):
        out = slow_first(i, seed)
        finished.append(i)
        return out

    with cf.ThreadPoolExecutor(max_workers=5) as pool:
        res = run_sweep(spy, {"i": [0, 1, 2, 3, 4]}, [7], executor=pool, progress=False, chunksize=1)
    assert finished != sorted(finished)  # they did finish out of order
    assert [r["value"] for r in res.to_records()] == [7, 107, 207, 307, 407]


def test_cost_submits_costliest_first_and_keeps_grid_order():
    started = []

    def spy(i, seed):
        started.append(i)
        return {"value": 100 * i + seed}

    # one worker runs the chunks in the order they were submitted
    with cf.ThreadPoolExecutor(max_workers=1) as pool:
        res = run_sweep(spy, {"i": [0, 1, 2, 3, 4]}, [7], executor=pool, progress=False, chunksize=1,
                        cost=lambda p: (p["i"] * 3) % 5)  # costs 0, 3, 1, 4, 2
    assert started == [3, 1, 4, 2, 0]
    assert [r["value"] for r in res.to_records()] == [7, 107, 207, 307, 407]
    with cf.ThreadPoolExecutor(max_workers=1) as pool:
        for bad in (lambda p: -1.0, lambda p: float("nan"), lambda p: "big"):
            with pytest.raises(ValueError, match="cost"):
                run_sweep(spy, {"i": [0, 1]}, [7], executor=pool, progress=False, cost=bad)
        with pytest.raises(ValueError, match="cost"):
            run_sweep(spy, {"i": [0, 1]}, [7], executor=pool, progress=False, cost=3.0)


def test_process_pools_match_thread_pool():
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        ref = run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=False).to_records()
    # default executor: 2 local processes, chunked
    assert run_sweep(noisy_mean, GRID, SEEDS, progress=False).to_records() == ref
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        got = run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=False, chunksize=4).to_records()
    assert got == ref


def test_dask_local_cluster_matches_thread_pool():
    distributed = pytest.importorskip("distributed")
    # Dask workers are fresh processes: the function must be importable there, so use simcore's own
    grid = {"arrival_rate_per_s": [3.0, 6.0], "n_flows": [60]}
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        ref = run_sweep(fluid_summary, grid, [0, 1], executor=pool, progress=False)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = run_sweep(fluid_summary, grid, [0, 1], executor=client.get_executor(pure=False), progress=False)
    assert got.to_records() == ref.to_records()
    assert got.columns[:3] == ("arrival_rate_per_s", "n_flows", "seed")
    # the records really are the model's outputs, in grid order
    r = simulate_fluid(FluidParams(n_flows=60, arrival_rate_per_s=6.0), 1)
    assert got.to_records()[3]["mean_sojourn_s"] == r.mean_sojourn_s
    assert got.column("load").tolist() == [0.3, 0.3, 0.6, 0.6]


def test_fluid_point_dataclass_in_process_pool():
    # a model returning a dataclass (FluidResult): scalar fields kept, per-flow arrays dropped in the worker
    res = run_sweep(fluid_point, {"arrival_rate_per_s": [3.0, 6.0]}, [0, 1], progress=False)
    assert res.columns == (
        "arrival_rate_per_s",
        "seed",
        "end_s",
        "busy_s",
        "total_delivered_bytes",
        "n_events",
    )
    r = simulate_fluid(FluidParams(n_flows=50, arrival_rate_per_s=3.0), 1)
    assert res.to_records()[1]["busy_s"] == r.busy_s and res.to_records()[1]["n_events"] == r.n_events


def test_dataclass_scalars_kept_arrays_dropped():
    res = run_sweep(dataclass_out, {"a": [1, 2]}, [10], executor=cf.ThreadPoolExecutor(1), progress=False)
    assert res.to_records() == [{"a": 1, "seed": 10, "total": 11.0}, {"a": 2, "seed": 10, "total": 12.0}]


def test_progress_bar_on_and_off(capsys):
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=True)
        err_on = capsys.readouterr().err
        run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=False)
        err_off = capsys.readouterr().err
    assert "sweep" in err_on and "18/18" in err_on
    assert err_off == ""


# ---------------------------------------------------------------- validation and errors


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"func": 3}, "func"),
        ({"grid": {"rate": []}}, "grid"),
        ({"grid": {"rate": "abc"}}, "grid"),
        ({"grid": {"rate": 1.0}}, "grid"),
        ({"grid": {"seed": [1, 2]}}, "seed"),
        ({"grid": {"not a name": [1]}}, "identifier"),
        ({"grid": []}, "grid"),
        ({"grid": [{"rate": 1.0}, 5]}, "grid"),
        ({"grid": [{"rate": 1.0, "n": 3}, {"rate": 2.0}]}, "must match"),
        ({"grid": 5}, "grid"),
        ({"seeds": []}, "seeds"),
        ({"seeds": [1, -1]}, "seeds"),
        ({"seeds": [1.5]}, "seeds"),
        ({"seeds": 5}, "seeds"),
        ({"seeds": "12"}, "seeds"),
        ({"seeds": [np.random.default_rng(0)]}, "Generator"),
        ({"executor": "threads"}, "executor"),
        ({"progress": "yes"}, "progress"),
        ({"chunksize": 0}, "chunksize"),
        ({"max_workers": 0}, "max_workers"),
    ],
)
def test_bad_arguments_raise(kwargs, match):
    args = {"func": noisy_mean, "grid": {"rate": [1.0], "n": [5]}, "seeds": [0], "progress": False}
    args.update(kwargs)
    with pytest.raises(ValueError, match=match):
        run_sweep(**args)


def test_bad_outputs_raise():
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        kw = {"grid": {"a": [1, 2]}, "seeds": [1, 2], "executor": pool, "progress": False}
        with pytest.raises(SweepError, match=r"params=\{'a': 1\}, seed=2.*ZeroDivisionError: boom"):
            run_sweep(fails_on_seed_2, **kw)
        with pytest.raises(SweepError, match="scalars"):
            run_sweep(returns_array, **kw)
        with pytest.raises(SweepError, match="dict of scalars or a dataclass"):
            run_sweep(returns_list, **kw)
        with pytest.raises(ValueError, match="clash"):
            run_sweep(clashing_keys, **kw)
        with pytest.raises(ValueError, match="same keys"):
            run_sweep(varying_keys, **kw)


def test_failure_in_a_worker_process_is_reported():
    with pytest.raises(SweepError, match="seed=2"):
        run_sweep(fails_on_seed_2, {"a": [1]}, [1, 2, 3], progress=False, chunksize=1)


def test_mean_over_seeds():
    with cf.ThreadPoolExecutor(max_workers=2) as pool:
        res = run_sweep(noisy_mean, GRID, SEEDS, executor=pool, progress=False)
    agg = res.mean_over_seeds()
    assert agg.columns == ("rate", "n", "n_seeds", "mean_s", "n_big")  # the string column is dropped
    recs = agg.to_records()
    assert [(r["rate"], r["n"]) for r in recs] == [(a, b) for a in GRID["rate"] for b in GRID["n"]]
    exp = _expected_records()
    for j, r in enumerate(recs):
        block = exp[3 * j : 3 * j + 3]
        assert r["n_seeds"] == 3
        assert r["mean_s"] == pytest.approx(np.mean([b["mean_s"] for b in block]), rel=1e-15)
        assert r["n_big"] == pytest.approx(np.mean([b["n_big"] for b in block]))


def test_unpicklable_func_for_processes_is_rejected_early():
    def local(a, seed):
        return {"x": a}

    with pytest.raises(ValueError, match="module level"):
        run_sweep(local, {"a": [1]}, [0], progress=False)
    with pytest.raises(ValueError, match="module level"), cf.ProcessPoolExecutor(1) as pool:
        run_sweep(lambda a, seed: {"x": a}, {"a": [1]}, [0], executor=pool, progress=False)
    # the same local function is fine on threads
    with cf.ThreadPoolExecutor(1) as pool:
        assert run_sweep(local, {"a": [1]}, [0], executor=pool, progress=False).to_records()[0]["x"] == 1


def test_nan_outputs_survive():
    # NaN results (e.g. no flow finished) are kept as floats, not rejected
    def f(a, seed):
        return {"x": math.nan}

    res = run_sweep(f, {"a": [1]}, [0], executor=cf.ThreadPoolExecutor(1), progress=False)
    assert math.isnan(res.to_records()[0]["x"])


# ---------------------------------------------------------------- seeds of a grid point in one call


def _batched_calls(rate: float, n: int, seeds: list) -> list:
    _batched_calls.calls.append((rate, n, list(seeds)))
    return [noisy_mean(rate, n, s) for s in seeds]


def batched_mean(rate: float, n: int, seed: int) -> dict:
    return noisy_mean(rate, n, seed)


batched_mean.seeds_at_once = _batched_calls
_batched_calls.calls = []


def test_a_function_with_seeds_at_once_gets_each_points_seeds_in_one_call():
    _batched_calls.calls.clear()
    grid = {"rate": [1.0, 2.0], "n": [5, 7]}
    seeds = [3, 1, 4, 1, 5]
    with cf.ThreadPoolExecutor(2) as pool:
        got = run_sweep(batched_mean, grid, seeds, executor=pool, progress=False, chunksize=len(seeds))
    want = [{**p, "seed": s, **{k: (v.item() if hasattr(v, "item") else v) for k, v in noisy_mean(**p, seed=s).items()}}
            for p in expand_grid(grid) for s in seeds]
    assert list(got.rows) == want
    # one call per grid point (a chunk holds exactly one point's seeds), with its seeds in order
    assert sorted(_batched_calls.calls) == sorted((p["rate"], p["n"], seeds) for p in expand_grid(grid))


def _failing_batch(x: int, seeds: list) -> list:
    raise RuntimeError("batch")


def fails_at_seed_2(x: int, seed: int) -> dict:
    if seed == 2:
        raise RuntimeError("boom")
    return {"y": x + seed}


fails_at_seed_2.seeds_at_once = _failing_batch


def test_a_failing_batch_is_redone_call_by_call_and_names_the_failing_seed():
    with cf.ThreadPoolExecutor(1) as pool, pytest.raises(SweepError, match=r"seed=2: RuntimeError: boom"):
        run_sweep(fails_at_seed_2, {"x": [10]}, [0, 1, 2, 3], executor=pool, progress=False, chunksize=4)
