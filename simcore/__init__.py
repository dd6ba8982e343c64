"""simcore: fast network simulation for the interactive networking lab."""

from simcore._cache_guard import check_kernel_cache as _check_kernel_cache
from simcore._cache_guard import install_healing as _install_healing

_check_kernel_cache()  # first: numba's cache does not notice edits to files a kernel calls into
_install_healing()  # a damaged cache entry (a killed kernel, a full disk) is recompiled, not an error forever
