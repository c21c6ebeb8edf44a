"""Bit tricks on uint64 card masks (``spades_env.core.bits``) against plain Python."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from spades_env.core import bits

masks = st.lists(st.integers(1, 2**64 - 1), min_size=1, max_size=30)


def set_bits(mask: int) -> list[int]:
    return [i for i in range(64) if (mask >> i) & 1]


@settings(max_examples=80, deadline=None)
@given(masks=masks, data=st.data())
def test_select_kth_is_the_kth_set_bit(masks, data):
    ks = [data.draw(st.integers(0, len(set_bits(m)) - 1)) for m in masks]
    got = bits.select_kth(np.array(masks, np.uint64), np.array(ks, np.int64))
    assert got.tolist() == [set_bits(m)[k] for m, k in zip(masks, ks, strict=True)]


@settings(max_examples=60, deadline=None)
@given(rows=st.lists(st.lists(st.booleans(), min_size=150, max_size=150), min_size=1, max_size=12), data=st.data())
def test_pick_true_is_the_floor_u_count_th_true_of_each_row(rows, data):
    flags = np.array(rows, bool)
    u = np.array([data.draw(st.floats(0, 1, exclude_max=True)) for _ in rows])
    got = bits.pick_true(flags, u)
    for row, x, g in zip(flags, u, got, strict=True):
        trues = np.flatnonzero(row)
        assert g == (trues[int(x * len(trues))] if len(trues) else 0)
