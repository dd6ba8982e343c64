"""Two pieces of the packet kernels' plumbing, against oracles written out here in plain Python:

- ``kernel.link.alloc`` / ``release``: the free list holds only released packet slots and the never-used ones come
  from a high-water mark (``st.pkt_hw``); the slots must come out exactly as from one stack holding every
  slot, lowest on top (so runs are unchanged), and a full pool must raise its flag;
- ``kernel.link.link_drain``: it forgets the queued items that have left by ``t``; when the link's last departure
  (``free_at``) has passed it skips the ring, which must give the same head, count and bytes as the scan.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from simcore.packet.kernel import layout as L
from simcore.packet.kernel.link import alloc, link_drain, release


def _state(**tables) -> L.State:
    """A ``State`` with only the tables a test needs (the kernels' own type; see ``test_lanes._queue``)."""
    unused = {f: np.zeros(1, np.int64) for f in L.State._fields}
    return L.State(**dict(unused, st=np.zeros(1, L.STATUS), **tables))


@njit
def _replay(S, ops, out):
    """ops[i] >= 0: release the slot taken by allocation ops[i]; -1: allocate. out[i]: the slot allocated (-1
    when the pool was full)."""
    for i in range(ops.shape[0]):
        if ops[i] < 0:
            out[i] = alloc(S)
        else:
            if out[ops[i]] >= 0:  # that allocation found the pool full: nothing to give back
                release(S, out[ops[i]])
            out[i] = -2


def test_packet_slots_come_as_from_one_stack_of_every_slot():
    rng = np.random.default_rng(3)
    for pool, n, most in ((4, 40, 6), (50, 2000, 40)):  # at most `most` held: the small pool fills, the other not
        ops = np.full(n, -1, np.int64)
        held: list[int] = []
        for i in range(n):  # allocate or release a held one, at random
            if held and (len(held) >= most or rng.random() < 0.45):
                ops[i] = held.pop(rng.integers(len(held)))
            else:
                held.append(i)
        S = _state(pkt=np.zeros(pool, L.PKT), pkt_free=np.zeros(pool, np.int64), conn=np.zeros(1, L.CONN))
        out = np.zeros(n, np.int64)
        _replay(S, ops, out)
        stack = list(range(pool - 1, -1, -1))  # the oracle: every slot on one stack, lowest on top
        expect = []
        for i in range(n):
            if ops[i] < 0:
                expect.append(stack.pop() if stack else -1)
            else:
                if expect[ops[i]] >= 0:
                    stack.append(expect[ops[i]])
                expect.append(-2)
        assert out.tolist() == expect
        full = -1 in expect
        assert bool(S.st[0]["flags"] & L.OVF_POOL) == full
        assert pool == 4 and full or pool == 50 and not full  # both cases are exercised


def _link_with(deps, nbytes, cap, head, fluid=0) -> L.State:
    link = np.zeros(1, L.LINK)
    ring = np.zeros(cap, L.RING)
    for j, (d, b) in enumerate(zip(deps, nbytes, strict=True)):
        ring[(head + j) % cap] = (d, b)
    link["ring_cap"] = cap
    link["ring_head"] = head
    link["ring_n"] = len(deps)
    link["qbytes"] = sum(nbytes)
    link["free_at"] = deps[-1] if deps else 0.0
    link["has_fluid"] = fluid
    return _state(link=link, ring=ring)


@njit
def _drain(S, t):
    link_drain(S, 0, t)


def test_drain_with_or_without_the_ring_forgets_what_has_left():
    deps = [1.0, 1.5, 2.5, 4.0]
    nbytes = [100.0, 200.0, 300.0, 400.0]
    for cap, head in ((4, 0), (6, 4), (5, 3)):  # rings that wrap
        for t in (0.5, 1.5, 3.0, 4.0, 9.0):  # before, on a departure, between, on the last (fast path), after
            S = _link_with(deps, nbytes, cap, head)
            _drain(S, t)
            gone = sum(d <= t for d in deps)
            lk = S.link[0]
            assert lk["ring_n"] == len(deps) - gone
            assert lk["ring_head"] == (head + gone) % cap
            assert lk["qbytes"] == (sum(nbytes[gone:]) if gone < len(deps) else 0.0)
    # continuous fluid: departures may go back (deps 5 then 3, free_at 3), so only the scan is right: at t = 4
    # nothing has left, the first item leaving at 5
    S = _link_with([5.0, 3.0], [100.0, 100.0], 4, 0, fluid=1)
    _drain(S, 4.0)
    assert S.link[0]["ring_n"] == 2 and S.link[0]["ring_head"] == 0
