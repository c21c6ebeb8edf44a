"""Spades scoring in plain Python, for the readable reference engine [RULES 3, 5, 6].

Pure functions of a hand's outcome (bids, blind nils, tricks, Bemo declarations) and the
scores: a side's points for the hand, the bag penalties, and the match end. ``reference.py``
calls them at the end of each hand; they use nothing but the rule options.
"""

from __future__ import annotations

from collections.abc import Sequence

from spades_env.games.spades.rules import BIG_BID_THRESHOLD
from spades_env.games.spades.rules import SpadesRules as Rules

#: Bemo declarations: tricks from the first that the side must take, and their points [RULES 6].
BEMO_TRICKS = {1: (6, 60), 2: (9, 90)}


def side_points(
    rules: Rules,
    seats: Sequence[int],
    bids: Sequence[int],
    blind: Sequence[bool],
    tricks_won: Sequence[int],
    bemo_tricks: Sequence[bool] | None,
    bemo: int | None,
) -> tuple[int, int, bool]:
    """Points (before bag penalties), new bags and a made Boston of the side of ``seats`` [RULES 3, 5, 6].

    ``bids``, ``blind`` and ``tricks_won`` are per seat; ``bemo_tricks[t]`` says whether the
    side took trick t, and ``bemo`` is its declaration (None or 0: none, 1 little, 2 big).
    """
    points = 0
    new_bags = 0
    contract = 0
    taken = 0
    for seat in seats:
        bid, won = bids[seat], tricks_won[seat]
        if bid == 0:
            # Nil and blind nil are scored on their own, whatever the partner does [RULES 3].
            value = rules.blind_nil_bonus if blind[seat] else rules.nil_bonus
            points += value if won == 0 else -value
            points += won  # a failed nil's tricks are overtricks (bags) of the side
            new_bags += won
        else:
            contract += bid
            taken += won
    made = taken >= contract
    # 10 for 200 (a contract of 10 or more) and Boston (every trick) are worth +/-200 [RULES 6].
    big = (rules.ten_for_two_hundred and contract >= 10) or (rules.boston and contract == rules.hand_size)
    if made:
        points += (200 if big else 10 * contract) + (taken - contract)
        new_bags += taken - contract
        threshold = BIG_BID_THRESHOLD.get(rules.n_players)
        if rules.big_bid_bonus and contract > threshold:
            points += 10 * (contract - threshold)  # cutthroat: tricks bid beyond the threshold [RULES 5]
    elif big:
        points -= 200
    elif rules.set_penalty == "bid":
        points -= 10 * contract
    elif rules.set_penalty == "short":
        points -= 10 * (contract - taken)
    # set_penalty "zero": a set scores nothing
    if rules.exact_small_bid_bonus and contract in (1, 2) and taken == contract:
        points += 20  # cutthroat 3 or 4: a bid of 1 or 2 taken exactly [RULES 5]
    if rules.bemo and bemo:
        n_tricks, value = BEMO_TRICKS[bemo]
        points += value if all(bemo_tricks[:n_tricks]) else -value
    boston = rules.boston and made and contract == rules.hand_size
    return points, new_bags, boston


def pay_bags(rules: Rules, bags: int, new_bags: int) -> tuple[int, int]:
    """A side's bags after the hand and the points it loses to them: ``bag_penalty`` each time
    they reach ``bag_limit``, which takes ``bag_limit`` bags away [RULES 3]."""
    if not rules.bags:
        return bags, 0
    bags += new_bags
    penalty = 0
    while bags >= rules.bag_limit:
        bags -= rules.bag_limit
        penalty += rules.bag_penalty
    return bags, penalty


def match_winner(rules: Rules, scores: Sequence[int], hand_number: int, bostons: Sequence[bool]) -> int:
    """Winning side, or -1 while the match goes on [RULES 3, 6].

    A made Boston wins at once under ``boston_wins_match``. Otherwise the match ends when a
    side reaches the target, falls to the mercy score, or after ``max_hands`` hands; then the
    highest score wins, and an exact tie plays another hand.
    """
    if rules.boston_wins_match and any(bostons):
        return list(bostons).index(True)
    over = any(s >= rules.target_score for s in scores)
    mercy = -rules.target_score if rules.lose_score == "-target" else rules.lose_score
    if mercy is not None and any(s <= mercy for s in scores):
        over = True
    if rules.max_hands is not None and hand_number >= rules.max_hands:
        over = True
    if not over:
        return -1
    best = max(scores)
    leaders = [side for side, s in enumerate(scores) if s == best]
    return leaders[0] if len(leaders) == 1 else -1
