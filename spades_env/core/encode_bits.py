"""Compiled writers of observation rows: the 0/1 entries gathered as bits, then expanded.

A game's kernel gathers the 0/1 part of a row (card planes, one-hots, flags) into a few
uint64 words, bit ``k`` for entry ``k``: a card mask is one shifted OR, a one-hot one bit.
``expand`` then turns the words into float32 0.0 / 1.0 entries in one tight loop (which the
compiler vectorizes), and the kernel writes the few real-valued entries after them.

Everything here works on one row and one game; seats are 0..n-1 (``seat_at``, ``relative``:
the seat arithmetic without a division).

Numba's cache (``cache=True``) keys a kernel on its own file only: after editing this file,
delete the games' cached kernels (``spades_env/games/*/__pycache__/*.nb[ic]``), or they keep
the old writers.
"""

from __future__ import annotations

import numpy as np
from numba import njit

_ONE = np.uint64(1)


@njit(cache=True)
def first_bad_row(games, seats, n_games, n_players):
    """The first row whose game or seat is outside the state, or -1."""
    for i in range(len(games)):
        if not (0 <= games[i] < n_games and 0 <= seats[i] < n_players):
            return i
    return -1


@njit(cache=True)
def seat_at(seat, j, n):
    """The absolute seat of relative seat ``j`` of observer ``seat``: ``(seat + j) % n``."""
    a = seat + j
    return a - n if a >= n else a


@njit(cache=True)
def relative(x, seat, n):
    """The relative seat of absolute seat ``x`` seen from ``seat``: ``(x - seat) % n``."""
    d = x - seat
    return d + n if d < 0 else d


@njit(cache=True)
def card_bit(card):
    """The bit of card id ``card`` (uint64), 0 for -1 (no card)."""
    return _ONE << np.uint64(card) if card >= 0 else np.uint64(0)


@njit(cache=True, inline="always")
def put_bits(words, pos, mask, width):
    """OR the low ``width`` (1..64) bits of the uint64 ``mask`` into ``words`` at bit ``pos``."""
    if width < 64:
        mask &= (_ONE << np.uint64(width)) - _ONE
    w, shift = pos >> 6, np.uint64(pos & 63)
    words[w] |= mask << shift
    if shift + np.uint64(width) > np.uint64(64):
        words[w + 1] |= mask >> (np.uint64(64) - shift)


@njit(cache=True, inline="always")
def put_one_hot(words, pos, width, index):
    """Set bit ``pos + index`` of ``words`` if 0 <= index < width (a one-hot block; else all zeros)."""
    if 0 <= index < width:
        at = pos + index
        words[at >> 6] |= _ONE << np.uint64(at & 63)


@njit(cache=True, inline="always")
def put_flag(words, pos, on):
    """Set bit ``pos`` of ``words`` if ``on``."""
    if on:
        words[pos >> 6] |= _ONE << np.uint64(pos & 63)


@njit(cache=True)
def put_relative_planes(words, o_played, o_trick, o_all, width, g, seat, n, hands, deal, trick):
    """The card blocks both games share, one plane per relative seat: ``played`` (dealt and no
    longer held), ``trick`` (the card played to the trick in progress) and, where ``o_all`` >= 0,
    ``all_hands`` (perfect information)."""
    for j in range(n):
        a = seat_at(seat, j, n)
        put_bits(words, o_played + j * width, deal[g, a] & ~hands[g, a], width)
        put_bits(words, o_trick + j * width, card_bit(trick[g, a]), width)
        if o_all >= 0:
            put_bits(words, o_all + j * width, hands[g, a], width)


@njit(cache=True)
def put_voids(words, pos, voids, seat, n):
    """The (N, 4) ``voids`` block: bit ``4 * seat + suit`` of ``voids`` for each relative seat."""
    bits = np.uint64(voids)
    if seat > 0:  # the observer's bits first: the 4 N bits rotated down by 4 seats
        shift = np.uint64(4 * seat)
        bits = (bits >> shift) | (bits << (np.uint64(4 * n) - shift))
    put_bits(words, pos, bits, 4 * n)


@njit(cache=True)
def put_seat_one_hots(words, o_leader, o_to_move, o_dealer, n, seat, leader, to_move, dealer, playing, over):
    """``leader`` (while ``playing``), ``to_move`` (unless ``over``) and ``dealer``: one-hot relative seats."""
    if playing:
        put_one_hot(words, o_leader, n, relative(leader, seat, n))
    if not over:
        put_one_hot(words, o_to_move, n, relative(to_move, seat, n))
    put_one_hot(words, o_dealer, n, relative(dealer, seat, n))


@njit(cache=True)
def expand(out, i, words, n_bits):
    """Entries 0..n_bits of row ``i`` of ``out``: bit k of ``words`` as 0.0 / 1.0; then clear
    ``words`` for the next row.

    (Unsigned indices into the 2-d ``out``, no row view, and an int32 on the way to float32: the
    compiler then vectorizes the loop, which negative-index checks, the reference counting of
    a view and a uint64 to float conversion would stop.)
    """
    row = np.uint64(i)
    for w in range((n_bits + 63) >> 6):
        x = words[w]
        words[w] = 0
        base = np.uint64(64 * w)
        for b in range(min(64, n_bits - 64 * w)):
            out[row, base + np.uint64(b)] = np.float32(np.int32((x >> np.uint64(b)) & _ONE))
