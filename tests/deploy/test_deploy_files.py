"""deploy/'s files, checked as far as this machine allows without a cluster or a container engine in CI.

- The image (deploy/image/Dockerfile + build.sh): everything they use is in the build context, they agree
  with the hub's settings on where the compiled kernels are and for which CPU, and the entry point copies the
  chapters once and never over a student's files. (The kernels' warm / read-only / `warm --check` steps run
  on the real kernels in tests/test_shared_cache.py; the whole image was built with podman by hand, see
  deploy/README.md, "Check before class".)
- Zero to JupyterHub: values.yaml embeds deploy/jupyterhub/*.py verbatim, and is valid against the chart's
  own schema merged with the chart's defaults, as helm checks it, when the chart is at hand (Z2JH_CHART: a
  folder holding the chart's values.yaml and values.schema.json or values.schema.yaml, e.g. from
  `helm pull jupyterhub/jupyterhub --untar`; the chart is not on PyPI or npm, so without it that one test is
  skipped and says so).
- LTI 1.3: deploy/jupyterhub/lti13.py loaded by traitlets into jupyterhub-ltiauthenticator's own class, and its
  post-login hook on launch tokens with the LTI roles of an instructor and a learner.
- nbgrader: deploy/nbgrader/nbgrader_config.py drives a whole hand-out and collect round trip of one
  assignment through an exchange folder (instructor releases, a student fetches and submits, the instructor
  collects).
"""

from __future__ import annotations

import fnmatch
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import tomllib
import yaml

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _run_config(path: Path, env: dict | None = None):
    """Load a JupyterHub / nbgrader config file as they do (traitlets, `c` defined); return the Config."""
    from traitlets.config.loader import PyFileConfigLoader

    old = dict(os.environ)
    os.environ.update(env or {})
    try:
        return PyFileConfigLoader(path.name, str(path.parent)).load_config()
    finally:
        os.environ.clear()
        os.environ.update(old)


def _dockerfile_env() -> dict[str, str]:
    text = (DEPLOY / "image" / "Dockerfile").read_text()
    block = re.search(r"^ENV (.*?)(?=^\S)", text, re.S | re.M).group(1)
    return dict(re.findall(r"(\w+)=(\S+)", block.replace("\\\n", " ")))


def test_the_image_and_the_hub_agree_on_the_compiled_kernels():
    env = _dockerfile_env()
    course = _run_config(DEPLOY / "jupyterhub" / "simcore_course.py")

    class Spawner:  # what the hook sees of a spawner
        environment = {"KEEP": "1"}
        user = type("User", (), {"name": "ada"})()

    spawner = Spawner()
    course.Spawner.pre_spawn_hook(spawner)
    assert spawner.environment == {"KEEP": "1", "SIMCORE_STUDENT": "ada",
                                   "SIMCORE_SHARED_NUMBA_CACHE": env["SIMCORE_SHARED_NUMBA_CACHE"],
                                   "NUMBA_CPU_NAME": env["NUMBA_CPU_NAME"]}
    assert env["NUMBA_CPU_NAME"] == "generic"  # nodes with other CPUs than the build machine's still load them
    build = (DEPLOY / "image" / "build.sh").read_text()
    assert "SIMCORE_SHARED_NUMBA_CACHE:-$home/numba-cache" in build
    assert env["SIMCORE_SHARED_NUMBA_CACHE"] == env["SIMCORE_HOME"] + "/numba-cache"
    # the steps that make the shared folder what students can read and not write, and check it as a student
    assert 'chmod -R a-w,a+rX "$cache"' in build and "-m simcore warm --check" in build and "su -s /bin/sh" in build


def test_everything_the_image_uses_is_in_its_build_context():
    ignored = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
    needed = ["pyproject.toml", "README.md", "simcore/__init__.py", "simcore/_livefigure.js",
              "labs/00_start_here.ipynb", "data/satellite_sweep.csv", ".jupyter-settings/overrides.json",
              "deploy/image/build.sh", "deploy/image/simcore-start", "deploy/nbgrader/nbgrader_config.py"]
    for path in needed:
        assert (ROOT / path).exists(), path
        parts = Path(path).parts
        hits = [pat for pat in ignored for k in range(1, len(parts) + 1)
                if fnmatch.fnmatch("/".join(parts[:k]), pat.rstrip("/"))]
        assert not hits, f"{path} is left out of the image by .dockerignore {hits}"
    build = (DEPLOY / "image" / "build.sh").read_text()
    for ref in re.findall(r'"\$src/([^"]+)"', build):
        assert (ROOT / ref).exists(), ref
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    assert {"lab", "hub"} <= set(extras)
    assert {r.split(">")[0].split("=")[0] for r in extras["hub"]} == {"jupyterhub", "nbgrader"}
    dockerfile = (DEPLOY / "image" / "Dockerfile").read_text()
    assert "deploy/image/build.sh" in dockerfile and "deploy/image/simcore-start" in dockerfile
    assert re.search(r"^USER \$\{NB_UID\}", dockerfile, re.M)  # students never run as root


