"""Compiled card helpers shared by the Spades and Hearts heuristics: suit lanes of a hand.

A suit lane is the set of ranks a hand holds in one suit, an int64 of up to 15 bits: 13
ranks, and in the spade lane the two jokers (card ids 52, 53) as ranks 13 and 14 on top,
so that ``suit * 13 + rank`` stays the card id and "the highest trump" is the lane's top bit.
A hand's four lanes travel as a 4-tuple (``Lanes``), so that the rules over them allocate
nothing. Every function here works on one game and is compiled (``@njit(cache=True)``).
"""

from __future__ import annotations

import numpy as np
from numba import njit
from numba.cpython.unsafe.numbers import leading_zeros, trailing_zeros

from spades_env import cards

N_RANKS = cards.N_RANKS
SPADES = cards.SPADES
HEARTS = cards.HEARTS
ACE, KING, QUEEN, JACK = 12, 11, 10, 9
LANE_BITS = 15  #: 13 ranks, plus the two jokers on top of the spade lane
FULL = (1 << LANE_BITS) - 1
#: "No card": below every score the rules give, so a masked-out choice never wins.
NEG = -(10**6)
_SUIT_LANE = np.uint64(0x1FFF)
_JOKERS = np.uint64(3)


@njit(cache=True)
def suit_of(card):
    """Suit of a card id (the jokers 52, 53 are spades)."""
    return min(card // N_RANKS, SPADES)


@njit(cache=True)
def rank_of(card):
    """Rank in its lane of a card id (the jokers: spade ranks 13 and 14)."""
    return card - N_RANKS * suit_of(card)


@njit(cache=True)
def lanes_of(mask):
    """The four suit lanes of a uint64 card mask (jokers on top of the spade lane)."""
    spades = np.int64((mask >> np.uint64(3 * N_RANKS)) & _SUIT_LANE)
    spades |= np.int64((mask >> np.uint64(cards.LITTLE_JOKER)) & _JOKERS) << N_RANKS
    return (
        np.int64(mask & _SUIT_LANE),
        np.int64((mask >> np.uint64(N_RANKS)) & _SUIT_LANE),
        np.int64((mask >> np.uint64(2 * N_RANKS)) & _SUIT_LANE),
        spades,
    )


@njit(cache=True)
def mask_of_flags(flags, n_card_ids):
    """The uint64 card mask of the first ``n_card_ids`` flags of a bool row (a legal-action mask)."""
    mask = np.uint64(0)
    for c in range(n_card_ids):
        mask |= np.uint64(flags[c]) << np.uint64(c)
    return mask


@njit(cache=True)
def only_card(flags, n_card_ids):
    """The card id when exactly one of the first ``n_card_ids`` flags is set (a forced card), else -1."""
    mask = mask_of_flags(flags, n_card_ids)
    if mask == 0 or mask & (mask - np.uint64(1)) != 0:
        return -1
    return np.int64(trailing_zeros(mask))


@njit(cache=True)
def lanes_of_flags(flags, n_card_ids):
    """The four suit lanes of the first ``n_card_ids`` flags of a bool row (a legal-action mask)."""
    return lanes_of(mask_of_flags(flags, n_card_ids))


@njit(cache=True)
def highest(lane):
    """Rank of the lane's highest card, -1 for an empty lane."""
    return -1 if lane == 0 else 63 - leading_zeros(np.int64(lane))


@njit(cache=True)
def lowest(lane):
    """Rank of the lane's lowest card, -1 for an empty lane."""
    return -1 if lane == 0 else trailing_zeros(np.int64(lane))


@njit(cache=True)
def count(lane):
    """Number of cards in the lane (a branch-free popcount of up to 16 bits)."""
    x = lane - ((lane >> 1) & 0x5555)
    x = (x & 0x3333) + ((x >> 2) & 0x3333)
    x = (x + (x >> 4)) & 0x0F0F
    return (x + (x >> 8)) & 0x1F


@njit(cache=True)
def above(rank):
    """The set of lane ranks strictly above ``rank`` (-1: every rank)."""
    return FULL if rank < 0 else (FULL << (rank + 1)) & FULL


@njit(cache=True)
def best_suit(lanes, scores):
    """The non-empty suit with the highest score (the first on a tie), -1 if every lane is empty."""
    best, suit = NEG, -1
    for s in range(4):
        if lanes[s] != 0 and scores[s] > best:
            best, suit = scores[s], s
    return suit


@njit(cache=True)
def card_in(suit, rank):
    """Card id of ``rank`` in ``suit``; card 0 for no suit (-1) or an empty lane's rank (-1)."""
    return 0 if suit < 0 else suit * N_RANKS + max(rank, 0)


@njit(cache=True)
def lowest_card(lanes):
    """(card, found): the lowest-value card (lowest rank; spades last), card 0 when none."""
    r = (lowest(lanes[0]), lowest(lanes[1]), lowest(lanes[2]), lowest(lanes[3]))
    suit = best_suit(lanes, (-r[0], -r[1], -r[2], -(r[3] + N_RANKS)))
    return card_in(suit, r[suit] if suit >= 0 else -1), suit >= 0


@njit(cache=True)
def highest_card(lanes, spade_extra):
    """(card, found): the highest-value card, a spade's rank counting ``spade_extra`` more; card 0 when none."""
    r = (highest(lanes[0]), highest(lanes[1]), highest(lanes[2]), highest(lanes[3]))
    suit = best_suit(lanes, (r[0], r[1], r[2], r[3] + spade_extra))
    return card_in(suit, r[suit] if suit >= 0 else -1), suit >= 0


@njit(cache=True)
def lanes_and(a, b):
    return (a[0] & b[0], a[1] & b[1], a[2] & b[2], a[3] & b[3])


@njit(cache=True)
def lanes_and_not(a, b):
    return (a[0] & ~b[0], a[1] & ~b[1], a[2] & ~b[2], a[3] & ~b[3])


@njit(cache=True)
def played_cards(deal_row, hands_row):
    """Cards played so far this hand by every seat (uint64)."""
    out = np.uint64(0)
    for k in range(len(deal_row)):
        out |= deal_row[k] & ~hands_row[k]
    return out
