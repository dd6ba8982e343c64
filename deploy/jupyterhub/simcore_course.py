# JupyterHub settings for a class on the simcore lab, whatever starts the students' servers. Loaded as it is
# by The Littlest JupyterHub (copied into /opt/tljh/config/jupyterhub_config.d/ by deploy/tljh/install.sh),
# by Zero to JupyterHub (the same text under hub.extraConfig in deploy/z2jh/values.yaml; a test keeps the two
# equal), and by the class load test here (benchmarks/bench_class.py). Each of them runs it with `c`, the hub's
# configuration, already defined (traitlets' config loader; Zero to JupyterHub's exec of extraConfig).

SHARED_NUMBA_CACHE = "/opt/simcore/numba-cache"  # where deploy/image/build.sh compiled the kernels


def simcore_environment(spawner) -> None:
    """Give each student's server, before it starts, what the lab reads from its environment. A hook rather
    than Spawner.environment: a spawner's own settings (Zero to JupyterHub sets KubeSpawner.environment from
    singleuser.extraEnv) would replace that one whole."""
    spawner.environment = {
        **spawner.environment,
        # the assignments draw the student's own numbers from this; nbgrader stamps submissions with the same
        # name in a container, where everyone is the system user jovyan (on TLJH: tljh_simcore.py)
        "SIMCORE_STUDENT": spawner.user.name,
        # the kernels compiled once at install time (read-only), linked into the student's own
        # ~/.cache/simcore/numba (simcore/_shared_cache.py); NUMBA_CPU_NAME as they were compiled with
        "SIMCORE_SHARED_NUMBA_CACHE": SHARED_NUMBA_CACHE,
        "NUMBA_CPU_NAME": "generic",
    }


c.Spawner.pre_spawn_hook = simcore_environment
# Students land in the first chapter (deploy/image/simcore-start copies the chapters to ~/simcore-lab).
c.Spawner.default_url = "/lab/tree/simcore-lab/labs/00_start_here.ipynb"
# A first start links the shared kernels and starts JupyterLab: seconds, but give a loaded machine room.
c.Spawner.start_timeout = 120
c.Spawner.http_timeout = 60
