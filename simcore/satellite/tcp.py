"""The TCP of the satellite study: the one place choosing it (the paper's simulator ran 4.4BSD-Lite's code).

``era_tcp(mss, rwnd)`` is ``TcpParams.preset("bsd44lite", mss_bytes=mss, rwnd_bytes=rwnd)``: Reno, initial
window 1 segment, delayed ACK every second segment or on the 200 ms fast-timer tick, 500 ms slow-timer
ticks, RTO 3 s before any sample, 1 s minimum, 64 s maximum, restart after idle (values and sources:
``simcore.packet.presets`` and docs/tcp_presets.md). The study's socket buffers (32767 at the proxies,
"as measured" at the servers) replace the preset's 8 KB ``tcp_recvspace``.

Beyond the paper the chapter can switch every connection to the ``linux`` preset (CUBIC, SACK, IW 10, 40 ms
delayed ACK, 200 ms minimum RTO, timestamps: each segment then carries 12 bytes less data).
"""

from __future__ import annotations

from functools import lru_cache

from simcore._validate import check_choice
from simcore.packet import TcpParams

__all__ = ["era_tcp", "ERA_TCP_NAME", "TCP_PRESETS"]

ERA_TCP_NAME = "4.4BSD-Lite (TcpParams.preset('bsd44lite'))"
TCP_PRESETS = ("bsd44lite", "linux")  # the paper's era, and today's for the beyond-the-paper switch


@lru_cache(maxsize=4096)
def era_tcp(mss_bytes: int, rwnd_bytes: int, preset: str = "bsd44lite") -> TcpParams:
    """Return the study's TCP with this MSS and window (bytes); cached: many connections share a few."""
    check_choice("preset", preset, TCP_PRESETS)
    return TcpParams.preset(preset, mss_bytes=int(mss_bytes), rwnd_bytes=int(rwnd_bytes))
