"""Scoring of one finished Spades hand and the end of its match, compiled [RULES 2, 3, 5, 6].

A rule set's options are read once into ``ScoreTables`` (``score_tables(rules)``, kept per
``Rules``). The compiled functions read row ``i`` of batch-first input arrays and write row
``o`` of (rows, S) output arrays the caller gives (no row is sliced out, and the rule itself
takes no output array: every array passed costs reference counting, which is more than the
time of so small a function), so that the batch wrappers (``games.spades.scoring``, through the
``*_each`` loops below) and the compiled engine step run the same code:

- ``score_side(i, side, bids, blind, tricks, bags, trick_winners, bemo, t)``: one side's
  ``(points, bags after, made, bags added, bag penalties, Boston)`` in game ``i``, from (G, N)
  bids, blind, tricks; (G, S) bags before the hand; (G, T) trick winners; (G, S) Bemo
  declarations.
- ``match_winner(i, scores, hands_played, boston, t)``: the winning side of row ``i`` of
  (G, S) scores and Bostons after ``hands_played`` hands, or -1.
- ``finish_hand(i, tricks_won, bids, blind, trick_winners, bemo, scores, bags, hand_number,
  t, o, delta, bags_after, made, bags_added, bag_penalties, boston, scores_after)``: game
  ``i`` of the engine's ``GameState`` arrays: scores its hand into row ``o`` of the outputs
  (``scores_after[o]`` = ``scores[i] + delta[o]``) and returns the match's winner after it
  (``hand_number[i] + 1`` hands played), -1 while the match goes on. No state array is
  changed: the caller sets ``scores[i]`` to ``scores_after[o]`` and ``bags[i]`` to
  ``bags_after[o]``.

A side's contract is the sum of its non-nil bids and it takes the tricks of its non-nil
seats; a nil (blind nil) scores +/- ``nil_bonus`` (``blind_nil_bonus``) on its own and its
tricks count as bags. Made: 10 x contract + 1 per overtrick; set: ``set_penalty``. Under
``ten_for_two_hundred`` a contract of 10 or more, and under ``boston`` one of every trick, is
worth +/-200 instead (a made one of every trick is a Boston). Cutthroat bonuses: +20 for an
exact contract of 1 or 2, +10 per trick bid beyond the player-count threshold when made
[RULES 5]. Bemo: +/-60 (first 6 tricks) or +/-90 (first 9) [RULES 6]. Every ``bag_limit`` bags
cost ``bag_penalty`` and are taken off [RULES 3].
"""

from __future__ import annotations

from functools import lru_cache
from typing import NamedTuple

import numpy as np
from numba import njit

from spades_env.games.spades.rules import BIG_BID_THRESHOLD
from spades_env.games.spades.rules import SpadesRules as Rules

#: ``ScoreTables.set_penalty`` codes: -10 x contract, -10 per missing trick, nothing.
SET_BID, SET_SHORT, SET_ZERO = 0, 1, 2
_SET_CODES = {"bid": SET_BID, "short": SET_SHORT, "zero": SET_ZERO}
#: Bemo declarations (1 little, 2 big): the tricks from the first that the side must take, and points.
BEMO_TRICKS = {1: (6, 60), 2: (9, 90)}
_BEMO_TRICKS = np.array([0, 6, 9], np.int64)
_BEMO_POINTS = np.array([0, 60, 90], np.int64)
#: Points of a contract under ``ten_for_two_hundred`` and of a Boston, won or lost [RULES 6].
BIG_CONTRACT_POINTS = 200
#: ``ScoreTables`` value of an option that is off (no big-bid threshold, mercy score, hand limit).
OFF = -(1 << 62)


class ScoreTables(NamedTuple):
    """A Spades rule set's scoring options, as the compiled functions take them."""

    n_sides: int
    """Scoring sides: seat s scores for side s mod n_sides (partners sit opposite) [RULES 1, 5]."""
    hand_size: int
    nil_bonus: int
    blind_nil_bonus: int
    set_penalty: int
    """SET_BID, SET_SHORT or SET_ZERO."""
    ten_for_two_hundred: bool
    boston: bool
    exact_small_bid_bonus: bool
    big_bid_threshold: int
    """Contracts above it earn 10 a trick beyond when made (``big_bid_bonus``); OFF: no bonus."""
    bags: bool
    bag_limit: int
    bag_penalty: int
    bemo: bool
    boston_wins_match: bool
    target_score: int
    mercy_score: int
    """A side at or below it ends the match; OFF: no mercy rule."""
    max_hands: int
    """Hands after which the match ends; OFF: no limit."""


