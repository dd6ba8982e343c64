"""Binder's environment.yml and pyproject.toml must name the same runtime dependencies."""

import re
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parents[1]
# conda-forge names that differ from PyPI names, and PyPI extras that are separate conda packages.
CONDA_TO_PYPI = {"python-kaleido": "kaleido"}
NOT_PACKAGES = {"python", "pip"}


def _name(req: str) -> str:
    return re.split(r"[<>=!~\[; ]", req.strip(), maxsplit=1)[0].lower().replace("_", "-")


def _pyproject_names() -> set[str]:
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    names = set()
    for req in meta["dependencies"] + meta["optional-dependencies"]["lab"]:
        names.add(_name(req))
        extras = re.search(r"\[(.*?)\]", req)
        if extras:  # dask[distributed] -> dask + distributed
            names.update(e.strip().lower() for e in extras.group(1).split(","))
    return names


def _environment_names() -> set[str]:
    names = set()
    text = (ROOT / "environment.yml").read_text()
    deps = text.split("dependencies:", 1)[1]  # skip the channels list
    for line in deps.splitlines():
        m = re.match(r"^\s+-\s+([A-Za-z0-9_.\-\[\]]+.*)$", line)
        if m and not m.group(1).startswith("pip:"):
            names.add(CONDA_TO_PYPI.get(_name(m.group(1)), _name(m.group(1))))
    return names - NOT_PACKAGES


def test_environment_yml_and_pyproject_name_the_same_dependencies():
    assert _environment_names() == _pyproject_names()


def test_postbuild_is_strict_and_warms_numba():
    text = (ROOT / "postBuild").read_text()
    assert "set -e" in text and "python -m simcore warm" in text and "NUMBA_CACHE_DIR" in text
    start = (ROOT / "start").read_text()
    assert "NUMBA_CACHE_DIR" in start and "NUMBA_CPU_NAME=generic" in start


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    assert "make test" in readme and "make test" in (ROOT / ".ci" / "run").read_text()


def test_package_data_ships_every_non_python_file_the_package_reads():
    """A non-editable install (pip install .) must carry the JS front end and the .md pages the chapters cite
    (format spec, assumption pages): every such file under simcore/ matches a package-data glob."""
    import fnmatch

    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["package-data"]["simcore"]
    pkg = ROOT / "simcore"
    shipped = [p for p in pkg.rglob("*") if p.suffix in {".js", ".md"} and "__pycache__" not in p.parts]
    assert shipped, "expected the live figure's .js and the assumption pages"
    missing = [str(p.relative_to(pkg)) for p in shipped
               if not any(fnmatch.fnmatchcase(p.relative_to(pkg).as_posix(), g) for g in globs)]
    assert missing == [], f"not in [tool.setuptools.package-data]: {missing}"


def _numba_spec(text: str) -> str:
    m = re.search(r"""numba\s*(>=[^"\s#]+)""", text)
    assert m, "no numba bound"
    return m.group(1).replace(" ", "")


def test_numba_is_bounded_alike_in_both_files_to_the_series_its_internals_code_was_validated_on():
    """simcore/packet/_numba relies on numba's internals: pyproject.toml and Binder's environment.yml bound numba to
    the series that code was validated on (selfcheck.TESTED_SERIES), lower and upper bound both."""
    from simcore.packet._numba.selfcheck import TESTED_SERIES

    py = _numba_spec((ROOT / "pyproject.toml").read_text())
    env = _numba_spec((ROOT / "environment.yml").read_text())
    assert py == env
    lo, hi = re.fullmatch(r">=([0-9.]+),<([0-9.]+)", py).groups()
    major, minor = (int(x) for x in hi.split("."))
    series = [f"{lo.split('.')[0]}.{m}" for m in range(int(lo.split(".")[1]), minor)]
    assert int(lo.split(".")[0]) == major and series == list(TESTED_SERIES)
