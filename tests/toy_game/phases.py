"""Tricks' decisions but card play, compiled: there are none; a hand starts with the play.

The functions the loops ask of every game (``spades_env/games/loops_template.py.in``) take one game
``g`` of the state ``s`` and the rule set's parameters ``p`` (indexed by the ``P_*`` constants,
built by the spec's ``params``).
"""

from __future__ import annotations

from numba import njit

from spades_env.core import state_arrays as sa
from spades_env.core.phases import PLAY

#: Tricks has no phase of its own (``core.phases``' PLAY and OVER).
PHASE_NAMES: dict[int, str] = {}

# The parameters of a rule set: indices into ``p``.
P_N_PLAYERS = 0
P_N_CARD_IDS = 1
P_DECK_SIZE = 2
P_DECK = 3  #: then the deck's card ids in id order
N_PARAMS = P_DECK + 64


@njit(cache=True, inline="always")
def deck(p):
    """The card ids of the deck in play, in id order (a view of ``p``)."""
    return p[P_DECK : P_DECK + p[P_DECK_SIZE]]


@njit(cache=True, inline="always")
def deal(s, p, g, seeded):
    """Deal the hand of game ``g``: no pile, no card face up, no redeal."""
    sa.deal_hand(s, g, deck(p), seeded, 0)


@njit(cache=True, inline="always")
def took_most(s, g, k):
    """Seat ``k`` took the most tricks of game ``g``'s hand (a tie: each of the most)."""
    most = 0
    for j in range(s.hands.shape[1]):
        most = max(most, s.tricks_won[g, j])
    return s.tricks_won[g, k] == most


@njit(cache=True, inline="always")
def next_hand(s, p, g, new_match):
    """Tricks' own field before the next hand: the best hands of the match, the hand just played counted (none in a
    new match)."""
    for k in range(s.hands.shape[1]):
        s.best_hands[g, k] = 0 if new_match else s.best_hands[g, k] + took_most(s, g, k)


@njit(cache=True, inline="always")
def begin_hand(s, p, g):
    """The play starts at once: dealer+1 leads (set by ``core.state_arrays.clear_hand``)."""
    s.phase[g] = PLAY


@njit(cache=True, inline="always")
def is_legal(s, p, g, a):
    """No decision but card play: no other action is legal."""
    return False


@njit(cache=True, inline="always")
def apply(s, p, g, a):
    """Nothing to apply (no redeal)."""
    return False


@njit(cache=True, inline="always")
def legal_row(s, p, g, row):
    """No legal action outside the play."""
    row[:] = False


@njit(cache=True, inline="always")
def random_action(s, p, g, u):
    """No action outside the play."""
    return -1
