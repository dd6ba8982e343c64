"""numpy scalars are the numbers they are (issue 29): every public parameter dataclass of simcore, found by
walking the package, is built once with Python numbers and once with numpy scalars in every numeric, bool
and str field (np.int64 / np.uint8 / np.float32 / np.bool_ / np.str_ ...); the stored values must be
Python's, and a run
with them must give exactly the result of the run with Python numbers.

A parameter dataclass is a public dataclass with a ``__post_init__`` (its validation); a new one fails
``test_every_parameter_dataclass_has_a_case`` until it gets a case here.
"""

import dataclasses
import importlib
import inspect
import math
import pkgutil

import numpy as np
import pytest

import simcore


def _parameter_dataclasses() -> dict[str, type]:
    found = {}
    for info in pkgutil.walk_packages(simcore.__path__, "simcore."):
        if info.name.endswith("__main__"):
            continue
        module = importlib.import_module(info.name)
        for name, cls in vars(module).items():
            if (inspect.isclass(cls) and dataclasses.is_dataclass(cls) and cls.__module__ == module.__name__
                    and not name.startswith("_") and "__post_init__" in vars(cls)):
                found[f"{module.__name__}.{name}"] = cls
    return found


CLASSES = _parameter_dataclasses()


# ---- the numpy twin of a Python value: the widest and the narrowest numpy type that holds it exactly
def _numpy(value, narrow: bool):
    if isinstance(value, bool):
        return np.bool_(value)
    if isinstance(value, int):
        if narrow:
            for t in (np.uint8, np.int16, np.int32, np.int64):
                if np.iinfo(t).min <= value <= np.iinfo(t).max:
                    return t(value)
        return np.int64(value)
    if isinstance(value, float):
        if narrow and (math.isinf(value) or float(np.float32(value)) == value):
            return np.float32(value)
        return np.float64(value)
    if isinstance(value, str):
        return np.str_(value)
    if type(value) in (tuple, list) and value and all(isinstance(v, int | float) for v in value):
        return type(value)(_numpy(v, narrow) for v in value)
    return value


def _numpy_twin(obj, narrow: bool):
    kwargs = {f.name: _numpy(getattr(obj, f.name), narrow) for f in dataclasses.fields(obj) if f.init}
    changed = [k for k, v in kwargs.items() if isinstance(v, np.generic) or (
        type(v) in (tuple, list) and any(isinstance(x, np.generic) for x in v))]
    return type(obj)(**kwargs), changed


def _pure(value) -> bool:
    """True if no numpy scalar hides in ``value`` (a tuple / list is looked into)."""
    if isinstance(value, np.generic):
        return False
    if type(value) in (tuple, list):
        return all(_pure(v) for v in value)
    return True


# ---- one case per class: a valid instance (Python numbers, some off their defaults) and a run of it
def _packet_fp(res):
    return res.delivered_bytes.tobytes(), res.message_done_s.tobytes(), int(res.events)


