r"""Closed forms for the page response time in the report's ideal world.

Notation (all delays in ms, sizes in bytes):

- :math:`d_{prop}` propagation delay, :math:`t_B` transmission delay per byte;
- a packet of :math:`s` bytes costs :math:`d(s) = d_{prop} + t_B s` when its link is idle;
- :math:`d_h = d(s_{syn})` for SYN and ACK, :math:`d_g = d(s_{get})` for a GET (1.2 adds its
  Close-after-this header), :math:`d_{304} = d(s_{ctrl})` for a 304, :math:`d_d = d(s_{data})` for a 200;
- :math:`N = P(1 + C)` objects, :math:`H` of them answered 304 (0 with the cache off);
- :math:`K` handshakes (SYN + ACK): :math:`K = N` for 1.0, :math:`K = 1` for 1.1,
  :math:`K = 1 + P\,[C > 0]` for 1.2 (one for the list of parents, one per parent for its children);
  :math:`K = 0` for 1.1 with ``warm_connection`` (the persistent connection left open by an earlier page).

**Stop-and-wait (the report's client).** The client sends a packet only after the previous one arrived,
so no two packets are ever in flight together: no packet waits for its link, and the response time is
simply the sum of the packet delays. Each handshake is 2 packets, each object one GET plus one response::

    T = 2K d_h + N d_g + H d_304 + (N - H) d_d
      = (2K + N + H + (N - H)) d_prop + t_B (2K s_syn + N s_get + H s_ctrl + (N - H) s_data).

**Pipelining (1.1/1.2 with ``pipelining=True``).** Within one list of :math:`n` objects the client sends
all GETs back to back from the moment :math:`t_0` the list can start. GET :math:`k` arrives at
:math:`A_k = t_0 + t_B k s_{get} + d_{prop}`; the server sends response :math:`k` when it arrived and the
previous response left the link: :math:`E_k = \max(A_k, E_{k-1}) + t_B r_k`. Unrolling the max-plus
recursion, :math:`E_n = \max_k (A_k + t_B \sum_{j \ge k} r_j)`, so the list costs

    2 d_prop + t_B max_{1<=k<=n} ( k s_get + sum_{j>=k} r_j ),

which for equal responses :math:`r` is :math:`2 d_{prop} + t_B \max(s_{get} + n r,\; n s_{get} + r)`.
Lists follow each other with idle links, so T is the sum of the lists plus :math:`2K d_h`.
"""

from __future__ import annotations

import numpy as np

from simcore._validate import check_instance
from simcore.delay.params import DelayParams, hit_mask

__all__ = ["n_handshakes", "packet_counts", "closed_form_ms", "formula_latex"]


def n_handshakes(params: DelayParams) -> int:
    """Return K, the number of SYN/ACK handshakes of the page (a count)."""
    P, C = params.n_parents, params.n_children
    if params.mode == "1.0":
        return params.n_objects
    if params.mode == "1.1":
        return 0 if params.warm_connection else 1
    return 1 + (P if C > 0 else 0)


def packet_counts(params: DelayParams) -> dict[str, int]:
    """Return the packet counts of one page: handshakes, control, data and total packets (counts)."""
    check_instance("params", params, DelayParams)
    K = n_handshakes(params)
    N, H = params.n_objects, params.n_hits
    return {
        "n_handshakes": K,
        "n_ctrl_packets": 2 * K + N + H,
        "n_data_packets": N - H,
        "n_packets": 2 * K + 2 * N,
    }


def _pipelined_lists_ms(params: DelayParams) -> float:
    """Return the summed cost of all pipelined request lists, ms (handshakes excluded)."""
    P, C = params.n_parents, params.n_children
    tb, sg = params.trans_ms_per_byte, params.get_size_bytes
    hits = hit_mask(params.n_objects, params.hit_ratio if params.cache else 0.0)
    resp = np.where(hits, params.ctrl_size_bytes, params.data_size_bytes)
    lists = [np.arange(P) * (C + 1)]
    if C > 0:
        lists += [p * (C + 1) + 1 + np.arange(C) for p in range(P)]
    total = 0.0
    for ids in lists:
        r = resp[ids]
        n = r.shape[0]
        suffix = np.cumsum(r[::-1])[::-1]  # sum_{j >= k} r_j
        k = np.arange(1, n + 1)
        total += 2.0 * params.prop_delay_ms + tb * float(np.max(k * sg + suffix))
    return total


def closed_form_ms(params: DelayParams) -> float:
    """Return the page response time T in ms from the closed form (see the module docstring)."""
    check_instance("params", params, DelayParams)
    d = params.prop_delay_ms
    tb = params.trans_ms_per_byte
    K = n_handshakes(params)
    d_h = d + tb * params.syn_size_bytes
    if params.pipelining and params.mode != "1.0":
        return 2 * K * d_h + _pipelined_lists_ms(params)
    N, H = params.n_objects, params.n_hits
    d_g = d + tb * params.get_size_bytes
    d_304 = d + tb * params.ctrl_size_bytes
    d_d = d + tb * params.data_size_bytes
    return 2 * K * d_h + N * d_g + H * d_304 + (N - H) * d_d


def _fmt(x: float) -> str:
    return f"{x:g}"


def formula_latex(params: DelayParams, *, substitute: bool = True) -> str:
    """Return the closed form for ``params``'s mode as a markdown string with LaTeX ($$...$$).

    With ``substitute`` the numbers of ``params`` are filled in and the total (ms) is shown.
    """
    mode = params.mode
    K_txt = {"1.0": "K = N", "1.1": "K = 0" if params.warm_connection else "K = 1",
             "1.2": r"K = 1 + P\,[C>0]"}[mode]
    piped = ", pipelined" if params.pipelining and mode != "1.0" else ""
    cached = ", cache on" if params.cache else ""
    lines = [f"**HTTP/{mode} ({params.mode_name}{piped}{cached})**", ""]
    defs = (r"$$d_x = d_{prop} + t_B\,s_x,\qquad N = P(1+C),\qquad " + K_txt
            + r",\qquad H = \lfloor N h \rfloor \text{ (0 without cache)}$$")
    if params.pipelining and mode != "1.0":
        lines.append(r"$$T = 2K\,d_h + \sum_{\text{lists}} \Big[2\,d_{prop} + t_B \max_{1\le k\le n}"
                     r"\Big(k\,s_{get} + \sum_{j\ge k} r_j\Big)\Big]$$")
    else:
        lines.append(r"$$T = 2K\,d_h + N\,d_{get} + H\,d_{304} + (N-H)\,d_{data}$$")
    lines.append(defs)
    if substitute:
        c = packet_counts(params)
        tb, d = params.trans_ms_per_byte, params.prop_delay_ms
        subs = (
            rf"$$P={params.n_parents},\ C={params.n_children},\ N={params.n_objects},\ "
            rf"K={c['n_handshakes']},\ H={params.n_hits};\quad "
            rf"d_h = {_fmt(d)} + {_fmt(tb)}\cdot{_fmt(params.syn_size_bytes)} = "
            rf"{_fmt(d + tb * params.syn_size_bytes)},\ "
            rf"d_{{get}} = {_fmt(d + tb * params.get_size_bytes)},\ "
            rf"d_{{304}} = {_fmt(d + tb * params.ctrl_size_bytes)},\ "
            rf"d_{{data}} = {_fmt(d + tb * params.data_size_bytes)}\ \text{{ms}}$$"
        )
        lines.append(subs)
        lines.append(rf"$$T = {closed_form_ms(params):.6g}\ \text{{ms}}$$")
    return "\n".join(lines)
