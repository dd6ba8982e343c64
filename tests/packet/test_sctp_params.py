"""SctpParams: the two RFC generations' values as their sections state them, and every bad value refused
with a message naming the parameter, the value and the allowed range."""

import dataclasses

import pytest

from simcore.packet.sctp_params import SctpParams


def test_rfc4960_preset_is_the_default_with_its_section_values():
    p = SctpParams.preset("rfc4960")
    assert p == SctpParams()
    # sec. 15: RTO.Initial 3 s, RTO.Min 1 s, RTO.Max 60 s, Max.Burst 4, Max.Init.Retransmits 8
    assert (p.rto_initial_s, p.rto_min_s, p.rto_max_s, p.max_burst, p.max_init_retransmits) == (3, 1, 60, 4, 8)
    # sec. 6.2: SACK within 200 ms, for at least every second packet
    assert (p.delayed_sack, p.sack_timeout_s, p.sack_every_packets) == (True, 0.2, 2)
    # sec. 7.2.4: third miss indication, HTNA, Fast Recovery; sec. 7.2.3 and 7.2.1: floors of 4 MTU
    assert (p.miss_indications, p.htna, p.fast_recovery, p.ssthresh_min_mtus, p.idle_cwnd_min_mtus) == \
        (3, True, True, 4, 4)


@pytest.mark.parametrize("mtu, cwnd", [
    # sec. 7.2.1: min(4 MTU, max(2 MTU, 4380))
    (1500, 4380),  # max(3000, 4380) = 4380 < 6000
    (576, 2304),   # max(1152, 4380) = 4380 > 4 * 576 = 2304
    (9000, 18000),  # max(18000, 4380) = 18000 < 36000
    (1000, 4000),  # max(2000, 4380) = 4380 > 4000
])
def test_rfc4960_initial_cwnd(mtu, cwnd):
    assert SctpParams(mtu_bytes=mtu).initial_cwnd_bytes == cwnd


def test_rfc2960_preset_follows_rfc2960_and_the_implementers_guide():
    p = SctpParams.preset("rfc2960")
    assert p.initial_cwnd_bytes == 3000  # at most 2 MTU (RFC 2960 sec. 7.2.1)
    assert SctpParams.preset("rfc2960", mtu_bytes=9000).initial_cwnd_bytes == 18000
    assert (p.miss_indications, p.htna, p.fast_recovery) == (4, False, False)  # sec. 7.2.4: 3 further
    assert (p.ssthresh_min_mtus, p.idle_cwnd_min_mtus) == (2, 2)  # sec. 7.2.3, 7.2.1
    assert (p.rto_initial_s, p.rto_min_s, p.rto_max_s, p.max_burst, p.max_burst_rule) == (3, 1, 60, 4, "cwnd")
    assert SctpParams.preset("rfc2960", n_streams=2).n_streams == 2  # overrides
    with pytest.raises(ValueError, match="name='rfc3286' is not allowed"):
        SctpParams.preset("rfc3286")


def test_payload_per_chunk_follows_the_mtu():
    assert SctpParams().max_payload_bytes == 1452
    assert SctpParams(mtu_bytes=1498).max_payload_bytes == 1448  # padding must fit too


@pytest.mark.parametrize("kw, message", [
    ({"mtu_bytes": 67}, r"mtu_bytes=67 is out of range: must be an integer in \[68, 65535\]"),
    ({"mtu_bytes": 1500.0}, r"mtu_bytes=1500.0 is not an integer"),
    ({"rwnd_bytes": 1000}, r"rwnd_bytes=1000 is out of range: must be at least one full DATA chunk \(1452"),
    ({"initial_cwnd_mtus": 0}, r"initial_cwnd_mtus=0 is out of range"),
    ({"rto_min_s": 0.0}, r"rto_min_s=0.0 is out of range: must be a finite number in \(0, 3600\]"),
    ({"rto_max_s": 0.5}, r"rto_min_s=1.0 and rto_max_s=0.5 are out of order: rto_min_s must be at most rto_max_s"),
    ({"rto_initial_s": 61.0}, r"rto_initial_s=61.0 and rto_max_s=60.0 are out of order"),
    ({"rto_min_s": 5.0}, r"rto_min_s=5.0 and rto_initial_s=3.0 are out of order"),
    ({"rto_max_s": 4000.0}, r"rto_max_s=4000.0 is out of range: must be a finite number in \(0, 3600\]"),
    ({"rto_initial_s": float("nan")}, r"rto_initial_s=nan is out of range"),
    ({"max_init_retransmits": -1}, r"max_init_retransmits=-1 is out of range"),
    ({"max_burst": -1}, r"max_burst=-1 is out of range: must be an integer in \[0, 1000\]"),
    ({"max_burst_rule": "bytes"}, r"max_burst_rule='bytes' is not allowed: must be one of \['cwnd', 'packets'\]"),
    ({"delayed_sack": 1}, r"delayed_sack=1 is not allowed: must be True or False"),
    # sec. 6.2: at most 500 ms
    ({"sack_timeout_s": 0.6}, r"sack_timeout_s=0.6 is out of range: must be a finite number in \(0, 0.5\]"),
    ({"sack_every_packets": 0}, r"sack_every_packets=0 is out of range"),
    ({"miss_indications": 0}, r"miss_indications=0 is out of range"),
    ({"htna": "yes"}, r"htna='yes' is not allowed"),
    ({"fast_recovery": None}, r"fast_recovery=None is not allowed"),
    ({"ssthresh_min_mtus": 0}, r"ssthresh_min_mtus=0 is out of range"),
    ({"idle_decay": 0}, r"idle_decay=0 is not allowed"),
    ({"idle_cwnd_min_mtus": 0}, r"idle_cwnd_min_mtus=0 is out of range"),
    # an INIT-ACK must fit one packet: 1500 - 20 - 12 - 20 - 4 = 1444 bytes of cookie at most
    ({"cookie_bytes": 1445}, r"cookie_bytes=1445 is out of range: must be an integer in \[1, 1444\]"),
    ({"cookie_bytes": 0}, r"cookie_bytes=0 is out of range"),
    ({"n_streams": 0}, r"n_streams=0 is out of range: must be an integer in \[1, 65535\]"),
    ({"n_streams": 65536}, r"n_streams=65536 is out of range"),
    ({"unordered": "no"}, r"unordered='no' is not allowed"),
])
def test_bad_values_name_parameter_value_and_range(kw, message):
    with pytest.raises(ValueError, match=message):
        SctpParams(**kw)
    with pytest.raises(ValueError, match=message):
        dataclasses.replace(SctpParams(), **kw)


def test_connection_transports():
    from simcore.packet import Connection

    assert Connection(0, 1).transport == "tcp" and not Connection(0, 1).multistream
    c = Connection(0, 1, transport="tcp_streams")
    assert c.multistream  # what the kernel reads
    assert Connection(0, 1, multistream=True) == c  # the old name
    with pytest.raises(ValueError, match="transport='udp' is not allowed: must be one of"):
        Connection(0, 1, transport="udp")
    assert Connection(0, 1, transport="sctp").sctp == SctpParams()
    assert Connection(0, 1, transport="sctp", sctp=SctpParams(unordered=True)).sctp.unordered
    with pytest.raises(ValueError, match="sctp=SctpParams.* is not allowed with transport='tcp'"):
        Connection(0, 1, sctp=SctpParams())
    with pytest.raises(ValueError, match="sctp=3 is not allowed"):
        Connection(0, 1, sctp=3)
