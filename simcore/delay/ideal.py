"""The report's ideal world, simulated packet by packet (exact discrete-event simulation).

The page is a document tree: ``n_parents`` parent files, each embedding ``n_children`` children. Objects
are numbered in document order (parent 0, its children, parent 1, its children, ...): parent ``p`` has id
``p (C + 1)`` and its child ``j`` id ``p (C + 1) + 1 + j``. The mode decides how the requests are grouped
into TCP connections (see :func:`connection_plan`); the kernel then sends every packet as one event.

The simulation is deterministic (no randomness, so no seed): for every configuration it must give the
closed form of :mod:`simcore.delay.closed_form` exactly; tests/delay checks that over a grid.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from simcore.delay._kernel import simulate_page
from simcore.delay.params import MODES, DelayParams, IdealResult, PacketTrace, hit_mask

__all__ = ["connection_plan", "simulate_ideal", "evaluate_modes", "evaluate"]


def connection_plan(params: DelayParams) -> tuple[list[list[int]], list[bool]]:
    """Return ``(connections, handshake)``: object ids per connection, and whether each opens with SYN/ACK.

    - 1.0: one connection per object, in document order (the client fetches a parent, then its
      children, recursively), each with a handshake;
    - 1.1: the same order on a single connection, one handshake (none with ``warm_connection``);
    - 1.2: the list of parents on one connection, then one connection per parent for its children
      (none when C = 0), each with a handshake.
    """
    P, C = params.n_parents, params.n_children
    parents = [p * (C + 1) for p in range(P)]
    children = [[p * (C + 1) + 1 + j for j in range(C)] for p in range(P)]
    if params.mode == "1.0":
        conns = [[i] for i in range(params.n_objects)]
        return conns, [True] * len(conns)
    first_hs = not params.warm_connection
    if params.mode == "1.1" and not params.pipelining:
        return [list(range(params.n_objects))], [first_hs]
    # 1.2, and pipelined 1.1: a list of parents, then each parent's list of children
    conns = [parents] + [ch for ch in children if ch]
    hs = [True] * len(conns) if params.mode == "1.2" else [first_hs] + [False] * (len(conns) - 1)
    return conns, hs


def _kernel_inputs(params: DelayParams):
    conns, hs = connection_plan(params)
    conn_ptr = np.zeros(len(conns) + 1, np.int64)
    conn_ptr[1:] = np.cumsum([len(c) for c in conns])
    conn_obj = np.fromiter((o for c in conns for o in c), np.int64, count=int(conn_ptr[-1]))
    conn_hs = np.asarray(hs, np.int64)
    n = params.n_objects
    hits = hit_mask(n, params.hit_ratio if params.cache else 0.0)
    get_bytes = np.full(n, params.get_size_bytes, np.float64)
    resp_bytes = np.where(hits, params.ctrl_size_bytes, params.data_size_bytes).astype(np.float64)
    resp_kind = np.where(hits, 4, 3).astype(np.int64)
    return conn_ptr, conn_obj, conn_hs, get_bytes, resp_bytes, resp_kind


def simulate_ideal(params: DelayParams) -> IdealResult:
    """Return the simulated page download (response time in ms and the full packet trace).

    Every packet is an event; its delay is ``prop_delay_ms + size_bytes * trans_ms_per_byte`` plus any
    wait for its own link (which only happens with pipelining). Raises ValueError for ``model="packet"``:
    that world lives in ``simcore.packet``.
    """
    if not isinstance(params, DelayParams):
        raise ValueError(f"params={params!r} is not allowed: must be a DelayParams")
    if params.model != "ideal":
        raise ValueError(
            f"model={params.model!r} is not allowed here: simulate_ideal runs model='ideal' only "
            "(the packet-level model is part 2 of the chapter, in simcore.packet)"
        )
    conn_ptr, conn_obj, conn_hs, get_b, resp_b, resp_k = _kernel_inputs(params)
    total, send, tx_end, arrive, from_srv, kind, size, obj, conn = simulate_page(
        conn_ptr, conn_obj, conn_hs, get_b, resp_b, resp_k, float(params.syn_size_bytes),
        float(params.prop_delay_ms), float(params.trans_ms_per_byte), bool(params.pipelining),
    )
    trace = PacketTrace(send, tx_end, arrive, from_srv, kind, size, obj, conn)
    n_data = int(np.count_nonzero(kind == 3))
    return IdealResult(
        params=params,
        response_time_ms=float(total),
        trace=trace,
        n_connections=int(conn_hs.shape[0]),
        n_ctrl_packets=trace.n_packets - n_data,
        n_data_packets=n_data,
    )


def evaluate_modes(params: DelayParams, *, simulate: bool = True) -> dict[str, dict[str, float]]:
    """Return ``{mode: {"closed_form_ms", "simulated_ms"}}`` for all three modes at ``params``'s other values.

    This is the "all modes overlaid" part of a slider update; ``simulate=False`` skips the simulation
    (``simulated_ms`` is then NaN).
    """
    from simcore.delay.closed_form import closed_form_ms

    out = {}
    for mode in MODES:
        p = replace(params, mode=mode)
        out[mode] = {
            "closed_form_ms": closed_form_ms(p),
            "simulated_ms": simulate_ideal(p).response_time_ms if simulate else float("nan"),
        }
    return out


def evaluate(params: DelayParams) -> dict:
    """Return one full slider update: ``{"result", "closed_form_ms", "modes"}`` (times in ms).

    ``result`` is the :class:`IdealResult` (with packet trace) of ``params``; ``modes`` is
    :func:`evaluate_modes` for all three modes. The chapter redraws its panel from this dict.
    """
    from simcore.delay.closed_form import closed_form_ms

    return {
        "result": simulate_ideal(params),
        "closed_form_ms": closed_form_ms(params),
        "modes": evaluate_modes(params),
    }
