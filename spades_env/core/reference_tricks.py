"""Trick play shared by every trick-taking game, in plain Python: the readable reference [RULES 1, 7].

The reference engines (``games/spades/reference.py``, ``games/hearts/reference.py``) play one
match at a time, written to be read as the rules, to cross-check the compiled engine. What
both games share lives here once: following suit, the lead rules (the holder of the lowest
club leads it to the first trick; a suit that may not be led until it is broken), the trick
winner, the check of a deal (``dealt_hands``), and ``TrickGame``, the base of both reference
games: the seats and sides, the check of an action, a card played to the trick, and the end
of a hand.

Plain Python on purpose: it uses only card ids (``spades_env.cards``) and knows nothing of
the compiled code or of ``spades_env.engine``, so that the two can be compared.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from spades_env.cards import CLUBS, card_rank, card_suit

PLAY = "play"  #: the seat to move plays a card
DEAL = "deal"  #: a hand was scored and the match goes on: waiting for the next deal
OVER = "over"  #: the match is over

#: A card of a trick: (seat, card id).
Play = tuple[int, int]


def follow_suit(hand: Iterable[int], led: int) -> list[int]:
    """Sorted cards that may be played to a trick led in suit ``led``: that suit if held, else any [RULES 1, 7]."""
    hand = sorted(hand)
    return [c for c in hand if card_suit(c) == led] or hand


def lead_options(hand: Iterable[int], barred: int, broken: bool) -> list[int]:
    """Sorted cards that may lead a trick while suit ``barred`` may not be led until it is ``broken``
    (spades in Spades, hearts in Hearts), unless the leader holds only that suit [RULES 1, 7]."""
    hand = sorted(hand)
    if broken:
        return hand
    return [c for c in hand if card_suit(c) != barred] or hand


def dealt_hands(hands: Sequence[Iterable[int]] | None, n: int, hand_size: int, deck: Iterable[int]) -> list[set[int]]:
    """The hands of a deal as sets of card ids: ``n`` hands of ``hand_size`` that hold every card of
    ``deck`` once; ValueError naming ``hands`` otherwise."""
    if hands is None or len(hands) != n or any(len(h) != hand_size for h in hands):
        raise ValueError(f"hands must be {n} hands of {hand_size} card ids")
    if sorted(int(c) for h in hands for c in h) != sorted(deck):
        raise ValueError("hands must hold every card of the deck once")
    return [set(int(c) for c in h) for h in hands]


def lowest_club(deck: Iterable[int]) -> int:
    """The lowest club of a deck (the two, or the three where the twos of clubs are removed)."""
    return min(c for c in deck if card_suit(c) == CLUBS)


def holder(hands: Sequence[set[int]], card: int) -> int:
    """The seat whose hand holds ``card``."""
    return next(seat for seat, hand in enumerate(hands) if card in hand)


def trick_winner(trick: Sequence[Play], trump: int | None) -> int:
    """The seat that takes a complete trick of (seat, card) plays: the highest trump in it
    (``trump`` None: no trump), else the highest card of the led suit [RULES 1, 7]. Ranks go
    two .. ace, then the little and the big joker (both spades) [RULES 6]."""
    trumps = [(card_rank(c), seat) for seat, c in trick if card_suit(c) == trump]
    if trumps:
        return max(trumps)[1]
    led = card_suit(trick[0][1])
    return max((card_rank(c), seat) for seat, c in trick if card_suit(c) == led)[1]


class TrickGame:
    """One match of a trick-taking game, one decision at a time: what every game's reference shares.

    A game subclass sets the table with ``seat_table`` and the hands, starts the card play
    with ``start_tricks``, and defines ``legal_actions``, ``step``, ``moving_phases``,
    ``trick_winner(trick)``, ``card_played(card)`` (which suit it breaks), ``trick_taken(winner,
    trick)``, ``score_hand()`` (which ends with ``end_hand``) and ``match_winner()``.
    """

    #: Phases in which a seat is to move (in the others the game waits for a deal, or is over).
    moving_phases: frozenset[str] = frozenset({PLAY})

    def seat_table(self, rules, dealer: int, scores: Sequence[int] | None, hand_number: int) -> None:
        """The table of a match: seats, sides, the dealer, the scores and the hands played so far."""
        self.rules = rules
        self.n = rules.n_players
        self.n_sides = rules.n_sides
        self.hand_size = rules.hand_size
        self.lowest_club = lowest_club(rules.deck)
        self.scores = list(scores) if scores is not None else [0] * self.n_sides
        self.hand_number = hand_number  # hands completed
        self.winner = -1
        self.dealer = dealer
        self.last_points = [0] * self.n_sides  # points of the last scored hand

    # ------------------------------------------------------------- seating
    def side(self, seat: int) -> int:
        """Scoring side of a seat: seats 0+2 and 1+3 in partnership, else the seat itself [RULES 1]."""
        return seat % 2 if self.rules.partnership else seat

    def partner(self, seat: int) -> int | None:
        """The partner sitting opposite, or None when everyone plays alone."""
        return (seat + 2) % self.n if self.rules.partnership else None

    def members(self, side: int) -> list[int]:
        """Seats that score for a side."""
        return [s for s in range(self.n) if self.side(s) == side]

    def current_player(self) -> int:
        """Seat to move, -1 when nobody moves (match over or waiting for a deal)."""
        return self.to_move if self.phase in self.moving_phases else -1

    # ----------------------------------------------------------- the checks
    def checked_action(self, action) -> int:
        """The action as an int if it is legal for the seat to move; TypeError or ValueError if not."""
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise TypeError(f"action must be an integer action id, got {type(action).__name__} {action!r}")
        action = operator.index(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action} for seat {self.to_move} in phase {self.phase}; legal: {legal}")
        return action

    # ------------------------------------------------------------ card play
    def start_tricks(self, leader: int) -> None:
        """The card play of a hand begins: ``leader`` leads the first trick."""
        self.phase = PLAY
        self.to_move = self.leader = leader

    def clear_tricks(self) -> None:
        """A new hand has no trick played yet."""
        self.trick: list[Play] = []  # the trick in play, in play order
        self.tricks_won = [0] * self.n
        self.trick_winners: list[int] = []
        self.history: list[list[Play]] = []

    def play_card(self, seat: int, card: int) -> None:
        """Play a card to the trick; play goes clockwise, the winner of a trick leads the next [RULES 1]."""
        self.hands[seat].remove(card)
        self.card_played(card)
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.to_move = (seat + 1) % self.n
            return
        winner = self.trick_winner(self.trick)
        self.tricks_won[winner] += 1
        self.trick_taken(winner, self.trick)
        self.trick_winners.append(winner)
        self.history.append(self.trick)
        self.trick = []
        self.to_move = self.leader = winner
        if len(self.trick_winners) == self.hand_size:
            self.score_hand()

    def end_hand(self) -> None:
        """After a scored hand: the match is over if ``match_winner()`` names a side, else it goes
        on and the deal passes clockwise [RULES 1]."""
        self.hand_number += 1
        self.winner = self.match_winner()
        if self.winner >= 0:
            self.phase = OVER
        else:
            self.phase = DEAL
            self.dealer = (self.dealer + 1) % self.n
