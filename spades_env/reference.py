"""A slow, readable reference engine: one game of Spades at a time, in plain Python.

This module is written to be read as the rules (``shared/RULES.md`` sections 1, 2, 3
and 5). It exists to cross-check the batched NumPy engine, so it shares nothing
with ``spades_env.engine``: it only uses card ids (``spades_env.cards``) and the
rule options (``spades_env.rules.Rules``).

Action ids (restated here on purpose; they must agree with ``ActionLayout``)::

    0 .. 51                        play the card with that id
    52 + b, b = 0 .. hand size     bid b tricks (0 = nil)
    52 + hand size + 1             declare blind nil (before looking at the hand)
    52 + hand size + 2             look at the hand (no blind nil)

The game does not shuffle: each hand's deal is given from outside (the first one to
the constructor, every later one to ``start_hand`` while ``phase == "deal"``), so
that it can play exactly the deals of another engine.
"""

from __future__ import annotations

from collections.abc import Sequence

from spades_env.cards import N_RANKS, N_STANDARD_CARDS, SPADES
from spades_env.rules import BIG_BID_THRESHOLD, Rules

N_CARD_ACTIONS = N_STANDARD_CARDS
BID_OFFSET = N_CARD_ACTIONS

BLIND = "blind"  #: the seat to move decides: blind nil, or look at the hand
BID = "bid"  #: the seat to move bids
PLAY = "play"  #: the seat to move plays a card
DEAL = "deal"  #: a hand was scored and the match goes on: waiting for the next deal
OVER = "over"  #: the match is over


def suit(card: int) -> int:
    """Suit of a card id."""
    return card // N_RANKS


def rank(card: int) -> int:
    """Rank of a card id (0 = two .. 12 = ace)."""
    return card % N_RANKS