def _packet_case():
    from simcore.packet import (
        BulkScenario,
        CbrSource,
        CoDelParams,
        Connection,
        ConnectionPool,
        FluidBackground,
        FqCoDelParams,
        Link,
        LinkParams,
        Message,
        Network,
        RedParams,
        Scenario,
        SctpParams,
        TcpParams,
        chain,
        simulate,
    )

    def net(link=None, bg=None):
        p = link or LinkParams(rate_bps=2e6, delay_s=0.015, queue_packets=20, loss_prob=0.01, background=bg,
                               drop_sequence=(3, 9))
        return chain(1, p)

    def run(network=None, conn=None, msgs=None, cbr=(), pools=(), duration_s=3.0, header=40):
        conns = (conn or Connection(0, 1, TcpParams(rwnd_bytes=16384, mss_bytes=536)),)
        if pools:
            conns = conns + (Connection(0, 1),)
        msgs = msgs or (Message(None if pools else 0, 30_000, sender="server", pool=0 if pools else -1),)
        sc = Scenario(network or net(), conns, msgs, cbr=cbr, duration_s=duration_s, tcpip_header_bytes=header,
                      pools=pools)
        return _packet_fp(simulate(sc, seed=5))

    link = LinkParams(rate_bps=2e6, delay_s=0.015, queue_packets=20, queue_bytes=30_000, loss_prob=0.01,
                      header_bytes=14, drop_sequence=(3, 9))
    bg = FluidBackground((0.0, 1.0), (5e5, 1.5e6), 1000, "packets")
    tcp = TcpParams(mss_bytes=536, rwnd_bytes=16384, initial_window_segments=3, min_rto_s=0.5,
                    delayed_ack=True, timestamps=True, initial_ssthresh_bytes=8000)
    def aqm_run(q):
        lp = LinkParams(rate_bps=2e6, delay_s=0.015, queue_packets=20, queue=q)
        return run(network=chain(1, lp), conn=Connection(0, 1, TcpParams(rwnd_bytes=32768, mss_bytes=536, ecn=True)),
                   cbr=(CbrSource(0, 1, (1.5e6,), (0.0,), 576),))

    sctp = SctpParams(mtu_bytes=1000, rwnd_bytes=30_000, initial_cwnd_mtus=3, max_burst=2, n_streams=3)
    scenario = Scenario(net(), (Connection(0, 1, tcp, open_time_s=0.25),),
                        (Message(0, 20_000, sender="server", start_time_s=0.5),), duration_s=2.5,
                        tcpip_header_bytes=52)
    bulk = BulkScenario(chain(1, LinkParams(rate_bps=4e6, delay_s=0.01)), (tcp,), conn_client=[0], conn_server=[1],
                        conn_tcp=[0], conn_open_time_s=[0.0], conn_open_after=[-1], conn_closer=[0],
                        msg_conn=[0, 0], msg_pool=[-1, -1], msg_sender=[0, 1], msg_size_bytes=[300, 20_000],
                        msg_start_s=[0.0, 0.0], msg_after=[-1, 0], msg_delay_s=[0.0, 0.0], msg_relay_of=[-1, -1],
                        duration_s=2.0, tcpip_header_bytes=52)
    return {
        "simcore.packet.params.LinkParams": (link, lambda p: run(network=chain(1, p))),
        "simcore.packet.params.FluidBackground": (bg, lambda p: run(network=net(bg=p))),
        "simcore.packet.params.Link": (Link(0, 1, link), lambda p: run(network=Network(2, (p, Link(1, 0, link))))),
        "simcore.packet.params.Network": (net(), lambda p: run(network=p)),
        "simcore.packet.params.TcpParams": (tcp, lambda p: run(conn=Connection(0, 1, p))),
        "simcore.packet.params.Connection": (Connection(0, 1, tcp, open_time_s=0.25, header_bytes=60),
                                             lambda p: run(conn=p)),
        "simcore.packet.params.Message": (Message(0, 25_000, sender="server", start_time_s=0.75, delay_after_s=0.5),
                                          lambda p: run(msgs=(p,))),
        "simcore.packet.params.ConnectionPool": (ConnectionPool((0, 1)), lambda p: run(pools=(p,))),
        "simcore.packet.params.CbrSource": (CbrSource(1, 0, (3e5, 6e5), (0.0, 1.0), 500, 0.25, 2.0),
                                            lambda p: run(cbr=(p,))),
        "simcore.packet.params.Scenario": (scenario, lambda p: _packet_fp(simulate(p, seed=5))),
        "simcore.packet.sctp_params.SctpParams": (
            sctp, lambda p: run(conn=Connection(0, 1, transport="sctp", sctp=p))),
        "simcore.packet.bulk.BulkScenario": (bulk, lambda p: _packet_fp(simulate(p, seed=2))),
        "simcore.packet.kernel.qdisc.red.RedParams": (
            RedParams(min_th=3.0, max_th=12.0, max_p=0.25, w_q=0.125, gentle=False, unit="bytes",
                      mean_packet_bytes=576, ecn=True), aqm_run),
        "simcore.packet.kernel.qdisc.codel.CoDelParams": (
            CoDelParams(target_s=0.0025, interval_s=0.05, mtu_bytes=576, ecn=True), aqm_run),
        "simcore.packet.kernel.qdisc.fq_codel.FqCoDelParams": (
            FqCoDelParams(target_s=0.0025, interval_s=0.05, quantum_bytes=600, flows=64, drop_batch=8,
                          mtu_bytes=576, perturbation=7, ecn=True), aqm_run),
    }


