#!/bin/sh
# The simcore lab on The Littlest JupyterHub: one machine (Ubuntu 22.04/24.04 or Debian 12), as root, after
# TLJH itself is installed (its bootstrap script; see deploy/README.md), with this repository at
# /opt/simcore/src:
#     git clone <this repository> /opt/simcore/src && sh /opt/simcore/src/deploy/tljh/install.sh
# Per-student limits below are sized from benchmarks/bench_class.py (deploy/README.md, "Sizing"); override
# with SIMCORE_MEM_LIMIT / SIMCORE_CPU_LIMIT. Run it again after `git pull` to recompile the kernels.
set -eu
src=/opt/simcore/src
tljh_user=/opt/tljh/user
[ -x "$tljh_user/bin/python" ] || { echo "The Littlest JupyterHub is not installed ($tljh_user missing)" >&2; exit 1; }

# 1. simcore and its front ends into TLJH's user environment; nbgrader's assignment list; the kernels compiled
#    once into /opt/simcore/numba-cache, read-only for the students, checked as the unprivileged user nobody.
export SIMCORE_HOME=/opt/simcore SIMCORE_SHARED_NUMBA_CACHE=/opt/simcore/numba-cache NUMBA_CPU_NAME=generic
"$tljh_user/bin/python" -m pip install --no-cache-dir "nbgrader>=0.9"
SIMCORE_PYTHON="$tljh_user/bin/python" SIMCORE_EXTRAS=lab NB_USER=nobody sh "$src/deploy/image/build.sh"

# 2. nbgrader's exchange: every student drops submissions here, nobody can remove another's (sticky bit).
mkdir -p /srv/nbgrader/exchange
chmod 1777 /srv/nbgrader/exchange

# 3. The hub: the course's settings (and LTI 1.3 when its client id is given), limits, idle culling.
mkdir -p /opt/tljh/config/jupyterhub_config.d
cp "$src/deploy/jupyterhub/simcore_course.py" /opt/tljh/config/jupyterhub_config.d/simcore_course.py
cp "$src/deploy/tljh/tljh_simcore.py" /opt/tljh/config/jupyterhub_config.d/tljh_simcore.py
if [ -n "${LTI13_CLIENT_ID:-}" ]; then
    /opt/tljh/hub/bin/python -m pip install --no-cache-dir "jupyterhub-ltiauthenticator>=1.6"
    # the platform's values for the hub's environment (deploy/jupyterhub/lti13.py lists them)
    mkdir -p /etc/systemd/system/jupyterhub.service.d
    {
        echo "[Service]"
        for v in LTI13_ISSUER LTI13_CLIENT_ID LTI13_AUTHORIZE_URL LTI13_JWKS_URL LTI13_USERNAME_KEY; do
            eval "val=\${$v:-}"
            [ -n "$val" ] && echo "Environment=$v=$val"
        done
    } > /etc/systemd/system/jupyterhub.service.d/simcore-lti13.conf
    systemctl daemon-reload
    cp "$src/deploy/jupyterhub/lti13.py" /opt/tljh/config/jupyterhub_config.d/lti13.py
fi
tljh-config set limits.memory "${SIMCORE_MEM_LIMIT:-1.5G}"
tljh-config set limits.cpu "${SIMCORE_CPU_LIMIT:-1}"
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 3600
tljh-config set services.cull.every 300
tljh-config reload hub