def test_the_entry_point_copies_the_chapters_once(tmp_path):
    src = tmp_path / "opt" / "src"
    (src / "labs").mkdir(parents=True)
    (src / "data").mkdir()
    (src / "labs" / "00_start_here.ipynb").write_text("v1")
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), SIMCORE_HOME=str(tmp_path / "opt"))
    start = str(DEPLOY / "image" / "simcore-start")
    out = subprocess.run([start, "sh", "-c", "echo started"], env=env, capture_output=True, text=True, check=True)
    assert out.stdout == "started\n"  # then runs the server's command
    chapter = home / "simcore-lab" / "labs" / "00_start_here.ipynb"
    assert chapter.read_text() == "v1" and (home / "simcore-lab" / "data").is_dir()
    chapter.write_text("the student's answers")
    (src / "labs" / "00_start_here.ipynb").write_text("v2")
    subprocess.run([start, "true"], env=env, check=True)
    assert chapter.read_text() == "the student's answers"


def test_the_shell_steps_parse():
    for script in ("image/build.sh", "image/simcore-start", "tljh/install.sh"):
        subprocess.run(["sh", "-n", str(DEPLOY / script)], check=True)
    install = (DEPLOY / "tljh" / "install.sh").read_text()
    for ref in re.findall(r'"\$src/([^"]+)"', install):
        assert (ROOT / ref).exists(), ref


def test_zero_to_jupyterhub_values_embed_the_hub_settings_verbatim():
    values = yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text())
    extra = values["hub"]["extraConfig"]
    assert extra == {"00-simcore-course": (DEPLOY / "jupyterhub" / "simcore_course.py").read_text(),
                     "10-lti13": (DEPLOY / "jupyterhub" / "lti13.py").read_text()}
    assert set(values["hub"]["extraEnv"]) == {"LTI13_ISSUER", "LTI13_CLIENT_ID", "LTI13_AUTHORIZE_URL",
                                              "LTI13_JWKS_URL", "LTI13_USERNAME_KEY"}
    su = values["singleuser"]
    assert su["defaultUrl"] == _run_config(DEPLOY / "jupyterhub" / "simcore_course.py").Spawner.default_url
    mounts = {m["mountPath"] for m in su["storage"]["extraVolumeMounts"]}
    exchange = _run_config(DEPLOY / "nbgrader" / "nbgrader_config.py").Exchange.root
    assert exchange in mounts  # nbgrader's exchange is the shared volume
    assert values["cull"]["enabled"] and values["cull"]["timeout"] > 0


def _merge(defaults: dict, values: dict) -> dict:
    """Helm's merge of a chart's values.yaml with the user's: maps key by key, the user's value wins, null
    removes the key."""
    out = dict(defaults)
    for k, v in values.items():
        if isinstance(v, dict) and isinstance(out.get(k), dict):
            out[k] = _merge(out[k], v)
        elif v is None:
            out.pop(k, None)
        else:
            out[k] = v
    return out


def _z2jh_chart() -> Path | None:
    for folder in (os.environ.get("Z2JH_CHART"), ROOT.parent / "shared" / "z2jh"):
        if folder and (Path(folder) / "values.yaml").is_file():
            return Path(folder)
    return None


