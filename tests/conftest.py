"""Test-wide settings.

Under CI (CI=true) hypothesis runs derandomized: the same examples every run, so a green main stays
green. Locally it explores new examples each run, which is where new edge cases get found.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, deadline=None, print_blob=True)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") == "true" else "dev")
