"""Where a chapter's first live plot waits on the kernel side: kernel start, then each code cell of Run All
up to the first live panel, in a real Jupyter kernel (no browser).

For each chapter: start a fresh ``python3`` kernel of this checkout's Python (numba cache warm, as
``make lab`` sets it) and time start -> ready (``kernel_info`` answered), then every code cell in order until
the cell that displays the first live panel (``make_panel``), each from ``execute_request`` until its
reply; then the first panel cell's parts: ``import`` of the chapter modules alone is the first cell.
``benchmarks/bench_browser.py`` measures the whole path in the browser (JupyterLab's app load, the page
drawing); this one isolates the kernel's share. Prints medians over ``--repeats`` fresh kernels.

Usage: ``.venv/bin/python benchmarks/bench_first_cells.py [--chapters 01_admission_control ...]
[--repeats 3]``. Wall-clock on a shared machine: the load average is printed beside the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = ["00_start_here", "00b_tcp_primer", "00c_reliable_transfer", "01_admission_control", "02_satellite_proxies",
           "03_ftp_sctp", "04_delay_model", "05_object_packaging"]


def first_cells(notebook: Path) -> list[str]:
    """Return the code cells of ``notebook`` up to and including the first that calls ``make_panel``."""
    cells = []
    for cell in json.loads(notebook.read_text())["cells"]:
        if cell["cell_type"] != "code":
            continue
        src = "".join(cell["source"])
        cells.append(src)
        if "make_panel(" in src:
            return cells
    return cells


def run_once(cells: list[str]) -> tuple[float, list[float]]:
    """Start a kernel, run ``cells``; return (start-to-ready seconds, seconds per cell)."""
    from jupyter_client.manager import start_new_kernel

    env = dict(os.environ)
    env.setdefault("NUMBA_CACHE_DIR", str(ROOT / ".numba_cache"))
    t = time.perf_counter()
    km, kc = start_new_kernel(kernel_name="python3", cwd=str(ROOT / "labs"), env=env)
    ready = time.perf_counter() - t
    per_cell = []
    try:
        for src in cells:
            t = time.perf_counter()
            reply = kc.execute_interactive(src, timeout=300, output_hook=lambda _msg: None)
            per_cell.append(time.perf_counter() - t)
            if reply["content"]["status"] != "ok":
                raise RuntimeError(f"cell failed: {src[:60]!r}: {reply['content'].get('evalue')}")
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)
    return ready, per_cell


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--chapters", nargs="*", default=DEFAULT)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    print(f"load average {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores, {args.repeats} fresh kernels each",
          flush=True)
    for name in args.chapters:
        cells = first_cells(ROOT / "labs" / f"{name}.ipynb")
        runs = [run_once(cells) for _ in range(args.repeats)]
        ready = statistics.median(r for r, _ in runs)
        cols = [statistics.median(c[i] for _, c in runs) for i in range(len(cells))]
        parts = ", ".join(f"{src.strip().splitlines()[-1][:38]!r} {s:.2f} s"
                          for src, s in zip(cells, cols, strict=True))
        print(f"{name}: kernel ready {ready:.2f} s + cells {sum(cols):.2f} s = {ready + sum(cols):.2f} s  ({parts})",
              flush=True)
    print(f"load average at the end {os.getloadavg()[0]:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
