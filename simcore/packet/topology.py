"""Ready-made topologies: a dumbbell (N host pairs across one bottleneck) and a chain of hops."""

from __future__ import annotations

from dataclasses import dataclass, replace

from simcore._validate import check_bool, check_instance, check_int

from .params import Link, LinkParams, Network

__all__ = ["Dumbbell", "dumbbell", "chain"]


@dataclass(frozen=True)
class Dumbbell:
    """A dumbbell network and the indices needed to use it.

    Nodes: 0 = left router, 1 = right router, ``left[i]`` / ``right[i]`` = the i-th host pair.
    ``bottleneck_link`` is the left->right bottleneck, ``reverse_link`` right->left.
    """

    network: Network
    left: tuple[int, ...]
    right: tuple[int, ...]
    bottleneck_link: int = 0
    reverse_link: int = 1
    router_left: int = 0
    router_right: int = 1

    @property
    def pairs(self) -> tuple[tuple[int, int], ...]:
        """Return the (left host, right host) pairs, e.g. for ``bulk_scenario``."""
        return tuple(zip(self.left, self.right, strict=True))


def dumbbell(
    n_pairs: int,
    bottleneck: LinkParams,
    access: LinkParams | None = None,
    reverse: LinkParams | None = None,
    symmetric_loss: bool = False,
) -> Dumbbell:
    """Return a ``Dumbbell`` of ``n_pairs`` host pairs across ``bottleneck`` (left -> right).

    ``access`` (default 1 Gbit/s, 0 delay, 10000 packets) joins each host to its router in both
    directions; ``reverse`` is the right -> left bottleneck (default: ``bottleneck`` without background
    traffic and without random loss). ``symmetric_loss=True`` gives the reverse bottleneck the
    bottleneck's ``loss_prob`` and ``loss_where`` too (one setting for loss on both directions, e.g.
    a lossy satellite hop; ACKs are then lost as well). ``drop_sequence`` is never copied: it numbers
    the packets of one link.
    """
    check_int("n_pairs", n_pairs, 1, 10**5)
    check_instance("bottleneck", bottleneck, LinkParams)
    for name, value in (("access", access), ("reverse", reverse)):
        if value is not None:
            check_instance(name, value, LinkParams)
    check_bool("symmetric_loss", symmetric_loss)
    if access is None:
        access = LinkParams(rate_bps=1e9, delay_s=0.0, queue_packets=10000)
    if reverse is None:
        reverse = replace(bottleneck, background=None, loss_prob=0.0, drop_sequence=())
    if symmetric_loss:
        reverse = replace(reverse, loss_prob=bottleneck.loss_prob, loss_where=bottleneck.loss_where)
    links = [Link(0, 1, bottleneck), Link(1, 0, reverse)]
    left = tuple(2 + i for i in range(n_pairs))
    right = tuple(2 + n_pairs + i for i in range(n_pairs))
    for a, b in zip(left, right, strict=True):
        links += [Link(a, 0, access), Link(0, a, access), Link(1, b, access), Link(b, 1, access)]
    return Dumbbell(Network(2 + 2 * n_pairs, tuple(links)), left, right)


def chain(n_hops: int, forward: LinkParams, reverse: LinkParams | None = None) -> Network:
    """Return nodes 0..n_hops joined in a line; link 2i is i -> i+1 (``forward``), 2i+1 the way back
    (``reverse``, default ``forward``: then its loss settings apply to both directions)."""
    check_int("n_hops", n_hops, 1, 10**4)
    check_instance("forward", forward, LinkParams)
    if reverse is not None:
        check_instance("reverse", reverse, LinkParams)
    links: list[Link] = []
    for i in range(n_hops):
        links += list(Network.duplex(i, i + 1, forward, reverse))
    return Network(n_hops + 1, tuple(links))