def test_zero_to_jupyterhub_values_pass_the_charts_own_schema():
    import jsonschema

    chart = _z2jh_chart()
    if chart is None:
        pytest.skip("the Zero to JupyterHub chart is not at hand (set Z2JH_CHART to a folder holding its "
                    "values.yaml and values.schema.json); it is not on PyPI or npm")
    schema_file = next(p for p in (chart / "values.schema.json", chart / "values.schema.yaml") if p.is_file())
    schema = yaml.safe_load(schema_file.read_text())  # JSON is YAML
    merged = _merge(yaml.safe_load((chart / "values.yaml").read_text()),
                    yaml.safe_load((DEPLOY / "z2jh" / "values.yaml").read_text()))
    validator = jsonschema.Draft7Validator(schema)
    errors = [f"{'.'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(merged)]
    assert not errors, errors
    # and the schema is strict enough to catch a misspelt key
    assert list(validator.iter_errors(_merge(merged, {"singleuser": {"memory": {"limits": "1G"}}})))


LTI_ENV = {"LTI13_ISSUER": "https://canvas.instructure.com", "LTI13_CLIENT_ID": "10000000000042",
           "LTI13_AUTHORIZE_URL": "https://canvas.example.edu/api/lti/authorize_redirect",
           "LTI13_JWKS_URL": "https://canvas.example.edu/api/lti/security/jwks"}


def test_lti13_settings_configure_the_lti_authenticator():
    from ltiauthenticator.lti13.auth import LTI13Authenticator

    cfg = _run_config(DEPLOY / "jupyterhub" / "lti13.py", LTI_ENV)
    assert cfg.JupyterHub.authenticator_class == "ltiauthenticator.lti13.auth.LTI13Authenticator"
    auth = LTI13Authenticator(config=cfg)
    assert auth.issuer == LTI_ENV["LTI13_ISSUER"] and auth.client_id == {LTI_ENV["LTI13_CLIENT_ID"]}
    assert auth.authorize_url == LTI_ENV["LTI13_AUTHORIZE_URL"] and auth.jwks_endpoint == LTI_ENV["LTI13_JWKS_URL"]
    assert auth.username_key == "sub" and auth.allow_all
    # the URLs the platform is given (deploy/jupyterhub/lti13.py's header and deploy/README.md)
    assert auth.login_url("/hub/") == "/hub/lti13/oauth_login"
    assert auth.callback_url("/hub/") == "/hub/lti13/oauth_callback"
    assert auth.config_json_url("/hub/") == "/hub/lti13/config"
    roles = "https://purl.imsglobal.org/spec/lti/claim/roles"
    vocab = "http://purl.imsglobal.org/vocab/lis/v2/membership"
    for lti_roles, admin in (([f"{vocab}#Instructor"], True), ([f"{vocab}#Learner"], False),
                             ([f"{vocab}/Instructor#TeachingAssistant"], True), ([], False)):
        model = auth.post_auth_hook(auth, None, {"name": "x", "auth_state": {roles: lti_roles, "sub": "x"}})
        assert model["admin"] is admin, lti_roles


def _nbgrader(args: list[str], cwd: Path, env: dict) -> subprocess.CompletedProcess:
    run = subprocess.run([sys.executable, "-m", "nbgrader", *args, "--log-level=WARN"], cwd=cwd, env=env,
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, (args, run.stdout[-1500:], run.stderr[-3000:])
    return run


def test_nbgrader_hands_out_and_collects_through_the_exchange(tmp_path):
    """The round trip an instructor runs on the course server (deploy/README.md), with deploy/'s config as the
    config every user has (found on JUPYTER_CONFIG_PATH as the install puts it in <env>/etc/jupyter)."""
    chapter = "00_start_here"
    course, student_home, exchange = tmp_path / "course", tmp_path / "ada", tmp_path / "exchange"
    shutil.copytree(ROOT / "assignments" / "source" / chapter, course / "source" / chapter)
    student_home.mkdir()
    exchange.mkdir()
    exchange.chmod(0o1777)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("JUPYTER", "NBGRADER"))}
    env.update(JUPYTER_CONFIG_PATH=str(DEPLOY / "nbgrader"), NBGRADER_EXCHANGE=str(exchange),
               SIMCORE_COURSE_ID="netcourse",  # the gradebook runs alembic from the environment's bin/
               PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    teacher = dict(env, JUPYTERHUB_USER="teacher", HOME=str(tmp_path))
    student = dict(env, JUPYTERHUB_USER="ada", HOME=str(student_home))
    _nbgrader(["generate_assignment", chapter, "--force"], course, teacher)
    _nbgrader(["release_assignment", chapter], course, teacher)
    assert sorted(p.name for p in (exchange / "netcourse" / "outbound" / chapter).glob("*.ipynb")) == \
        sorted(p.name for p in (ROOT / "assignments" / "source" / chapter).glob("*.ipynb"))
    _nbgrader(["fetch_assignment", chapter], student_home, student)
    fetched = sorted((student_home / chapter).glob("*.ipynb"))
    assert fetched and "BEGIN SOLUTION" not in fetched[0].read_text()
    # here every process is this machine's user: the student's name as nbgrader finds it in the image
    # (test_nbgrader_names_a_jovyan_by_the_hub_user) is given explicitly
    _nbgrader(["submit", chapter, "--student=ada"], student_home, student)
    inbound = list((exchange / "netcourse" / "inbound").iterdir())
    assert len(inbound) == 1 and inbound[0].name.startswith(f"ada+{chapter}+")
    _nbgrader(["collect", chapter], course, teacher)
    collected = sorted(p.name for p in (course / "submitted" / "ada" / chapter).glob("*.ipynb"))
    assert collected == [p.name for p in fetched]


def test_nbgrader_names_a_jovyan_by_the_hub_user(monkeypatch):
    """In the image every student is the system user jovyan; nbgrader then stamps submissions with the hub user
    name (JUPYTERHUB_USER), which is also SIMCORE_STUDENT (deploy/jupyterhub/simcore_course.py)."""
    import nbgrader.utils

    monkeypatch.setattr(nbgrader.utils, "get_osusername", lambda: "jovyan")
    monkeypatch.setenv("JUPYTERHUB_USER", "ada")
    assert nbgrader.utils.get_username() == "ada"