class ReferenceGame:
    """One Spades match, played one decision at a time."""

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[int]],
        dealer: int,
        scores: Sequence[int] | None = None,
        bags: Sequence[int] | None = None,
    ) -> None:
        self.rules = rules
        self.n = rules.n_players
        self.n_sides = 2 if rules.partnership else rules.n_players
        self.hand_size = rules.hand_size
        self.blind_nil_action = BID_OFFSET + self.hand_size + 1
        self.look_action = BID_OFFSET + self.hand_size + 2
        self.n_actions = self.look_action + 1
        self.scores = list(scores) if scores is not None else [0] * self.n_sides
        self.bags = list(bags) if bags is not None else [0] * self.n_sides
        self.hand_number = 0  # hands completed
        self.winner = -1
        self.dealer = dealer
        self.last_points = [0] * self.n_sides  # points of the last scored hand
        self.start_hand(hands, dealer)

    # ------------------------------------------------------------- seating
    def side(self, seat: int) -> int:
        """Scoring side of a seat: seats 0+2 and 1+3 in partnership, else the seat itself."""
        return seat % 2 if self.rules.partnership else seat

    def partner(self, seat: int) -> int | None:
        """The partner sitting opposite, or None in cutthroat."""
        return (seat + 2) % self.n if self.rules.partnership else None

    def members(self, side: int) -> list[int]:
        """Seats that score for a side."""
        return [s for s in range(self.n) if self.side(s) == side]

    # ----------------------------------------------------------- a new hand
    def start_hand(self, hands: Sequence[Sequence[int]], dealer: int | None = None) -> None:
        """Deal a hand: ``hands[seat]`` are card ids. The dealer rotates unless given."""
        if dealer is not None:
            self.dealer = dealer
        assert len(hands) == self.n and all(len(h) == self.hand_size for h in hands), "bad deal shape"
        self.hands = [set(int(c) for c in h) for h in hands]
        assert set().union(*self.hands) == set(self.rules.deck), "the deal must hold every card of the deck once"
        self.dealt = [sorted(h) for h in self.hands]
        self.bids: list[int | None] = [None] * self.n
        self.blind = [False] * self.n
        # The blind-nil choice is made before looking, by players whose side may bid it.
        may_blind = [self.side_may_bid_blind_nil(self.side(s)) for s in range(self.n)]
        self.looked = [not may_blind[s] for s in range(self.n)]
        self.trick: list[tuple[int, int]] = []  # (seat, card) in play order
        self.tricks_won = [0] * self.n
        self.trick_winners: list[int] = []
        self.history: list[list[tuple[int, int]]] = []
        self.spades_broken = False
        # Dealer+1 bids first and leads the first trick.
        self.to_move = (self.dealer + 1) % self.n
        self.leader = self.to_move
        self.phase = BID if self.looked[self.to_move] else BLIND

    def side_may_bid_blind_nil(self, side: int) -> bool:
        """Blind nil is on, and (house rule) the side is far enough behind the best other side."""
        if not self.rules.blind_nil:
            return False
        behind = self.rules.blind_nil_requires_behind_by
        if behind is None:
            return True
        best_other = max(self.scores[s] for s in range(self.n_sides) if s != side)
        return self.scores[side] <= best_other - behind

    # ---------------------------------------------------------- legal moves
    def min_bid(self, seat: int) -> int:
        """Lowest bid allowed: a partnership's combined bid must reach ``min_team_bid``."""
        partner = self.partner(seat)
        if partner is None or self.bids[partner] is None:
            return 0
        return max(0, self.rules.min_team_bid - self.bids[partner])

    def legal_cards(self) -> list[int]:
        """Cards the player to move may play."""
        hand = sorted(self.hands[self.to_move])
        if self.trick:
            led = suit(self.trick[0][1])
            same_suit = [c for c in hand if suit(c) == led]
            return same_suit or hand  # follow suit if able, else anything
        if self.spades_broken or self.rules.spades_lead_anytime:
            return hand
        non_spades = [c for c in hand if suit(c) != SPADES]
        return non_spades or hand  # only spades left: a spade may be led

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the player to move (empty when nobody moves)."""
        if self.phase == BLIND:
            options = [self.look_action]
            if self.min_bid(self.to_move) == 0:  # blind nil is a bid of 0
                options.insert(0, self.blind_nil_action)
            return options
        if self.phase == BID:
            return [BID_OFFSET + b for b in range(self.min_bid(self.to_move), self.hand_size + 1)]
        if self.phase == PLAY:
            return self.legal_cards()
        return []

    def current_player(self) -> int:
        """Seat to move, -1 when nobody moves (match over or waiting for a deal)."""
        return self.to_move if self.phase in (BLIND, BID, PLAY) else -1

    # ----------------------------------------------------------------- step
    def step(self, action: int) -> None:
        """Apply the action of the player to move; raises ValueError if it is illegal."""
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action} for seat {self.to_move} in phase {self.phase}; legal: {legal}")
        seat = self.to_move
        if self.phase == BLIND:
            self.looked[seat] = True
            if action == self.blind_nil_action:
                self.blind[seat] = True
                self._record_bid(seat, 0)
            else:
                self.phase = BID  # the same seat now bids, having seen its cards
        elif self.phase == BID:
            self._record_bid(seat, action - BID_OFFSET)
        else:
            self._play_card(seat, action)

    def _record_bid(self, seat: int, bid: int) -> None:
        self.bids[seat] = bid
        if all(b is not None for b in self.bids):
            self.phase = PLAY
            self.to_move = self.leader = (self.dealer + 1) % self.n
        else:
            self.to_move = (seat + 1) % self.n
            self.phase = BID if self.looked[self.to_move] else BLIND

    def _play_card(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        if suit(card) == SPADES:
            # A spade breaks spades when led (only possible once broken, when forced, or
            # with spades_lead_anytime) or when played by a player void in the led suit.
            self.spades_broken = True
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.to_move = (seat + 1) % self.n
            return
        winner = self.trick_winner(self.trick)
        self.tricks_won[winner] += 1
        self.trick_winners.append(winner)
        self.history.append(self.trick)
        self.trick = []
        self.to_move = self.leader = winner
        if len(self.trick_winners) == self.hand_size:
            self.score_hand()

    @staticmethod
    def trick_winner(trick: list[tuple[int, int]]) -> int:
        """The highest spade wins; with no spade, the highest card of the led suit."""
        spades = [(rank(c), s) for s, c in trick if suit(c) == SPADES]
        if spades:
            return max(spades)[1]
        led = suit(trick[0][1])
        return max((rank(c), s) for s, c in trick if suit(c) == led)[1]

    # -------------------------------------------------------------- scoring
    def side_points(self, side: int) -> tuple[int, int]:
        """Points and new bags of one side for the hand just played [RULES 3, 5]."""
        r = self.rules
        points = 0
        new_bags = 0
        contract = 0
        taken = 0
        for seat in self.members(side):
            bid, won = self.bids[seat], self.tricks_won[seat]
            if bid == 0:
                value = r.blind_nil_bonus if self.blind[seat] else r.nil_bonus
                points += value if won == 0 else -value
                points += won  # a failed nil's tricks are overtricks (bags) of the side
                new_bags += won
            else:
                contract += bid
                taken += won
        if taken >= contract:
            points += 10 * contract + (taken - contract)
            new_bags += taken - contract
            threshold = BIG_BID_THRESHOLD[self.n]
            if r.big_bid_bonus and contract > threshold:
                points += 10 * (contract - threshold)
            if r.exact_small_bid_bonus and contract in (1, 2) and taken == contract:
                points += 20
        elif r.set_penalty == "bid":
            points -= 10 * contract
        elif r.set_penalty == "short":
            points -= 10 * (contract - taken)
        # set_penalty "zero": a set scores nothing
        return points, new_bags

    def score_hand(self) -> None:
        """Score the hand just played, then end the match or wait for the next deal."""
        r = self.rules
        self.last_points = []
        for side in range(self.n_sides):
            points, new_bags = self.side_points(side)
            if r.bags:
                self.bags[side] += new_bags
                while self.bags[side] >= r.bag_limit:
                    self.bags[side] -= r.bag_limit
                    points -= r.bag_penalty
            self.scores[side] += points
            self.last_points.append(points)
        self.hand_number += 1
        self.winner = self.match_winner()
        if self.winner >= 0:
            self.phase = OVER
        else:
            self.phase = DEAL
            self.dealer = (self.dealer + 1) % self.n  # the deal passes clockwise

    def match_winner(self) -> int:
        """Winning side, or -1 while the match goes on [RULES 3]."""
        r = self.rules
        over = any(s >= r.target_score for s in self.scores)
        mercy = -r.target_score if r.lose_score == "-target" else r.lose_score
        if mercy is not None and any(s <= mercy for s in self.scores):
            over = True
        if r.max_hands is not None and self.hand_number >= r.max_hands:
            over = True
        if not over:
            return -1
        best = max(self.scores)
        leaders = [side for side, s in enumerate(self.scores) if s == best]
        return leaders[0] if len(leaders) == 1 else -1  # an exact tie plays another hand
