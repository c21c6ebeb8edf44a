"""Spades bidding in plain Python, for the readable reference engine [RULES 2, 6].

Pure functions of a hand, the partner's bid and the scores: the bids allowed, who may bid
blind nil, and the weak hand that may be shown for a redeal. ``reference.py`` asks them at
each bid; they use nothing but card ids and the rule options.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spades_env.cards import SPADES, card_rank, card_suit
from spades_env.games.spades.rules import SpadesRules as Rules

#: Jack, queen, king: a hand without them (and without spades) is weak [RULES 6].
COURT_RANKS = (9, 10, 11)
#: ``fourteen``: each player bids at least 2, a team exactly 7 [RULES 6].
FOURTEEN_MIN_BID, FOURTEEN_TEAM_BID = 2, 7


def bid_range(rules: Rules, hand: Iterable[int], partner_bid: int | None) -> tuple[int, int]:
    """Lowest and highest bid allowed to a player holding ``hand`` whose partner bid ``partner_bid``
    (None: no partner, or not bid yet) [RULES 2, 6]."""
    if rules.mirror:  # the bid is the number of spades held, jokers included
        spades = sum(1 for c in hand if card_suit(c) == SPADES)
        return spades, spades
    if rules.fourteen:  # at least 2 each, 7 for the team: the second partner's bid is forced
        if partner_bid is None:
            return FOURTEEN_MIN_BID, FOURTEEN_TEAM_BID - FOURTEEN_MIN_BID
        return FOURTEEN_TEAM_BID - partner_bid, FOURTEEN_TEAM_BID - partner_bid
    if partner_bid is None:
        return 0, rules.hand_size
    return max(0, rules.min_team_bid - partner_bid), rules.hand_size


def may_bid_blind_nil(rules: Rules, scores: Sequence[int], side: int) -> bool:
    """Blind nil is on, and (house rule) the side is far enough behind the best other side [RULES 2]."""
    if not rules.blind_nil:
        return False
    behind = rules.blind_nil_requires_behind_by
    if behind is None:
        return True
    best_other = max(s for other, s in enumerate(scores) if other != side)
    return scores[side] <= best_other - behind


def is_weak(hand: Iterable[int]) -> bool:
    """No spade (jokers included) and no J, Q or K: the hand may be shown for a redeal [RULES 6]."""
    return all(card_suit(c) != SPADES and card_rank(c) not in COURT_RANKS for c in hand)
