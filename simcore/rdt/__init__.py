"""simcore.rdt: reliable data transfer over a lossy link (Kurose & Ross sec. 3.4), on simcore's event engine."""

from simcore.rdt.model import ACTIONS, RdtResult, simulate_rdt
from simcore.rdt.params import MAX_TRANSMISSIONS, MAX_WINDOW, PROTOCOLS, TIMER_RESTARTS, RdtParams

__all__ = ["RdtParams", "RdtResult", "simulate_rdt", "ACTIONS", "PROTOCOLS", "TIMER_RESTARTS",
           "MAX_TRANSMISSIONS", "MAX_WINDOW"]
