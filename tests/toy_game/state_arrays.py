# Generated from the game's state declarations by `python -m spades_env.games.generate_loops`; do not edit.
"""The state arrays of the game ``toy_game`` inside compiled code, from its declarations: the core's
fields (``core.state_fields.CORE_FIELDS``), then the game's own (``state_fields.FIELDS`` beside this file).

``StateArrays``: the arrays as one value; ``borrow``: it bundled from the arrays passed one by one, as
views that count no reference (``core.state_arrays.borrowed``); ``unpack_state``: the views of a
``core.packed.state_table``; ``DecisionArrays``: the fields the legal actions and the random draws read.
Generated (``spades_env.games.state_arrays_source``): edit the declarations and regenerate.
"""

from __future__ import annotations

from operator import attrgetter
from typing import NamedTuple

import numpy as np
from numba import njit

from spades_env.core.packed import view_at
from spades_env.core.state_arrays import borrowed


class StateArrays(NamedTuple):
    """The arrays of a toy_game ``GameState`` (same names, shapes and meanings)."""

    hands: np.ndarray
    deal: np.ndarray
    phase: np.ndarray
    to_move: np.ndarray
    dealer: np.ndarray
    leader: np.ndarray
    trick: np.ndarray
    n_in_trick: np.ndarray
    led_suit: np.ndarray
    n_tricks: np.ndarray
    tricks_won: np.ndarray
    trick_winners: np.ndarray
    spades_broken: np.ndarray
    voids: np.ndarray
    scores: np.ndarray
    hand_number: np.ndarray
    winner: np.ndarray
    key: np.ndarray
    history: np.ndarray
    hand_start_scores: np.ndarray
    points_taken: np.ndarray
    best_hands: np.ndarray


#: The fields, in order (``GameState``'s).
FIELDS = StateArrays._fields
N_FIELDS = len(FIELDS)
#: ``state_arrays(state)``: the state's arrays in ``FIELDS`` order (one C call).
state_arrays = attrgetter(*FIELDS)
#: Each field's dtype and dimensions after the batch (``core.state_fields.DIMENSIONS``), in ``FIELDS`` order.
LAYOUT = (
    (np.uint64, "N"),  # hands
    (np.uint64, "N"),  # deal
    (np.int64, ""),  # phase
    (np.int64, ""),  # to_move
    (np.int64, ""),  # dealer
    (np.int64, ""),  # leader
    (np.int64, "N"),  # trick
    (np.int64, ""),  # n_in_trick
    (np.int64, ""),  # led_suit
    (np.int64, ""),  # n_tricks
    (np.int64, "N"),  # tricks_won
    (np.int64, "T"),  # trick_winners
    (np.bool_, ""),  # spades_broken
    (np.int64, ""),  # voids
    (np.int64, "S"),  # scores
    (np.int64, ""),  # hand_number
    (np.int64, ""),  # winner
    (np.uint64, ""),  # key
    (np.int64, "TN"),  # history
    (np.int64, "S"),  # hand_start_scores
    (np.int64, "N"),  # points_taken
    (np.int64, "N"),  # best_hands
)


class DecisionArrays(NamedTuple):
    """The arrays the legal actions and the random draws read (a ``StateArrays`` subset)."""

    hands: np.ndarray
    phase: np.ndarray
    to_move: np.ndarray
    led_suit: np.ndarray
    n_tricks: np.ndarray


DECISION_FIELDS = DecisionArrays._fields
#: ``decision_arrays(state)``: the state's arrays in ``DECISION_FIELDS`` order.
decision_arrays = attrgetter(*DECISION_FIELDS)


@njit(cache=True)
def borrow(state):
    """``StateArrays`` of borrowed views of ``state`` (its arrays in ``FIELDS`` order)."""
    return StateArrays(
        borrowed(state[0]),  # hands
        borrowed(state[1]),  # deal
        borrowed(state[2]),  # phase
        borrowed(state[3]),  # to_move
        borrowed(state[4]),  # dealer
        borrowed(state[5]),  # leader
        borrowed(state[6]),  # trick
        borrowed(state[7]),  # n_in_trick
        borrowed(state[8]),  # led_suit
        borrowed(state[9]),  # n_tricks
        borrowed(state[10]),  # tricks_won
        borrowed(state[11]),  # trick_winners
        borrowed(state[12]),  # spades_broken
        borrowed(state[13]),  # voids
        borrowed(state[14]),  # scores
        borrowed(state[15]),  # hand_number
        borrowed(state[16]),  # winner
        borrowed(state[17]),  # key
        borrowed(state[18]),  # history
        borrowed(state[19]),  # hand_start_scores
        borrowed(state[20]),  # points_taken
        borrowed(state[21]),  # best_hands
    )


@njit(cache=True)
def borrow_decision(state):
    """``DecisionArrays`` of borrowed views of ``state`` (its arrays in ``DECISION_FIELDS`` order)."""
    return DecisionArrays(
        borrowed(state[0]),  # hands
        borrowed(state[1]),  # phase
        borrowed(state[2]),  # to_move
        borrowed(state[3]),  # led_suit
        borrowed(state[4]),  # n_tricks
    )


@njit(cache=True, inline="always")
def decision_view(state):
    """The ``DECISION_FIELDS`` arrays of a ``FIELDS``-ordered state tuple."""
    return state[0], state[2], state[3], state[8], state[9]


@njit(cache=True)
def unpack_state(table):
    """The arrays a ``core.packed.state_table`` describes, as a plain tuple in ``FIELDS`` order (views of
    the state's own memory, of the types of the arrays passed one by one; valid while the call that made them
    runs)."""
    b, n, s, t = table[0], table[1], table[2], table[3]
    return (
        view_at(table, 0, np.uint64, (b, n)),  # hands
        view_at(table, 1, np.uint64, (b, n)),  # deal
        view_at(table, 2, np.int64, (b,)),  # phase
        view_at(table, 3, np.int64, (b,)),  # to_move
        view_at(table, 4, np.int64, (b,)),  # dealer
        view_at(table, 5, np.int64, (b,)),  # leader
        view_at(table, 6, np.int64, (b, n)),  # trick
        view_at(table, 7, np.int64, (b,)),  # n_in_trick
        view_at(table, 8, np.int64, (b,)),  # led_suit
        view_at(table, 9, np.int64, (b,)),  # n_tricks
        view_at(table, 10, np.int64, (b, n)),  # tricks_won
        view_at(table, 11, np.int64, (b, t)),  # trick_winners
        view_at(table, 12, np.bool_, (b,)),  # spades_broken
        view_at(table, 13, np.int64, (b,)),  # voids
        view_at(table, 14, np.int64, (b, s)),  # scores
        view_at(table, 15, np.int64, (b,)),  # hand_number
        view_at(table, 16, np.int64, (b,)),  # winner
        view_at(table, 17, np.uint64, (b,)),  # key
        view_at(table, 18, np.int64, (b, t, n)),  # history
        view_at(table, 19, np.int64, (b, s)),  # hand_start_scores
        view_at(table, 20, np.int64, (b, n)),  # points_taken
        view_at(table, 21, np.int64, (b, n)),  # best_hands
    )
