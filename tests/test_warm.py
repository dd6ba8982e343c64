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


def test_a_cold_packet_cache_is_detected_and_named(tmp_path):
    # a fresh, empty numba cache: nothing compiled yet, so the notice says so (checked in a subprocess,
    # which imports simcore.packet but compiles nothing)
    import os
    import subprocess
    import sys

    code = ("from simcore.warm import cold_notice, packet_kernels_cached;"
            "print(packet_kernels_cached()); print(cold_notice('packet'))")
    out = subprocess.run([sys.executable, "-c", code], env=dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path)),
                         capture_output=True, text=True, check=True).stdout.splitlines()
    assert out[0] == "False"
    assert "first run on this machine, about" in out[1] and " s" in out[1]


def test_a_warm_packet_cache_gives_no_notice():
    import pytest

    from simcore.packet import LinkParams, TcpParams, bulk_scenario, chain, simulate
    from simcore.warm import cold_notice, packet_kernels_cached

    simulate(bulk_scenario(chain(1, LinkParams()), [(0, 1)], TcpParams(), duration_s=0.1))
    assert packet_kernels_cached() and cold_notice("packet") is None
    with pytest.raises(ValueError, match="kernels"):
        cold_notice("quantum")


def test_live_panel_shows_the_compile_notice_until_its_first_run_ends(monkeypatch):
    import ipywidgets as widgets

    import simcore.plotting as plotting
    from simcore.plotting import LivePanel

    status, real_html = widgets.HTML(), widgets.HTML
    made = []

    def html(value="", **kwargs):  # the panel's first HTML widget is its status line
        made.append(status if not made else real_html(value=value, **kwargs))
        return made[-1]

    monkeypatch.setattr(plotting.widgets, "HTML", html)
    seen = []
    panel = LivePanel({"x": widgets.IntSlider(value=1)}, lambda values: seen.append(status.value) or "done", [],
                      compile_notice=lambda: "compiling, about 9 s")
    assert "compiling, about 9 s" in seen[0]  # shown while the first run (the compile) goes on
    assert "compiling" not in panel.status.value and "done" in panel.status.value
    assert panel.compile_note == "compiling, about 9 s"
    assert LivePanel({"x": widgets.IntSlider()}, lambda v: None, [], compile_notice=lambda: None).compile_note is None


def test_warm_writes_the_bytecode_of_every_module():
    # an editable install has no bytecode until a module is imported: warm writes it for all of simcore, so a
    # chapter's first Run All does not compile the modules no warmer imports
    import importlib.util
    from pathlib import Path

    import simcore.predict.markup as module
    from simcore.warm import compile_bytecode

    pyc = Path(importlib.util.cache_from_source(module.__file__))
    pyc.unlink(missing_ok=True)
    assert compile_bytecode() and pyc.is_file()
