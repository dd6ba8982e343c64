"""The clients of one run: arrival times, access rates, file lists; and the server's required bandwidth.

Draw order from ``make_generator(seed)`` (fixed, so one seed gives one set of clients for every policy and
load, as the thesis's control comparison needs): (1) arrival times uniform on [0, window_s), sorted, so
client index = arrival order; (2) access rates uniform on [access_min_Bps, access_max_Bps]; (3) number of
files per client, uniform integer in the experiment's range; (4) one uniform key per (client, catalog
file): the client's files are the catalog files with the smallest keys (a uniformly random subset of
distinct files, in random order); (5) the server's secret ticket key (uint64).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from simcore.admission.params import FILE_CATALOG_KB, FILES_PER_CLIENT, AdmissionParams
from simcore.rng import SeedLike, make_generator

__all__ = ["Workload", "draw_workload", "required_bandwidth_Bps"]


@dataclass(frozen=True)
class Workload:
    """The clients of one run (units in names). Client i wants ``file_size_bytes[file_off[i]:file_off[i+1]]``.

    ``token_key`` is the server's secret for ticket tokens (uint64 as int).
    """

    arrival_s: np.ndarray
    access_Bps: np.ndarray
    file_off: np.ndarray
    file_size_bytes: np.ndarray
    token_key: int

    @property
    def n_clients(self) -> int:
        """Return the number of clients."""
        return int(self.arrival_s.shape[0])

    @property
    def bytes_per_client(self) -> np.ndarray:
        """Return each client's total requested bytes (float64 array)."""
        return np.add.reduceat(self.file_size_bytes, self.file_off[:-1]) if self.n_clients else np.zeros(0)

    @property
    def files_per_client(self) -> np.ndarray:
        """Return each client's number of files (int64 array)."""
        return np.diff(self.file_off)


def draw_workload(params: AdmissionParams, seed: SeedLike) -> Workload:
    """Return the run's clients drawn from ``seed`` in the documented order (sizes in bytes)."""
    rng = make_generator(seed)
    n = params.clients
    arrival = np.sort(rng.uniform(0.0, params.window_s, n))
    access = rng.uniform(params.access_min_Bps, params.access_max_Bps, n)
    lo, hi = FILES_PER_CLIENT[params.experiment]
    k = rng.integers(lo, hi + 1, n)
    catalog = np.asarray(FILE_CATALOG_KB[params.experiment], np.float64) * params.kilobyte_bytes
    keys = rng.random((n, catalog.shape[0]))
    token_key = int(rng.integers(0, 2**63 - 1, dtype=np.int64)) * 2 + 1
    order = np.argsort(keys, axis=1, kind="stable")
    off = np.zeros(n + 1, np.int64)
    off[1:] = np.cumsum(k)
    chosen = catalog[order]  # (n, m): row i in client i's random order
    used = np.arange(catalog.shape[0])[None, :] < k[:, None]
    if params.file_order == "small_first":
        chosen = np.sort(np.where(used, chosen, np.inf), axis=1)
    elif params.file_order == "large_first":
        chosen = -np.sort(np.where(used, -chosen, np.inf), axis=1)
    sizes = chosen[used]  # row-major: client by client, each in its order
    return Workload(arrival, access, off, sizes, token_key)


def required_bandwidth_Bps(workload: Workload, window_s: float) -> float:
    """Return the server bandwidth (bytes/s) needed to move, within the window, what clients could take.

    Thesis: "the required speed such that the total server throughput could be transferred within the 10
    minute testing window", counting for each client only what "their transfer speeds or late start times"
    allow: ``sum_i min(bytes_i, access_i * (window_s - arrival_i)) / window_s``.
    """
    reach = workload.access_Bps * np.maximum(window_s - workload.arrival_s, 0.0)
    return float(np.minimum(workload.bytes_per_client, reach).sum() / window_s)
