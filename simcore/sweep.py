"""Parameter sweeps: run a model over a grid of parameters times seeds, on any executor, as a tidy table.

``run_sweep(func, grid, seeds)`` calls ``func(**params, seed=seed)`` for every grid point and every seed
and returns a ``SweepResult``: one row per call, in GRID ORDER (grid points in the order given, the
cartesian product varying the LAST name fastest; for each point the seeds in the order given), whatever
executor ran the calls and in whatever order they finished. Each row holds the parameters, the seed and
the outputs of ``func``. A row is ``{**params, "seed": seed, **outputs}``.

``func`` returns a flat dict of scalars (int, float, bool, str, None, numpy scalars) or a dataclass
instance, of which the scalar fields are kept (array fields such as per-customer delays are dropped in
the worker, so only scalars travel back). numpy scalars are turned into Python scalars, so results are
identical whichever executor produced them.

Executors: by default a local ``ProcessPoolExecutor`` with 2 workers (fork start method on Linux, so
functions defined in a notebook work); or any ``concurrent.futures.Executor`` such as a
``ThreadPoolExecutor`` or a Dask client's ``client.get_executor(pure=False)``. Calls are grouped in chunks
(one submitted task runs several calls) so process overhead does not dominate millisecond-long runs.
For a process pool or Dask, ``func`` must be picklable: a module-level function.
"""

from __future__ import annotations

import concurrent.futures as cf
import dataclasses
import itertools
import math
import multiprocessing
import numbers
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from simcore._validate import check_bool, check_int
from simcore.rng import check_seed

__all__ = ["run_sweep", "expand_grid", "SweepResult", "SweepError"]

_SCALARS = (numbers.Number, str, bool, np.generic, type(None))


class SweepError(RuntimeError):
    """A call of the swept function raised; the message names its parameters and seed."""


@dataclasses.dataclass(frozen=True, eq=False)
class SweepResult:
    """A tidy table: one row per (grid point, seed), in grid order; ``columns`` gives the column order.

    Rows are grouped by grid point: ``n_seeds`` consecutive rows (one per seed) for each point.
    """

    columns: tuple[str, ...]
    rows: tuple[dict[str, Any], ...]
    param_names: tuple[str, ...] = ()
    n_seeds: int = 1

    def __len__(self) -> int:
        return len(self.rows)

    def to_records(self) -> list[dict[str, Any]]:
        """Return the rows as a list of new dicts (column order), one per call, in grid order."""
        return [{c: row[c] for c in self.columns} for row in self.rows]

    def to_columns(self) -> dict[str, np.ndarray]:
        """Return the table as a dict of column name -> numpy array (numeric dtypes where possible)."""
        return {c: np.asarray([row[c] for row in self.rows]) for c in self.columns}

    def column(self, name: str) -> np.ndarray:
        """Return one column as a numpy array."""
        if name not in self.columns:
            raise ValueError(f"name={name!r} is not allowed: must be one of {list(self.columns)!r}")
        return np.asarray([row[name] for row in self.rows])

    def mean_over_seeds(self) -> SweepResult:
        """Return a table with one row per grid point: the parameters, ``n_seeds`` and the mean over seeds
        of every numeric output (int, float, bool; as float, NaN if any seed gave NaN); others dropped."""
        outs = [c for c in self.columns if c not in self.param_names and c != "seed"]
        numeric = [c for c in outs if all(isinstance(r[c], numbers.Real) for r in self.rows)]
        rows = []
        for start in range(0, len(self.rows), self.n_seeds):
            block = self.rows[start : start + self.n_seeds]
            row = {name: block[0][name] for name in self.param_names}
            row["n_seeds"] = len(block)
            for c in numeric:
                row[c] = float(np.mean([float(r[c]) for r in block]))
            rows.append(row)
        return SweepResult(
            columns=(*self.param_names, "n_seeds", *numeric), rows=tuple(rows), param_names=self.param_names
        )


def _is_seq(values: object) -> bool:
    return isinstance(values, (Sequence, np.ndarray, range)) and not isinstance(values, (str, bytes))


def _check_name(name: object, where: str) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ValueError(f"grid: parameter name {name!r} in {where} is not allowed: must be an identifier")
    if name == "seed":
        raise ValueError(f"grid: parameter name 'seed' in {where} is not allowed: seeds go in `seeds`")
    return name


