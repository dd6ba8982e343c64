"""The congestion-control seam (``simcore.packet.tcp.cc``): every algorithm answers every hook, every recovery
runs with every congestion control, and each reduces the window by its RFC's factor, computed here by hand."""

import ast
import inspect

import numpy as np
import pytest
from numba import njit

from simcore.packet import (
    CONGESTION_CONTROLS,
    RECOVERIES,
    Connection,
    Link,
    LinkParams,
    Message,
    Network,
    Scenario,
    TcpParams,
    simulate,
)
from simcore.packet.simulate import _build
from simcore.packet.tcp.cc import dispatch, registry
from simcore.packet.tcp.cc.dispatch import cc_init, cc_on_ecn

HOOKS = ("init", "ack", "ssthresh", "congestion", "state", "ack_done", "ecn")
DISPATCH = {"init": "cc_init", "ack": "cc_ack", "ssthresh": "cc_ssthresh", "congestion": "cc_congestion",
            "state": "cc_state", "ack_done": "cc_ack_done", "ecn": "cc_on_ecn"}
# the window left by a loss, as a fraction of FlightSize: RFC 5681 eq. 4, RFC 9438 sec. 4.6
BETA = {"reno": 0.5, "cubic": 0.7}


def test_every_registered_algorithm_defines_every_hook_and_a_name():
    assert registry.NAMES == CONGESTION_CONTROLS and len(set(registry.NAMES)) == len(registry.NAMES)
    for m in registry.MODULES:
        missing = [f for f in HOOKS if not hasattr(m, f)]
        assert not missing, f"{m.__name__} lacks hooks {missing}"
        assert isinstance(m.FIELDS, str)
        for name in m.FIELDS.split():
            assert name.startswith(m.NAME + "_"), f"{m.__name__}: state field {name} lacks the prefix {m.NAME}_"


def test_every_hook_of_the_dispatch_reaches_every_registered_algorithm():
    """A registered algorithm whose branch a hook lacks would silently run nothing there: each ``cc_*`` function
    of ``dispatch`` must call ``<module>.<hook>`` of every module in ``registry.MODULES``."""
    tree = ast.parse(inspect.getsource(dispatch))
    funcs = {f.name: f for f in tree.body if isinstance(f, ast.FunctionDef)}
    for hook, fname in DISPATCH.items():
        called = {(n.value.id, n.attr) for n in ast.walk(funcs[fname])
                  if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)}
        for m in registry.MODULES:
            short = m.__name__.rsplit(".", 1)[1]
            assert (short, hook) in called, f"dispatch.{fname} has no branch for {short}.{hook}"


def _fast_retransmit_run(recovery, cc):
    # 8 Mbit/s each way, 50 ms one way, MSS 1000, IW 10 segments, an ACK per segment, no Limited Transmit;
    # segment 3 lost. ACKs of segments 1 and 2 grow cwnd to 12 segments in slow start and send segments 11-14;
    # the third duplicate ACK (segment 6's) finds FlightSize = 14000 - 2000 = 12000 bytes.
    fwd = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=1000, drop_sequence=(3,))
    back = LinkParams(rate_bps=8e6, delay_s=0.05, queue_packets=1000)
    tcp = TcpParams(recovery=recovery, congestion_control=cc, mss_bytes=1000, initial_window_segments=10,
                    rwnd_bytes=1 << 20, min_rto_s=1.0)
    net = Network(2, (Link(0, 1, fwd), Link(1, 0, back)))
    sc = Scenario(net, (Connection(0, 1, tcp),), (Message(0, 60_000),), duration_s=20.0)
    return simulate(sc, trace=True)


@pytest.mark.parametrize("cc", CONGESTION_CONTROLS)
@pytest.mark.parametrize("recovery", RECOVERIES)
def test_any_recovery_with_any_congestion_control_reduces_by_the_algorithms_factor(recovery, cc):
    r = _fast_retransmit_run(recovery, cc)
    assert r.delivered_bytes[0, 0] == 60_000
    assert r.fast_retransmits[0, 0] == 1 and r.timeouts[0, 0] == 0
    tr = r.tcp_trace
    dup = np.flatnonzero((tr.event == 1) & (tr.direction == 0))
    entry = dup[2]  # the third duplicate ACK
    ss = BETA[cc] * 12_000
    assert tr.ssthresh_bytes[entry] == pytest.approx(ss)
    # the recovery sets cwnd from it: RFC 5681 / 6582 inflate by DupThresh segments, RFC 6675 does not
    assert tr.cwnd_bytes[entry] == pytest.approx(ss + (0 if recovery == "sack" else 3000))
    assert np.all(tr.ssthresh_bytes[:entry] > 1e29)  # not set before the loss


@njit
def _init_and_echo(S, h, t):
    cc_init(S, h, t)
    cc_on_ecn(S, h, t)


def _state(cc):
    tcp = TcpParams(congestion_control=cc)
    net = Network(2, (Link(0, 1, LinkParams()), Link(1, 0, LinkParams())))
    sc = Scenario(net, (Connection(0, 1, tcp),), (Message(0, 1000),), duration_s=1.0)
    return _build(sc, np.zeros(2, np.uint64), False, {})[0]


@pytest.mark.parametrize("cc", CONGESTION_CONTROLS)
@pytest.mark.parametrize("flight_segments", [20, 1])
def test_an_ecn_echo_reduces_as_the_rfcs_say(cc, flight_segments):
    """RFC 3168 sec. 6.1.2 with Reno: ssthresh = cwnd = max(FlightSize / 2, 2 SMSS); RFC 9438 sec. 4.6 with
    CUBIC: cwnd = max(0.7 FlightSize, 1 SMSS), ssthresh = max(0.7 FlightSize, 2 SMSS)."""
    S = _state(cc)
    S.conn["cc"][0] = CONGESTION_CONTROLS.index(cc)  # the slot's row, filled when a connection takes it
    S.conn["mss"][0] = 1000
    S.half["snd_una"][0] = 5000
    S.half["snd_max"][0] = 5000 + 1000 * flight_segments
    S.half["cwnd"][0] = 1000.0 * flight_segments
    _init_and_echo(S, 0, 1.0)
    flight = 1000 * flight_segments
    if cc == "reno":
        expect = (max(flight / 2, 2000), max(flight / 2, 2000))
    else:
        expect = (max(0.7 * flight, 1000), max(0.7 * flight, 2000))
    assert (S.half["cwnd"][0], S.half["ssthresh"][0]) == pytest.approx(expect)
    if cc == "cubic":  # the window at the event is W_max and cwnd_prior (first event: no fast convergence)
        assert S.cc["cubic_w_max_seg"][0] == S.cc["cubic_prior_seg"][0] == flight_segments
        assert S.cc["cubic_epoch_s"][0] < 0
