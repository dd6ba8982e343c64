"""The readings of the paper's loss setting, each a plain record: which losses, on which pipe, and whether
retransmitted packets could be lost.

The paper (sec. 6) says only: *"We measured three configurations with varying packet loss ratio: 0, 0.1
and 0.3"*, after giving bandwidth and delay *"for the link from the client to the server and vice versa"*.
Neither the unit nor the direction of the loss is stated. Two years later the same lab found that its
Netbed experiments of 2004 had sent retransmissions over Netbed's error-free, no-delay control network
(Natarajan, Amer, Bickhart, Ladha, *Corrections on: Improving Multiple File Transfers Using SCTP
Multistreaming*); this paper also ran on Netbed with Dummynet. Each defensible reading is a ``Reading``;
the chapter runs the paper's designs under every one (``simcore.ftp.reading_sweep``) and judges the claims
under each (``simcore.ftp.claims``), without declaring one of them the right one.

``wording`` says how the reading fits the paper's words; the evidence from simulation (the paper's own
sample-size rule, the claims it reproduces) is computed, not written here.
"""

from __future__ import annotations

from dataclasses import dataclass

from simcore._validate import check_choice, store_python_numbers

from .params import LOSS_DIRECTIONS

__all__ = ["Reading", "READINGS", "reading", "reading_params"]


@dataclass(frozen=True)
class Reading:
    """One reading of "0, 0.1 and 0.3": ``losses`` (probabilities per packet), the pipe that loses packets
    (``loss_direction``, as ``FtpParams``), the transports whose retransmitted packets are never lost
    (``spared``: the Netbed control-network flaw; empty = every packet may be lost), a short ``label`` and
    how the reading fits the paper's words (``wording``)."""

    name: str
    label: str
    losses: tuple[float, float, float]
    loss_direction: str
    spared: tuple[str, ...]
    wording: str

    def __post_init__(self):
        store_python_numbers(self)
        for field in ("name", "label", "wording"):
            if type(getattr(self, field)) is not str:
                raise ValueError(f"{field}={getattr(self, field)!r} is not allowed: must be a str")
        check_choice("loss_direction", self.loss_direction, LOSS_DIRECTIONS)
        if type(self.spared) is not tuple:
            raise ValueError(f"spared={self.spared!r} is not allowed: must be a tuple of 'tcp' / 'sctp'")
        if type(self.losses) is not tuple or len(self.losses) != 3 or not all(
                type(p) is float for p in self.losses):
            raise ValueError(f"losses={self.losses!r} is not allowed: must be a tuple of three floats")
        for t in self.spared:
            check_choice("spared", t, ("tcp", "sctp"))
        if self.losses[0] != 0.0 or not 0.0 < self.losses[1] < self.losses[2] < 1.0:
            raise ValueError(f"losses={self.losses!r} is not allowed: must be 0 and two increasing probabilities")


_RATIO = "'loss ratio' and Dummynet's plr (a probability: plr 0.1 loses 10%) read as typed"
READINGS: dict[str, Reading] = {r.name: r for r in (
    Reading("percent", "0.1% / 0.3%, both ways", (0.0, 0.001, 0.003), "both", (),
            "the numbers read as percent: no unit is given, but 'ratio' and plr are fractions"),
    Reading("fraction", "10% / 30%, both ways", (0.0, 0.1, 0.3), "both", (), _RATIO + ", on both pipes"),
    Reading("fraction_c2s", "10% / 30%, client -> server only", (0.0, 0.1, 0.3), "client_to_server", (),
            _RATIO + "; 'vice versa' is said of bandwidth and delay, not of loss: one pipe, the one carrying "
            "commands and ACKs"),
    Reading("fraction_s2c", "10% / 30%, server -> client only", (0.0, 0.1, 0.3), "server_to_client", (),
            _RATIO + "; one pipe, the one carrying replies and file data"),
    Reading("between", "1% / 3%, both ways", (0.0, 0.01, 0.03), "both", (),
            "no reading of the words gives it: a point between the two units, to see where the claims start "
            "to hold"),
    Reading("spared_sctp", "10% / 30%, both ways, SCTP retransmissions never lost", (0.0, 0.1, 0.3), "both",
            ("sctp",), _RATIO + "; with the testbed flaw the authors found in their 2004 Netbed runs "
            "(retransmissions over the error-free control network), had it struck SCTP alone (an SCTP sender "
            "retransmits to another of a multihomed peer's addresses: RFC 2960 sec. 6.4)"),
    Reading("spared_all", "10% / 30%, both ways, no retransmission lost", (0.0, 0.1, 0.3), "both", ("tcp", "sctp"),
            _RATIO + "; with that flaw striking every transport's retransmissions"),
)}


def reading(name: str) -> Reading:
    """Return the ``Reading`` called ``name`` (a key of ``READINGS``)."""
    check_choice("name", name, tuple(READINGS))
    return READINGS[name]


def reading_params(r: Reading) -> dict:
    """Return the ``FtpParams`` fields a reading sets besides ``loss`` (``loss_direction``, ...)."""
    out: dict = {"loss_direction": r.loss_direction}
    if r.spared:
        out["spared_retransmissions"] = r.spared
    return out