def _cases():
    from simcore.admission import AdmissionParams, simulate_admission
    from simcore.chapters import bufferbloat, tcp_primer
    from simcore.chapters.admission_panel import PanelSetting, run_setting
    from simcore.chapters.start_here import RouterSetting
    from simcore.delay import DelayParams, simulate_ideal
    from simcore.delay.tcp_view import TcpPageParams, simulate_page_tcp
    from simcore.fluid import FluidParams, simulate_fluid
    from simcore.ftp import FtpParams, run_transfer
    from simcore.ftp.readings import Reading, reading_params
    from simcore.grading import Grid, Nice, student_params
    from simcore.objpack import ObjpackParams, simulate_objpack
    from simcore.objpack.readings import Reading as ObjReading
    from simcore.objpack.readings import http10_packets_per_file as obj_packets
    from simcore.packaging import PackagedFile, pack
    from simcore.queueing import QueueParams, simulate_queue
    from simcore.satellite import SatelliteParams, WorkloadParams, make_workload, simulate_satellite

    def q(r):
        return r.wait_s.tobytes(), r.blocked.tobytes()

    cases = {
        "simcore.admission.params.AdmissionParams": (
            AdmissionParams(policy="Ticket", n_clients=40, extra_sockets=3, bandwidth_fraction=0.5,
                            ready_list_size=4, ready_threshold=2, ticket_when_busy=False),
            lambda p: simulate_admission(p, 2).session_s.tobytes()),
        "simcore.chapters.admission_panel.PanelSetting": (
            PanelSetting(clients_pct=10, extra_sockets=3, retry_busy_s=20.0, seed=4),
            lambda s: run_setting(s)["runs"]["Ticket"].session_s.tobytes()),
        "simcore.chapters.start_here.RouterSetting": (
            RouterSetting(arrival_rate_pps=500.0, servers=2, link_rate_mbps=5.0),
            lambda s: q(simulate_queue(s.queue_params(), s.seed))),
        "simcore.chapters.tcp_primer.PrimerSetting": (
            tcp_primer.PrimerSetting(rtt_ms=40.0, rate_mbps=2.0, buffer_packets=10, loss_pct=0.5, flows=2,
                                     duration_s=1.5),
            lambda s: _packet_fp(tcp_primer.run(s, trace=False))),
        "simcore.chapters.bufferbloat.BufferbloatSetting": (
            bufferbloat.BufferbloatSetting(buffers_packets=(8, 40), queues=("codel",), n_flows=1, rate_bps=2e6,
                                           delay_s=0.01, duration_s=1.5, measure_from_s=0.5, seed=3),
            lambda s: bufferbloat.sweep(s).delay_p50_s.tobytes()),
        "simcore.delay.params.DelayParams": (
            DelayParams(prop_delay_ms=50.0, n_parents=3, cache=True, hit_ratio=0.5),
            lambda p: simulate_ideal(p).response_time_ms),
        "simcore.delay.tcp_view.TcpPageParams": (
            TcpPageParams(rtt_ms=60.0, object_size_bytes=4000, n_objects=3, parallel=2, cross_load=0.25),
            lambda p: simulate_page_tcp(p, 1).object_done_s.tobytes()),
        "simcore.fluid.bottleneck.FluidParams": (
            FluidParams(n_flows=50, arrival_rate_per_s=4.0, access_rate_Bps=2e5),
            lambda p: simulate_fluid(p, 3).sojourn_s.tobytes()),
        "simcore.ftp.params.FtpParams": (
            FtpParams(n_files=3, file_size_bytes=10240, loss=0.01, queue_packets=20),
            lambda p: run_transfer(p, 1).file_data_s.tobytes()),
        "simcore.objpack.params.ObjpackParams": (
            ObjpackParams(n_files=6, mean_file_bytes=2000, size_distribution="exponential", compress=True),
            lambda p: simulate_objpack(p, 1).file_done_s.tobytes()),
        "simcore.packaging.format.PackagedFile": (PackagedFile("a.txt", b"abc"), lambda f: pack([f])),
        "simcore.ftp.readings.Reading": (
            Reading("r", "a reading", (0.0, 0.125, 0.375), "client_to_server", ("sctp",), "typed as read"),
            lambda r: repr((r, reading_params(r)))),
        "simcore.objpack.readings.Reading": (
            ObjReading("X", "a reading", get_acked_alone=True, server_fin="alone"),
            lambda r: repr((r, [obj_packets(r, b) for b in (1000, 4000, 10000)]))),
        "simcore.grading.identity.Grid": (
            Grid(0.5, 2.5, 0.25), lambda g: repr(student_params("x/1", {"v": g}, student="a"))),
        "simcore.grading.identity.Nice": (
            Nice(10.0, 400.0, 2), lambda g: repr(student_params("x/1", {"v": g}, student="a"))),
        "simcore.queueing.model.QueueParams": (
            QueueParams(arrival_rate_per_s=1.5, servers=2, buffer_size=3, n_customers=500, warmup_customers=50),
            lambda p: q(simulate_queue(p, 1))),
        "simcore.satellite.params.SatelliteParams": (
            SatelliteParams(duration_s=30.0, n_proxy_connections=4, architecture="us_proxy", n_servers=50),
            lambda p: simulate_satellite(p, 1).sample_latency_s.tobytes()),
        "simcore.satellite.workload.WorkloadParams": (
            WorkloadParams(n_days=2, n_sample_pages=3),
            lambda p: make_workload(p, 1, 7).reply_bytes.tobytes()),
    }
    cases.update(_packet_case())
    cases.update(_reliable_transfer_cases())
    return cases


