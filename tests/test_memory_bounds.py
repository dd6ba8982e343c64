"""Size-like parameters are bounded by the memory a run needs, with the bound and its reason in the message
(issue 29: QueueParams(n_customers=10**8) passed validation and needed more than 2.5 GB)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from simcore._validate import MEMORY_BUDGET_BYTES, check_order

# bytes per unit a model is allowed by its bound, measured below in a fresh process
_MEASURE = """
import json, resource, sys
what, n = sys.argv[1], int(sys.argv[2])
def peak():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
if what == "queue":
    from simcore.queueing import QueueParams, simulate_queue
    simulate_queue(QueueParams(n_customers=10), 0)
    base = peak()
    r = simulate_queue(QueueParams(n_customers=n, arrival_rate_per_s=0.9, warmup_customers=n // 10), 1)
    r.wait_ci95_s(), r.mean_wait_s, r.throughput_per_s, r.whole_run_mean_sojourn_s
else:
    from simcore.fluid import FluidParams, simulate_fluid
    simulate_fluid(FluidParams(n_flows=10), 0)
    base = peak()
    simulate_fluid(FluidParams(n_flows=n), 1)
print(json.dumps((peak() - base) / n))
"""


def _bytes_per_unit(what: str, n: int) -> float:
    out = subprocess.run([sys.executable, "-c", _MEASURE, what, str(n)], capture_output=True, text=True,
                         timeout=300, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_queue_customers_are_bounded_by_memory():
    from simcore.queueing import QueueParams
    from simcore.queueing.model import BYTES_PER_CUSTOMER

    # by hand: arrival, service, wait, departure and the FIFO ring (8 bytes each) and blocked (1): 41 bytes,
    # and the statistics' mask and copies: the stated 64 must cover what a run really takes
    assert 41 <= BYTES_PER_CUSTOMER
    assert _bytes_per_unit("queue", 1_000_000) <= BYTES_PER_CUSTOMER
    most = 2**30 // 64
    assert most == 16_777_216
    QueueParams(n_customers=most)
    with pytest.raises(ValueError, match=r"n_customers=100000000 is out of range: must be an integer in "
                                         r"\[1, 16777216\] \(about 64 bytes per customer: at most 1 GiB\)"):
        QueueParams(n_customers=10**8)


def test_fluid_flows_are_bounded_by_memory():
    from simcore.fluid import FluidParams
    from simcore.fluid.bottleneck import BYTES_PER_FLOW

    assert 8 * 8 <= BYTES_PER_FLOW  # the result alone: eight float64 arrays per flow
    assert _bytes_per_unit("fluid", 400_000) <= BYTES_PER_FLOW
    with pytest.raises(ValueError, match=r"n_flows=50000000 .*\[1, 8388608\] \(about 128 bytes per flow"):
        FluidParams(n_flows=50_000_000)


def test_satellite_traces_are_bounded_by_the_requests_they_make():
    from simcore.satellite import SatelliteParams, WorkloadParams

    # 1 GiB at 2 KB a request is 524,288 requests: 1,245 traces of 421 requests, 524 of 1000
    SatelliteParams(n_traces=1245, duration_s=1.0)
    with pytest.raises(ValueError, match=r"n_traces=1246 is out of range: .*\[1, 1245\] \(421 requests each"):
        SatelliteParams(n_traces=1246, duration_s=1.0)
    with pytest.raises(ValueError, match=r"\[1, 524\]"):
        SatelliteParams(n_traces=525, duration_s=1.0, workload=WorkloadParams(requests_per_interval=1000.0))
    # the day-traces drawn: 256 bytes a request, 4,194,304 requests: 366 days of 11,459
    with pytest.raises(ValueError, match=r"n_days=366 is out of range: .*\[1, 4\] \(1e\+06 requests a day"):
        WorkloadParams(requests_per_interval=1e6, n_days=366)


def test_a_window_is_bounded_by_the_scoreboard_it_needs():
    from simcore.packet import SctpParams, TcpParams

    TcpParams(rwnd_bytes=2**30, mss_bytes=1460)  # 735,440 segments: within 2**21
    with pytest.raises(ValueError, match=r"rwnd_bytes=1073741824 is out of range: must be an integer in "
                                         r"\[1, 2097152\] \(a window of at most 2,097,152 full segments.*of 1 bytes"):
        TcpParams(rwnd_bytes=2**30, mss_bytes=1)
    # with timestamps a segment carries 12 bytes less: 500 - 12 = 488 bytes, 2**21 of them
    with pytest.raises(ValueError, match=r"\[1, 1023410176\]"):
        TcpParams(rwnd_bytes=2**30, mss_bytes=500, timestamps=True)
    # SCTP: DATA chunks of 1500 - 48 = 1452 bytes (a multiple of 4): 2**21 of them hold 2**31 - 1 bytes
    SctpParams(rwnd_bytes=2**31 - 1)
    with pytest.raises(ValueError, match=r"rwnd_bytes=2147483647 .*\[1, 109051904\].*DATA chunks of 52 bytes"):
        SctpParams(rwnd_bytes=2**31 - 1, mtu_bytes=100)


def test_order_errors_name_both_parameters():
    from simcore.admission import AdmissionParams
    from simcore.ftp import FtpParams
    from simcore.packet import TcpParams

    with pytest.raises(ValueError, match=r"min_rto_s=1e\+300 and max_rto_s=60.0 are out of order: min_rto_s must be "
                                         r"at most max_rto_s"):
        TcpParams(min_rto_s=1e300)
    with pytest.raises(ValueError, match=r"min_runs=50 and max_runs=30 are out of order"):
        FtpParams(min_runs=50)
    with pytest.raises(ValueError, match=r"access_min_Bps=50000.0 and access_max_Bps=35000.0 are out of order"):
        AdmissionParams(access_min_Bps=50000.0)
    with pytest.raises(ValueError, match=r"ready_threshold=11 and ready_list_size=10 are out of order"):
        AdmissionParams(ready_threshold=11)
    with pytest.raises(ValueError, match=r"a=2 and b=2 are out of order: a must be below b"):
        check_order("a", 2, "b", 2, strict=True)


def _wide_window_scenario(n_conn: int, rwnd: int, duration_s: float = 0.5):
    from simcore.packet import LinkParams, TcpParams, bulk_scenario, dumbbell

    d = dumbbell(n_conn, LinkParams(rate_bps=20e6, delay_s=0.01, queue_packets=50))
    return bulk_scenario(d.network, d.pairs, TcpParams(mss_bytes=536, rwnd_bytes=rwnd), duration_s=duration_s)


def test_a_scenario_too_big_for_memory_is_refused_naming_the_window(monkeypatch):
    """200 connections with rwnd_bytes=2**30 of 536-byte segments: two windows of 2,003,250 segments, a
    scoreboard row of 4,006,508 x 32 + 2,003,256 x 24 bytes = 168.1 MiB per direction, 400 directions:
    65.7 GB if all are open at once. Where the allocation fails (as numpy does when the system refuses),
    the refusal names the window, not a MemoryError from deep inside."""
    import importlib

    from simcore.packet import simulate

    sim = importlib.import_module("simcore.packet.simulate")  # the module, not the function of that name

    def refuse(*_args):
        raise MemoryError("Unable to allocate 65.7 GiB")

    monkeypatch.setattr(sim, "_build", refuse)
    with pytest.raises(ValueError, match=r"does not fit in memory \(Unable to allocate 65.7 GiB\): each of its 400 "
                                         r"connection directions keeps, while open, a scoreboard of 168.1 MB \(two "
                                         r"windows of 2,003,250 segments.*65.7 GB if all are open at once: lower "
                                         r"rwnd_bytes"):
        simulate(_wide_window_scenario(200, 2**30, duration_s=0.2), seed=1)


def test_cbr_records_are_bounded():
    from simcore.packet import CbrSource, LinkParams, Scenario, chain, simulate

    # 1e10 bit/s of 100-byte packets for 10 s: 1.25e8 packets, 24 bytes each = 2.8 GiB
    sc = Scenario(chain(1, LinkParams(rate_bps=1e10)), cbr=(CbrSource(0, 1, (1e10,), packet_bytes=100),),
                  duration_s=10.0)
    with pytest.raises(ValueError, match=r"cbr\[0\] sends up to 125,000,003 packets of 100 bytes .* 2\.8 GiB"):
        simulate(sc)


def test_traces_over_the_budget_are_refused_with_what_to_change():
    from types import SimpleNamespace

    from simcore.packet.simulate import _check_trace_memory

    small = SimpleNamespace(tr_pkt=np.zeros((1, 40)), tr_tcp=np.zeros((1, 9)), tr_queue=np.zeros((1, 4)),
                            tr_soj=np.zeros((1, 3)))
    st = {"n_pkttr": 1000, "n_tcptr": 10, "n_qtr": 10, "n_sojtr": 10}
    _check_trace_memory(small, st)  # 1001 x 40 x 8 bytes: fine
    st["n_pkttr"] = MEMORY_BUDGET_BYTES // (40 * 8)  # with the TCP and queue records: just over 1 GiB
    with pytest.raises(ValueError, match=r"trace=True: this run's traces \(3,355,443 packet records, 10 TCP "
                                         r"records, 10 queue records, 10 sojourn records\) need 1.0 GiB .*trace=False"):
        _check_trace_memory(small, st)
