import importlib

from simcore.warm import WARMERS, warm_all


def test_every_warmer_resolves_and_runs():
    for entry in WARMERS:
        module, func = entry.split(":")
        assert callable(getattr(importlib.import_module(module), func)), entry
    assert warm_all(verbose=False) >= 0.0


def test_cli_warm(capsys):
    from simcore.__main__ import main

    assert main(["warm"]) == 0
    assert "numba kernels ready" in capsys.readouterr().out
