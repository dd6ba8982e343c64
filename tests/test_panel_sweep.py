"""Every live panel, moved by hypothesis over its controls' own positions, each move in a child process
watched for memory (1 GB more than before the move: killed) and time (2 s of CPU; a hang: killed).

``simcore.panel_check`` finds the panels itself (every function of simcore.chapters annotated to return a
LivePanel), so a new chapter's panel is swept without being listed here. A move sets every control at once
(the panel re-runs whatever a change of everything re-runs: the worst case of a student's move); a
refusal (a ValueError with a reason, shown in the status line) is a legal answer, a dead or hung child, an
internal error or more than 2 s of CPU is not. MOVES per panel here; ``benchmarks/sweep_panels.py`` runs
hundreds.
"""

import sys
import textwrap

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from simcore.panel_check import (
    ControlSpace,
    PanelWorker,
    control_space,
    live_panel_calls,
    move_problems,
    panel_builders,
)

MOVES = 4
CPU_LIMIT_S = 2.0
BUILDERS = sorted(panel_builders())


def test_every_live_panel_in_the_sources_is_found():
    found = {tuple(name.split(":")) for name in BUILDERS}
    calls = live_panel_calls()
    assert calls, "no LivePanel(...) call found: the source scan is broken"
    for module, owner in calls:
        assert (module, owner) in found, f"LivePanel built in {module}.{owner or '<module>'} is not a found builder"
    # the chapters' panels as of this writing are among them (a floor, not the list)
    known = {"admission_panel", "bufferbloat", "delay", "delay_tcp", "ftp_sctp", "objpack", "satellite_panel",
             "start_here", "tcp_primer"}
    assert known <= {m.rsplit(".", 1)[-1] for m, _ in found}


def test_control_spaces_are_read_from_the_widgets():
    import ipywidgets as widgets

    assert control_space(widgets.IntSlider(min=2, max=400, step=1)) == ControlSpace("grid", 399)
    assert control_space(widgets.FloatSlider(min=0.3, max=1.5, step=0.05)) == ControlSpace("grid", 25)
    assert control_space(widgets.Dropdown(options=[("a", 1), ("b", 2), ("c", 3)])) == ControlSpace("options", 3)
    assert control_space(widgets.Checkbox()) == ControlSpace("bool", 2)
    assert control_space(widgets.FloatRangeSlider(min=0, max=30, step=0.5)) == ControlSpace("range", 61)
    with pytest.raises(TypeError, match="Text has no known positions"):
        control_space(widgets.Text())


# A panel module of our own, to check that the watch is not vacuous: each trap is one dropdown option.
TRAPS = textwrap.dedent('''
    import time
    import numpy as np
    from simcore.plotting import LivePanel, dropdown, new_figure

    def make_panel() -> LivePanel:
        fig = new_figure(widget=True)
        def update(values):
            trap = values["trap"]
            if trap == "memory":
                a = np.ones(2**30 // 8)  # 1 GiB, every page touched
                return str(a.sum())
            if trap == "hang":
                while True:
                    pass
            if trap == "internal":
                raise EOFError("Ran out of input")
            if trap == "refuse":
                raise ValueError("trap='refuse' is not allowed: this is the reason a student reads")
            if trap == "slow":
                t = time.process_time()
                while time.process_time() - t < 2.5:
                    pass
            return "fine"
        return LivePanel({"trap": dropdown("trap", ["none", "memory", "hang", "internal", "refuse", "slow"])},
                         update, [fig])
''')


def test_the_watch_catches_memory_hangs_internal_errors_and_slow_moves(tmp_path, monkeypatch):
    (tmp_path / "trap_panel.py").write_text(TRAPS)
    import os

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    with PanelWorker("trap_panel:make_panel", memory_gb=0.25, hang_s=5.0, env=env) as w:
        outcome = {}
        for i, trap in enumerate(["none", "memory", "hang", "internal", "refuse", "slow"]):
            w.hang_s = 5.0 if trap == "hang" else 60.0  # a slow move is not a hang, on a busy machine too
            outcome[trap] = r = w.move({"trap": i})
            assert r.values.get("trap", trap) == trap
        assert outcome["none"].outcome == "ok" and not move_problems(outcome["none"])
        assert outcome["memory"].outcome == "killed" and "limit 0.25 GB" in outcome["memory"].message
        assert outcome["hang"].outcome == "hung"
        assert outcome["internal"].outcome == "internal" and "EOFError" in outcome["internal"].message
        assert outcome["refuse"].outcome == "refused" and not move_problems(outcome["refuse"])
        assert outcome["slow"].outcome == "ok" and outcome["slow"].cpu_s >= 2.5
        for trap in ("memory", "hang", "internal", "slow"):
            assert move_problems(outcome[trap]), trap


@pytest.fixture(scope="module", params=BUILDERS)
def worker(request):
    with PanelWorker(request.param, memory_gb=1.0, hang_s=60.0) as w:
        yield w


def _positions(controls):
    parts = {}
    for name, space in controls.items():
        if space.kind == "range":
            parts[name] = st.tuples(st.integers(0, space.n - 1), st.integers(0, space.n - 1))
        else:
            parts[name] = st.integers(0, space.n - 1)
    return st.fixed_dictionaries(parts)


def _check(worker, positions=None, values=None):
    report = worker.move(positions, values)
    problems = move_problems(report, cpu_limit_s=CPU_LIMIT_S)
    if problems and report.outcome == "ok":  # slow once (a kernel loaded from the cache): again, warm
        report = worker.move(positions, values)
        problems = move_problems(report, cpu_limit_s=CPU_LIMIT_S)
    assert not problems, f"{worker.name} at {report.values}: {problems}"
    return report


@settings(max_examples=MOVES, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_every_panel_survives_moves_over_its_controls(worker, data):
    assert not worker.build_error, worker.build_error
    _check(worker, data.draw(_positions(worker.controls), label="positions"))


def test_the_issues_admission_setting_is_refused_within_the_limits():
    """Issue 29: this setting (every value inside the sliders) grew the kernel to 24 GB."""
    stuck = dict(bandwidth_fraction=0.65, experiment=2, extra_sockets=10, policy="HTTP", clients_pct=160,
                 retry_busy_s=51.0, retry_later_s=94.0, small_file_kb=20.0, ready_list_size=8, ticket_ttl_s=10.0,
                 sharing="max-min", seed=76)
    with PanelWorker("simcore.chapters.admission_panel:make_panel") as w:
        r = _check(w, values=stuck)
    assert r.outcome == "refused" and "time-to-live 10 s" in r.message and r.peak_mb < 1024
