"""Routes: fewest hops, ties to the lowest link index, one search per source (cached)."""

from collections import deque

import numpy as np
import pytest

from simcore.packet import Link, LinkParams, Network, dumbbell


def _naive_route(net, src, dst):
    """The definition, as plainly as possible: breadth-first search scanning every link at every node."""
    prev = {src: -1}
    todo = deque([src])
    while todo:
        u = todo.popleft()
        for i, lk in enumerate(net.links):
            if lk.src == u and lk.dst not in prev:
                prev[lk.dst] = i
                todo.append(lk.dst)
    if dst not in prev:
        return None
    path, v = [], dst
    while v != src:
        path.append(prev[v])
        v = net.links[prev[v]].src
    return tuple(reversed(path))


def test_routes_match_the_definition_on_random_graphs_with_parallel_links_and_ties():
    rng = np.random.default_rng(5)
    for _ in range(20):
        n = int(rng.integers(3, 9))
        pairs = [(int(a), int(b)) for a, b in rng.integers(0, n, size=(int(rng.integers(n, 3 * n)), 2)) if a != b]
        net = Network(n, tuple(Link(a, b, LinkParams()) for a, b in pairs))
        for s in range(n):
            for d in range(n):
                if s == d:
                    continue
                want = _naive_route(net, s, d)
                if want is None:
                    with pytest.raises(ValueError, match="no path"):
                        net.route(s, d)
                else:
                    assert net.route(s, d) == want


def test_a_thousand_host_pairs_route_without_scanning_every_link_per_node():
    db = dumbbell(1000, LinkParams())
    net = db.network
    a, b = db.pairs[-1]
    assert net.route(a, b) == (len(net.links) - 4, 0, len(net.links) - 2)  # access, bottleneck, access
    assert net.route(b, a) == (len(net.links) - 1, 1, len(net.links) - 3)
    assert net == dumbbell(1000, LinkParams()).network  # the cache is not part of equality
