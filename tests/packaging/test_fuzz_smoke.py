"""A short run of the coverage-guided fuzzer (benchmarks/fuzz_packaging.py; the long run is 100,000 inputs).

atheris hands control to libFuzzer, which ends the process itself, so the script runs as a subprocess.
"""

import re
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("atheris")

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "fuzz_packaging.py"


def test_fuzz_smoke_run_finds_no_failure(tmp_path):
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--runs", "3000", "--seed", "7", "--artifacts", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
    assert re.search(r"3000 inputs in [\d.]+ s \([\d,]+ inputs/s\), 0 failures", run.stdout)
    assert list(tmp_path.iterdir()) == []  # no failing input saved


def test_the_fuzz_checks_catch_a_broken_reader(monkeypatch):
    """The fuzz target's oracle is not vacuous: a reader that drops a file's last byte is caught."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("fuzz_packaging", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    blob = module.seed_corpus()[1]
    module.check_one(blob)  # a seed passes
    real_unpack = module.unpack
    monkeypatch.setattr(module, "unpack", lambda b: [type(f)(f.name, f.data[:-1]) for f in real_unpack(b)])
    with pytest.raises(AssertionError, match="re-pack"):
        module.check_one(blob)


def test_the_fuzz_checks_catch_a_reader_that_accepts_a_lying_name(monkeypatch):
    """The name oracle is not vacuous either: a reader (and writer) letting U+202E through is caught."""
    import importlib.util
    from types import SimpleNamespace

    spec = importlib.util.spec_from_file_location("fuzz_packaging", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    seeds = module.unsafe_seeds()
    assert len(seeds) >= 10 and b"\xe2\x80\xae" in seeds[0]  # 'evil<U+202E>txt.exe', built byte by byte
    for blob in seeds:
        module.check_one(blob)  # the real readers refuse them: no failure
    assert '"\\xe2\\x80\\xae"' in module.dictionary()
    monkeypatch.setattr(module, "unpack", lambda b: [SimpleNamespace(name="evil\u202etxt.exe", data=b"x")])
    monkeypatch.setattr(module, "pack", lambda files: seeds[0])
    with pytest.raises(AssertionError, match="U\\+202E"):
        module.check_one(seeds[0])
