"""Scoring of a finished Spades hand and the end of a match, over a batch of games.

Pure functions of arrays: no engine state, so that tests can drive them with the worked
examples of docs/rules.md section 3 directly. The rules are written once, for one game, in
``spades_env.games.spades.hand_score``; these functions run it in a compiled loop over the games.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.games.spades import hand_score
from spades_env.games.spades.hand_score import BEMO_TRICKS, BIG_CONTRACT_POINTS, score_tables
from spades_env.games.spades.rules import SpadesRules as Rules

__all__ = [
    "BEMO_TRICKS",
    "BIG_CONTRACT_POINTS",
    "HandScore",
    "bag_adjusted_points",
    "bemo_points",
    "match_winner",
    "score_hand",
    "settle_bags",
]


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
    """(G, n_sides) int64: how many bag penalties were applied this hand (0 without ``bags``)."""
    boston: np.ndarray
    """(G, n_sides) bool: the side made a Boston (bid and took every trick; ``boston`` on)."""
    bags_added: np.ndarray
    """(G, n_sides) int64: bags the side took this hand, before any penalty (overtricks of its
    contract and the tricks of its failed nils; 0 without ``bags``). ``bags`` = bags before the
    hand + ``bags_added`` - ``bag_penalties`` x ``bag_limit``."""


def score_hand(
    rules: Rules,
    bids: np.ndarray,
    blind: np.ndarray,
    tricks: np.ndarray,
    bags: np.ndarray,
    trick_winners: np.ndarray | None = None,
    bemo: np.ndarray | None = None,
    in_range: bool = False,
) -> HandScore:
    """Score a hand [RULES 3, 4, 5, 6]: ``hand_score.score_hand`` of each game.

    bids, tricks: (G, n_players) int; blind: (G, n_players) bool (blind nil
    declared); bags: (G, n_sides) int bag counts before the hand. For ``bemo``:
    trick_winners (G, hand size) int seats in trick order and bemo (G, n_sides)
    int declarations (0 none, 1 little, 2 big, -1 undecided = none); without them no
    Bemo is scored.

    Under ``ten_for_two_hundred`` a contract of 10 or more, and under ``boston`` a
    contract of every trick, is worth +200 made or -200 set in place of 10 x contract
    (and of the set penalty); overtricks still score 1 each and count as bags.
    A Bemo is scored on top of everything else. ``in_range`` (every bid and trick count in
    0..hand size) is accepted for callers that know it; any counts are scored the same way.
    """
    t = score_tables(rules)
    bids = _rows(bids, np.int64)
    blind = _rows(blind, np.bool_)
    tricks = _rows(tricks, np.int64)
    bags = _rows(bags, np.int64)
    g, s = len(bids), t.n_sides
    if bemo is None or trick_winners is None:
        bemo, trick_winners = np.full((g, s), -1, np.int64), np.full((g, 1), -1, np.int64)
    else:
        bemo, trick_winners = _rows(bemo, np.int64), _rows(trick_winners, np.int64)
    out = HandScore(
        delta=np.empty((g, s), np.int64),
        bags=np.empty((g, s), np.int64),
        made=np.empty((g, s), np.bool_),
        bag_penalties=np.empty((g, s), np.int64),
        boston=np.empty((g, s), np.bool_),
        bags_added=np.empty((g, s), np.int64),
    )
    hand_score.score_hand_each(
        bids, blind, tricks, bags, trick_winners, bemo, t,
        out.delta, out.bags, out.made, out.bags_added, out.bag_penalties, out.boston,
    )  # fmt: skip
    return out


def settle_bags(rules: Rules, bags, added):
    """Bags after a hand and the bag penalties it applies (each costs ``bag_penalty`` points),
    from the bags before it and the bags added in it [RULES 3]: every ``bag_limit`` bags are
    one penalty and are taken off. Python ints or int64 arrays alike (``rules.bags`` on)."""
    total = bags + added
    penalties = total // rules.bag_limit
    return total - penalties * rules.bag_limit, penalties


def bag_adjusted_points(rules: Rules, delta: np.ndarray, bags_added: np.ndarray, bag_penalties: np.ndarray):
    """(G, n_sides) float64: a hand's points (``delta``) with its bag penalties put back and every
    bag taken charged ``bag_penalty / bag_limit`` points (0 without ``bags``): the score that
    tournaments and the bidding benchmark compare, which does not depend on the bags carried in
    (``FinishedHands.delta``, ``bags_added``, ``bag_penalties``) [RULES 3]."""
    cost = rules.bag_penalty / rules.bag_limit if rules.bags else 0.0
    return delta + bag_penalties * rules.bag_penalty - bags_added * cost


def bemo_points(rules: Rules, trick_winners: np.ndarray, bemo: np.ndarray) -> np.ndarray:
    """(G, n_sides) int64: +/-60 for little Bemo (first 6 tricks), +/-90 for big (first 9) [RULES 6]."""
    t = score_tables(rules)
    bemo = _rows(bemo, np.int64)
    out = np.empty(bemo.shape, np.int64)
    hand_score.bemo_points_each(_rows(trick_winners, np.int64), bemo, t, out)
    return out


def match_winner(
    rules: Rules, scores: np.ndarray, hands_played: np.ndarray, boston: np.ndarray | None = None
) -> np.ndarray:
    """Winning side of each match after a hand, or -1 while it goes on [RULES 3, 6]:
    ``hand_score.match_winner`` of each game.

    The match ends when a side reaches ``target_score``, a side is at or below the
    mercy score, or ``max_hands`` hands were played; the highest score then wins,
    and an exact tie at the top plays another hand. Under ``boston_wins_match`` a
    side that made a Boston (boston: (G, n_sides) bool) wins at once.
    scores: (G, n_sides) int; hands_played: (G,) int. Returns (G,) int64.
    """
    scores = _rows(scores, np.int64)
    hands = _per_game(hands_played, len(scores))
    boston = np.zeros(scores.shape, np.bool_) if boston is None else _rows(boston, np.bool_)
    out = np.empty(len(scores), np.int64)
    hand_score.match_winner_each(scores, hands, boston, score_tables(rules), out)
    return out


def _per_game(values, n: int) -> np.ndarray:
    """(n,) int64 from one int for every game or n ints."""
    values = np.asarray(values, np.int64)
    return np.full(n, values) if values.ndim == 0 else np.ascontiguousarray(values)


def _rows(a, dtype) -> np.ndarray:
    """``a`` as a C-contiguous 2-D array of ``dtype`` (the compiled loops' argument types)."""
    return np.ascontiguousarray(np.asarray(a), dtype=dtype)
