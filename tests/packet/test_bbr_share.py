"""Ware et al.'s BBR-share model (simcore.packet.bbr_share): values worked by hand from IMC 2019 eqs. 7-11."""

import numpy as np
import pytest

from simcore.packet.bbr_share import ware_bbr_share

# 12 Mbit/s in 1500-byte packets is c = 1000 packets/s; with l = 50 ms one BDP is c l = 50 packets.
C_BPS, L_S = 12e6, 0.05


def test_deep_buffer_by_hand():
    # q = 400 packets (X = 8), N = 1:
    # eq. 9: p = 1/2 - 1/16 - 4/400 = 0.5 - 0.0625 - 0.01 = 0.4275, so BBR's capped share is 0.5725
    # eq. 7: RTT_est = (0.4275 * 400 + 4) / 1000 + 0.05 = 175 / 1000 + 0.05 = 0.225 s
    # eq. 8: cap = 2 * 0.5725 * 1000 * 0.225 = 257.625 packets = its share of buffer + pipe, 0.5725 * 450
    # eq. 11: Probe_time / d = (0.4 + 0.2 + 0.05) / 10 = 0.065; eq. 10: 0.5725 * 0.935 = 0.5352875
    m = ware_bbr_share(C_BPS, L_S, 400)
    assert m.bdp_packets == pytest.approx(50.0)
    assert m.buffer_bdp == pytest.approx(8.0)
    assert m.loss_based_share == pytest.approx(0.4275)
    assert m.cap_share == pytest.approx(0.5725)
    assert m.rtt_estimate_s == pytest.approx(0.225)
    assert m.in_flight_cap_packets == pytest.approx(257.625)
    assert m.probe_rtt_fraction == pytest.approx(0.065)
    assert m.bbr_share == pytest.approx(0.5352875)


def test_more_bbr_flows_take_more():
    # N = 5: p = 0.5 - 0.0625 - 20/400 = 0.3875; share = 0.6125 * 0.935 = 0.5726875
    m = ware_bbr_share(C_BPS, L_S, 400, n_bbr_flows=5)
    assert m.loss_based_share == pytest.approx(0.3875)
    assert m.bbr_share == pytest.approx(0.5726875)


def test_one_bdp_buffer_clips_at_all_of_the_link():
    # q = 50 (X = 1): p = 0.5 - 0.5 - 4/50 = -0.08 < 0, so p = 0 and the cap share is 1;
    # eq. 11: (0.05 + 0.2 + 0.05) / 10 = 0.03, share 0.97; RTT_est = 4/1000 + 0.05 = 0.054 s
    m = ware_bbr_share(C_BPS, L_S, 50)
    assert m.loss_based_share == 0.0
    assert m.cap_share == 1.0
    assert m.bbr_share == pytest.approx(0.97)
    assert m.rtt_estimate_s == pytest.approx(0.054)


def test_ware_topology_64_bdp():
    # Ware's and Sarpkaya et al.'s setting: 10 Mbit/s, 40 ms, 1500 B: c = 833.33 packets/s, BDP 33.33 packets;
    # X = 64: q = 2133.33; p = 0.5 - 1/128 - 4/2133.33 = 0.5 - 0.0078125 - 0.001875 = 0.4903125;
    # eq. 11: (2.56 + 0.2 + 0.04) / 10 = 0.28; share 0.5096875 * 0.72 = 0.366975
    bdp = 10e6 * 0.04 / 12000
    m = ware_bbr_share(10e6, 0.04, 64 * bdp)
    assert m.loss_based_share == pytest.approx(0.4903125)
    assert m.bbr_share == pytest.approx(0.366975)


def test_simple_model_limit_is_half():
    # Ware's simple model (eqs. 1-3, q >> c l), one BBR flow: the cap alone gives BBR half (p -> 1/2).
    # c = 1000, l = 1 ms, q = 5000:
    # p = 0.5 - 1/(2 * 5000) - 4/5000 = 0.4991
    m = ware_bbr_share(C_BPS, 0.001, 5000)
    assert m.cap_share == pytest.approx(0.5009)


def test_share_falls_with_the_buffer():
    shares = [ware_bbr_share(10e6, 0.04, x * 10e6 * 0.04 / 12000).bbr_share for x in (1, 2, 4, 8, 16, 32, 64)]
    assert all(a > b for a, b in zip(shares[:-1], shares[1:], strict=True))


def test_numpy_scalars_are_numbers():
    a = ware_bbr_share(np.float64(C_BPS), np.float32(L_S), np.int64(400), n_bbr_flows=np.int32(1))
    assert a.bbr_share == pytest.approx(ware_bbr_share(C_BPS, L_S, 400).bbr_share, rel=1e-6)


@pytest.mark.parametrize("kwargs, name", [
    ({"link_rate_bps": 0.0}, "link_rate_bps"),
    ({"base_rtt_s": -0.01}, "base_rtt_s"),
    ({"buffer_packets": 0}, "buffer_packets"),
    ({"buffer_packets": float("nan")}, "buffer_packets"),
    ({"buffer_packets": 9750}, "buffer_packets"),  # drains in 9.75 s = 10 - 0.2 - 0.05: no time left
    ({"n_bbr_flows": 0}, "n_bbr_flows"),
    ({"n_bbr_flows": 1.5}, "n_bbr_flows"),
    ({"packet_bytes": 0}, "packet_bytes"),
    ({"link_rate_bps": True}, "link_rate_bps"),
])
def test_bad_input_names_parameter_and_range(kwargs, name):
    args = {"link_rate_bps": C_BPS, "base_rtt_s": L_S, "buffer_packets": 400} | kwargs
    with pytest.raises(ValueError, match=rf"^{name}=.*(range|not a)"):
        ware_bbr_share(**args)


def test_just_inside_the_probe_limit():
    m = ware_bbr_share(C_BPS, L_S, 9749)  # (9.749 + 0.25) / 10 = 0.9999: share positive, tiny
    assert 0.0 < m.bbr_share < 1e-4
