"""Card bitmasks of one game inside compiled code: count, pick the k-th card, one card's bit.

The one-value versions of ``spades_env.core.bits`` (which works on whole NumPy batches);
the same values, for Numba code that handles one game at a time.
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import trailing_zeros


@njit(cache=True)
def popcount(m):
    """The number of set bits of a uint64 (LLVM makes this one instruction)."""
    m = m - ((m >> np.uint64(1)) & np.uint64(0x5555555555555555))
    m = (m & np.uint64(0x3333333333333333)) + ((m >> np.uint64(2)) & np.uint64(0x3333333333333333))
    m = (m + (m >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((m * np.uint64(0x0101010101010101)) >> np.uint64(56))


@njit(cache=True)
def kth_card(mask, k):
    """The card id of the k-th set bit of ``mask`` (from 0, low ids first): ``bits.select_kth``
    of one mask; -1 when ``mask`` has no more than k bits."""
    for _ in range(k):
        mask &= mask - np.uint64(1)  # drop the lowest card
    if mask == np.uint64(0):
        return -1
    return np.int64(trailing_zeros(mask))


@njit(cache=True)
def bit_of(card, n_card_ids):
    """The bit of card id ``card``; 0 for an action that is no card id below ``n_card_ids``."""
    if card < 0 or card >= n_card_ids:
        return np.uint64(0)
    return np.uint64(1) << np.uint64(card)


@njit(cache=True)
def write_bits(mask, row, n_bits):
    """``row[c] = bit c of mask`` for c < n_bits (a bool mask row from a card mask)."""
    for c in range(n_bits):
        row[c] = ((mask >> np.uint64(c)) & np.uint64(1)) != np.uint64(0)