@lru_cache(maxsize=64)
def score_tables(rules: Rules) -> ScoreTables:
    """The scoring tables of a Spades rule set (built once per ``Rules``)."""
    assert all(rules.side_of_seat(s) == s % rules.n_sides for s in range(rules.n_players))
    return ScoreTables(
        n_sides=int(rules.n_sides),
        hand_size=int(rules.hand_size),
        nil_bonus=int(rules.nil_bonus),
        blind_nil_bonus=int(rules.blind_nil_bonus),
        set_penalty=_SET_CODES[rules.set_penalty],
        ten_for_two_hundred=bool(rules.ten_for_two_hundred),
        boston=bool(rules.boston),
        exact_small_bid_bonus=bool(rules.exact_small_bid_bonus),
        big_bid_threshold=int(BIG_BID_THRESHOLD[rules.n_players]) if rules.big_bid_bonus else OFF,
        bags=bool(rules.bags),
        bag_limit=int(rules.bag_limit),
        bag_penalty=int(rules.bag_penalty),
        bemo=bool(rules.bemo),
        boston_wins_match=bool(rules.boston_wins_match),
        target_score=int(rules.target_score),
        mercy_score=OFF if rules.mercy_score is None else int(rules.mercy_score),
        max_hands=OFF if rules.max_hands is None else int(rules.max_hands),
    )


@njit(cache=True, inline="always")
def side_points(i, side, bids, blind, tricks, t):
    """Side ``side``'s (points before bag penalties and Bemo, bags it adds, made, Boston) in game
    ``i`` [RULES 3, 5, 6]."""
    contract = taken = nil_points = nil_tricks = 0
    seat = side
    while seat < bids.shape[1]:  # the side's seats (a ``range`` with a step would divide)
        bid, won = bids[i, seat], tricks[i, seat]
        if bid == 0:
            value = t.blind_nil_bonus if blind[i, seat] else t.nil_bonus
            nil_points += value if won == 0 else -value
            nil_tricks += won
        else:
            contract += bid
            taken += won
        seat += t.n_sides
    made = taken >= contract  # a zero contract (nils only) counts as made
    over = taken - contract if made else 0
    big = (t.ten_for_two_hundred and contract >= 10) or (t.boston and contract == t.hand_size)
    if big:
        points = BIG_CONTRACT_POINTS + over if made else -BIG_CONTRACT_POINTS
    elif made:
        points = 10 * contract + over
    elif t.set_penalty == SET_BID:
        points = -10 * contract
    elif t.set_penalty == SET_SHORT:
        points = -10 * (contract - taken)
    else:
        points = 0
    points += nil_points + nil_tricks
    if t.exact_small_bid_bonus and 1 <= contract <= 2 and taken == contract:
        points += 20
    if made and t.big_bid_threshold != OFF and contract > t.big_bid_threshold:
        points += 10 * (contract - t.big_bid_threshold)
    return points, over + nil_tricks, made, t.boston and made and contract == t.hand_size


@njit(cache=True, inline="always")
def bemo_points(i, side, bemo, trick_winners, t):
    """+/-60 for a little Bemo (the side takes the first 6 tricks), +/-90 for a big one (9) [RULES 6];
    0 for none or undecided (``bemo[i, side]`` 0 or -1). A trick not played (winner -1) counts as
    seat 0's."""
    declared = bemo[i, side]
    if declared < 1 or declared > 2:
        return 0
    for k in range(min(_BEMO_TRICKS[declared], trick_winners.shape[1])):
        if max(trick_winners[i, k], 0) % t.n_sides != side:
            return -_BEMO_POINTS[declared]
    return _BEMO_POINTS[declared]


@njit(cache=True, inline="always")
def _floor_div(a, b):
    """``a // b`` for b > 0, without a hardware division for the usual 0 <= a < 2 b (bags)."""
    if 0 <= a < b:
        return 0
    if b <= a < 2 * b:
        return 1
    return a // b


@njit(cache=True, inline="always")
def score_side(i, side, bids, blind, tricks, bags, trick_winners, bemo, t):
    """Side ``side``'s score of the hand of game ``i``: (points, bags after, made, bags added
    (before any penalty; 0 without ``bags``), bag penalties, Boston). ``bemo`` and
    ``trick_winners`` are only read under ``bemo``."""
    points, added, made, boston = side_points(i, side, bids, blind, tricks, t)
    if t.bemo:
        points += bemo_points(i, side, bemo, trick_winners, t)
    if not t.bags:
        return points, bags[i, side], made, 0, 0, boston
    total = bags[i, side] + added
    penalties = _floor_div(total, t.bag_limit)
    return points - penalties * t.bag_penalty, total - penalties * t.bag_limit, made, added, penalties, boston


@njit(cache=True, inline="always")
def match_winner(i, scores, hands_played, boston, t):
    """The winning side of row ``i`` of (., S) ``scores`` after ``hands_played`` hands, or -1 while
    the match goes on [RULES 3, 6].

    The match ends when a side reaches ``target_score``, a side is at or below the mercy score,
    or ``max_hands`` hands were played; the single highest score wins, and a tie at the top
    plays another hand. Under ``boston_wins_match`` the first side with a made Boston (row ``i``
    of (., S) bool ``boston``) wins at once.
    """
    n_sides = scores.shape[1]
    if t.boston_wins_match:
        for side in range(n_sides):
            if boston[i, side]:
                return side
    ends = t.max_hands != OFF and hands_played >= t.max_hands
    best, leader, n_best = scores[i, 0], 0, 0
    for side in range(n_sides):
        s = scores[i, side]
        ends |= s >= t.target_score or (t.mercy_score != OFF and s <= t.mercy_score)
        if s > best:
            best, leader, n_best = s, side, 1
        elif s == best:
            n_best += 1
    return leader if ends and n_best == 1 else -1


