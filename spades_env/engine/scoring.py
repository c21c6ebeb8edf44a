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
    """(G, n_sides) int64: how many bag penalties were applied this hand (0 without ``bags``)."""
    boston: np.ndarray
    """(G, n_sides) bool: the side made a Boston (bid and took every trick; ``boston`` on)."""
    bags_added: np.ndarray
    """(G, n_sides) int64: bags the side took this hand, before any penalty (overtricks of its
    contract and the tricks of its failed nils; 0 without ``bags``). ``bags`` = bags before the
    hand + ``bags_added`` - ``bag_penalties`` x ``bag_limit``."""


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
    in_range: bool = False,
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

    A side's points before bag penalties depend only on its own seats' bids, blind-nil
    flags and tricks, so for the usual seatings they are looked up in a table of
    ``side_points`` over every such combination (``_side_table``). ``in_range`` True
    promises every bid and trick count is in 0..hand size (a played hand's), which spares
    checking it.
    """
    bids = np.asarray(bids, dtype=np.int64)
    tricks = np.asarray(tricks, dtype=np.int64)
    blind = np.asarray(blind, dtype=bool)
    bags = np.asarray(bags, dtype=np.int64)
    table = _side_table(rules)
    if table is not None and bids.ndim == 2 and len(bids) and (in_range or _in_table(rules, bids, tricks)):
        points, added, made, boston = table.lookup(bids, blind, tricks)
    else:
        points, added, made, boston = side_points(rules, bids, blind, tricks)
    if rules.bemo and bemo is not None:
        points += bemo_points(rules, np.asarray(trick_winners, dtype=np.int64), np.asarray(bemo, dtype=np.int64))
    if rules.bags:
        new_bags, penalties = settle_bags(rules, bags, added)
        points -= penalties * rules.bag_penalty
    else:
        new_bags, penalties, added = bags.copy(), np.zeros_like(bags), np.zeros_like(bags)
    return HandScore(delta=points, bags=new_bags, made=made, bag_penalties=penalties, boston=boston, bags_added=added)


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


def side_points(
    rules: Rules, bids: np.ndarray, blind: np.ndarray, tricks: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Each side's points before bag penalties and Bemo, the bags it adds, made, Boston.

    bids, tricks: (G, n_players) int64; blind (G, n_players) bool. Returns four (G, n_sides)
    arrays: points (int64), bags added (overtricks and failed-nil tricks, int64), made and
    Boston (bool). See ``score_hand``.
    """
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
    if rules.exact_small_bid_bonus:
        points += np.where((contract >= 1) & (contract <= 2) & (taken == contract), 20, 0)
    if rules.big_bid_bonus:
        threshold = BIG_BID_THRESHOLD[rules.n_players]
        points += np.where(made & (contract > threshold), 10 * (contract - threshold), 0)
    return points, over + failed_nil_tricks, made, boston


def _in_table(rules: Rules, bids: np.ndarray, tricks: np.ndarray) -> bool:
    """Every bid and trick count in 0..hand size (always so for a played hand).

    Viewed as unsigned, a negative count is huge: one maximum per array checks both ends.
    """
    h = np.uint64(rules.hand_size)
    return bool(bids.view(np.uint64).max() <= h and tricks.view(np.uint64).max() <= h)


class _SideTable:
    """``side_points`` of one side, tabulated over its seats' (bid, tricks, blind) codes.

    A seat's code is ``(bid * (hand size + 1) + tricks) * 2 + blind``; a side of two seats
    (partnerships: seats s and s + n_sides) is ``code_a * n_codes + code_b``.
    """

    def __init__(self, rules: Rules, seats_per_side: int) -> None:
        self.n_sides = rules.n_sides
        self.seats_per_side = seats_per_side
        h1 = rules.hand_size + 1
        self.bid_weight, self.n_codes = 2 * h1, 2 * h1 * h1
        codes = np.arange(self.n_codes**seats_per_side, dtype=np.int64)
        # Seat j of the side holds digit j (most significant first) of the side code.
        digits = [(codes // self.n_codes ** (seats_per_side - 1 - j)) % self.n_codes for j in range(seats_per_side)]
        n = len(codes)
        bids = np.zeros((n, rules.n_players), np.int64)
        tricks = np.zeros((n, rules.n_players), np.int64)
        blind = np.zeros((n, rules.n_players), bool)
        for j, digit in enumerate(digits):  # side 0: seats 0, n_sides, ...
            seat = j * rules.n_sides
            bids[:, seat], tricks[:, seat], blind[:, seat] = digit // self.bid_weight, (digit // 2) % h1, digit % 2
        points, added, made, boston = (a[:, 0] for a in side_points(rules, bids, blind, tricks))
        self.points, self.added, self.made, self.boston = points, added, made, boston
        self.any_boston = bool(boston.any())

    def lookup(self, bids: np.ndarray, blind: np.ndarray, tricks: np.ndarray):
        seat_codes = bids * self.bid_weight + tricks * 2 + blind
        s = self.n_sides
        code = seat_codes if self.seats_per_side == 1 else seat_codes[:, :s] * self.n_codes + seat_codes[:, s:]
        boston = self.boston[code] if self.any_boston else np.zeros(code.shape, bool)
        return self.points[code], self.added[code], self.made[code], boston


@lru_cache(maxsize=64)
def _side_table(rules: Rules) -> _SideTable | None:
    """The table for seatings of one seat per side or partnerships of two (else None: computed)."""
    how = _seats_by_side(rules)
    if how == "own":
        return _SideTable(rules, 1)
    if how == "alternate":  # two seats per side
        return _SideTable(rules, 2)
    return None


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
