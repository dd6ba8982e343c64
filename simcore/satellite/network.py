"""The satellite network: NZ end, US end, and the US servers as "slots" hanging off the US end.

Nodes: 0 = the NZ end (the NZ proxy, whose output buffer is the router buffer feeding the satellite),
1 = the US end (a router in the base case, the US proxy otherwise; its output buffer feeds the satellite
towards NZ), 2.. = server slots. Links: 0 = NZ -> US satellite, 1 = US -> NZ satellite, 2 + 2s = slot s ->
US end, 3 + 2s = US end -> slot s. A slot's link has the release rate and one-way US delay of its class
(the paper's regulated release, sec. 4): every reply of that slot reaches the US end at that rate.

Servers are slots rather than one node per request because today's engine gives every link a ring as
wide as the largest queue (memory ~ links x queue) and routes by scanning all links; a slot is reused once
its previous request is (by a generous estimate) over. ``StarNetwork.route`` returns the star's paths
directly (the same fewest-hop paths ``Network.route`` finds, tested), so setup does not scan the links.
"""

from __future__ import annotations

from simcore.packet import Link, LinkParams, Network

__all__ = ["StarNetwork", "star_network", "NZ", "US", "SAT_NZ_US", "SAT_US_NZ"]

NZ, US = 0, 1
SAT_NZ_US, SAT_US_NZ = 0, 1


class StarNetwork(Network):
    """A ``Network`` of two satellite ends and ``n_nodes - 2`` slots, with its paths known in advance."""

    def route(self, src: int, dst: int) -> tuple[int, ...]:
        """Return the link indices from ``src`` to ``dst`` (the fewest-hop path of the star)."""
        if src == dst or not (0 <= src < self.n_nodes and 0 <= dst < self.n_nodes):
            return super().route(src, dst)  # raises the standard error
        first = () if src == US else ((SAT_NZ_US,) if src == NZ else (2 + 2 * (src - 2),))
        if dst == US:
            return first
        last = (SAT_US_NZ,) if dst == NZ else (3 + 2 * (dst - 2),)
        return first + last


def star_network(satellite: LinkParams, satellite_back: LinkParams, slots: list[LinkParams]) -> StarNetwork:
    """Return the star: NZ -> US over ``satellite``, US -> NZ over ``satellite_back``, slot s both ways
    over ``slots[s]``."""
    links = [Link(NZ, US, satellite), Link(US, NZ, satellite_back)]
    for s, p in enumerate(slots):
        links += [Link(2 + s, US, p), Link(US, 2 + s, p)]
    return StarNetwork(2 + len(slots), tuple(links))
