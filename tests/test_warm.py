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


def test_progress_bar_fills_in_proportion():
    from simcore.warm import progress_bar

    assert progress_bar(0, 8, width=8) == "[--------]  0/8"
    assert progress_bar(3, 8, width=8) == "[###-----]  3/8"
    assert progress_bar(8, 8, width=8) == "[########]  8/8"
