"""A readable reference engine of Tricks: one match at a time, in plain Python (``core.reference_tricks``).

Action ``c`` is the card with id ``c``. Each hand's deal comes from outside (the first to the
constructor, every later one to ``start_hand`` while ``phase`` is ``"deal"``).
"""

from __future__ import annotations

from collections.abc import Sequence

from spades_env.cards import card_suit
from spades_env.core import reference_tricks as tricks
from spades_env.core.reference_tricks import TrickGame


class TricksReferenceGame(TrickGame):
    """One Tricks match, played one decision at a time."""

    def __init__(self, rules, hands: Sequence[Sequence[int]], dealer: int = 0, scores=None, *, hand_number: int = 0):
        if getattr(rules, "game", None) != "tricks":
            raise ValueError(f"rules must be a Tricks rule set (game 'tricks'), got {type(rules).__name__}")
        self.seat_table(rules, dealer, scores, hand_number)
        self.n_card_ids = self.n_actions = rules.n_card_ids
        self.best_hands = [0] * self.n  # each seat's hands of the match so far in which it took the most tricks
        self.start_hand(hands, dealer)

    def start_hand(self, hands: Sequence[Sequence[int]], dealer: int | None = None) -> None:
        """Deal a hand; dealer+1 leads the first trick."""
        if dealer is not None:
            self.dealer = dealer
        self.hands = tricks.dealt_hands(hands, self.n, self.hand_size, self.rules.deck)
        self.clear_tricks()
        self.start_tricks((self.dealer + 1) % self.n)

    def legal_actions(self) -> list[int]:
        """Follow suit; any card leads."""
        if self.phase != tricks.PLAY:
            return []
        hand = self.hands[self.to_move]
        return tricks.follow_suit(hand, card_suit(self.trick[0][1])) if self.trick else sorted(hand)

    def step(self, action: int) -> None:
        """Play the card ``action``; TypeError or ValueError if it is not legal."""
        self.play_card(self.to_move, self.checked_action(action))

    def card_played(self, card: int) -> None:
        """No suit is ever barred from the lead."""

    @staticmethod
    def trick_winner(trick: Sequence[tuple[int, int]]) -> int:
        """No trump: the highest card of the led suit."""
        return tricks.trick_winner(trick, None)

    def trick_taken(self, winner: int, trick: Sequence[tuple[int, int]]) -> None:
        """A trick is counted when the hand is scored."""

    def score_hand(self) -> None:
        """Each side scores the tricks its seats took."""
        self.last_points = [sum(self.tricks_won[s] for s in self.members(side)) for side in range(self.n_sides)]
        for side in range(self.n_sides):
            self.scores[side] += self.last_points[side]
        most = max(self.tricks_won)
        self.last_best_hands = [b + (w == most) for b, w in zip(self.best_hands, self.tricks_won, strict=True)]
        self.end_hand()
        if self.phase != tricks.OVER:
            self.best_hands = self.last_best_hands

    def match_winner(self) -> int:
        """The single highest score once a side reaches the target (or after ``max_hands``), else -1."""
        r = self.rules
        over = max(self.scores) >= r.target_score or (r.max_hands is not None and self.hand_number >= r.max_hands)
        leaders = [side for side, x in enumerate(self.scores) if x == max(self.scores)]
        return leaders[0] if over and len(leaders) == 1 else -1
