"""Presets of SCTP: ``SctpParams.preset(name)``, each value with the RFC section it comes from.

Two generations of the protocol, as in ``docs/sctp_presets.md``:

``rfc4960`` -- RFC 4960 (September 2007, today's SCTP; RFC 9260 of 2022 keeps these rules), and the
default ``SctpParams()``.
  - initial cwnd: min(4 MTU, max(2 MTU, 4380 bytes)) (sec. 7.2.1), ``initial_cwnd_mtus=None``.
  - fast retransmit on the 3rd miss indication (sec. 7.2.4: "wait for two further miss indications ...
    for a total of three"), counted by the HTNA rule (sec. 7.2.4: only TSNs below the highest TSN newly
    acknowledged by the SACK gain a miss indication, all reported ones while in Fast Recovery).
  - Fast Recovery (sec. 7.2.4): cwnd and ssthresh are cut once per recovery, which ends when the
    cumulative TSN ack reaches the highest TSN outstanding at its start.
  - ssthresh floor 4 MTU on fast retransmit and T3-rtx (sec. 7.2.3); idle decay of cwnd to
    max(cwnd/2, 4 MTU) per RTO without sending (sec. 7.2.1).
  - RTO.Initial 3 s, RTO.Min 1 s, RTO.Max 60 s, RTO.Alpha 1/8, RTO.Beta 1/4, Max.Burst 4,
    Max.Init.Retransmits 8 (sec. 15); SACK delay at most 200 ms, a SACK for at least every second
    packet (sec. 6.2).
  - Max.Burst applied by lowering cwnd to flightsize + Max.Burst * MTU before new data is sent, the
    first of the two ways sec. 6.1 D allows (the other: emit at most Max.Burst packets per call).

``rfc2960`` -- RFC 2960 (October 2000) with the implementers' guide (draft-ietf-tsvwg-sctpimpguide-07,
October 2002, later RFC 4460), which the KAME stack of the FTP/SCTP study (snapshot of 14 October
2002, chapter 3) followed; the study cites the guide's sec. 6.1 Max.Burst rule for its slow design.
  - initial cwnd 2 MTU: "MUST be set to no more than 2*MTU" (RFC 2960 sec. 7.2.1).
  - fast retransmit on the 4th miss indication: "wait for 3 further miss indications (via subsequent
    SACK's)" (RFC 2960 sec. 7.2.4); every SACK that reports a TSN missing counts (no HTNA).
  - no Fast Recovery: each fast retransmit event cuts cwnd (RFC 2960 sec. 7.2.3, 7.2.4).
  - ssthresh floor 2 MTU: ssthresh = max(cwnd/2, 2*MTU) (RFC 2960 sec. 7.2.3); idle decay to
    max(cwnd/2, 2*MTU) per RTO (RFC 2960 sec. 7.2.1).
  - Max.Burst 4 by lowering cwnd before new data (implementers' guide sec. 6.1, the rule the study
    blames for its design 3); RTO.Initial 3 s, RTO.Min 1 s, RTO.Max 60 s, Max.Burst 4,
    Max.Init.Retransmits 8 (RFC 2960 sec. 14); SACK within 200 ms, at least every second packet
    (RFC 2960 sec. 6.2).
  approximated: whatever the KAME code did beyond the RFC and the guide (its exact SACK timer, its
  cookie contents) is not modelled; the HTNA rule is off because RFC 2960's text has none (whether the
  2002 KAME code already applied it was not checked against its source).

Not from an RFC (both presets): the receiver window ``rwnd_bytes`` (a socket buffer: the chapter
chooses), the state cookie's size ``cookie_bytes`` (the RFCs leave its contents to the implementation:
it carries at least a MAC, a timestamp and the parameters of the INIT and INIT-ACK; 200 bytes is a
decision, within what real stacks send), and the number of streams.
"""

from __future__ import annotations

from simcore._validate import check_choice

__all__ = ["SCTP_PRESETS", "sctp_preset_fields"]

SCTP_PRESETS: dict[str, dict] = {
    "rfc4960": dict(),
    "rfc2960": dict(initial_cwnd_mtus=2, miss_indications=4, htna=False, fast_recovery=False,
                    ssthresh_min_mtus=2, idle_cwnd_min_mtus=2),
}


def sctp_preset_fields(name: str) -> dict:
    """Return the SctpParams fields of preset ``name`` (a copy)."""
    check_choice("name", name, tuple(SCTP_PRESETS))
    return dict(SCTP_PRESETS[name])
