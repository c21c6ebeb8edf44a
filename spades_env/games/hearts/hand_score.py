"""Scoring of one finished Hearts hand and the end of its match, compiled [RULES 7].

Each heart is worth 1 point, the queen of spades 13 (26 in all), and under
``jack_of_diamonds`` the jack of diamonds -10. A player who takes every heart and the queen
of spades **shoots the moon**: by default the shooter scores 0 for them and every opponent
26; with ``moon_subtracts`` the shooter scores -26 and the opponents nothing. The jack of
diamonds counts for whoever takes it, moon or not. In ``partnership`` a player's opponents
are the two players of the other team (the shooter's partner scores its own points, which
are 0), and a team scores the sum of its players. Lowest score wins: the match ends when a
side reaches ``target_score`` (or after ``max_hands``) with a single lowest side; a tie for
the lowest score plays another hand.

A rule set's options are read once into ``HeartsTables`` (``hearts_tables(rules)``). The
compiled functions read row ``i`` of batch-first inputs and write row ``o`` of outputs the
caller gives (no row is sliced out, see ``games.spades.hand_score``):

- ``cards_taken(i, history, trick_winners, o, taken)``: (G, T, N) int64 cards played to each
  trick (-1 none) and (G, T) winners (-1 none) into (., N) uint64 masks of the cards each
  seat took.
- ``score_hand(i, taken, t, o, points, moon, seat_delta, delta)``: from (G, N) taken masks
  into (., N) int64 card points (before the moon), (., N) bool moon, (., N) int64 seat
  points and (., S) int64 side points.
- ``match_winner(i, scores, hands_played, t)``: the winning side of row ``i`` of (., S)
  scores after ``hands_played`` hands, or -1.
- ``finish_hand(i, history, trick_winners, scores, hand_number, t, o, taken, points, moon,
  seat_delta, delta, scores_after)``: game ``i`` of the engine's ``GameState`` arrays:
  its taken cards and score into row ``o`` of the outputs (``scores_after[o]`` =
  ``scores[i] + delta[o]``); returns the match's winner after ``hand_number[i] + 1`` hands,
  -1 while it goes on. No state array is changed.
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from spades_env import cards
from spades_env.games.hearts.rules import HeartsRules

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
#: ``HeartsTables.max_hands`` without a hand limit.
NO_LIMIT = -1


class HeartsTables(NamedTuple):
    """A Hearts rule set's scoring options, as the compiled functions take them."""

    n_sides: int
    """Scoring sides: seat s scores for side s mod n_sides (partners sit opposite) [RULES 7]."""
    jack_of_diamonds: bool
    moon_subtracts: bool
    target_score: int
    max_hands: int
    """Hands after which the match ends; NO_LIMIT (-1): none."""


@lru_cache(maxsize=16)
def hearts_tables(rules: HeartsRules) -> HeartsTables:
    """The scoring tables of a Hearts rule set (built once per ``HeartsRules``)."""
    assert all(rules.side_of_seat(s) == s % rules.n_sides for s in range(rules.n_players))
    return HeartsTables(
        n_sides=int(rules.n_sides),
        jack_of_diamonds=bool(rules.jack_of_diamonds),
        moon_subtracts=bool(rules.moon_subtracts),
        target_score=int(rules.target_score),
        max_hands=NO_LIMIT if rules.max_hands is None else int(rules.max_hands),
    )


@njit(cache=True, inline="always")
def cards_taken(i, history, trick_winners, o, taken):
    """The cards in the tricks each seat took in game ``i``, into row ``o`` of ``taken`` (., N) uint64."""
    n_players = history.shape[2]
    for seat in range(n_players):
        taken[o, seat] = 0
    for k in range(history.shape[1]):
        winner = trick_winners[i, k]
        if winner < 0:
            continue
        trick = np.uint64(0)
        for seat in range(n_players):
            card = history[i, k, seat]
            if card >= 0:
                trick |= np.uint64(1) << np.uint64(card)
        taken[o, winner] |= trick


@njit(cache=True, inline="always")
def _n_cards(mask):
    """The number of cards (set bits) of a mask."""
    n = 0
    while mask != np.uint64(0):
        mask &= mask - np.uint64(1)
        n += 1
    return n


