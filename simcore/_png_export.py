"""PNG export of plotly figures through kaleido: offline, and with a hard time limit.

kaleido (v1) renders in a headless Chromium. By default it loads MathJax (and may load plotly.js) from a
CDN; on a machine without network that can stall the page, and a stalled Chromium can hang
``write_image`` for good (a long-standing kaleido problem: plotly/Kaleido issues 134 and 145). So:
MathJax is turned off, plotly.js comes from the installed plotly package, and the export runs in a child
process (one Chromium for all of a chapter's figures) that is killed and retried once if it overruns.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import plotly
import plotly.graph_objects as go

__all__ = ["export_pngs"]


def _local_plotlyjs() -> str:
    return str(Path(plotly.__file__).parent / "package_data" / "plotly.min.js")


def export_pngs(figures: dict[Path, go.Figure], *, width: int = 900, height: int = 500,
                timeout_s: float = 240.0, attempts: int = 2) -> None:
    """Write each figure as a PNG at its path (width x height pixels; a figure whose layout sets its own
    height keeps it, so a 2 x 2 grid drawn for 640 px is not squeezed into 500); raise RuntimeError if
    kaleido fails, or overruns ``timeout_s`` seconds ``attempts`` times."""
    if not figures:
        return
    with tempfile.TemporaryDirectory(prefix="simcore-png-") as tmp:
        jobs = []
        for i, (path, fig) in enumerate(figures.items()):
            spec = Path(tmp) / f"{i}.json"
            spec.write_text(fig.to_json(), encoding="utf-8")
            jobs.append([str(spec), str(Path(path).resolve()), fig.layout.height or height])
        job_file = Path(tmp) / "jobs.json"
        job_file.write_text(json.dumps({"width": width, "height": height, "jobs": jobs}))
        for _ in range(attempts):
            proc = subprocess.Popen([sys.executable, "-m", "simcore._png_export", str(job_file)],
                                    start_new_session=True)
            try:
                code = proc.wait(timeout=timeout_s)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)  # the child and its Chromium
                proc.wait()
                continue
            if code != 0:
                raise RuntimeError(f"PNG export failed (kaleido exit status {code}); see the messages above")
            return
    raise RuntimeError(f"PNG export did not finish within {timeout_s:g} s, {attempts} times: kaleido's "
                       "Chromium hung (use --no-png to write HTML only)")


def _main(job_file: str) -> int:
    import kaleido

    spec = json.loads(Path(job_file).read_text())
    opts = {"format": "png", "width": spec["width"], "height": spec["height"], "scale": 1}
    kaleido.start_sync_server(mathjax=False, plotlyjs=_local_plotlyjs(), timeout=60, silence_warnings=True)
    try:
        for fig_json, png_path, fig_height in spec["jobs"]:
            fig = json.loads(Path(fig_json).read_text(encoding="utf-8"))
            Path(png_path).write_bytes(kaleido.calc_fig_sync(fig, opts={**opts, "height": fig_height}))
    finally:
        kaleido.stop_sync_server(silence_warnings=True)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1]))
