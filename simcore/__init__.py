"""simcore: fast network simulation for the interactive networking lab."""

from simcore._cache_guard import check_kernel_cache as _check_kernel_cache
from simcore._cache_guard import install_healing as _install_healing
from simcore._page_plotly import preload as _preload_plotly
from simcore._shared_cache import link_shared_cache as _link_shared_cache
from simcore._shared_cache import own_cache_dir as _own_cache_dir

_preload_plotly()  # first, in a kernel only: the page evaluates plotly.js while numba and the kernels import
_own_cache_dir()  # on a course server (SIMCORE_SHARED_NUMBA_CACHE set): the user's own numba cache folder
_check_kernel_cache()  # before any kernel loads: numba's cache does not notice edits to files a kernel calls into
_link_shared_cache()  # then, on a course server, the kernels compiled once for everyone (deploy/)
_install_healing()  # a damaged cache entry (a killed kernel, a full disk) is recompiled, not an error forever
