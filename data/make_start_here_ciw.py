"""Write data/start_here_ciw.csv: ciw's own estimate of the mean queueing delay, for start-here's plot.

Run: .venv/bin/python data/make_start_here_ciw.py   (about 20 minutes: ciw is pure Python, ~30 us a packet)
For each transmission-time law (exponential, deterministic), each number of links c = 1..8 and each load La/(cR)
in LOADS: ciw (an independent queueing library, with its own random numbers) run as independent replications
to the same plan as simcore's intervals (``simcore.queueing.replications.plan_runs``: 10 runs, warm-up dropped,
each long enough for the queue's memory), giving the mean wait and its 95 % interval in transmission times
L/R (so one row serves every link rate). Loads whose plan would need more than MAX_PACKETS packets (waits
rarer than 1 in 1,000 on many links, where the delay is close to 0 anyway) are left out. The panel draws these
rows as ciw's crosses; tests/queueing/test_replications.py re-runs a row and checks it is what ciw gives.
"""

from __future__ import annotations

import csv
import pathlib
import sys
import time

from simcore.queueing import QueueParams
from simcore.queueing.ciw_oracle import ciw_estimate
from simcore.queueing.replications import plan_runs

SEED = 2019  # the year ciw's paper appeared
PATH = pathlib.Path(__file__).with_name("start_here_ciw.csv")
LOADS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95)
SERVICES = ("exponential", "deterministic")
MAX_PACKETS = 700_000  # below La/(cR) = 0.9; the two heaviest loads are always run
COLUMNS = ("service", "servers", "intensity", "mean_wait_service_times", "half_width_service_times",
           "replications", "warmup_packets", "measured_packets", "seed", "source")


def params(service: str, servers: int, intensity: float) -> QueueParams:
    """The queue of one row, with a mean transmission time of 1 (so waits come out in transmission times)."""
    return QueueParams(arrival_rate_per_s=intensity * servers, mean_service_s=1.0, servers=servers, service=service)


def wanted(service: str, servers: int, intensity: float) -> bool:
    """Whether the row is in the file (its plan is not capped, and it is cheap enough or a heavy load)."""
    plan = plan_runs(params(service, servers, intensity))
    return not plan.capped and (plan.total_customers <= MAX_PACKETS or intensity >= 0.9)


def row(service: str, servers: int, intensity: float) -> tuple:
    """Run ciw for one row and return it as written (floats to 6 significant digits)."""
    p = params(service, servers, intensity)
    plan = plan_runs(p)
    est = ciw_estimate(p, SEED, plan)
    return (service, servers, intensity, f"{est.mean_wait_s:.6g}", f"{est.half_width_s:.6g}", plan.replications,
            plan.warmup_customers, plan.measured_customers, SEED,
            f"ciw {_ciw_version()} replications, seed {SEED} (data/make_start_here_ciw.py)")


def _ciw_version() -> str:
    import ciw

    return ciw.__version__


def main() -> None:
    rows = []
    for service in SERVICES:
        for servers in range(1, 9):
            t0 = time.perf_counter()
            rows += [row(service, servers, x) for x in LOADS if wanted(service, servers, x)]
            print(f"{service} c={servers}: {time.perf_counter() - t0:.0f} s", file=sys.stderr, flush=True)
    with PATH.open("w", newline="") as f:
        out = csv.writer(f)
        out.writerow(COLUMNS)
        out.writerows(rows)
    print(f"wrote {PATH} ({len(rows)} rows)")


if __name__ == "__main__":
    main()
