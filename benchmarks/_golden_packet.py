"""Golden hashes of simcore.packet results: a refactoring of the kernel must leave every array bit-identical.

Run: .venv/bin/python benchmarks/_golden_packet.py --write FILE   (before the change)
     .venv/bin/python benchmarks/_golden_packet.py --check FILE   (after: prints every scenario that differs)

The scenarios cover every kernel path: the three variants with random loss, every other congestion control
with each of them, each era preset with Reno's window and with its own congestion control (a scenario added
later is checked once a file written after it holds it), drop_sequence, loss on arrival, multistream, relays,
pools, non-persistent connections (row recycling), CBR and both fluid background granularities, timestamps,
each era preset, delayed ACKs, traces on, 4.4BSD's tick timers with a retransmission timeout, connection
slots given back and taken again (more than 4096 connections), each queue discipline with drops and with ECN
marks, and spared retransmissions.
"""

from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import sys

import numpy as np

from simcore.packet import (
    CONGESTION_CONTROLS,
    CbrSource,
    CoDelParams,
    Connection,
    ConnectionPool,
    FluidBackground,
    FqCoDelParams,
    LinkParams,
    Message,
    Network,
    RedParams,
    Scenario,
    SctpParams,
    TcpParams,
    bulk_scenario,
    chain,
    dumbbell,
    request_response_scenario,
    simulate,
)
from simcore.packet.presets import PRESETS


def _scenarios():
    bn = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=30, loss_prob=0.01)
    for v in ("reno", "newreno", "sack"):
        db = dumbbell(4, bn)
        yield f"dumbbell-{v}", bulk_scenario(db.network, db.pairs, TcpParams(variant=v), 8.0,
                                             [0.01 * i for i in range(4)]), True
        yield f"dumbbell-{v}-lt-dack", bulk_scenario(
            db.network, db.pairs, TcpParams(variant=v, limited_transmit=True, delayed_ack=True,
                                            dupack_threshold=4), 8.0, [0.01 * i for i in range(4)]), False
    arr = dumbbell(3, LinkParams(rate_bps=5e6, delay_s=0.03, queue_packets=20, loss_prob=0.02,
                                 loss_where="arrival"), symmetric_loss=True)
    yield "arrival-loss-symmetric", bulk_scenario(arr.network, arr.pairs, TcpParams(variant="sack"), 8.0), True
    for name in PRESETS:
        db = dumbbell(2, bn)
        # each preset with Reno's window (as before congestion control was a choice), and with its own if not Reno
        yield f"preset-{name}", bulk_scenario(db.network, db.pairs, TcpParams.preset(name, congestion_control="reno"),
                                              8.0), True
        if TcpParams.preset(name).congestion_control != "reno":
            yield f"preset-{name}-own-cc", bulk_scenario(db.network, db.pairs, TcpParams.preset(name), 8.0), True
    for v in ("reno", "newreno", "sack"):
        net = chain(1, LinkParams(rate_bps=2e6, delay_s=0.05, queue_packets=100, drop_sequence=(20, 22, 23, 40)))
        yield f"drops-{v}", bulk_scenario(net, [(0, 1)], TcpParams(variant=v, initial_window_segments=4), 5.0), True
        for cc in CONGESTION_CONTROLS[1:]:  # every other congestion control with every recovery
            yield f"drops-{v}-{cc}", bulk_scenario(net, [(0, 1)], TcpParams(
                recovery=v, congestion_control=cc, initial_window_segments=4), 5.0), True
    yield "timestamps", bulk_scenario(dumbbell(2, bn).network, dumbbell(2, bn).pairs,
                                      TcpParams(variant="sack", timestamps=True), 6.0), True
    lk = LinkParams(rate_bps=4e6, delay_s=0.03, queue_packets=40, loss_prob=0.01)
    msgs = tuple(Message(0, 20_000 + 3000 * k, "client", stream=k % 4, start_time_s=0.01 * k) for k in range(12))
    yield "multistream", Scenario(chain(1, lk), (Connection(0, 1, TcpParams(variant="sack"), multistream=True,
                                                            closer="client"),), msgs, duration_s=10.0), True
    sat = LinkParams(rate_bps=2e6, delay_s=0.275, queue_packets=50, loss_prob=0.005)
    lan = LinkParams(rate_bps=100e6, delay_s=0.005, queue_packets=1000)
    net3 = Network(3, Network.duplex(0, 1, lan) + Network.duplex(1, 2, sat))
    conns = (Connection(2, 1, TcpParams(initial_window_segments=10, rwnd_bytes=1 << 20)),
             Connection(1, 0, TcpParams(rwnd_bytes=1 << 20)))
    rmsgs = (Message(0, 300, "client"), Message(1, 300, "client", relay_of=0),
             Message(1, 200_000, "server", after_message=1), Message(0, 200_000, "server", relay_of=2))
    yield "relay", Scenario(net3, conns, rmsgs, duration_s=20.0), True
    pconns = tuple(Connection(0, 1, TcpParams()) for _ in range(3))
    pmsgs = [Message(None, 100_000 + 7000 * k, start_time_s=0.1 * k, pool=k % 2) for k in range(10)]
    yield "pools", Scenario(chain(1, lk), pconns, tuple(pmsgs), duration_s=15.0,
                            pools=(ConnectionPool((0, 1, 2)), ConnectionPool((0, 1, 2), "round_robin"))), True
    yield "http10", request_response_scenario(chain(1, lk), 0, 1, 300, [3000 + 500 * k for k in range(40)],
                                              persistent=False, duration_s=30.0), True
    yield "http11-pipelined", request_response_scenario(chain(1, lk), 0, 1, 300, [8000] * 20,
                                                        TcpParams(variant="sack", delayed_ack=True),
                                                        pipelined=True, duration_s=30.0), True
    for gran in ("packets", "continuous"):
        fb = LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50,
                        background=FluidBackground((0.0, 2.0, 4.0), (2e6, 7e6, 3e6), 1500, gran))
        db = dumbbell(2, fb)
        yield f"fluid-{gran}", bulk_scenario(db.network, db.pairs, TcpParams(), 6.0), gran == "packets"
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=50))
    cbr = (CbrSource(db.left[0], db.right[0], (3e6, 0.0, 5e6), (0.0, 1.0, 2.0), 1000, 0.5, 5.0),)
    yield "cbr", bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), 6.0, cbr=cbr), True
    # 4.4BSD-Lite: delayed ACKs on 200 ms ticks, 500 ms timer ticks; each loss comes while the window (8 KB
    # receive window, initial window 1) leaves too few duplicate ACKs, so the retransmission timer fires (twice)
    net = chain(1, LinkParams(rate_bps=2e6, delay_s=0.05, queue_packets=100, drop_sequence=(3, 25)))
    yield "bsd44lite-delack-rto", bulk_scenario(net, [(0, 1)], TcpParams.preset("bsd44lite"), 12.0), True
    yield "slot-recycling", _slot_recycling(), False
    yield from _aqm_scenarios()
    yield from _sctp_scenarios()


