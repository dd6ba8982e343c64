"""A student's identity and parameters: deterministic, per assignment and student, on typeable values."""

import subprocess
import sys

import pytest

from simcore.grading import Choice, Grid, Nice, shuffled, student_id, student_params
from simcore.grading.identity import draw_fraction

SPEC = {"rate_pps": Grid(300, 800, 50), "rtt_ms": Nice(20, 400, digits=2), "service": Choice(["exp", "det"])}


def test_simcore_student_wins_then_nbgrader_autograde_folder_then_hub_then_login(monkeypatch, tmp_path):
    monkeypatch.setenv("SIMCORE_STUDENT", " alice ")
    monkeypatch.setenv("JUPYTERHUB_USER", "hubuser")
    assert student_id() == "alice"
    monkeypatch.delenv("SIMCORE_STUDENT")
    folder = tmp_path / "course" / "autograded" / "bob" / "00_start_here"
    folder.mkdir(parents=True)
    monkeypatch.chdir(folder)
    monkeypatch.setenv("NBGRADER_EXECUTION", "autograde")
    assert student_id() == "bob"  # nbgrader runs each submission in autograded/<student>/<assignment>
    monkeypatch.delenv("NBGRADER_EXECUTION")
    assert student_id() == "hubuser"
    monkeypatch.delenv("JUPYTERHUB_USER")
    import getpass

    assert student_id() == getpass.getuser()


def test_params_are_deterministic_across_processes_and_differ_between_students():
    a = student_params("00/1", SPEC, student="alice")
    assert a == student_params("00/1", SPEC, student="alice")
    code = "from simcore.grading import *; print(student_params('00/1', {'rate_pps': Grid(300, 800, 50), " \
           "'rtt_ms': Nice(20, 400, digits=2), 'service': Choice(['exp', 'det'])}, student='alice'))"
    # a fresh interpreter (another PYTHONHASHSEED): the same numbers
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env={"PYTHONHASHSEED": "12345", "PATH": "/usr/bin:/bin"}).stdout
    assert out.strip() == repr(a)
    students = [student_params("00/1", SPEC, student=f"s{i}") for i in range(40)]
    assert len({s["rate_pps"] for s in students}) >= 8  # 11 grid values, 40 students: most are used
    others = [student_params(f"00/{k}", SPEC, student="alice") for k in range(2, 8)]
    assert any(o != a for o in others)  # each assignment draws its own


def test_values_are_on_their_grid_or_have_their_digits():
    for i in range(200):
        p = student_params("x", SPEC, student=str(i))
        assert p["rate_pps"] in range(300, 801, 50) and isinstance(p["rate_pps"], int)
        assert 20 <= p["rtt_ms"] <= 400 and len(str(p["rtt_ms"]).replace(".", "").strip("0")) <= 2
        assert p["service"] in ("exp", "det")
    fine = Grid(0.5, 2.0, 0.25)
    assert {fine.pick(u / 100) for u in range(100)} == {0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0}


def test_draw_fraction_is_sha256_of_the_key():
    import hashlib

    d = hashlib.sha256(b"a\x1fb").digest()
    assert draw_fraction("a", "b") == int.from_bytes(d[:8], "big") / 2**64


def test_a_parameter_added_later_changes_no_other():
    a = student_params("x", SPEC, student="carol")
    b = student_params("x", {**SPEC, "extra": Grid(1, 9, 1)}, student="carol")
    assert {k: b[k] for k in a} == a


def test_shuffled_is_a_permutation_fixed_by_its_key():
    items = list("ABCDE")
    assert sorted(shuffled(items, "q", "s1")) == items and shuffled(items, "q", "s1") == shuffled(items, "q", "s1")
    assert len({tuple(shuffled(items, "q", f"s{i}")) for i in range(30)}) > 10


@pytest.mark.parametrize(("args", "name"), [
    (("", SPEC), "assignment"), (("x", {}), "spec"), (("x", {"a": (1, 2)}), "spec"),
])
def test_bad_arguments_name_the_parameter(args, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        student_params(*args, student="a")


@pytest.mark.parametrize(("make", "name"), [(lambda: Grid(5, 1, 1), "hi"), (lambda: Grid(0, 1, 0), "step"),
                                            (lambda: Nice(0, 1), "lo"), (lambda: Choice([]), "options"),
                                            (lambda: Grid(0, 1, 1e-9), "step")])
def test_bad_specs_name_the_parameter(make, name):
    with pytest.raises(ValueError, match=rf"^{name}="):
        make()