@njit(cache=True)
def finish_hand(
    i, tricks_won, bids, blind, trick_winners, bemo, scores, bags, hand_number, t,
    o, delta, bags_after, made, bags_added, bag_penalties, boston, scores_after,
):  # fmt: skip
    """Score the hand of game ``i`` of the engine's state arrays (``GameState`` fields) into row
    ``o`` of the (., S) outputs ``delta`` .. ``boston`` (see ``score_side``) and ``scores_after``
    (``scores[i] + delta[o]``); return the match's winner after it (``hand_number[i] + 1`` hands
    played), -1 while it goes on. Changes no state array."""
    for side in range(t.n_sides):
        d, after, side_made, added, penalties, side_boston = score_side(
            i, side, bids, blind, tricks_won, bags, trick_winners, bemo, t
        )
        delta[o, side], bags_after[o, side], made[o, side] = d, after, side_made
        bags_added[o, side], bag_penalties[o, side], boston[o, side] = added, penalties, side_boston
        scores_after[o, side] = scores[i, side] + d
    return match_winner(o, scores_after, hand_number[i] + 1, boston, t)


#: The tables the loops' ``end_hands`` takes (as a plain tuple).
Tables = ScoreTables
#: The record arrays of a finished hand that are Spades' own, in the order ``end_hand`` takes
#: them (after ``core.state_arrays.RECORD_FIELDS``); each is declared (shape, dtype) in
#: ``state_fields.RESULT_FIELDS``, in this order: Spades' ``FinishedHands`` fields after the core's.
RECORD = ("bids", "blind", "start_bags", "bemo", "bags", "made", "bags_added", "bag_penalties", "boston", "pile",
          "discards", "exchanged_out", "exchanged_in", "face_up")  # fmt: skip


@njit(cache=True, inline="always")
def end_hand(s, g, t, o, delta, scores, own):
    """The hand that ended in game ``g`` of the state ``s`` (a ``games.spades.state_arrays.StateArrays``):
    its own record fields (``own``: the arrays of ``RECORD``) and its score (``finish_hand``) into
    row ``o``; the bags after it into the state. Returns the match's winner, -1 while it goes on."""
    (bids, blind, start_bags, bemo, bags, made, bags_added, bag_penalties, boston, pile, discards, exchanged_out,
     exchanged_in, face_up) = own  # fmt: skip
    for k in range(pile.shape[1]):
        pile[o, k] = s.pile[g, k]
    for k in range(s.scores.shape[1]):
        start_bags[o, k] = s.hand_start_bags[g, k]
        bemo[o, k] = s.bemo[g, k]
    for k in range(s.hands.shape[1]):
        bids[o, k] = s.bids[g, k]
        blind[o, k] = s.blind[g, k]
        discards[o, k] = s.discards[g, k]
        exchanged_out[o, k] = s.exchanged_out[g, k]
        exchanged_in[o, k] = s.exchanged_in[g, k]
        face_up[o, k] = s.face_up[g, k]
    w = finish_hand(
        g, s.tricks_won, s.bids, s.blind, s.trick_winners, s.bemo, s.scores, s.bags, s.hand_number, t,
        o, delta, bags, made, bags_added, bag_penalties, boston, scores,
    )  # fmt: skip
    for k in range(s.scores.shape[1]):
        s.bags[g, k] = bags[o, k]
    return w


# Over a batch of G games: ``games.spades.scoring``'s batch functions. They live beside the one-game
# functions so that a change to these invalidates their Numba cache too.
@njit(cache=True)
def score_hand_each(
    bids, blind, tricks, bags, trick_winners, bemo, t, delta, bags_after, made, added, penalties, boston
):
    """``score_side`` of each game g and side into row g of the (G, S) outputs (called here
    directly: a call with a dozen arrays costs more than the scoring itself)."""
    for g in range(len(bids)):
        for side in range(t.n_sides):
            d, after, side_made, side_added, side_penalties, side_boston = score_side(
                g, side, bids, blind, tricks, bags, trick_winners, bemo, t
            )
            delta[g, side], bags_after[g, side], made[g, side] = d, after, side_made
            added[g, side], penalties[g, side], boston[g, side] = side_added, side_penalties, side_boston


@njit(cache=True)
def bemo_points_each(trick_winners, bemo, t, out):
    """``bemo_points`` of each game and side into ``out`` (G, S) int64."""
    for g in range(len(bemo)):
        for side in range(bemo.shape[1]):
            out[g, side] = bemo_points(g, side, bemo, trick_winners, t)


@njit(cache=True)
def match_winner_each(scores, hands_played, boston, t, out):
    """``match_winner`` of each game into ``out`` (G,) int64."""
    for g in range(len(scores)):
        out[g] = match_winner(g, scores, hands_played[g], boston, t)