def expand_grid(grid: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Return the list of parameter dicts (grid points) in grid order.

    ``grid`` is a dict name -> non-empty list of values (cartesian product, last name varying fastest) or
    a non-empty list of dicts that all have the same names (taken as given).
    """
    if isinstance(grid, Mapping):
        names = [_check_name(k, "the grid dict") for k in grid]
        values = []
        for name in names:
            v = grid[name]
            if not _is_seq(v) or len(v) == 0:
                raise ValueError(f"grid[{name!r}]={v!r} is not allowed: must be a non-empty list of values")
            values.append(list(v.tolist() if isinstance(v, np.ndarray) else v))
        return [dict(zip(names, combo, strict=True)) for combo in itertools.product(*values)]
    if _is_seq(grid) and not isinstance(grid, np.ndarray):
        points = list(grid)
        if not points:
            raise ValueError(
                "grid=[] is not allowed: must be a dict of name -> values or a non-empty list of dicts"
            )
        first = None
        out = []
        for i, p in enumerate(points):
            if not isinstance(p, Mapping):
                raise ValueError(f"grid[{i}]={p!r} is not allowed: a list grid must hold dicts")
            names = tuple(_check_name(k, f"grid[{i}]") for k in p)
            if first is None:
                first = names
            elif set(names) != set(first):
                raise ValueError(
                    f"grid[{i}] has names {sorted(names)!r} but grid[0] has {sorted(first)!r}: "
                    "they must match"
                )
            out.append({k: p[k] for k in first})
        return out
    raise ValueError(
        f"grid={grid!r} is not allowed: must be a dict of name -> values or a non-empty list of dicts"
    )


def _scalar(key: str, value: object) -> object:
    if not isinstance(value, _SCALARS):
        raise ValueError(
            f"func returned {key}={value!r}: values must be scalars (int, float, bool, str, None); "
            "reduce arrays to summary numbers inside func"
        )
    return value.item() if isinstance(value, np.generic) else value


def _outputs(result: object) -> dict[str, Any]:
    """Return ``result`` (a flat dict or a dataclass instance) as a dict of Python scalars."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        return {
            f.name: _scalar(f.name, getattr(result, f.name))
            for f in dataclasses.fields(result)
            if isinstance(getattr(result, f.name), _SCALARS)
        }
    if isinstance(result, Mapping):
        out = {}
        for k, v in result.items():
            if not isinstance(k, str):
                raise ValueError(f"func returned a dict with key {k!r}: keys must be strings")
            out[k] = _scalar(k, v)
        return out
    raise ValueError(f"func returned {type(result).__name__}: must return a dict of scalars or a dataclass")


def _run_chunk(func: Callable[..., Any], tasks: list[tuple[dict[str, Any], int]]) -> list[dict[str, Any]]:
    """Run ``func(**params, seed=seed)`` for each task in order; return their outputs as scalar dicts. Consecutive
    tasks at one grid point go to ``func.seeds_at_once(seeds=[...], **params)`` in one call if ``func`` has it."""
    many = getattr(func, "seeds_at_once", None)
    out = []
    i = 0
    while i < len(tasks):
        params = tasks[i][0]
        j = i + 1
        if many is not None:
            while j < len(tasks) and tasks[j][0] == params:
                j += 1
        if j - i > 1:
            try:
                outs = many(seeds=[seed for _, seed in tasks[i:j]], **params)
            except Exception:  # one call at a time, to name the seed that fails
                out += _run_chunk(_one_at_a_time(func), tasks[i:j])
            else:
                out += [_outputs(o) for o in outs]
            i = j
            continue
        seed = tasks[i][1]
        try:
            out.append(_outputs(func(**params, seed=seed)))
        except Exception as exc:
            raise SweepError(
                f"func failed for params={params!r}, seed={seed}: {type(exc).__name__}: {exc}"
            ) from exc
        i = j
    return out


def _one_at_a_time(func: Callable[..., Any]) -> Callable[..., Any]:
    return lambda **kw: func(**kw)


def _cost(cost: Callable[[dict[str, Any]], float], params: dict[str, Any]) -> float:
    """Return ``cost(params)`` as a finite float >= 0, or raise a ValueError naming the grid point."""
    c = cost(params)
    if isinstance(c, bool) or not isinstance(c, numbers.Real) or not math.isfinite(c) or c < 0:
        raise ValueError(f"cost({params!r}) returned {c!r}: must be a finite number >= 0")
    return float(c)


def _default_executor(max_workers: int) -> cf.Executor:
    ctx = multiprocessing.get_context("fork") if sys.platform.startswith("linux") else None
    return cf.ProcessPoolExecutor(max_workers=max_workers, mp_context=ctx)


