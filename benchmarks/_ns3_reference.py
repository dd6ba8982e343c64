"""What the ns-3 side-by-sides (bench_aqm_vs_ns3, bench_bbr_vs_ns3, bench_cubic_vs_ns3) share: the scenario read from
``data/<name>_ns3_scenario.json``, ns-3's figures either run now (``--ns3 PYTHON``: a Python with ns3==3.44.post0,
driving ``benchmarks/_ns3_<name>.py``) or read from ``data/<name>_ns3_reference.json``, and ratios printed alike."""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def scenario_and_reference(name: str, description: str, argv: list[str] | None = None) -> tuple[dict, dict, str]:
    """Parse ``--ns3`` / ``--write-reference`` and return (scenario, ns-3's figures, where they come from) for
    side-by-side ``name``."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--ns3", help="ns-3's Python (with ns3==3.44.post0); default: the stored reference figures")
    ap.add_argument("--write-reference", action="store_true", help="store ns-3's figures in data/")
    args = ap.parse_args(argv)
    sc = json.loads((ROOT / "data" / f"{name}_ns3_scenario.json").read_text())
    reference = ROOT / "data" / f"{name}_ns3_reference.json"
    if not args.ns3:
        return sc, json.loads(reference.read_text()), str(reference.relative_to(ROOT))
    out = subprocess.run([args.ns3, str(ROOT / "benchmarks" / f"_ns3_{name}.py"), json.dumps(sc)],
                         capture_output=True, text=True, check=True)
    ref = json.loads(out.stdout.strip().splitlines()[-1])
    if args.write_reference:
        reference.write_text(json.dumps(ref, indent=1) + "\n")
    return sc, ref, "run now"


def ratio(a: float, b: float) -> str:
    """``a / b`` in a 5-character column ("  -  " when ``b`` is 0)."""
    return f"{a / b:5.2f}" if b else "  -  "