def _aqm_scenarios():
    """Queue disciplines at the bottleneck (kernel.qdisc): CoDel, FQ-CoDel and RED, each dropping (no ECN) under
    NewReno and marking (ECN end to end) under CUBIC, with random losses so that the seed matters; one of each
    traced (the sojourn trace); and drop-tail sparing TCP's retransmissions from its random losses."""
    qs = {"codel": (CoDelParams(), CoDelParams(ecn=True)), "fq_codel": (FqCoDelParams(ecn=False), FqCoDelParams()),
          "red": (RedParams(), RedParams(ecn=True))}
    for name, (plain, marking) in qs.items():
        for q, tcp, tag, trace in ((plain, TcpParams(variant="newreno"), "drop", False),
                                   (marking, TcpParams(variant="sack", congestion_control="cubic", ecn=True),
                                    "ecn-cubic", True)):
            db = dumbbell(3, LinkParams(rate_bps=8e6, delay_s=0.02, queue_packets=150, loss_prob=0.002, queue=q))
            yield f"aqm-{name}-{tag}", bulk_scenario(db.network, db.pairs, tcp, 6.0, [0.0, 0.2, 0.4]), trace
    db = dumbbell(2, LinkParams(rate_bps=10e6, delay_s=0.02, queue_packets=30, loss_prob=0.02,
                                spared_retransmissions=("tcp",)))
    yield "spared-retx", bulk_scenario(db.network, db.pairs, TcpParams(variant="sack"), 6.0), True


def _slot_recycling(n_conn=5000, n_servers=3):
    """More short connections than the first slot table holds (4096 below 65,536 connections,
    simulate._first_rows), so slots are given back and taken again (S.st[0].recycle): sequential
    request/response exchanges, one connection each, from one client to three servers over 1 Mbit/s links
    with a few random losses."""
    lk = LinkParams(rate_bps=1e6, delay_s=0.002, queue_packets=50, loss_prob=0.002)
    net = Network(n_servers + 1, tuple(d for s in range(1, n_servers + 1) for d in Network.duplex(0, s, lk)))
    conns, msgs = [], []
    for k in range(n_conn):
        t = 0.03 * k
        conns.append(Connection(0, 1 + k % n_servers, TcpParams(), open_time_s=t, closer="server"))
        msgs.append(Message(k, 300, "client", start_time_s=t))
        msgs.append(Message(k, 1000 + 100 * (k % 7), "server", after_message=2 * k))
    return Scenario(net, tuple(conns), tuple(msgs), duration_s=0.03 * n_conn + 5.0)


