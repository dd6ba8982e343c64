"""FIFO multi-server queues (M/M/c, M/D/c, M/G/c, finite or infinite buffer) on simcore's event engine."""

from simcore.queueing.model import (
    SERVICE_DISTRIBUTIONS,
    QueueParams,
    QueueResult,
    draw_workload,
    simulate_queue,
)

__all__ = ["QueueParams", "QueueResult", "simulate_queue", "draw_workload", "SERVICE_DISTRIBUTIONS"]
