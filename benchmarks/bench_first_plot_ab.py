"""A/B of "Run All to first live plot" between two checkouts, interleaved chapter by chapter.

    python benchmarks/bench_first_plot_ab.py --before /path/to/old/checkout [--after .] [--rounds 3]

``bench_browser.py --first-plot-only`` on one checkout, then the other, for one chapter at a time, ``--rounds``
times (before, after, before, after, ...), so a change in the machine's load falls on both sides alike.
Each run is a fresh JupyterLab page (JupyterLab's own load included) with a warm numba cache. Prints per
chapter the median and every run of: the whole time to the first live plot, its "page and kernel ready"
part, and "Run All to the plot" (from the kernel being idle and Run All issued to the plot drawn), with the
load average beside each round, and the mean of the rounds' differences in "Run All to the plot" (ms, with a 95 %
bootstrap interval). A chapter one checkout lacks is measured on the other only.

Figures, not assertions: quote them with the load. Both checkouts need their own ``.venv`` (``make
install``) or use this one's; each gets its numba cache warmed once first (``python -m simcore warm``).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks" / "bench_browser.py"


def _python(checkout: Path) -> str:
    venv_py = checkout / ".venv" / "bin" / "python"
    return str(venv_py) if venv_py.exists() else sys.executable


def _warm(checkout: Path) -> None:
    env = dict(os.environ, NUMBA_CACHE_DIR=str(checkout / ".numba_cache"))
    if not _python(checkout).startswith(str(checkout)):
        env["PYTHONPATH"] = str(checkout)
    subprocess.run([_python(checkout), "-m", "simcore", "warm"], cwd=checkout, env=env, check=False,
                   stdout=subprocess.DEVNULL)
    # both sides with their bytecode written, as a student's second Run All finds it (an older checkout's
    # warm does not write it)
    subprocess.run([_python(checkout), "-m", "compileall", "-q", "simcore"], cwd=checkout, env=env, check=False,
                   stdout=subprocess.DEVNULL)


def run_one(checkout: Path, chapter: str, tmp: Path) -> dict | None:
    """One fresh-page first-plot run of ``chapter`` in ``checkout``; None if it failed."""
    out = tmp / f"{checkout.name}-{chapter}.json"
    proc = subprocess.run([sys.executable, str(BENCH), "--checkout", str(checkout), "--first-plot-only",
                           "--chapters", chapter, "--no-warm", "--no-running-lab", "--cpu", "--json", str(out)],
                          capture_output=True, text=True, check=False)
    if proc.returncode != 0 or not out.exists():
        print(f"  {checkout} {chapter}: failed\n{proc.stderr[-600:]}", file=sys.stderr)
        return None
    res = json.loads(out.read_text())["fresh_page"][0]
    total, ready = res["first_live_plot_s"], res["phases"]["kernel"]
    cpu = res.get("cpu_to_first_plot_s") or {}
    return {"total": total, "ready": ready, "run_all": total - ready, "load": os.getloadavg()[0],
            "cpu_page": cpu.get("page", float("nan")), "cpu_kernel": cpu.get("kernel", float("nan")),
            "cpu_server": cpu.get("server", float("nan"))}


def _fmt(runs: list[dict], key: str) -> str:
    if not runs:
        return "-"
    med = statistics.median(r[key] for r in runs)
    return f"{med:4.1f} ({' '.join(f'{r[key]:.1f}' for r in runs)})"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", type=Path, required=True, help="the checkout to compare against")
    ap.add_argument("--after", type=Path, default=ROOT, help="the checkout under test (default: this one)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--chapters", nargs="*", default=None, help="notebook names without .ipynb (default: all)")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        raise ValueError(f"rounds must be >= 1, got {args.rounds}")
    sides = {"before": args.before.resolve(), "after": args.after.resolve()}
    names = {s: {p.stem for p in (c / "labs").glob("*.ipynb")} for s, c in sides.items()}
    chapters = args.chapters or sorted(names["before"] | names["after"])
    for checkout in sides.values():
        _warm(checkout)
    print(f"before {sides['before']}\nafter  {sides['after']}\n{args.rounds} rounds, load average "
          f"{os.getloadavg()[0]:.2f} on {os.cpu_count()} cores", flush=True)
    rows = []
    with tempfile.TemporaryDirectory(prefix="bench-ab-") as tmp:
        for chapter in chapters:
            runs: dict[str, list[dict]] = {"before": [], "after": []}
            for i in range(args.rounds):
                for side, checkout in sides.items():
                    if chapter in names[side]:
                        r = run_one(checkout, chapter, Path(tmp))
                        if r:
                            runs[side].append({**r, "round": i})
            loads = [r["load"] for rs in runs.values() for r in rs]
            rows.append((chapter, runs, loads))
            print(f"{chapter}: before {_fmt(runs['before'], 'total')} s, after {_fmt(runs['after'], 'total')} s "
                  f"(load {min(loads, default=0):.1f}-{max(loads, default=0):.1f})", flush=True)
    print("\n| chapter | first live plot, before | after | Run All to the plot, before | after "
          "| page and kernel ready, before | after | load |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for chapter, runs, loads in rows:
        b, a = runs["before"], runs["after"]
        print(f"| {chapter} | {_fmt(b, 'total')} | {_fmt(a, 'total')} | {_fmt(b, 'run_all')} | "
              f"{_fmt(a, 'run_all')} | {_fmt(b, 'ready')} | {_fmt(a, 'ready')} | "
              f"{min(loads, default=0):.1f}-{max(loads, default=0):.1f} |")
    print("\nCPU seconds to the first live plot (less stretched by a busy machine than wall time):")
    print("| chapter | page main thread, before | after | kernel, before | after | JupyterLab server, before | after |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for chapter, runs, _loads in rows:
        b, a = runs["before"], runs["after"]
        print(f"| {chapter} | {_fmt(b, 'cpu_page')} | {_fmt(a, 'cpu_page')} | {_fmt(b, 'cpu_kernel')} | "
              f"{_fmt(a, 'cpu_kernel')} | {_fmt(b, 'cpu_server')} | {_fmt(a, 'cpu_server')} |")
    print("Seconds, median (each run). 'Run All to the plot': from the kernel idle and Run All issued to the "
          "first live plot drawn; 'page and kernel ready': from opening the page to that point.")
    print("\nRun All to the plot, after minus before, paired by round (the page polls for the plot every 50 ms):")
    for chapter, runs, _loads in rows:
        print(f"  {chapter}: {_paired(runs)}")
    return 0


def _paired(runs: dict[str, list[dict]]) -> str:
    """The mean of the rounds' differences (after - before) of 'Run All to the plot', in ms, with a 95 % percentile
    bootstrap interval (10,000 resamples, seed 0: the same runs print the same interval)."""
    before = {r["round"]: r["run_all"] for r in runs["before"]}
    d = np.array([r["run_all"] - before[r["round"]] for r in runs["after"] if r["round"] in before]) * 1e3
    if d.size < 2:
        return "fewer than 2 rounds on both sides"
    means = np.random.default_rng(0).choice(d, size=(10_000, d.size)).mean(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return f"{d.mean():+.0f} ms, 95 % interval [{lo:+.0f}, {hi:+.0f}] ms over {d.size} rounds"


if __name__ == "__main__":
    sys.exit(main())