def _sctp_scenarios():
    """SCTP associations (chapter 3): both RFC generations, random and forced losses on either direction,
    handshake losses, several streams, both closers, Max.Burst rules, DATA on COOKIE-ECHO, idle decay, and
    SCTP beside TCP on one bottleneck."""
    def path(fwd_drops=(), back_drops=(), loss=0.0, rate=4e6, queue=40):
        fwd = LinkParams(rate_bps=rate, delay_s=0.03, queue_packets=queue, loss_prob=loss, drop_sequence=fwd_drops)
        back = LinkParams(rate_bps=rate, delay_s=0.03, queue_packets=queue, loss_prob=loss, drop_sequence=back_drops)
        return Network(2, Network.duplex(0, 1, fwd, back))

    msgs = tuple(Message(0, 30_000 + 4000 * k, "client" if k % 3 else "server", stream=k % 5,
                         start_time_s=0.02 * k) for k in range(15))
    for preset in ("rfc4960", "rfc2960"):
        for closer in ("client", "server"):
            sp = SctpParams.preset(preset)
            yield f"sctp-{preset}-loss-{closer}", Scenario(
                path(loss=0.02), (Connection(0, 1, transport="sctp", sctp=sp, closer=closer),), msgs,
                duration_s=20.0), True
    variants = {
        "burst-packets-nodelack": SctpParams(max_burst_rule="packets", delayed_sack=False),
        "cookie-data-smallrwnd": SctpParams(cookie_echo_data=True, rwnd_bytes=8000, mtu_bytes=1000),
        "no-htna-no-fastrec": SctpParams(htna=False, fast_recovery=False, initial_cwnd_mtus=2, max_burst=0),
    }
    for name, sp in variants.items():
        yield f"sctp-{name}", Scenario(path((3, 9, 10, 30), (4, 20, 21, 22)), (
            Connection(0, 1, transport="sctp", sctp=sp, closer="client"),), msgs, duration_s=20.0), True
    # lost INIT, lost COOKIE-ECHO, lost INIT-ACK: T1-init backs off; idle gaps between messages
    gaps = tuple(Message(0, 20_000, start_time_s=4.0 * k) for k in range(4))
    yield "sctp-handshake-loss-idle", Scenario(path((0, 2), (0,)), (
        Connection(0, 1, transport="sctp", closer="client"),), gaps, duration_s=40.0), True
    # SCTP and TCP share a lossy bottleneck; request/response over SCTP beside bulk TCP
    db = dumbbell(3, LinkParams(rate_bps=6e6, delay_s=0.02, queue_packets=25, loss_prob=0.01))
    conns = (Connection(db.left[0], db.right[0], transport="sctp", closer="client"),
             Connection(db.left[1], db.right[1], TcpParams(variant="sack")),
             Connection(db.left[2], db.right[2], transport="sctp", sctp=SctpParams.preset("rfc2960")))
    mix = (Message(0, 400, "client"), Message(0, 150_000, "server", after_message=0, stream=1),
           Message(1, None), Message(2, None, stream=3))
    yield "sctp-beside-tcp", Scenario(db.network, conns, mix, duration_s=15.0), True


def _digest(res) -> dict:
    out = {}
    for f in dataclasses.fields(res):
        v = getattr(res, f.name)
        if f.name == "scenario":
            continue
        if dataclasses.is_dataclass(v):
            for g in dataclasses.fields(v):
                out[f"{f.name}.{g.name}"] = _hash(getattr(v, g.name))
        else:
            out[f.name] = _hash(v)
    return out


def _hash(v) -> str:
    if v is None:
        return "None"
    a = np.asarray(v)
    raw = str(a.dtype).encode() + str(a.shape).encode() + np.ascontiguousarray(a).tobytes()
    return hashlib.sha256(raw).hexdigest()[:16]


def main() -> int:
    ap = argparse.ArgumentParser()
    g = ap.add_mutually_exclusive_group(required=True)
    g.add_argument("--write")
    g.add_argument("--check")
    args = ap.parse_args()
    got = {}
    for name, sc, trace in _scenarios():
        got[name] = _digest(simulate(sc, seed=7, trace=trace))
    if args.write:
        with open(args.write, "w") as f:
            json.dump(got, f, indent=1, sort_keys=True)
        print(f"wrote {len(got)} scenarios to {args.write}")
        return 0
    with open(args.check) as f:
        want = json.load(f)
    bad = [(n, k) for n in want for k in want[n] if got.get(n, {}).get(k) != want[n][k]]
    for n, k in bad:
        print(f"DIFFERS: {n}: {k}")
    print(f"{len(want)} scenarios, {sum(len(v) for v in want.values())} arrays: "
          f"{'all identical' if not bad else f'{len(bad)} differ'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