def _reliable_transfer_cases():
    from simcore.aimd import TwoFlowSetting, run_two_flows
    from simcore.chapters import reliable_transfer, reliable_transfer_aimd, reliable_transfer_rtt
    from simcore.grading.identity import Grid, Nice
    from simcore.rdt import RdtParams, simulate_rdt
    from simcore.rto import EstimatorParams, ProbeSetting, estimate, measure_probes

    def rdt(r):
        return r.data_start_s.tobytes(), r.data_action.tobytes(), r.end_s

    probe = ProbeSetting(rtt_ms=60.0, rate_mbps=2.0, buffer_packets=12, tcp_start_s=0.5, loss_pct=1.0,
                         probe_interval_ms=25.0, duration_s=2.0, seed=3)
    return {
        "simcore.rdt.params.RdtParams": (
            RdtParams(protocol="sr", window=6, packet_bytes=800, ack_bytes=40, rate_bps=2e6, rtt_s=0.02,
                      timeout_s=0.03, loss_data=0.1, loss_ack=0.05, duration_s=1.0, drop_data=(2, 7), max_sends=300),
            lambda p: rdt(simulate_rdt(p, 4))),
        "simcore.rto.estimator.EstimatorParams": (
            EstimatorParams(alpha=0.25, beta=0.5, k=2.0, min_timeout_s=0.05, max_timeout_s=30.0,
                            initial_timeout_s=2.0),
            lambda p: estimate([0.1, 0.3, 0.2], p).timeout_s.tobytes()),
        "simcore.rto.probes.ProbeSetting": (probe, lambda s: measure_probes(s).rtt_s.tobytes()),
        "simcore.aimd.two_flows.TwoFlowSetting": (
            TwoFlowSetting(rate_mbps=2.0, buffer_packets=10, rtt2_ms=60.0, start2_s=0.5, duration_s=2.0,
                           loss_pct=0.5, seed=2, sample_s=0.05),
            lambda s: run_two_flows(s).rate2_bps.tobytes()),
        "simcore.chapters.reliable_transfer.ArqSetting": (
            reliable_transfer.ArqSetting(protocol="sr", window=6, loss_data_pct=5.0, rtt_ms=20.0, rate_mbps=2.0,
                                         timeout_ms=30.0, seed=2),
            lambda s: rdt(reliable_transfer.run(s))),
        "simcore.chapters.reliable_transfer_rtt.RttSetting": (
            reliable_transfer_rtt.RttSetting(buffer_packets=20, tcp_start_s=1.0, loss_pct=0.5, alpha=0.25, k=2.0,
                                             rule="last", seed=2),
            lambda s: reliable_transfer_rtt.replay(s).sample_s.tobytes()),
        "simcore.chapters.reliable_transfer_aimd.FairnessSetting": (
            reliable_transfer_aimd.FairnessSetting(rtt2_ms=60.0, start2_s=1.0, buffer_packets=10, rate_mbps=2.0,
                                                   duration_s=10.0, loss_pct=0.5, seed=2),
            lambda s: reliable_transfer_aimd.run(s).rate1_bps.tobytes()),
        "simcore.grading.identity.Grid": (Grid(0.8, 0.95, 0.05), lambda g: g.pick(0.5)),
        "simcore.grading.identity.Nice": (Nice(20, 400, digits=2), lambda g: g.pick(0.5)),
    }


