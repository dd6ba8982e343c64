"""Every parameter of the models' public entry points, given None or an object of the wrong kind, is
refused with a ValueError that names it, never a TypeError or AttributeError from deep inside (issue 29:
"'NoneType' object is not iterable"). Each entry below is a valid call; the test replaces one argument at
a time. (The parameter dataclasses' fields are swept in test_parameter_dataclasses.py.)"""

import inspect
import math

import numpy as np


class _Odd:
    def __repr__(self):
        return "<odd object>"


def _entries(tmp_path):
    from simcore import stats, theory
    from simcore.admission import AdmissionParams, compare_to_control, simulate_admission
    from simcore.delay import DelayParams, closed_form_ms, packet_counts, simulate_ideal
    from simcore.delay.tcp_view import TcpPageParams, formula_times_s, simulate_page_tcp
    from simcore.fluid import FluidParams, poisson_flows, ps_mean_sojourn_s, simulate_flows, simulate_fluid
    from simcore.ftp import FtpParams, run_transfer
    from simcore.objpack import ObjpackParams, make_page, simulate_objpack
    from simcore.packaging import (
        extract,
        file_end_offsets_bytes,
        header_size_bytes,
        pack,
        package_size_bytes,
        unpack,
    )
    from simcore.packet import LinkParams, TcpParams, bulk_scenario, chain, dumbbell, simulate
    from simcore.packet.metrics import mathis_throughput_bps, padhye_throughput_bps, window_limited_throughput_bps
    from simcore.packet.scenarios import request_response_scenario
    from simcore.plotting import downsample_indices
    from simcore.queueing import QueueParams, simulate_queue
    from simcore.rng import make_generator
    from simcore.satellite import SatelliteParams, WorkloadParams, day_traces, make_workload

    q = QueueParams(n_customers=200)
    adm = AdmissionParams(n_clients=20)
    run = simulate_admission(adm, 1)
    link = LinkParams()
    net = chain(1, link)
    blob = pack({"a.txt": b"abc"})
    return {
        "simulate_queue": (simulate_queue, dict(params=q, seed=1)),
        "simulate_fluid": (simulate_fluid, dict(params=FluidParams(n_flows=20), seed=1)),
        "poisson_flows": (poisson_flows, dict(params=FluidParams(n_flows=20), seed=1)),
        "simulate_flows": (simulate_flows, dict(arrival_s=[0.0, 1.0], size_bytes=[1e3, 2e3], cap_Bps=1e4,
                                                capacity_Bps=1e4, horizon_s=math.inf)),
        "ps_mean_sojourn_s": (ps_mean_sojourn_s, dict(arrival_rate_per_s=1.0, mean_size_bytes=1e3,
                                                      capacity_Bps=1e4)),
        "simulate_admission": (simulate_admission, dict(params=adm, seed=1)),
        "compare_to_control": (compare_to_control, dict(result=run, control=run)),
        "simulate_ideal": (simulate_ideal, dict(params=DelayParams())),
        "closed_form_ms": (closed_form_ms, dict(params=DelayParams())),
        "packet_counts": (packet_counts, dict(params=DelayParams())),
        "simulate_page_tcp": (simulate_page_tcp, dict(p=TcpPageParams(n_objects=1), seed=1, trace=False)),
        "formula_times_s": (formula_times_s, dict(p=TcpPageParams(n_objects=1))),
        "run_transfer": (run_transfer, dict(params=FtpParams(n_files=1), seed=1)),
        "simulate_objpack": (simulate_objpack, dict(params=ObjpackParams(n_files=3), seed=1, trace=False)),
        "make_page": (make_page, dict(params=ObjpackParams(n_files=3), seed=1)),
        "day_traces": (day_traces, dict(params=WorkloadParams(n_days=2), seed=1)),
        "make_workload": (make_workload, dict(params=WorkloadParams(n_days=2), n_traces=2, seed=1)),
        "simulate": (simulate, dict(scenario=bulk_scenario(net, [(0, 1)], TcpParams(), duration_s=0.5), seed=1,
                                    trace=False)),
        "chain": (chain, dict(n_hops=2, forward=link, reverse=link)),
        "dumbbell": (dumbbell, dict(n_pairs=2, bottleneck=link, access=link, reverse=link, symmetric_loss=False)),
        "bulk_scenario": (bulk_scenario, dict(network=net, pairs=[(0, 1)], tcp=TcpParams(), duration_s=1.0,
                                              start_times_s=[0.0], cbr=(), tcpip_header_bytes=40)),
        "request_response_scenario": (request_response_scenario, dict(
            network=net, client=0, server=1, request_bytes=100, response_bytes=[1000], tcp=TcpParams(),
            persistent=True, pipelined=False, duration_s=1.0, tcpip_header_bytes=40)),
        "mathis_throughput_bps": (mathis_throughput_bps, dict(mss_bytes=1460, rtt_s=0.1, loss_prob=0.01)),
        "padhye_throughput_bps": (padhye_throughput_bps, dict(mss_bytes=1460, rtt_s=0.1, loss_prob=0.01,
                                                              rto_s=1.0)),
        "window_limited_throughput_bps": (window_limited_throughput_bps, dict(window_bytes=65535, rtt_s=0.1)),
        "pack": (pack, dict(files={"a.txt": b"abc"})),
        "unpack": (unpack, dict(blob=blob)),
        "extract": (extract, dict(blob=blob, dest_dir=tmp_path / "out")),
        "package_size_bytes": (package_size_bytes, dict(sizes=[3], names=["a.txt"])),
        "header_size_bytes": (header_size_bytes, dict(names=["a.txt"])),
        "file_end_offsets_bytes": (file_end_offsets_bytes, dict(sizes=[3], names=["a.txt"])),
        "jain_index": (stats.jain_index, dict(values=[1.0, 2.0])),
        "batch_means_ci": (stats.batch_means_ci, dict(samples=np.ones(100), n_batches=20)),
        "erlang_b": (theory.erlang_b, dict(servers=2, offered_load_erlangs=1.0)),
        "erlang_c": (theory.erlang_c, dict(servers=2, offered_load_erlangs=1.0)),
        "mean_wait_s": (theory.mean_wait_s, dict(arrival_rate_per_s=0.5, mean_service_s=1.0, servers=1,
                                                 service="exponential")),
        "mmck_blocking": (theory.mmck_blocking, dict(servers=2, buffer_size=3, offered_load_erlangs=1.0)),
        "make_generator": (make_generator, dict(seed=1)),
        "downsample_indices": (downsample_indices, dict(y=np.arange(10.0), max_points=4)),
        "satellite_params_smoke": (SatelliteParams, dict(n_traces=1)),
    }


def test_every_argument_of_the_entry_points_is_checked_by_name(tmp_path):
    problems = []
    for label, (fn, kwargs) in _entries(tmp_path).items():
        fn(**kwargs)  # the baseline call is valid
        sig = inspect.signature(fn)
        for name in kwargs:
            default = sig.parameters[name].default
            for bad in (None, _Odd()):
                if bad is None and default is None:
                    continue  # None is this argument's own default
                try:
                    fn(**{**kwargs, name: bad})
                except ValueError as exc:
                    if name not in str(exc):
                        problems.append(f"{label}({name}={bad!r}): ValueError not naming it: {exc}")
                except Exception as exc:  # noqa: BLE001 - reported
                    problems.append(f"{label}({name}={bad!r}): {type(exc).__name__}: {exc}")
                else:
                    problems.append(f"{label}({name}={bad!r}): accepted")
    assert not problems, "\n".join(problems)
