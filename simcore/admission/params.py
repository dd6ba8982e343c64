"""Parameters of the admission-control model (Holmes à Court 1997), validated with the sliders' ranges.

Defaults are the thesis's values where it gives them (see ``simcore/admission/ASSUMPTIONS.md`` for every
choice where it does not). Sizes in bytes, rates in bytes per second, times in seconds.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_bool, check_choice, check_int, check_order, check_real, store_python_numbers

__all__ = [
    "POLICIES",
    "LOADS",
    "FILE_CATALOG_KB",
    "FILES_PER_CLIENT",
    "CLIENTS_PER_EXPERIMENT",
    "AdmissionParams",
    "max_events_allowed",
]

#: the four protocols as the thesis names them
POLICIES = ("HTTP", "FTP", "Reserve", "Ticket")
#: the thesis's three server loadings: fraction of the required server bandwidth
LOADS = {"sufficient": 1.0, "light": 0.75, "heavy": 0.5}
#: the files on offer per experiment, in KB (the client picks distinct files of this list)
FILE_CATALOG_KB = {1: (1, 10, 100, 1024), 2: (1, 1, 1, 1, 10, 10, 1024)}
#: (fewest, most) files a client requests
FILES_PER_CLIENT = {1: (1, 4), 2: (1, 3)}
CLIENTS_PER_EXPERIMENT = {1: 200, 2: 400}
#: memory a run may take for what grows with its events (tickets and, with the chronology, the logs)
MEMORY_BUDGET_BYTES = 2**30
#: bytes per event of what grows with the events: a ticket (token, state, last time: 24 B) and, with the
#: chronology, a trace row (32 B), an attempt row and an interval row (24 B each); doubled, since a growing
#: table is copied into one twice as long
BYTES_PER_EVENT = {False: 2 * 24, True: 2 * (24 + 32 + 24 + 24)}


def max_events_allowed(record_chronology: bool) -> int:
    """Return the largest ``max_events`` whose worst case fits ``MEMORY_BUDGET_BYTES`` (1 GiB)."""
    return MEMORY_BUDGET_BYTES // BYTES_PER_EVENT[bool(record_chronology)]


@dataclass(frozen=True)
class AdmissionParams:
    """One scenario: workload (experiment), server (sockets, bandwidth) and admission policy.

    - ``experiment``: 1 or 2 (file catalog, files per client, default number of clients).
    - ``bandwidth_fraction``: server bandwidth as a fraction of the required bandwidth (1.0 'sufficient',
      0.75 'light overload', 0.5 'heavy overload'), in [0.1, 2].
    - ``policy``: 'HTTP', 'FTP', 'Reserve' or 'Ticket'.
    - ``sockets``: transfer sockets (30 in the thesis), in [1, 200]; ``extra_sockets``: added sockets,
      in [0, 100] (0, 3, 6 in the thesis). HTTP/FTP use all ``sockets + extra_sockets`` alike;
      Reserve/Ticket keep the extras for small files (figure 6).
    - ``max_large_connections``: sockets that may carry files >= the small-file threshold at once
      (Reserve/Ticket), in [1, sockets + extra_sockets]; None means ``sockets`` (figure 6).
    - ``n_clients``: in [1, 2000]; None means the experiment's (200 or 400).
    - ``window_s``: arrivals are uniform over [0, window_s), in [10, 7200] (600 in the thesis).
    - ``access_min_Bps``/``access_max_Bps``: client access rates uniform in between, in [100, 1e7].
    - ``connect_s`` (0.4) and ``bind_s`` (0.1): connection attempt and socket bind times, in [0, 10].
    - ``retry_busy_s`` (15): wait after 'all sockets busy', in [0.1, 600]; ``retry_later_s`` (30): wait
      after 'come back later', in [0.1, 600].
    - ``small_file_kb`` (20): files strictly smaller are 'small', in [0.5, 2048]; ``kilobyte_bytes``
      (1024 or 1000): bytes per KB for file sizes and the threshold.
    - ``ready_list_size`` in [1, 100] and ``ready_threshold`` in [1, ready_list_size]: the Ticket ready
      list is refilled up to its size from the wait list whenever it holds fewer than the threshold.
    - ``ticket_ttl_s``: a ready ticket not presented for this long expires, in [1, 3600].
    - ``ticket_retry``: 'fixed' (retry_later_s, as in the thesis's experiments) or 'estimate' (server's
      estimate from the queue position, clipped to [ticket_retry_min_s, ticket_retry_max_s], both in
      [0.1, 3600]).
    - ``ticket_when_busy``: Ticket answers a large request with its ticket logic ('come back later')
      even when every socket is busy, instead of the plain 'busy' refusal (thesis silent; True, see
      ASSUMPTIONS.md: only then can Ticket +0 % differ from HTTP as in figures 7-9 and 17-19).
    - ``ftp_per_file_s``: FTP's per-file request delay on the open connection, in [0, 10].
    - ``sharing``: how flowing transfers share the server bandwidth, each capped by its access rate:
      'max-min' (water-filling, unused share redistributed), 'equal' (capacity / flowing transfers, unused
      share lost), 'per-socket' (capacity / sockets, unused share lost).
    - ``file_order``: 'random' (each client asks for its files in a random order), 'small_first' or
      'large_first'.
    - ``max_attempts``: refusals after which a client gives up, in [0, 10000]; 0 = persist (thesis).
    - ``record_chronology``: also return attempt, connection and server-trace logs.
    - ``max_events``: the run stops after this many events and ``simulate_admission`` refuses it, saying
      why (a setting that never ends, such as Ticket with a time-to-live shorter than the 'later' retry,
      or one too slow to wait for: about 3 million events a second); in [1, ``max_events_allowed``]:
      22,369,621, or 5,162,220 with the chronology (the tickets and logs then fit in 1 GiB).
    """

    experiment: int = 2
    bandwidth_fraction: float = 1.0
    policy: str = "HTTP"
    sockets: int = 30
    extra_sockets: int = 0
    max_large_connections: int | None = None
    n_clients: int | None = None
    window_s: float = 600.0
    access_min_Bps: float = 1600.0
    access_max_Bps: float = 35000.0
    connect_s: float = 0.4
    bind_s: float = 0.1
    retry_busy_s: float = 15.0
    retry_later_s: float = 30.0
    small_file_kb: float = 20.0
    kilobyte_bytes: int = 1024
    ready_list_size: int = 10
    ready_threshold: int = 5
    ticket_ttl_s: float = 120.0
    ticket_retry: str = "fixed"
    ticket_retry_min_s: float = 5.0
    ticket_retry_max_s: float = 300.0
    ticket_when_busy: bool = True
    ftp_per_file_s: float = 0.0
    sharing: str = "max-min"
    file_order: str = "random"
    max_attempts: int = 0
    record_chronology: bool = False
    max_events: int = 2_000_000

    def __post_init__(self):
        store_python_numbers(self)
        check_int("experiment", self.experiment, 1, 2)
        check_real("bandwidth_fraction", self.bandwidth_fraction, 0.1, 2.0)
        check_choice("policy", self.policy, POLICIES)
        check_int("sockets", self.sockets, 1, 200)
        check_int("extra_sockets", self.extra_sockets, 0, 100)
        if self.max_large_connections is not None:
            check_int("max_large_connections", self.max_large_connections, 1, self.total_sockets)
        if self.n_clients is not None:
            check_int("n_clients", self.n_clients, 1, 2000)
        check_real("window_s", self.window_s, 10.0, 7200.0)
        check_real("access_min_Bps", self.access_min_Bps, 100.0, 1e7)
        check_real("access_max_Bps", self.access_max_Bps, 100.0, 1e7)
        check_order("access_min_Bps", self.access_min_Bps, "access_max_Bps", self.access_max_Bps)
        check_real("connect_s", self.connect_s, 0.0, 10.0)
        check_real("bind_s", self.bind_s, 0.0, 10.0)
        check_real("retry_busy_s", self.retry_busy_s, 0.1, 600.0)
        check_real("retry_later_s", self.retry_later_s, 0.1, 600.0)
        check_real("small_file_kb", self.small_file_kb, 0.5, 2048.0)
        check_int("kilobyte_bytes", self.kilobyte_bytes, 1000, 1024)
        check_choice("kilobyte_bytes", self.kilobyte_bytes, (1000, 1024))
        check_int("ready_list_size", self.ready_list_size, 1, 100)
        check_int("ready_threshold", self.ready_threshold, 1, 100)
        check_order("ready_threshold", self.ready_threshold, "ready_list_size", self.ready_list_size)
        check_real("ticket_ttl_s", self.ticket_ttl_s, 1.0, 3600.0)
        check_choice("ticket_retry", self.ticket_retry, ("fixed", "estimate"))
        check_real("ticket_retry_min_s", self.ticket_retry_min_s, 0.1, 3600.0)
        check_real("ticket_retry_max_s", self.ticket_retry_max_s, 0.1, 3600.0)
        check_order("ticket_retry_min_s", self.ticket_retry_min_s, "ticket_retry_max_s", self.ticket_retry_max_s)
        check_bool("ticket_when_busy", self.ticket_when_busy)
        check_real("ftp_per_file_s", self.ftp_per_file_s, 0.0, 10.0)
        check_choice("sharing", self.sharing, ("max-min", "equal", "per-socket"))
        check_choice("file_order", self.file_order, ("random", "small_first", "large_first"))
        check_int("max_attempts", self.max_attempts, 0, 10000)
        check_bool("record_chronology", self.record_chronology)
        check_int("max_events", self.max_events, 1, max_events_allowed(self.record_chronology),
                  why=f"what grows with the events, {BYTES_PER_EVENT[self.record_chronology]} bytes each "
                      f"{'with' if self.record_chronology else 'without'} the chronology, must fit in 1 GiB")

    @property
    def total_sockets(self) -> int:
        """Return the number of server sockets (sockets + extra_sockets)."""
        return self.sockets + self.extra_sockets

    @property
    def large_limit(self) -> int:
        """Return how many sockets may carry large files at once (all of them for HTTP and FTP)."""
        if self.policy in ("HTTP", "FTP"):
            return self.total_sockets
        return self.sockets if self.max_large_connections is None else self.max_large_connections

    @property
    def clients(self) -> int:
        """Return the number of clients (the experiment's default when ``n_clients`` is None)."""
        return CLIENTS_PER_EXPERIMENT[self.experiment] if self.n_clients is None else self.n_clients

    @property
    def small_file_bytes(self) -> float:
        """Return the small-file threshold in bytes (files strictly smaller are small)."""
        return self.small_file_kb * self.kilobyte_bytes
