"""Bit tricks on uint64 card masks, vectorized over a batch.

Each suit is a 13-bit lane of the mask (see ``spades_env.cards``), so per-suit
questions are a shift and an AND, and "the k-th card of a hand" is a small table
lookup inside one lane.
"""

from __future__ import annotations

import numpy as np

from spades_env import cards

U64 = np.uint64
LANE = U64(0x1FFF)
SHIFTS = np.array([13 * s for s in range(5)], dtype=np.uint64)
#: ``BIT[c]`` is ``1 << c`` as uint64, for card ids 0..63.
BIT = np.left_shift(U64(1), np.arange(64, dtype=np.uint64))


def _build_select_table(width: int) -> np.ndarray:
    """Flat table: entry ``v * width + k`` = position of the k-th set bit (from 0) of v."""
    values = np.arange(1 << width, dtype=np.int64)
    flags = (values[:, None] >> np.arange(width)) & 1
    rank = np.cumsum(flags, axis=1) - 1
    table = np.zeros((1 << width, width), dtype=np.int8)
    v, pos = np.nonzero(flags)
    table[v, rank[v, pos]] = pos
    return table.reshape(-1)


SELECT16 = _build_select_table(16)


def popcount(mask: np.ndarray) -> np.ndarray:
    """Number of set bits of each uint64 (int64 result)."""
    return np.bitwise_count(mask).astype(np.int64)


def lanes(mask: np.ndarray, n_lanes: int = 5) -> np.ndarray:
    """Split masks of shape (...) into 13-bit suit lanes, shape (..., n_lanes), int64."""
    return ((mask[..., None] >> SHIFTS[:n_lanes]) & LANE).astype(np.int64)


_LOW32, _LOW16 = U64(0xFFFFFFFF), U64(0xFFFF)


def select_kth(mask: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Card id of the k-th set bit (counting from 0, low ids first) of each mask.

    mask: (B,) uint64 with at least k+1 bits set; k: (B,) int. Returns (B,) int64.
    A binary search on popcounts narrows to a 16-bit window, then one table lookup.
    (Popcounts stay uint8 and shifts uint64, so no step needs a cast of its own.)
    """
    k = np.asarray(k, dtype=np.int64)
    count = np.bitwise_count(mask & _LOW32)
    high = k >= count
    k = k - count * high
    shift = high.astype(U64) << U64(5)  # 0 or 32
    window = mask >> shift
    count = np.bitwise_count(window & _LOW16)
    high = k >= count
    k = k - count * high
    step = high.astype(U64) << U64(4)  # 0 or 16
    window = (window >> step) & _LOW16
    shift += step
    return shift.view(np.int64) + SELECT16.take((window.view(np.int64) << 4) + k)


def pick_true(flags: np.ndarray, u: np.ndarray) -> np.ndarray:
    """Column of the k-th True (from 0) of each row of a (B, A) bool array, k = floor(u * row count).

    u: (B,) floats in [0, 1). Rows are packed into 64-bit words and the word and bit found
    with popcounts, so a batch costs a few array operations whatever A is. Rows without a
    True give 0.
    """
    b, a = flags.shape
    n_words = max(1, -(-a // 64))
    padded = np.empty((b, 64 * n_words), bool)
    padded[:, :a] = flags
    padded[:, a:] = False
    words = np.packbits(padded.reshape(-1), bitorder="little").view("<u8").reshape(b, n_words)
    counts = np.bitwise_count(words).astype(np.int64)  # column 64 j + i is bit i of word j
    total = counts[:, 0]
    for j in range(1, n_words):  # columns one by one: reductions along a short axis are slow
        total = total + counts[:, j]
    k = (u * total).astype(np.int64)
    word = np.zeros(b, np.int64)
    chosen = words[:, 0]
    for j in range(n_words - 1):  # move past the words below the k-th True
        later = k >= counts[:, j]
        if j:
            later &= word == j
        k -= counts[:, j] * later
        word += later
        chosen = np.where(later, words[:, j + 1], chosen)
    column = select_kth(chosen.astype(np.uint64, copy=False), k)
    if n_words > 1:
        column += 64 * word
    return np.where(total > 0, column, 0)


def random_card(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random card id from each (non-empty) uint64 mask."""
    k = (rng.random(len(mask)) * np.bitwise_count(mask)).astype(np.int64)
    return select_kth(mask, k)


def to_bool(mask: np.ndarray, n_bits: int = cards.N_STANDARD_CARDS) -> np.ndarray:
    """Masks of shape (...) as booleans of shape (..., n_bits)."""
    return ((mask[..., None] >> np.arange(n_bits, dtype=np.uint64)) & U64(1)).astype(bool)


def from_bool(flags: np.ndarray) -> np.ndarray:
    """Booleans (..., n_bits) back to uint64 masks (...)."""
    n_bits = flags.shape[-1]
    return np.bitwise_or.reduce(np.where(flags, BIT[:n_bits], U64(0)), axis=-1)
