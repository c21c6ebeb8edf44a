"""A slow, readable reference engine for Hearts ("La reina de picas"): one match at a time [RULES 7].

This module is written to be read as the rules (``docs/rules.md`` section 7, with the
trick play of section 1). It exists to cross-check the compiled engine, so it shares
nothing with it nor with ``spades_env.engine``: it uses card ids (``spades_env.cards``),
the rule options (``spades_env.rules.Rules``) and the shared trick play
(``spades_env.core.reference_tricks``).

Action ids (restated on purpose; they must agree with the engine's action layout): Hearts
has no bids and no special actions, so action ``c`` (0 .. 51) is the card with id ``c``:
in the pass, choose it to pass; in the play, play it.

The game draws no randomness: each hand's deal comes from outside (the first to the
constructor, every later one to ``start_hand`` while ``phase`` is ``"deal"``), so that it
can play exactly the games of another engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from spades_env.cards import CLUBS, DIAMONDS, HEARTS, N_RANKS, SPADES, card_suit
from spades_env.core import reference_tricks as tricks
from spades_env.core.reference_tricks import DEAL, OVER, PLAY, TrickGame
from spades_env.games.hearts.rules import HeartsRules
from spades_env.rules_base import BaseRules

__all__ = ["DEAL", "OVER", "PASS", "PLAY", "HeartsReferenceGame", "card_points", "seat_points"]

PASS = "pass"  #: the seat to move chooses a card to pass
#: Cards each player passes, and how many seats to the left they go on hands 1, 2, 3, 4
#: (left, right, across, none), repeating [RULES 7].
PASS_CARDS = 3
PASS_OFFSETS = (1, 3, 2, 0)
QUEEN_OF_SPADES = SPADES * N_RANKS + 10
JACK_OF_DIAMONDS = DIAMONDS * N_RANKS + 9
TWO_OF_CLUBS = CLUBS * N_RANKS
#: Whoever takes all of these shoots the moon [RULES 7].
MOON_CARDS = frozenset({HEARTS * N_RANKS + r for r in range(N_RANKS)} | {QUEEN_OF_SPADES})
#: The points a moon is worth [RULES 7].
MOON_POINTS = 26


def card_points(rules: HeartsRules, card: int) -> int:
    """A heart is 1 point, the queen of spades 13, the jack of diamonds -10 (option) [RULES 7]."""
    if card_suit(card) == HEARTS:
        return 1
    if card == QUEEN_OF_SPADES:
        return 13
    if card == JACK_OF_DIAMONDS and rules.jack_of_diamonds:
        return -10
    return 0


def seat_points(rules: HeartsRules, taken: Sequence[set[int]]) -> list[int]:
    """Each seat's points for a hand, from the cards it took, the moon included [RULES 7].

    Whoever takes every heart and the queen of spades shoots the moon: it scores 0 for them
    and each opponent (a player of another side) 26, or with ``moon_subtracts`` it scores
    -26 and the opponents 0. The jack of diamonds counts -10 for its taker in any case.
    """
    n = len(taken)
    side = [s % 2 if rules.partnership else s for s in range(n)]
    jack = [-10 if rules.jack_of_diamonds and JACK_OF_DIAMONDS in t else 0 for t in taken]
    shooters = [s for s in range(n) if MOON_CARDS <= taken[s]]
    if not shooters:
        return [sum(card_points(rules, c) for c in taken[s]) for s in range(n)]
    shooter = shooters[0]
    points = []
    for s in range(n):
        if rules.moon_subtracts:
            moon = -MOON_POINTS if s == shooter else 0
        else:
            moon = MOON_POINTS if side[s] != side[shooter] else 0
        points.append(moon + jack[s])
    return points


class HeartsReferenceGame(TrickGame):
    """One Hearts match, played one decision at a time."""

    moving_phases = frozenset({PASS, PLAY})

    def __init__(
        self,
        rules: HeartsRules,
        hands: Sequence[Sequence[int]],
        dealer: int = 0,
        scores: Sequence[int] | None = None,
        *,
        hand_number: int = 0,
    ) -> None:
        if not isinstance(rules, BaseRules) or rules.game != "hearts":
            got = f"game {rules.game!r}" if isinstance(rules, BaseRules) else type(rules).__name__
            raise ValueError(f"rules must be a Hearts rule set (game 'hearts'), got {got}")
        self.seat_table(rules, dealer, scores, hand_number)
        self.n_card_ids = self.n_actions = rules.n_card_ids
        self.start_hand(hands, dealer)

    def start_hand(self, hands: Sequence[Sequence[int]], dealer: int | None = None) -> None:
        """Deal a hand: ``hands[seat]`` are card ids. The dealer is the one of the hand before
        (rotated after a scored hand) unless given."""
        if dealer is not None:
            self.dealer = dealer
        self.hands = tricks.dealt_hands(hands, self.n, self.hand_size, self.rules.deck)
        self.dealt = [sorted(h) for h in self.hands]
        self.passed: list[set[int]] = [set() for _ in range(self.n)]  # cards chosen to pass
        self.points_taken = [0] * self.n  # points in the tricks taken (before the moon)
        self.clear_tricks()
        self.hearts_broken = False
        # Dealer+1 chooses 3 cards to pass first, except every 4th hand [RULES 7].
        self.pass_offset = PASS_OFFSETS[self.hand_number % 4]
        self.to_move = self.leader = (self.dealer + 1) % self.n
        if self.pass_offset:
            self.phase = PASS
        else:
            self.start_tricks(self.first_leader())

    # ---------------------------------------------------------- legal moves
    def legal_cards(self) -> list[int]:
        """The two of clubs leads; follow suit; no heart lead until broken unless only hearts are
        held; on the first trick no heart nor the queen of spades unless nothing else [RULES 7]."""
        hand = self.hands[self.to_move]
        first_trick = not self.history
        if self.trick:
            options = tricks.follow_suit(hand, card_suit(self.trick[0][1]))
        elif first_trick:
            return [TWO_OF_CLUBS]
        else:
            options = tricks.lead_options(hand, HEARTS, self.hearts_broken)
        if first_trick:
            options = [c for c in options if card_suit(c) != HEARTS and c != QUEEN_OF_SPADES] or options
        return options

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the player to move (empty when nobody moves)."""
        if self.phase == PASS:
            return sorted(self.hands[self.to_move] - self.passed[self.to_move])
        if self.phase == PLAY:
            return self.legal_cards()
        return []

    def first_leader(self) -> int:
        """The holder of the two of clubs leads it [RULES 7]."""
        return tricks.holder(self.hands, TWO_OF_CLUBS)

    # ----------------------------------------------------------------- step
    def step(self, action: int) -> None:
        """Apply the action of the player to move; TypeError or ValueError if it is not a legal action."""
        action = self.checked_action(action)
        {PASS: self._pass_card, PLAY: self.play_card}[self.phase](self.to_move, action)

    def _pass_card(self, seat: int, card: int) -> None:
        """Set a card aside; after everyone chose 3, the cards change hands at once [RULES 7]."""
        self.passed[seat].add(card)
        if len(self.passed[seat]) < PASS_CARDS:
            return
        self.to_move = (seat + 1) % self.n
        if self.to_move != (self.dealer + 1) % self.n:
            return
        for s in range(self.n):
            self.hands[s] -= self.passed[s]
        for s in range(self.n):
            self.hands[(s + self.pass_offset) % self.n] |= self.passed[s]
        self.dealt = [sorted(h) for h in self.hands]
        self.start_tricks(self.first_leader())

    # ------------------------------------------------------------ card play
    def card_played(self, card: int) -> None:
        """A heart played breaks hearts (discarded, or led when only hearts were left) [RULES 7]."""
        if card_suit(card) == HEARTS:
            self.hearts_broken = True

    @staticmethod
    def trick_winner(trick: Sequence[tuple[int, int]]) -> int:
        """No trump: the highest card of the led suit wins [RULES 7]."""
        return tricks.trick_winner(trick, None)

    def trick_taken(self, winner: int, trick: Sequence[tuple[int, int]]) -> None:
        """The winner takes the trick's points (the moon is settled when the hand is scored)."""
        self.points_taken[winner] += sum(card_points(self.rules, c) for _, c in trick)

    # -------------------------------------------------------------- scoring
    def score_hand(self) -> None:
        """Add each side's points (a team: the sum of its players'), then end the match or wait for
        the next deal [RULES 7]."""
        taken: list[set[int]] = [set() for _ in range(self.n)]
        for trick, winner in zip(self.history, self.trick_winners, strict=True):
            taken[winner] |= {c for _, c in trick}
        points = seat_points(self.rules, taken)
        self.last_points = [sum(points[s] for s in self.members(side)) for side in range(self.n_sides)]
        for side in range(self.n_sides):
            self.scores[side] += self.last_points[side]
        self.end_hand()

    def match_winner(self) -> int:
        """Winning side, or -1 while the match goes on: it ends when a side reaches the target (or
        after ``max_hands`` hands) and the lowest score wins; a tie for the lowest plays on [RULES 7]."""
        r = self.rules
        over = any(s >= r.target_score for s in self.scores)
        if r.max_hands is not None and self.hand_number >= r.max_hands:
            over = True
        if not over:
            return -1
        lowest = min(self.scores)
        leaders = [side for side, s in enumerate(self.scores) if s == lowest]
        return leaders[0] if len(leaders) == 1 else -1