@njit(cache=True, inline="always")
def score_hand(i, taken, t, o, points, moon, seat_delta, delta):
    """Score the hand of game ``i`` from the cards each seat took (``taken`` (G, N) uint64) into
    row ``o`` of ``points`` (card points before the moon), ``moon``, ``seat_delta`` and
    ``delta`` (a side: the sum of its seats) [RULES 7]."""
    n_players = taken.shape[1]
    shot = False
    for seat in range(n_players):
        cards_of = taken[i, seat]
        penalty = _n_cards(cards_of & HEARTS_MASK)
        if cards_of & QUEEN_MASK:
            penalty += QUEEN_POINTS
        if t.jack_of_diamonds and cards_of & JACK_MASK:
            penalty += JACK_POINTS
        points[o, seat] = penalty
        moon[o, seat] = (cards_of & MOON_MASK) == MOON_MASK  # one seat in a played hand
        shot |= moon[o, seat]
    for side in range(t.n_sides):
        delta[o, side] = 0
    for seat in range(n_players):
        if not shot:
            value = points[o, seat]
        else:
            value = JACK_POINTS if t.jack_of_diamonds and taken[i, seat] & JACK_MASK else 0
            if t.moon_subtracts:
                value += -MOON_POINTS if moon[o, seat] else 0
            else:  # 26 if an opponent (a seat of another side) shot the moon
                for other in range(n_players):
                    if moon[o, other] and other % t.n_sides != seat % t.n_sides:
                        value += MOON_POINTS
                        break
        seat_delta[o, seat] = value
        delta[o, seat % t.n_sides] += value


@njit(cache=True, inline="always")
def match_winner(i, scores, hands_played, t):
    """The winning side of row ``i`` of (., S) ``scores`` after ``hands_played`` hands, or -1
    while the match goes on [RULES 7]: it ends when a side reaches ``target_score`` or after
    ``max_hands`` hands; the single lowest score wins, and a tie for the lowest plays on."""
    ends = t.max_hands != NO_LIMIT and hands_played >= t.max_hands
    low, leader, n_low = scores[i, 0], 0, 0
    for side in range(scores.shape[1]):
        s = scores[i, side]
        ends |= s >= t.target_score
        if s < low:
            low, leader, n_low = s, side, 1
        elif s == low:
            n_low += 1
    return leader if ends and n_low == 1 else -1


@njit(cache=True)
def finish_hand(
    i, history, trick_winners, scores, hand_number, t, o, taken, points, moon, seat_delta, delta, scores_after
):
    """Score the hand of game ``i`` of the engine's state arrays (``GameState`` fields ``history``,
    ``trick_winners``, ``scores``, ``hand_number``) into row ``o`` of the outputs (see the module
    docstring) and return the match's winner after it, -1 while it goes on. Changes no state array."""
    cards_taken(i, history, trick_winners, o, taken)
    score_hand(o, taken, t, o, points, moon, seat_delta, delta)
    for side in range(t.n_sides):
        scores_after[o, side] = scores[i, side] + delta[o, side]
    return match_winner(o, scores_after, hand_number[i] + 1, t)


#: The tables the loops' ``end_hands`` takes (as a plain tuple).
Tables = HeartsTables
#: The record arrays of a finished hand that are Hearts' own, in the order ``end_hand`` takes them
#: (after ``core.state_arrays.RECORD_FIELDS``); each is declared (shape, dtype) in ``state_fields.RESULT_FIELDS``,
#: in this order: Hearts' ``FinishedHands`` fields after the core's.
RECORD = ("taken", "points", "moon", "seat_delta", "passed", "points_taken")


@njit(cache=True, inline="always")
def end_hand(s, g, t, o, delta, scores, own):
    """The hand that ended in game ``g`` of the state ``s`` (a ``games.hearts.state_arrays.StateArrays``):
    its own record fields (``own``: the arrays of ``RECORD``) and its score (``finish_hand``) into
    row ``o``. Returns the match's winner, -1 while it goes on. Changes no state array."""
    taken, points_of, moon, seat_delta, passed, points_taken = own
    for k in range(s.hands.shape[1]):
        passed[o, k] = s.passed[g, k]
        points_taken[o, k] = s.points_taken[g, k]
    return finish_hand(
        g, s.history, s.trick_winners, s.scores, s.hand_number, t, o, taken, points_of, moon, seat_delta, delta,
        scores,
    )  # fmt: skip


# Over a batch of G games: ``games.hearts.scoring``'s batch functions. They live beside the
# one-game functions so that a change to these invalidates their Numba cache too.
@njit(cache=True)
def cards_taken_each(history, trick_winners, taken):
    """``cards_taken`` of each game g into row g of ``taken`` (G, N) uint64."""
    for g in range(len(history)):
        cards_taken(g, history, trick_winners, g, taken)


@njit(cache=True)
def score_hand_each(taken, t, points, moon, seat_delta, delta):
    """``score_hand`` of each game g into row g of the outputs."""
    for g in range(len(taken)):
        score_hand(g, taken, t, g, points, moon, seat_delta, delta)


@njit(cache=True)
def match_winner_each(scores, hands_played, t, out):
    """``match_winner`` of each game into ``out`` (G,) int64."""
    for g in range(len(scores)):
        out[g] = match_winner(g, scores, hands_played[g], t)
