"""A slow, readable reference engine for Spades: one match at a time, in plain Python [RULES 1-6].

This module is written to be read as the rules (``docs/rules.md`` sections 1 to 6). It
exists to cross-check the compiled engine, so it shares nothing with it nor with
``spades_env.engine``: it uses card ids (``spades_env.cards``), the rule options
(``spades_env.rules.Rules``), the shared trick play (``spades_env.core.reference_tricks``),
its bidding (``reference_bidding``) and its scoring (``reference_scoring``).

Action ids (restated here on purpose; they must agree with the engine's action layout),
with C = 52 card ids (54 with ``jokers``) and T = hand size::

    0 .. C - 1                     play the card with that id (in the two-player
                                   blind-nil exchange: give that card up)
    C + b, b = 0 .. T              bid b tricks (0 = nil)
    then, only where the rules enable them, in this order:
    blind nil, look                ``blind_nil``
    keep, discard                  two-player draw
    exchange done                  two-player with ``blind_nil``
    no, little, big Bemo           ``bemo``
    redeal                         ``misdeal_weak_hand``

The game draws no randomness. Everything random comes from outside, so that it can play
exactly the games of another engine: each hand's deal (or two-player draw pile) and face-up
cards (the first to the constructor, every later one to ``start_hand`` while ``phase`` is
``"deal"`` or ``"redeal"``), and the card a two-player blind-nil player draws from the
discards (an argument of ``step``, checked to be a discard).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from spades_env.cards import SPADES, card_suit
from spades_env.core import reference_tricks as tricks
from spades_env.core.reference_tricks import DEAL, OVER, PLAY, TrickGame
from spades_env.games.spades.reference_bidding import bid_range, is_weak, may_bid_blind_nil
from spades_env.games.spades.reference_scoring import match_winner, pay_bags, side_points
from spades_env.games.spades.rules import SpadesRules as Rules
from spades_env.rules_base import BaseRules

__all__ = ["BEMO", "BID", "BLIND", "DEAL", "DRAW", "EXCHANGE", "OVER", "PLAY", "REDEAL", "SpadesReferenceGame"]

BLIND = "blind"  #: the seat to move decides: blind nil, or look at the hand
BID = "bid"  #: the seat to move bids (or shows a weak hand)
DRAW = "draw"  #: two-player: the seat to move keeps or discards the card the pile shows
EXCHANGE = "exchange"  #: two-player blind nil: give up a card for a random discard, or stop
BEMO = "bemo"  #: the seat to move declares its side's Bemo
REDEAL = "redeal"  #: a weak hand was shown: waiting for a new deal by the same dealer
#: Cards a two-player blind-nil player may give up for random discards [RULES 4].
MAX_EXCHANGED = 3


class SpadesReferenceGame(TrickGame):
    """One Spades match, played one decision at a time."""

    moving_phases = frozenset({BLIND, BID, DRAW, EXCHANGE, BEMO, PLAY})

    def __init__(
        self,
        rules: Rules,
        hands: Sequence[Sequence[int]] | None = None,
        dealer: int = 0,
        scores: Sequence[int] | None = None,
        bags: Sequence[int] | None = None,
        *,
        pile: Sequence[int] | None = None,
        face_up: Sequence[Iterable[int]] | None = None,
        hand_number: int = 0,
    ) -> None:
        if not isinstance(rules, BaseRules) or rules.game != "spades":
            got = f"game {rules.game!r}" if isinstance(rules, BaseRules) else type(rules).__name__
            raise ValueError(f"rules must be a Spades rule set (game 'spades'), got {got}")
        self.seat_table(rules, dealer, scores, hand_number)
        self.two_player = rules.two_player
        self._layout()
        self.bags = list(bags) if bags is not None else [0] * self.n_sides
        self.made_boston = [False] * self.n_sides  # in the last scored hand
        self.start_hand(hands, dealer, pile=pile, face_up=face_up)

    def _layout(self) -> None:
        """Action ids of this rule set (see the module docstring)."""
        r = self.rules
        self.n_card_ids = r.n_card_ids
        self.bid_offset = self.n_card_ids
        specials = []
        if r.blind_nil:
            specials += ["blind_nil", "look"]
        if self.two_player:
            specials += ["keep", "discard"] + (["exchange_done"] if r.blind_nil else [])
        if r.bemo:
            specials += ["no_bemo", "little_bemo", "big_bemo"]
        if r.misdeal_weak_hand:
            specials += ["redeal"]
        first = self.bid_offset + self.hand_size + 1
        self.special = {name: first + k for k, name in enumerate(specials)}
        self.blind_nil_action = self.special.get("blind_nil")
        self.look_action = self.special.get("look")
        self.n_actions = first + len(specials)

    # ----------------------------------------------------------- a new hand
    def start_hand(
        self,
        hands: Sequence[Sequence[int]] | None = None,
        dealer: int | None = None,
        *,
        pile: Sequence[int] | None = None,
        face_up: Sequence[Iterable[int]] | None = None,
    ) -> None:
        """Deal a hand: ``hands[seat]`` are card ids (two-player: ``pile``, top card first).

        ``face_up[seat]`` are the four cards of each hand dealt face up (``face_up_deal``).
        The dealer is the one of the hand before (rotated after a scored hand) unless given.
        """
        r = self.rules
        if dealer is not None:
            self.dealer = dealer
        if self.two_player:
            # No deal: a shuffled pile that the players draw from [RULES 4].
            if pile is None or sorted(pile) != sorted(r.deck):
                raise ValueError("pile must hold the whole deck once (two-player draws from it)")
            self.pile = [int(c) for c in pile]
            self.pile_pos = 0
            self.hands: list[set[int]] = [set() for _ in range(self.n)]
        else:
            self.hands = tricks.dealt_hands(hands, self.n, self.hand_size, r.deck)
        self.discards: list[set[int]] = [set() for _ in range(self.n)]
        self.seen: list[set[int]] = [set() for _ in range(self.n)]
        self.given: list[set[int]] = [set() for _ in range(self.n)]  # exchanged away
        self.received: list[set[int]] = [set() for _ in range(self.n)]  # drawn from the discards
        self.face_up = [set() for _ in range(self.n)]
        if r.face_up_deal:
            self.face_up = [set(int(c) for c in f) for f in face_up or ()]
            if len(self.face_up) != self.n or any(
                len(f) != 4 or not f <= h for f, h in zip(self.face_up, self.hands, strict=True)
            ):
                raise ValueError("face_up must be four cards of each hand (face_up_deal)")
        self.dealt = [sorted(h) for h in self.hands]
        self.bids: list[int | None] = [None] * self.n
        self.blind = [False] * self.n
        self.bemo: list[int | None] = [None] * self.n_sides
        # The blind-nil choice is made before looking, by players whose side may bid it [RULES 2].
        self.looked = [not may_bid_blind_nil(r, self.scores, self.side(s)) for s in range(self.n)]
        self.clear_tricks()
        self.spades_broken = False
        # Dealer+1 bids first (the non-dealer in two-player) and, as a rule, leads the first trick [RULES 1].
        first = (self.dealer + 1) % self.n
        self.leader = first
        if self.two_player:
            # Both blind-nil choices come before the draw, the non-dealer's first [RULES 4].
            if all(self.looked):
                self._begin_draw()
            else:
                self.phase = BLIND
                self.to_move = first if not self.looked[first] else self.dealer
        else:
            self.to_move = first
            self.phase = BID if self.looked[first] else BLIND

    # ---------------------------------------------------------- legal moves
    def bid_range(self, seat: int) -> tuple[int, int]:
        """Lowest and highest bid allowed to ``seat`` now [RULES 2, 6]."""
        partner = self.partner(seat)
        return bid_range(self.rules, self.hands[seat], None if partner is None else self.bids[partner])

    def legal_cards(self) -> list[int]:
        """Cards the player to move may play: follow suit; the lowest club to the first trick under
        ``lowest_club_leads``; no spade lead until spades are broken [RULES 1, 6]."""
        hand = self.hands[self.to_move]
        if self.trick:
            return tricks.follow_suit(hand, card_suit(self.trick[0][1]))
        if self.rules.lowest_club_leads and not self.history and self.lowest_club in hand:
            return [self.lowest_club]  # its holder leads the lowest club to the first trick
        return tricks.lead_options(hand, SPADES, self.spades_broken or self.rules.spades_lead_anytime)

    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the player to move (empty when nobody moves)."""
        seat, special = self.to_move, self.special
        if self.phase == BLIND:
            options = [self.look_action]
            if self.bid_range(seat)[0] == 0:  # blind nil is a bid of 0
                options.insert(0, self.blind_nil_action)
            return options
        if self.phase == BID:
            lo, hi = self.bid_range(seat)
            options = [self.bid_offset + b for b in range(lo, hi + 1)]
            if self.rules.misdeal_weak_hand and is_weak(self.hands[seat]):
                options.append(special["redeal"])
            return options
        if self.phase == DRAW:
            return [special["keep"], special["discard"]]
        if self.phase == EXCHANGE:
            return sorted(self.hands[seat] - self.received[seat]) + [special["exchange_done"]]
        if self.phase == BEMO:
            return [special["no_bemo"], special["little_bemo"], special["big_bemo"]]
        if self.phase == PLAY:
            return self.legal_cards()
        return []

    @property
    def shown(self) -> int:
        """Two-player: the card the pile shows the drawer, -1 outside the draw."""
        return self.pile[self.pile_pos] if self.phase == DRAW else -1

    def exchange_pool(self, seat: int) -> set[int]:
        """Cards a blind-nil player may draw in exchange: the discards, less what was drawn back
        and what the player itself gave up [RULES 4]."""
        pool = set().union(*self.discards, *self.given) - set().union(*self.received)
        return pool - self.given[seat]

    # ----------------------------------------------------------------- step
    def step(self, action: int, replacement: int | None = None) -> None:
        """Apply the action of the player to move; TypeError or ValueError if it is not a legal action.

        ``replacement``: in the two-player exchange, the card drawn at random from the
        discards for the card given up.
        """
        action = self.checked_action(action)
        seat = self.to_move
        if self.phase == EXCHANGE:
            self._exchange(seat, action, replacement)
            return
        {
            BLIND: self._blind,
            BID: self._bid,
            DRAW: self._draw,
            BEMO: self._declare_bemo,
            PLAY: self.play_card,
        }[self.phase](seat, action)

    def _blind(self, seat: int, action: int) -> None:
        """Blind nil (a bid of 0 made unseen) or look at the hand [RULES 2, 4]."""
        self.looked[seat] = True
        declared = action == self.blind_nil_action
        if declared:
            self.blind[seat] = True
            self.bids[seat] = 0
        if self.two_player:
            if seat != self.dealer and not self.looked[self.dealer]:
                self.to_move = self.dealer  # the dealer's blind-nil choice, then the draw
            else:
                self._begin_draw()
        elif declared:
            self._next_bidder(seat)
        else:
            self.phase = BID  # the same seat now bids, having seen its cards

    def _bid(self, seat: int, action: int) -> None:
        """A bid, or a weak hand shown: the same dealer deals again [RULES 2, 6]."""
        if action == self.special.get("redeal"):
            self.phase = REDEAL
            return
        self.bids[seat] = action - self.bid_offset
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        """One round of bidding, clockwise [RULES 2]."""
        if all(b is not None for b in self.bids):
            self._end_bidding()
        else:
            self.to_move = (seat + 1) % self.n
            self.phase = BID if self.looked[self.to_move] else BLIND

    def _begin_draw(self) -> None:
        """Two-player: the dealer draws first; the players alternate [RULES 4]."""
        self.phase = DRAW
        self.to_move = self.dealer

    def _draw(self, seat: int, action: int) -> None:
        """Keep the shown card and discard the next, or discard it and keep the next [RULES 4]."""
        first, second = self.pile[self.pile_pos], self.pile[self.pile_pos + 1]
        kept, dropped = (first, second) if action == self.special["keep"] else (second, first)
        self.hands[seat].add(kept)
        self.discards[seat].add(dropped)
        self.seen[seat] |= {first, second}
        self.pile_pos += 2
        self.to_move = (seat + 1) % self.n
        if self.pile_pos < len(self.pile):
            return
        non_dealer = (self.dealer + 1) % self.n
        if any(self.blind):  # blind-nil players exchange, the non-dealer first
            self.phase = EXCHANGE
            self.to_move = non_dealer if self.blind[non_dealer] else self.dealer
        else:
            self._begin_bidding()

    def _exchange(self, seat: int, action: int, replacement: int | None) -> None:
        """Give a card up for one drawn at random from the discards (at most 3), or stop [RULES 4]."""
        if action != self.special["exchange_done"]:
            if replacement not in self.exchange_pool(seat):
                raise ValueError(f"replacement must be a card of the discards, got {replacement!r}")
            self.hands[seat].remove(action)
            self.hands[seat].add(replacement)
            self.seen[seat].add(replacement)
            self.received[seat].add(replacement)
            self.given[seat].add(action)
            if len(self.given[seat]) < MAX_EXCHANGED:
                return  # the same player may give up another card
        if seat != self.dealer and self.blind[self.dealer]:
            self.to_move = self.dealer
        else:
            self._begin_bidding()

    def _begin_bidding(self) -> None:
        """Two-player: the hands are complete; the non-dealer bids first (unless blind nil) [RULES 4]."""
        self.dealt = [sorted(h) for h in self.hands]
        non_dealer = (self.dealer + 1) % self.n
        self.phase = BID
        self.to_move = non_dealer if self.bids[non_dealer] is None else self.dealer
        if all(b is not None for b in self.bids):
            self._end_bidding()

    def first_leader(self) -> int:
        """Dealer+1, or the holder of the lowest club under ``lowest_club_leads`` [RULES 1, 6]."""
        if self.rules.lowest_club_leads:
            return tricks.holder(self.hands, self.lowest_club)
        return (self.dealer + 1) % self.n

    def _end_bidding(self) -> None:
        """After the last bid: the sides' Bemo declarations from the first leader on, or the first lead."""
        self.to_move = self.first_leader()
        if self.rules.bemo:
            self.phase = BEMO
        else:
            self.start_tricks(self.first_leader())

    def _declare_bemo(self, seat: int, action: int) -> None:
        """One declaration per side, the first seat of the side to be asked decides [RULES 6]."""
        self.bemo[self.side(seat)] = action - self.special["no_bemo"]
        self.to_move = (seat + 1) % self.n
        if all(b is not None for b in self.bemo):
            self.start_tricks(self.first_leader())

    # ------------------------------------------------------------ card play
    def card_played(self, card: int) -> None:
        """A spade breaks spades when led (only possible once broken, when forced, or with
        ``spades_lead_anytime``) or when played by a player void in the led suit [RULES 1]."""
        if card_suit(card) == SPADES:
            self.spades_broken = True

    @staticmethod
    def trick_winner(trick: Sequence[tuple[int, int]]) -> int:
        """The highest spade (big joker, little joker, ace ...) wins; with no spade, the highest
        card of the led suit [RULES 1, 6]."""
        return tricks.trick_winner(trick, SPADES)

    def trick_taken(self, winner: int, trick: Sequence[tuple[int, int]]) -> None:
        """Spades counts tricks, not cards: nothing more to note."""

    # -------------------------------------------------------------- scoring
    def side_points(self, side: int) -> tuple[int, int, bool]:
        """Points, new bags and a made Boston of one side for the hand just played [RULES 3, 5, 6]."""
        took = [self.side(w) == side for w in self.trick_winners]
        r = self.rules
        return side_points(r, self.members(side), self.bids, self.blind, self.tricks_won, took, self.bemo[side])

    def score_hand(self) -> None:
        """Score the hand just played (bag penalties included), then end the match or wait for the next deal."""
        self.last_points = []
        for side in range(self.n_sides):
            points, new_bags, self.made_boston[side] = self.side_points(side)
            self.bags[side], penalty = pay_bags(self.rules, self.bags[side], new_bags)
            self.scores[side] += points - penalty
            self.last_points.append(points - penalty)
        self.end_hand()

    def match_winner(self) -> int:
        """Winning side, or -1 while the match goes on [RULES 3, 6]."""
        return match_winner(self.rules, self.scores, self.hand_number, self.made_boston)
