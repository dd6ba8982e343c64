# The Littlest JupyterHub only (deploy/tljh/install.sh copies it into /opt/tljh/config/jupyterhub_config.d/,
# where it is loaded after simcore_course.py).
from tljh.normalize import generate_system_username

# Each student's server starts through simcore-start, which copies the chapters into the student's home on
# the first start (in the course image, its entry point does the same).
c.Spawner.cmd = ["/opt/simcore/src/deploy/image/simcore-start", "/opt/tljh/user/bin/jupyterhub-singleuser"]

_course_environment = c.Spawner.pre_spawn_hook  # simcore_course.py's


def tljh_student_environment(spawner) -> None:
    """On one machine each student is a system user, "jupyter-<hub name>" (TLJH's UserCreatingSpawner), and
    nbgrader stamps submissions with that name: the assignments draw their numbers from the same name."""
    _course_environment(spawner)
    spawner.environment = {**spawner.environment,
                           "SIMCORE_STUDENT": generate_system_username("jupyter-" + spawner.user.name)}


c.Spawner.pre_spawn_hook = tljh_student_environment
