"""Benchmark the FIFO queue kernel: events per second, and simcore's time against ciw's on the same customers.

Prints medians over repeated runs after compilation. Run: .venv/bin/python benchmarks/bench_queue.py
"""

from __future__ import annotations

from _timing import median_s as median_time

from simcore.queueing import QueueParams, draw_workload, simulate_queue
from simcore.queueing._kernel import fifo_queue_kernel
from simcore.queueing.ciw_oracle import ciw_replay


def main() -> None:
    big = QueueParams(arrival_rate_per_s=0.9, mean_service_s=1.0, servers=1, n_customers=1_000_000)
    simulate_queue(QueueParams(n_customers=10), 0)  # compile / load the cache
    arrival_s, service_s = draw_workload(big, 1)
    t_kernel = median_time(lambda: fifo_queue_kernel(arrival_s, service_s, 1, -1), 7)
    events = 2 * big.n_customers
    print(f"queue kernel, M/M/1 rho=0.9, 1e6 customers: {t_kernel * 1e3:.1f} ms median, "
          f"{events / t_kernel / 1e6:.1f} M events/s (kernel only, one core)")
    t_full = median_time(lambda: simulate_queue(big, 1), 7)
    print(f"simulate_queue incl. random draws: {t_full * 1e3:.1f} ms, {events / t_full / 1e6:.1f} M events/s")
    for servers in (1, 4):
        p = QueueParams(arrival_rate_per_s=0.9 * servers, mean_service_s=1.0, servers=servers,
                        n_customers=20_000, buffer_size=10)
        t_ours = median_time(lambda p=p: simulate_queue(p, 3), 9)
        t_ciw = median_time(lambda p=p: ciw_replay(p, 3), 3)
        print(f"same 20,000 customers, M/M/{servers}/{servers + 10}: simcore {t_ours * 1e3:.2f} ms, "
              f"ciw {t_ciw * 1e3:.0f} ms, ciw/simcore = {t_ciw / t_ours:.0f}x")


if __name__ == "__main__":
    main()
