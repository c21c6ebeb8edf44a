"""Tricks' score of a finished hand and the end of its match, compiled: a point a trick; the match
ends when a side reaches the target (or after ``max_hands``), the single highest score winning."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from tests.toy_game import phases as ph

#: ``Tables.max_hands`` of a match without a hand limit.
NO_LIMIT = -1


class Tables(NamedTuple):
    """A rule set's scoring options, as the compiled functions take them."""

    n_sides: int
    target_score: int
    max_hands: int


def tables(rules) -> Tables:
    """The scoring tables of a Tricks rule set."""
    limit = NO_LIMIT if rules.max_hands is None else int(rules.max_hands)
    return Tables(int(rules.n_sides), int(rules.target_score), limit)


#: Tricks' own record arrays (``state_fields.RESULT_FIELDS``), in ``end_hand``'s ``own`` order.
RECORD = ("best_hands",)


@njit(cache=True, inline="always")
def match_winner(o, scores, hands_played, t):
    """The winning side of row ``o`` of ``scores`` after ``hands_played`` hands, or -1."""
    ends = t.max_hands != NO_LIMIT and hands_played >= t.max_hands
    best, leader, n_best = scores[o, 0], 0, 0
    for side in range(t.n_sides):
        x = scores[o, side]
        ends |= x >= t.target_score
        if x > best:
            best, leader, n_best = x, side, 1
        elif x == best:
            n_best += 1
    return leader if ends and n_best == 1 else -1


@njit(cache=True, inline="always")
def end_hand(s, g, t, o, delta, scores, own):
    """The hand that ended in game ``g``: each side's tricks into row ``o`` of ``delta`` and the scores
    after into ``scores``, and each seat's best hands of the match, this one included, into row ``o`` of the
    ``own`` record; returns the match's winner, -1 while it goes on. Changes no state array."""
    (best_hands,) = own
    for k in range(s.hands.shape[1]):
        best_hands[o, k] = s.best_hands[g, k] + ph.took_most(s, g, k)
    for side in range(t.n_sides):
        delta[o, side] = 0
    for k in range(s.hands.shape[1]):
        delta[o, k % t.n_sides] += s.tricks_won[g, k]
    for side in range(t.n_sides):
        scores[o, side] = s.scores[g, side] + delta[o, side]
    return match_winner(o, scores, s.hand_number[g] + 1, t)


def match_winner_of(rules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
    """(G,) int64: ``match_winner`` of each row of ``scores`` (G, S), in plain NumPy."""
    t = tables(rules)
    scores = np.asarray(scores, np.int64)
    best = scores.max(axis=1)
    ends = (best >= t.target_score) | ((t.max_hands != NO_LIMIT) & (np.asarray(hands_played) >= t.max_hands))
    single = (scores == best[:, None]).sum(axis=1) == 1
    return np.where(ends & single, scores.argmax(axis=1), -1).astype(np.int64)
