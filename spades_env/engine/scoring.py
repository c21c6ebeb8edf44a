"""Scoring of a finished Spades hand and the end of a match, vectorized over games.

Pure functions of arrays: no engine state, so that tests can drive them with the
worked examples of RULES.md section 3 directly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from spades_env.rules import BIG_BID_THRESHOLD, Rules


def side_matrix(rules: Rules) -> np.ndarray:
    """One-hot (n_players, n_sides) int64 matrix mapping seats to scoring sides."""
    m = np.zeros((rules.n_players, rules.n_sides), dtype=np.int64)
    for seat in range(rules.n_players):
        m[seat, rules.side_of_seat(seat)] = 1
    return m


@lru_cache(maxsize=64)
def _seats_by_side(rules: Rules) -> str | np.ndarray:
    """How ``per_side`` sums seats: "own" (a side per seat), "alternate" (side = seat mod n_sides)
    or else the side matrix."""
    sides = [rules.side_of_seat(s) for s in range(rules.n_players)]
    if sides == list(range(rules.n_players)):
        return "own"
    if sides == [s % rules.n_sides for s in range(rules.n_players)] and rules.n_players == 2 * rules.n_sides:
        return "alternate"
    return side_matrix(rules)


def per_side(rules: Rules, per_seat: np.ndarray) -> np.ndarray:
    """(G, n_players) seat values summed into (G, n_sides) side values."""
    how = _seats_by_side(rules)
    if isinstance(how, str):
        if how == "own":
            return per_seat
        s = rules.n_sides
        return per_seat[:, :s] + per_seat[:, s:]
    return per_seat @ how


@dataclass
class HandScore:
    """Result of scoring one hand for G games."""

    delta: np.ndarray
    """(G, n_sides) int64: points each side gains this hand (bag penalties included)."""
    bags: np.ndarray
    """(G, n_sides) int64: bag count after this hand."""
    made: np.ndarray
    """(G, n_sides) bool: the side's contract was made (a zero contract counts as made)."""
    bag_penalties: np.ndarray
    """(G, n_sides) int64: how many bag penalties were applied this hand."""
    boston: np.ndarray
    """(G, n_sides) bool: the side made a Boston (bid and took every trick; ``boston`` on)."""


#: Bemo declarations: (tricks from the first that the side must take, points) by declared value.
BEMO_TRICKS = {1: (6, 60), 2: (9, 90)}
#: Points of a contract under ``ten_for_two_hundred`` and of a Boston, won or lost [RULES 6].
BIG_CONTRACT_POINTS = 200


def score_hand(
    rules: Rules,
    bids: np.ndarray,
    blind: np.ndarray,
    tricks: np.ndarray,
    bags: np.ndarray,
    trick_winners: np.ndarray | None = None,
    bemo: np.ndarray | None = None,
) -> HandScore:
    """Score a hand [RULES 3, 4, 5, 6].

    bids, tricks: (G, n_players) int; blind: (G, n_players) bool (blind nil
    declared); bags: (G, n_sides) int bag counts before the hand. For ``bemo``:
    trick_winners (G, hand size) int seats in trick order and bemo (G, n_sides)
    int declarations (0 none, 1 little, 2 big, -1 undecided = none).

    Under ``ten_for_two_hundred`` a contract of 10 or more, and under ``boston`` a
    contract of every trick, is worth +200 made or -200 set in place of 10 x contract
    (and of the set penalty); overtricks still score 1 each and count as bags.
    A Bemo is scored on top of everything else.
    """
    bids = np.asarray(bids, dtype=np.int64)
    tricks = np.asarray(tricks, dtype=np.int64)
    blind = np.asarray(blind, dtype=bool)
    bags = np.asarray(bags, dtype=np.int64)

    nil = bids == 0
    nil_value = np.where(blind, rules.blind_nil_bonus, rules.nil_bonus)
    nil_points = per_side(rules, np.where(nil, np.where(tricks == 0, nil_value, -nil_value), 0))
    failed_nil_tricks = per_side(rules, np.where(nil, tricks, 0))

    contract = per_side(rules, np.where(nil, 0, bids))
    taken = per_side(rules, np.where(nil, 0, tricks))
    made = taken >= contract
    over = np.where(made, taken - contract, 0)
    if rules.set_penalty == "bid":
        set_points = -10 * contract
    elif rules.set_penalty == "short":
        set_points = -10 * (contract - taken)
    else:
        set_points = np.zeros_like(contract)
    made_points = 10 * contract
    big = np.zeros(contract.shape, bool)
    if rules.ten_for_two_hundred:
        big |= contract >= 10
    boston = np.zeros(contract.shape, bool)
    if rules.boston:
        big |= contract == rules.hand_size
        boston = made & (contract == rules.hand_size)
    made_points = np.where(big, BIG_CONTRACT_POINTS, made_points)
    set_points = np.where(big, -BIG_CONTRACT_POINTS, set_points)
    points = np.where(made, made_points + over, set_points) + nil_points + failed_nil_tricks
    if rules.bemo and bemo is not None:
        points += bemo_points(rules, np.asarray(trick_winners, dtype=np.int64), np.asarray(bemo, dtype=np.int64))

    if rules.exact_small_bid_bonus:
        points += np.where((contract >= 1) & (contract <= 2) & (taken == contract), 20, 0)
    if rules.big_bid_bonus:
        threshold = BIG_BID_THRESHOLD[rules.n_players]
        points += np.where(made & (contract > threshold), 10 * (contract - threshold), 0)

    new_bags = bags.copy()
    penalties = np.zeros_like(bags)
    if rules.bags:
        new_bags = bags + over + failed_nil_tricks
        penalties = new_bags // rules.bag_limit
        new_bags -= penalties * rules.bag_limit
        points -= penalties * rules.bag_penalty
    return HandScore(delta=points, bags=new_bags, made=made, bag_penalties=penalties, boston=boston)


