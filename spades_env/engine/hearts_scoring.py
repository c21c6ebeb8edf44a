"""Scoring of a finished Hearts hand and the end of a Hearts match, vectorized over games.

Pure functions of arrays [RULES 7]: each heart is worth 1 point, the queen of spades 13
(26 in all), and under ``jack_of_diamonds`` the jack of diamonds -10. A player who takes
every heart and the queen of spades **shoots the moon**: by default the shooter scores 0
for them and every opponent 26; with ``moon_subtracts`` the shooter scores -26 and the
opponents nothing. The jack of diamonds counts for whoever takes it, moon or not. In
``partnership`` a player's opponents are the two players of the other team (the shooter's
partner scores its own points, which are 0), and a team scores the sum of its players.
Lowest score wins: the match ends when a side reaches ``target_score`` (or after
``max_hands``) with a single lowest side; a tie for the lowest score plays another hand.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env import cards
from spades_env.engine import bits
from spades_env.rules import Rules

#: The queen of spades and the jack of diamonds (card ids).
QUEEN_OF_SPADES = cards.SPADES * cards.N_RANKS + 10
JACK_OF_DIAMONDS = cards.DIAMONDS * cards.N_RANKS + 9
HEARTS_MASK = cards.SUIT_MASK[cards.HEARTS]
QUEEN_MASK = np.uint64(1 << QUEEN_OF_SPADES)
JACK_MASK = np.uint64(1 << JACK_OF_DIAMONDS)
#: The 14 cards a player must take to shoot the moon (26 points).
MOON_MASK = np.uint64(int(HEARTS_MASK) | int(QUEEN_MASK))
MOON_POINTS = 26
QUEEN_POINTS = 13
JACK_POINTS = -10
#: Cards that may not be played to the first trick unless the player holds nothing else.
FIRST_TRICK_FORBIDDEN = MOON_MASK


def per_side(rules: Rules, per_seat: np.ndarray) -> np.ndarray:
    """(G, n_players) seat values summed into (G, n_sides) side values."""
    side = np.array([rules.side_of_seat(s) for s in range(rules.n_players)])
    return per_seat @ (side[:, None] == np.arange(rules.n_sides)).astype(np.int64)


def card_points(rules: Rules) -> np.ndarray:
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
    safe = np.maximum(history, 0)
    trick_masks = np.bitwise_or.reduce(np.where(history >= 0, bits.BIT[safe], np.uint64(0)), axis=2)  # (G, T)
    won = trick_winners[:, :, None] == np.arange(n_players)  # (G, T, N)
    return np.bitwise_or.reduce(np.where(won, trick_masks[:, :, None], np.uint64(0)), axis=1)


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


def score_hearts_hand(rules: Rules, taken: np.ndarray) -> HeartsScore:
    """Score a Hearts hand from the cards each seat took: taken (G, N) uint64 [RULES 7]."""
    taken = np.asarray(taken, dtype=np.uint64)
    hearts = bits.popcount(taken & HEARTS_MASK)
    queen = ((taken & QUEEN_MASK) != 0).astype(np.int64)
    jack = ((taken & JACK_MASK) != 0).astype(np.int64) if rules.jack_of_diamonds else np.zeros_like(hearts)
    penalty = hearts + QUEEN_POINTS * queen
    moon = (taken & MOON_MASK) == MOON_MASK  # (G, N): at most one seat per game
    n = taken.shape[1]
    side = np.array([rules.side_of_seat(s) for s in range(n)])
    # opponent[i, j]: seat j is an opponent of seat i (another side).
    opponent = side[:, None] != side[None, :]
    shot = moon.any(axis=1, keepdims=True)
    if rules.moon_subtracts:
        moon_penalty = np.where(moon, -MOON_POINTS, 0)
    else:
        hit = (moon.astype(np.int64) @ opponent.astype(np.int64)) > 0  # (G, N): an opponent shot
        moon_penalty = np.where(hit, MOON_POINTS, 0)
    seat_delta = np.where(shot, moon_penalty, penalty) + JACK_POINTS * jack
    return HeartsScore(
        points=penalty + JACK_POINTS * jack, moon=moon, seat_delta=seat_delta, delta=per_side(rules, seat_delta)
    )


def hearts_match_winner(rules: Rules, scores: np.ndarray, hands_played: np.ndarray) -> np.ndarray:
    """Winning side of each match after a hand, or -1 while it goes on [RULES 7].

    The match ends when a side reaches ``target_score`` (or after ``max_hands`` hands);
    the single lowest score wins, and a tie for the lowest plays another hand.
    scores: (G, S) int; hands_played: (G,) int. Returns (G,) int64.
    """
    scores = np.asarray(scores, dtype=np.int64)
    ends = np.any(scores >= rules.target_score, axis=1)
    if rules.max_hands is not None:
        ends |= np.asarray(hands_played) >= rules.max_hands
    low = scores.min(axis=1, keepdims=True)
    unique_low = np.sum(scores == low, axis=1) == 1
    return np.where(ends & unique_low, np.argmin(scores, axis=1), -1).astype(np.int64)
