"""simcore: fast network simulation for the interactive networking lab."""

from simcore._cache_guard import check_kernel_cache as _check_kernel_cache

_check_kernel_cache()  # first: numba's cache does not notice edits to files a kernel calls into
