"""Scoring of a finished Hearts hand and the end of a Hearts match, over a batch of games.

Pure functions of arrays [RULES 7]; the rules (moon shooting, the jack of diamonds, partnership
Hearts, lowest score wins) are written once, for one game, in ``spades_env.games.hearts.hand_score``,
and these functions run it in a compiled loop over the games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env import cards
from spades_env.games.hearts import hand_score
from spades_env.games.hearts.hand_score import (
    HEARTS_MASK,
    JACK_MASK,
    JACK_OF_DIAMONDS,
    JACK_POINTS,
    MOON_MASK,
    MOON_POINTS,
    QUEEN_MASK,
    QUEEN_OF_SPADES,
    QUEEN_POINTS,
    hearts_tables,
)
from spades_env.games.hearts.rules import HeartsRules

__all__ = [
    "FIRST_TRICK_FORBIDDEN",
    "HEARTS_MASK",
    "JACK_MASK",
    "JACK_OF_DIAMONDS",
    "JACK_POINTS",
    "MOON_MASK",
    "MOON_POINTS",
    "QUEEN_MASK",
    "QUEEN_OF_SPADES",
    "QUEEN_POINTS",
    "HeartsScore",
    "card_points",
    "cards_taken",
    "hearts_match_winner",
    "score_hearts_hand",
]

#: Cards that may not be played to the first trick unless the player holds nothing else.
FIRST_TRICK_FORBIDDEN = MOON_MASK


def card_points(rules: HeartsRules) -> np.ndarray:
    """(64,) int64: points of each card id (hearts 1, Q of spades 13, J of diamonds -10 if on)."""
    points = np.zeros(64, dtype=np.int64)
    points[cards.HEARTS * cards.N_RANKS : (cards.HEARTS + 1) * cards.N_RANKS] = 1
    points[QUEEN_OF_SPADES] = QUEEN_POINTS
    if rules.jack_of_diamonds:
        points[JACK_OF_DIAMONDS] = JACK_POINTS
    return points


def cards_taken(history: np.ndarray, trick_winners: np.ndarray, n_players: int) -> np.ndarray:
    """(G, N) uint64: the cards in the tricks each seat took.

    history: (G, T, N) int64 card each seat played to each trick (-1 for none);
    trick_winners: (G, T) int64 winner of each trick (-1 for none).
    """
    history = np.ascontiguousarray(history, dtype=np.int64)
    taken = np.empty((len(history), n_players), np.uint64)
    hand_score.cards_taken_each(history, np.ascontiguousarray(trick_winners, dtype=np.int64), taken)
    return taken


@dataclass
class HeartsScore:
    """Result of scoring one Hearts hand for G games."""

    points: np.ndarray
    """(G, N) int64: card points each seat took (before the moon)."""
    moon: np.ndarray
    """(G, N) bool: the seat shot the moon."""
    seat_delta: np.ndarray
    """(G, N) int64: points each seat scores this hand (moon applied)."""
    delta: np.ndarray
    """(G, S) int64: points each side scores this hand (a team: the sum of its players)."""


def score_hearts_hand(rules: HeartsRules, taken: np.ndarray) -> HeartsScore:
    """Score a Hearts hand from the cards each seat took: taken (G, N) uint64 [RULES 7]."""
    taken = np.ascontiguousarray(taken, dtype=np.uint64)
    g, n = taken.shape
    out = HeartsScore(
        points=np.empty((g, n), np.int64),
        moon=np.empty((g, n), np.bool_),
        seat_delta=np.empty((g, n), np.int64),
        delta=np.empty((g, rules.n_sides), np.int64),
    )
    hand_score.score_hand_each(taken, hearts_tables(rules), out.points, out.moon, out.seat_delta, out.delta)
    return out


def hearts_match_winner(rules: HeartsRules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
    """Winning side of each match after a hand, or -1 while it goes on [RULES 7].

    The match ends when a side reaches ``target_score`` (or after ``max_hands`` hands);
    the single lowest score wins, and a tie for the lowest plays another hand.
    scores: (G, S) int; hands_played: (G,) int. Returns (G,) int64.
    """
    scores = np.ascontiguousarray(scores, dtype=np.int64)
    hands = np.asarray(hands_played, np.int64)
    hands = np.full(len(scores), hands) if hands.ndim == 0 else np.ascontiguousarray(hands)
    out = np.empty(len(scores), np.int64)
    hand_score.match_winner_each(scores, hands, hearts_tables(rules), out)
    return out
