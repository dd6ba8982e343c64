# nbgrader's settings for every user of the course server (installed as <environment>/etc/jupyter/
# nbgrader_config.py by deploy/image/build.sh and deploy/tljh/install.sh). The instructor's own course folder
# (a copy of the repository's assignments/, see deploy/README.md) adds nothing to these.
import os

# One course per server; its id tags every released and submitted file in the exchange.
c.CourseDirectory.course_id = os.environ.get("SIMCORE_COURSE_ID", "simcore")
# The exchange: one folder every user's server sees at the same path. On one machine (TLJH) a local folder,
# writable by all with the sticky bit (mode 1777, as deploy/tljh/install.sh makes it); on Kubernetes a
# shared volume mounted there in every user's pod (deploy/z2jh/values.yaml, nbgrader-exchange-pvc.yaml).
c.Exchange.root = os.environ.get("NBGRADER_EXCHANGE", "/srv/nbgrader/exchange")
# Submissions are stamped with the hub user name, which is also what SIMCORE_STUDENT gives the assignments.