@pytest.fixture(scope="module")
def cases():
    return _cases()


def test_every_parameter_dataclass_has_a_case(cases):
    assert len(CLASSES) >= 25, sorted(CLASSES)  # the walk found them (25 when this was written)
    missing = sorted(set(CLASSES) - set(cases))
    assert not missing, f"parameter dataclasses without a numpy-scalar case here: {missing}"


@pytest.mark.parametrize("narrow", [False, True], ids=["int64-float64", "uint8-float32"])
@pytest.mark.parametrize("name", sorted(CLASSES))
def test_numpy_scalars_are_stored_as_python_numbers_and_run_alike(cases, name, narrow):
    py, run = cases[name]
    assert type(py) is CLASSES[name]
    twin, changed = _numpy_twin(py, narrow)
    assert changed, f"{name}: no numeric field to try"
    for f in dataclasses.fields(twin):
        stored, expected = getattr(twin, f.name), getattr(py, f.name)
        assert _pure(stored), f"{name}.{f.name} kept {stored!r} ({type(stored).__name__})"
        if isinstance(expected, bool | int | float | str):
            assert type(stored) is type(expected) and stored == expected, (name, f.name, stored, expected)
    assert run(twin) == run(py)


def test_the_issues_ftp_example_runs():
    """Issue 29: FtpParams(file_size_bytes=np.int64(10240)) passed validation, then run_transfer failed with
    "object of type 'numpy.int64' has no len()"; n_files=np.uint8 was stored as np.uint8."""
    from simcore.ftp import FtpParams, run_transfer

    p = FtpParams(n_files=np.uint8(2), file_size_bytes=np.int64(10240))
    assert type(p.n_files) is int and type(p.file_size_bytes) is int
    assert run_transfer(p).completed


# ---- wrong types: every field of every parameter dataclass, given None or a value of the wrong kind, is
# refused with a ValueError that names the field (issue 29: mss_values=None gave "'NoneType' object is not
# iterable"); a field whose default is None accepts None
class _Odd:
    def __repr__(self):
        return "<odd object>"


_WRONG = (None, "x", _Odd(), [1, "x"], float("nan"))


def _optional(cls, name: str) -> bool:
    """A field annotated ``X | None`` (or defaulting to None) takes None."""
    f = {f.name: f for f in dataclasses.fields(cls)}[name]
    return f.default is None or "None" in str(f.type)


@pytest.mark.parametrize("name", sorted(CLASSES))
def test_wrong_types_are_refused_naming_the_field(cases, name):
    py, _run = cases[name]
    cls = type(py)
    kwargs = {f.name: getattr(py, f.name) for f in dataclasses.fields(py) if f.init}
    unnamed = []
    for field_name in kwargs:
        for bad in _WRONG:
            if bad is None and _optional(cls, field_name):
                continue
            try:
                cls(**{**kwargs, field_name: bad})
            except ValueError as exc:
                if field_name not in str(exc):
                    unnamed.append(f"{field_name}={bad!r}: ValueError not naming it: {exc}")
            except Exception as exc:  # noqa: BLE001 - any other exception is the failure reported
                unnamed.append(f"{field_name}={bad!r}: {type(exc).__name__}: {exc}")
            else:
                if not (isinstance(bad, str) and isinstance(kwargs[field_name], str)):  # a name may be 'x'
                    unnamed.append(f"{field_name}={bad!r}: accepted")
    assert not unnamed, f"{name}:\n" + "\n".join(unnamed)
