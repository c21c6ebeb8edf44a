"""The Hearts pass for one game, compiled: check, apply, legal row, random draw [RULES 7].

Each player chooses three cards to pass, one action each, clockwise from dealer+1; after the
last seat's third card every seat's cards change hands at once, by the hand's pass
direction (``PASS_OFFSETS``), and the holder of the two of clubs leads it. The functions take
one game ``g`` of the state ``s`` (a ``games.hearts.state_arrays.StateArrays``) and the rule set's
parameters ``p`` (int64, indexed by the ``P_*`` constants; ``games.hearts.spec``'s ``params``).
Card play is the core's; the batch loops are in ``games.hearts.loops``. The functions that
take ``s`` are inlined into the loops (``inline="always"``, see ``games.spades.phases``).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from spades_env.core import state_arrays as sa
from spades_env.core.card_bits import bit_of, kth_card, popcount, write_bits
from spades_env.core.phases import LOWEST_CLUB_LEAD, PLAY

PASS = 7  #: Hearts: choose a card to pass (three per player) [RULES 7]; its code is distinct from Spades' phases
#: The names of Hearts' own phase codes.
PHASE_NAMES = {PASS: "pass"}

# The parameters of a rule set: indices into ``p``.
P_N_PLAYERS = 0
P_N_CARD_IDS = 1
P_LOWEST_CLUB = 2
P_DECK_SIZE = 3
P_DECK = 4  #: then the deck's card ids in id order (``deck(p)``)
N_PARAMS = P_DECK + 64

#: Cards each player passes.
PASS_CARDS = 3
#: Seats between passer and receiver (clockwise) by hand number mod 4: left, right, across, no pass.
PASS_OFFSETS = np.array([1, 3, 2, 0], dtype=np.int64)


@njit(cache=True, inline="always")
def deck(p):
    """The card ids of the deck in play, in id order (int64, a view of ``p``)."""
    return p[P_DECK : P_DECK + p[P_DECK_SIZE]]


@njit(cache=True, inline="always")
def deal(s, p, g, seeded):
    """Deal the hand of game ``g`` (``core.state_arrays.deal_hand``): no pile, no card face up, no redeal."""
    sa.deal_hand(s, g, deck(p), seeded, 0)


@njit(cache=True, inline="always")
def next_hand(s, p, g, new_match):
    """Nothing of Hearts' own to set before the next hand (the pass is cleared by ``begin_hand``)."""


@njit(cache=True, inline="always")
def begin_hand(s, p, g):
    """The first decision of a hand just dealt (``core.state_arrays.clear_hand`` done): dealer+1
    chooses the first card to pass; on every fourth hand nobody passes and play starts."""
    for k in range(p[P_N_PLAYERS]):
        s.passed[g, k] = 0
    s.phase[g] = PASS
    if PASS_OFFSETS[s.hand_number[g] % 4] == 0:
        start_play(s, p, g)


@njit(cache=True, inline="always")
def passable(s, g):
    """The cards the passer may still choose: held, not chosen yet."""
    seat = s.to_move[g]
    return s.hands[g, seat] & ~s.passed[g, seat]


@njit(cache=True, inline="always")
def is_legal(s, p, g, a):
    """Whether action ``a`` is legal for the player to move in game ``g`` (a phase but play)."""
    return s.phase[g] == PASS and (passable(s, g) & bit_of(a, p[P_N_CARD_IDS])) != np.uint64(0)


@njit(cache=True, inline="always")
def apply(s, p, g, a):
    """Set card ``a`` aside to pass; after each seat's third card the next seat chooses, and after
    the last seat's the cards change hands and play starts. Returns False (no redeal in Hearts)."""
    if s.phase[g] != PASS:
        return False
    n = p[P_N_PLAYERS]
    seat = s.to_move[g]
    s.passed[g, seat] |= bit_of(a, p[P_N_CARD_IDS])
    if popcount(s.passed[g, seat]) < PASS_CARDS:
        return False
    nxt = seat + 1 if seat + 1 < n else 0
    s.to_move[g] = nxt
    if nxt != (s.dealer[g] + 1) % n:
        return False
    offset = PASS_OFFSETS[s.hand_number[g] % 4]
    for k in range(n):
        s.hands[g, k] &= ~s.passed[g, k]
    for k in range(n):
        s.hands[g, k] |= s.passed[g, (k - offset) % n]
        s.deal[g, k] = s.hands[g, k]  # the hands as play starts; the record restores the dealt ones
    start_play(s, p, g)
    return False


@njit(cache=True, inline="always")
def start_play(s, p, g):
    """The holder of the two of clubs (the lowest club) leads it to the first trick [RULES 7]."""
    club = np.uint64(1) << np.uint64(p[P_LOWEST_CLUB])
    first = 0
    for k in range(p[P_N_PLAYERS]):
        if s.hands[g, k] & club:
            first = k
            break
    s.phase[g] = PLAY
    s.leader[g] = first
    s.to_move[g] = first
    s.led_suit[g] = LOWEST_CLUB_LEAD


@njit(cache=True, inline="always")
def legal_row(s, p, g, row):
    """Write the legal actions of game ``g`` (a phase but play) into the bool ``row`` (all of it)."""
    row[:] = False
    if s.phase[g] == PASS:
        write_bits(passable(s, g), row, p[P_N_CARD_IDS])


@njit(cache=True, inline="always")
def random_action(s, p, g, u):
    """Passable card k in id order, k = floor(u * their number); -1 in a phase without actions."""
    if s.phase[g] != PASS:
        return -1
    held = passable(s, g)
    return kth_card(held, np.int64(u * popcount(held)))