def bemo_points(rules: Rules, trick_winners: np.ndarray, bemo: np.ndarray) -> np.ndarray:
    """(G, n_sides) int64: +/-60 for little Bemo (first 6 tricks), +/-90 for big (first 9) [RULES 6]."""
    seat_side = np.array([rules.side_of_seat(s) for s in range(rules.n_players)], dtype=np.int64)
    winner_side = seat_side[np.maximum(trick_winners, 0)]
    points = np.zeros(bemo.shape, dtype=np.int64)
    for level, (n_tricks, value) in BEMO_TRICKS.items():
        for side in range(rules.n_sides):
            took_all = np.all(winner_side[:, :n_tricks] == side, axis=1)
            points[:, side] += np.where(bemo[:, side] == level, np.where(took_all, value, -value), 0)
    return points


def match_winner(
    rules: Rules, scores: np.ndarray, hands_played: np.ndarray, boston: np.ndarray | None = None
) -> np.ndarray:
    """Winning side of each match after a hand, or -1 while it goes on [RULES 3, 6].

    The match ends when a side reaches ``target_score``, a side is at or below the
    mercy score, or ``max_hands`` hands were played; the highest score then wins,
    and an exact tie at the top plays another hand. Under ``boston_wins_match`` a
    side that made a Boston (boston: (G, n_sides) bool) wins at once.
    scores: (G, n_sides) int; hands_played: (G,) int. Returns (G,) int64.
    """
    scores = np.asarray(scores, dtype=np.int64)
    if scores.shape[1] == 2 and not (rules.boston_wins_match and boston is not None):
        # Two sides (the usual case): column operations, cheaper than reductions along a short axis.
        a, b = scores[:, 0], scores[:, 1]
        ends = np.maximum(a, b) >= rules.target_score
        if rules.mercy_score is not None:
            ends |= np.minimum(a, b) <= rules.mercy_score
        if rules.max_hands is not None:
            ends |= np.asarray(hands_played) >= rules.max_hands
        return np.where(ends & (a != b), (b > a).astype(np.int64), -1)
    ends = np.any(scores >= rules.target_score, axis=1)
    if rules.mercy_score is not None:
        ends |= np.any(scores <= rules.mercy_score, axis=1)
    if rules.max_hands is not None:
        ends |= np.asarray(hands_played) >= rules.max_hands
    top = scores.max(axis=1, keepdims=True)
    unique_top = np.sum(scores == top, axis=1) == 1
    winner = np.where(ends & unique_top, np.argmax(scores, axis=1), -1)
    if rules.boston_wins_match and boston is not None:
        boston = np.asarray(boston, dtype=bool)
        winner = np.where(boston.any(axis=1), np.argmax(boston, axis=1), winner)
    return winner
