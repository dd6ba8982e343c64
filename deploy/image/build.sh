#!/bin/sh
# The course image's build steps (deploy/image/Dockerfile runs them as root; deploy/tljh/install.sh runs the
# same steps on one machine). Variables (the Dockerfile sets them):
#   SIMCORE_HOME                 where src/ (this repository) is and venv/ goes          (/opt/simcore)
#   SIMCORE_SHARED_NUMBA_CACHE   where the compiled kernels go, read-only for students   ($SIMCORE_HOME/numba-cache)
#   SIMCORE_PYTHON               an existing environment's python to install into, instead of a new venv
#   NB_USER                      the unprivileged user that checks the kernels load      (jovyan)
#   SIMCORE_EXTRAS               pip extras of simcore to install                        (lab,hub)
set -eu
home=${SIMCORE_HOME:-/opt/simcore}
cache=${SIMCORE_SHARED_NUMBA_CACHE:-$home/numba-cache}
src=$home/src
user=${NB_USER:-jovyan}

# 1. The environment: simcore from the sources, editable (simcore reads data/ beside its package), with the
#    front ends (JupyterLab, Notebook 7, Voila), jupyterhub-singleuser and nbgrader's assignment list.
if [ -n "${SIMCORE_PYTHON:-}" ]; then
    python=$SIMCORE_PYTHON
else
    python3 -m venv "$home/venv"
    python=$home/venv/bin/python
    "$python" -m pip install --no-cache-dir --upgrade pip
fi
"$python" -m pip install --no-cache-dir -e "$src[${SIMCORE_EXTRAS:-lab,hub}]"
prefix=$("$python" -c 'import sys; print(sys.prefix)')
# JupyterLab keeps every cell of a long chapter in the page (its default virtualisation removes off-screen
# cells, which breaks the live panels' layout), and looks for no news online.
mkdir -p "$prefix/share/jupyter/lab/settings"
cp "$src/.jupyter-settings/overrides.json" "$prefix/share/jupyter/lab/settings/overrides.json"
# Voila (chapters as apps) loads every JupyterLab extension; nbgrader's and Notebook 7's JupyterLab buttons
# need parts of JupyterLab (file browser, document registry) Voila has not, and fail in every page: not there.
mkdir -p "$prefix/etc/jupyter"
cp "$src/.jupyter-settings/voila.json" "$prefix/etc/jupyter/voila.json"
# nbgrader: the course's exchange folder and id for every user (deploy/nbgrader/nbgrader_config.py).
mkdir -p "$prefix/etc/jupyter"
cp "$src/deploy/nbgrader/nbgrader_config.py" "$prefix/etc/jupyter/nbgrader_config.py"

# 2. Compile every kernel once into the shared folder, then make it read-only for everyone.
mkdir -p "$cache"
NUMBA_CACHE_DIR=$cache "$python" -m simcore warm
chmod -R a-w,a+rX "$cache"

# 3. Check as a student would run: an unprivileged user, its own cache folder, the shared one read-only.
#    `warm --check` exits 1 if any kernel had to be compiled (then the image would compile per student).
check_home=$(mktemp -d)
chown "$user" "$check_home"
su -s /bin/sh "$user" -c "cd '$check_home' && env -u NUMBA_CACHE_DIR HOME='$check_home' \
    SIMCORE_SHARED_NUMBA_CACHE='$cache' '$python' -m simcore warm --check"
rm -rf "$check_home"