def run_sweep(
    func: Callable[..., Any],
    grid: Mapping[str, Sequence[Any]] | Sequence[Mapping[str, Any]],
    seeds: Iterable[int],
    executor: cf.Executor | None = None,
    progress: bool = True,
    *,
    chunksize: int | None = None,
    max_workers: int = 2,
    cost: Callable[[dict[str, Any]], float] | None = None,
) -> SweepResult:
    """Return a ``SweepResult`` with one row ``{**params, "seed", **outputs}`` per grid point and seed.

    ``func(**params, seed=seed)`` must return a flat dict of scalars or a dataclass (scalar fields kept).
    ``grid``: dict name -> values (cartesian product) or list of dicts; ``seeds``: non-empty ints >= 0.
    ``executor``: any ``concurrent.futures.Executor`` (thread pool, process pool, Dask
    ``client.get_executor(pure=False)``), left open; ``None`` runs on a ``ProcessPoolExecutor`` with
    ``max_workers`` processes, shut down at the end. ``chunksize`` calls run per submitted task (default:
    the calls split into about 4 chunks per worker). ``progress`` shows a ``tqdm.auto`` bar (notebook or
    terminal; never in a static book build, see ``simcore.static``). ``cost(params)``: an estimate of a grid
    point's run time (any unit); chunks are then submitted costliest first (longest processing time first:
    on a few workers the long runs no longer come last and leave one worker idle at the end); without it
    they go in grid order. Rows come back in grid order whatever the executor; a failing call raises
    ``SweepError``. If ``func`` has an attribute ``seeds_at_once``, a function that returns the outputs of
    ``func(**params, seed=s)`` for each ``s`` of ``seeds=[...]`` in one call (``simcore.ftp.transfer``'s runs each
    pass of its sessions back to back in the packet kernel), a chunk's calls at one grid point go through it.
    """
    if not callable(func):
        raise ValueError(f"func={func!r} is not allowed: must be callable as func(**params, seed=seed)")
    points = expand_grid(grid)
    if isinstance(seeds, (str, bytes, Mapping)) or not isinstance(seeds, Iterable):
        raise ValueError(f"seeds={seeds!r} is not allowed: must be a non-empty list of integers >= 0")
    seed_list = [check_seed(s, f"seeds[{i}]") for i, s in enumerate(seeds)]
    if not seed_list:
        raise ValueError("seeds=[] is not allowed: must be a non-empty list of integers >= 0")
    if any(isinstance(s, np.random.Generator) for s in seed_list):
        raise ValueError("seeds: Generators are not allowed in a sweep: give integer seeds (reproducible)")
    if executor is not None and not isinstance(executor, cf.Executor):
        raise ValueError(
            f"executor={executor!r} is not allowed: must be a concurrent.futures.Executor or None"
        )
    check_bool("progress", progress)
    max_workers = check_int("max_workers", max_workers, 1, 1024)
    tasks = [(p, s) for p in points for s in seed_list]
    if chunksize is None:
        workers = getattr(executor, "_max_workers", None) or max_workers
        chunksize = max(1, math.ceil(len(tasks) / (4 * workers)))
    chunksize = check_int("chunksize", chunksize, 1)
    chunks = [tasks[i : i + chunksize] for i in range(0, len(tasks), chunksize)]
    submit_order = list(range(len(chunks)))
    if cost is not None:
        if not callable(cost):
            raise ValueError(f"cost={cost!r} is not allowed: must be None or callable as cost(params) -> float")
        est = [sum(_cost(cost, params) for params, _ in chunk) for chunk in chunks]
        submit_order.sort(key=lambda i: -est[i])  # stable: equal costs keep grid order

    own = executor is None
    if own or isinstance(executor, cf.ProcessPoolExecutor):
        try:
            pickle.dumps(func)
        except Exception as exc:
            raise ValueError(
                f"func={func!r} cannot be sent to worker processes ({type(exc).__name__}: {exc}): "
                "define it at module level (or in a notebook cell, not inside another function), or pass "
                "executor=concurrent.futures.ThreadPoolExecutor()"
            ) from None

    from tqdm.auto import tqdm

    from simcore.static import is_static

    pool = _default_executor(max_workers) if own else executor
    outputs: list[list[dict[str, Any]] | None] = [None] * len(chunks)
    try:
        futures = {pool.submit(_run_chunk, func, chunks[i]): i for i in submit_order}
        with tqdm(total=len(tasks), disable=not progress or is_static(), desc="sweep", unit="run") as bar:
            try:
                for fut in cf.as_completed(futures):
                    i = futures[fut]
                    outputs[i] = fut.result()
                    bar.update(len(chunks[i]))
            except BaseException:
                for fut in futures:
                    fut.cancel()
                raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)
    return _table(points, tasks, [row for chunk in outputs for row in chunk])


def _table(points: list[dict[str, Any]], tasks: list, outs: list[dict[str, Any]]) -> SweepResult:
    param_names = list(points[0])
    out_names = list(outs[0])
    clash = set(out_names) & ({"seed"} | set(param_names))
    if clash:
        raise ValueError(f"func returned keys {sorted(clash)!r} that clash with parameter names or 'seed'")
    rows = []
    for i, ((params, seed), out) in enumerate(zip(tasks, outs, strict=True)):
        if set(out) != set(out_names):
            raise ValueError(
                f"func returned keys {list(out)!r} for params={params!r}, seed={seed} (row {i}) but "
                f"{out_names!r} for row 0: every call must return the same keys"
            )
        rows.append({**params, "seed": seed, **out})
    n_seeds = len(tasks) // len(points)
    return SweepResult(
        columns=(*param_names, "seed", *out_names),
        rows=tuple(rows),
        param_names=tuple(param_names),
        n_seeds=n_seeds,
    )
