"""``_numba.rows``: whole-row copies and 8-byte word access on record arrays, checked against numpy's own views."""

import numpy as np
from numba import njit

from simcore.packet._numba.rows import copy_row, set_word, word
from simcore.packet.kernel import layout as L


@njit
def _copy(a, i, b, j):
    copy_row(a, i, b, j)


@njit
def _move_word(a, i, w, b, k, v):
    set_word(a, i, w, word(b, k, v))


def test_copy_row_copies_every_byte_of_one_row_only():
    src = np.zeros(3, L.HALF)
    src[1]["snd_una"] = -7
    src[1]["cwnd"] = 1.5e6
    src[1]["srtt"] = np.nan
    src[1]["rto_deadline"] = np.inf
    dst = np.zeros(4, L.HALF)
    dst["rcv_nxt"] = 99
    _copy(dst, 2, src, 1)
    assert dst[2].tobytes() == src[1].tobytes()
    assert (dst["rcv_nxt"][[0, 1, 3]] == 99).all() and dst[2]["rcv_nxt"] == 0  # neighbours untouched


def test_word_and_set_word_move_a_field_bit_for_bit():
    half = np.zeros(2, L.HALF)
    half[1]["cwnd"] = -0.0
    half[1]["est_t"] = 12.25
    out = np.zeros(3, L.HALF_OUT)
    for name in ("cwnd", "est_t"):
        w_in = L.HALF.fields[name][1] // 8
        w_out = L.HALF_OUT.fields[name][1] // 8
        _move_word(out, 2, w_out, half, 1, w_in)
    assert out[2]["est_t"] == 12.25
    assert np.signbit(out[2]["cwnd"])  # -0.0: the bits, not a value converted to int
    assert out[[0, 1]].tobytes() == np.zeros(2, L.HALF_OUT).tobytes()
