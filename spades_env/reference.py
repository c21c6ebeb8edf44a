"""A slow, readable reference engine: one game of Spades (or Hearts) at a time, in plain Python.

This module is written to be read as the rules (``shared/RULES.md`` sections 1 to 7).
It exists to cross-check the batched NumPy engine, so it shares nothing with
``spades_env.engine``: it only uses card ids (``spades_env.cards``) and the rule
options (``spades_env.rules.Rules``).

Action ids (restated here on purpose; they must agree with ``ActionLayout``), with
C = 52 card ids (54 with ``jokers``) and T = hand size::

    0 .. C - 1                     play the card with that id (in the two-player
                                   blind-nil exchange: give that card up)
                                   (in the Hearts pass: choose that card to pass)
    C + b, b = 0 .. T              bid b tricks (0 = nil); Hearts has no bids
    then, only where the rules enable them, in this order:
    blind nil, look                ``blind_nil``
    keep, discard                  two-player draw
    exchange done                  two-player with ``blind_nil``
    no, little, big Bemo           ``bemo``
    redeal                         ``misdeal_weak_hand``

The game draws no randomness. Everything random comes from outside, so that it can
play exactly the games of another engine: each hand's deal (or two-player draw pile)
and face-up cards (the first to the constructor, every later one to ``start_hand``
while ``phase`` is ``"deal"`` or ``"redeal"``), and the card a two-player blind-nil
player draws from the discards (an argument of ``step``, checked to be a discard).
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Sequence

from spades_env.cards import BIG_JOKER, CLUBS, DIAMONDS, HEARTS, LITTLE_JOKER, N_RANKS, N_STANDARD_CARDS, SPADES
from spades_env.rules import BIG_BID_THRESHOLD, Rules

BLIND = "blind"  #: the seat to move decides: blind nil, or look at the hand
BID = "bid"  #: the seat to move bids (or shows a weak hand)
DRAW = "draw"  #: two-player: the seat to move keeps or discards the card the pile shows
EXCHANGE = "exchange"  #: two-player blind nil: give up a card for a random discard, or stop
BEMO = "bemo"  #: the seat to move declares its side's Bemo
PLAY = "play"  #: the seat to move plays a card
PASS = "pass"  #: Hearts: the seat to move chooses a card to pass
DEAL = "deal"  #: a hand was scored and the match goes on: waiting for the next deal
REDEAL = "redeal"  #: a weak hand was shown: waiting for a new deal by the same dealer
OVER = "over"  #: the match is over

#: Bemo declarations: tricks from the first that the side must take, and their points [RULES 6].
BEMO_TRICKS = {1: (6, 60), 2: (9, 90)}
#: Hearts [RULES 7]: cards passed, and how many seats to the left they go on hands 1, 2, 3, 4
#: (left, right, across, none), repeating.
PASS_CARDS = 3
PASS_OFFSETS = (1, 3, 2, 0)
QUEEN_OF_SPADES = SPADES * N_RANKS + 10
JACK_OF_DIAMONDS = DIAMONDS * N_RANKS + 9
TWO_OF_CLUBS = CLUBS * N_RANKS


def hearts_card_points(rules: Rules, card: int) -> int:
    """Hearts: a heart is 1 point, the queen of spades 13, the jack of diamonds -10 (option) [RULES 7]."""
    if card // N_RANKS == HEARTS:
        return 1
    if card == QUEEN_OF_SPADES:
        return 13
    if card == JACK_OF_DIAMONDS and rules.jack_of_diamonds:
        return -10
    return 0


def hearts_seat_points(rules: Rules, taken: Sequence[set[int]]) -> list[int]:
    """Hearts: each seat's points for a hand, from the cards it took, the moon included [RULES 7].

    Whoever takes every heart and the queen of spades shoots the moon: it scores 0 for them
    and each opponent (a player of another side) 26, or with ``moon_subtracts`` it scores
    -26 and the opponents 0. The jack of diamonds counts -10 for its taker in any case.
    """
    n = len(taken)
    side = [s % 2 if rules.partnership else s for s in range(n)]
    jack = [-10 if rules.jack_of_diamonds and JACK_OF_DIAMONDS in t else 0 for t in taken]
    moon_cards = {HEARTS * N_RANKS + r for r in range(N_RANKS)} | {QUEEN_OF_SPADES}
    shooters = [s for s in range(n) if moon_cards <= taken[s]]
    if not shooters:
        return [sum(hearts_card_points(rules, c) for c in taken[s]) for s in range(n)]
    shooter = shooters[0]
    points = []
    for s in range(n):
        if rules.moon_subtracts:
            moon = -26 if s == shooter else 0
        else:
            moon = 26 if side[s] != side[shooter] else 0
        points.append(moon + jack[s])
    return points


def suit(card: int) -> int:
    """Suit of a card id; the jokers are spades."""
    return SPADES if card >= N_STANDARD_CARDS else card // N_RANKS


def rank(card: int) -> int:
    """Rank of a card id: 0 = two .. 12 = ace, 13 = little joker, 14 = big joker."""
    return {LITTLE_JOKER: 13, BIG_JOKER: 14}.get(card, card % N_RANKS)


def is_weak(hand: Iterable[int]) -> bool:
    """No spade (jokers included) and no J, Q or K: the hand may be shown for a redeal [RULES 6]."""
    return all(suit(c) != SPADES and rank(c) not in (9, 10, 11) for c in hand)


class ReferenceGame:
    """One Spades match, played one decision at a time."""

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
        self.rules = rules
        self.n = rules.n_players
        self.n_sides = 2 if rules.partnership else rules.n_players
        self.hand_size = rules.hand_size
        self.two_player = rules.n_players == 2
        self.hearts = rules.game == "hearts"
        self._layout()
        self.scores = list(scores) if scores is not None else [0] * self.n_sides
        self.bags = list(bags) if bags is not None else [0] * self.n_sides
        self.hand_number = hand_number  # hands completed (Hearts: it sets the pass direction)
        self.winner = -1
        self.dealer = dealer
        self.last_points = [0] * self.n_sides  # points of the last scored hand
        self.start_hand(hands, dealer, pile=pile, face_up=face_up)

    def _layout(self) -> None:
        """Action ids of this rule set (see the module docstring)."""
        r = self.rules
        self.n_card_ids = N_STANDARD_CARDS + (2 if r.jokers else 0)
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
        first = self.bid_offset + (0 if self.hearts else self.hand_size + 1)  # Hearts: no bids
        self.special = {name: first + k for k, name in enumerate(specials)}
        self.blind_nil_action = self.special.get("blind_nil")
        self.look_action = self.special.get("look")
        self.n_actions = first + len(specials)
        clubs = [c for c in r.deck if suit(c) == CLUBS]
        self.lowest_club = min(clubs)

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
            assert pile is not None and sorted(pile) == sorted(r.deck), "two-player needs the pile: the whole deck"
            self.pile = [int(c) for c in pile]
            self.pile_pos = 0
            self.hands: list[set[int]] = [set() for _ in range(self.n)]
        else:
            assert hands is not None and len(hands) == self.n, "bad deal shape"
            assert all(len(h) == self.hand_size for h in hands), "bad deal shape"
            self.hands = [set(int(c) for c in h) for h in hands]
            assert set().union(*self.hands) == set(r.deck), "the deal must hold every card of the deck once"
        self.discards: list[set[int]] = [set() for _ in range(self.n)]
        self.seen: list[set[int]] = [set() for _ in range(self.n)]
        self.given: list[set[int]] = [set() for _ in range(self.n)]  # exchanged away
        self.received: list[set[int]] = [set() for _ in range(self.n)]  # drawn from the discards
        if r.face_up_deal:
            assert face_up is not None, "face_up_deal needs the face-up cards of each hand"
            self.face_up = [set(int(c) for c in f) for f in face_up]
            assert all(len(f) == 4 and f <= h for f, h in zip(self.face_up, self.hands, strict=True))
        else:
            self.face_up = [set() for _ in range(self.n)]
        self.dealt = [sorted(h) for h in self.hands]
        self.bids: list[int | None] = [None] * self.n
        self.blind = [False] * self.n
        self.bemo: list[int | None] = [None] * self.n_sides
        # The blind-nil choice is made before looking, by players whose side may bid it.
        self.looked = [not self.side_may_bid_blind_nil(self.side(s)) for s in range(self.n)]
        self.trick: list[tuple[int, int]] = []  # (seat, card) in play order
        self.tricks_won = [0] * self.n
        self.trick_winners: list[int] = []
        self.history: list[list[tuple[int, int]]] = []
        self.spades_broken = False
        self.hearts_broken = False
        self.passed: list[set[int]] = [set() for _ in range(self.n)]  # Hearts: cards chosen to pass
        self.points_taken = [0] * self.n  # Hearts: points in the tricks taken (before the moon)
        # Dealer+1 bids first (the non-dealer in two-player) and, as a rule, leads the first trick.
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
        if self.hearts:
            # Hearts: no bidding; dealer+1 chooses 3 cards to pass first, except every 4th hand [RULES 7].
            self.pass_offset = PASS_OFFSETS[self.hand_number % 4]
            if self.pass_offset:
                self.phase = PASS
            else:
                self._start_play()

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
    def bid_range(self, seat: int) -> tuple[int, int]:
        """Lowest and highest bid allowed [RULES 2, 6]."""
        r = self.rules
        if r.mirror:  # the bid is the number of spades held, jokers included
            spades = sum(1 for c in self.hands[seat] if suit(c) == SPADES)
            return spades, spades
        partner = self.partner(seat)
        partner_bid = None if partner is None else self.bids[partner]
        if r.fourteen:  # at least 2 each, 7 for the team: the second partner's bid is forced
            return (7 - partner_bid, 7 - partner_bid) if partner_bid is not None else (2, 5)
        if partner_bid is None:
            return 0, self.hand_size
        return max(0, r.min_team_bid - partner_bid), self.hand_size

    def legal_cards(self) -> list[int]:
        """Cards the player to move may play."""
        if self.hearts:
            return self.hearts_legal_cards()
        hand = sorted(self.hands[self.to_move])
        if self.trick:
            led = suit(self.trick[0][1])
            same_suit = [c for c in hand if suit(c) == led]
            return same_suit or hand  # follow suit if able, else anything
        if self.rules.lowest_club_leads and not self.history and self.lowest_club in hand:
            return [self.lowest_club]  # its holder leads the lowest club to the first trick
        if self.spades_broken or self.rules.spades_lead_anytime:
            return hand
        non_spades = [c for c in hand if suit(c) != SPADES]
        return non_spades or hand  # only spades left: a spade may be led

    def hearts_legal_cards(self) -> list[int]:
        """Hearts: the two of clubs leads; follow suit; no heart lead until broken unless only hearts
        are held; on the first trick no heart nor the queen of spades unless nothing else [RULES 7]."""
        hand = sorted(self.hands[self.to_move])
        first_trick = not self.history
        if self.trick:
            led = suit(self.trick[0][1])
            options = [c for c in hand if suit(c) == led] or hand
        elif first_trick:
            return [TWO_OF_CLUBS]
        elif self.hearts_broken:
            options = hand
        else:
            options = [c for c in hand if suit(c) != HEARTS] or hand
        if first_trick:
            options = [c for c in options if suit(c) != HEARTS and c != QUEEN_OF_SPADES] or options
        return options

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
        if self.phase == PASS:
            return sorted(self.hands[seat] - self.passed[seat])
        return []

    def current_player(self) -> int:
        """Seat to move, -1 when nobody moves (match over or waiting for a deal)."""
        return self.to_move if self.phase in (BLIND, BID, DRAW, EXCHANGE, BEMO, PLAY, PASS) else -1

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
        """Apply the action of the player to move; raises ValueError if it is illegal.

        ``replacement``: in the two-player exchange, the card drawn at random from the
        discards for the card given up.
        """
        if isinstance(action, bool) or not hasattr(action, "__index__"):
            raise TypeError(f"action must be an integer action id, got {type(action).__name__} {action!r}")
        action = operator.index(action)
        legal = self.legal_actions()
        if action not in legal:
            raise ValueError(f"illegal action {action} for seat {self.to_move} in phase {self.phase}; legal: {legal}")
        seat = self.to_move
        {
            BLIND: self._blind,
            BID: self._bid,
            DRAW: self._draw,
            EXCHANGE: lambda s, a: self._exchange(s, a, replacement),
            BEMO: self._declare_bemo,
            PLAY: self._play_card,
            PASS: self._pass_card,
        }[self.phase](seat, action)

    def _pass_card(self, seat: int, card: int) -> None:
        """Hearts: set a card aside; after everyone chose 3, the cards change hands at once [RULES 7]."""
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
        self._start_play()

    def _blind(self, seat: int, action: int) -> None:
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
        if action == self.special.get("redeal"):
            self.phase = REDEAL  # the same dealer deals again
            return
        self.bids[seat] = action - self.bid_offset
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
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
        """Keep the shown card and discard the next, or discard it and keep the next."""
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
        """Give a card up for one drawn at random from the discards (at most 3), or stop."""
        if action != self.special["exchange_done"]:
            assert replacement in self.exchange_pool(seat), f"{replacement} is not a card of the discards"
            self.hands[seat].remove(action)
            self.hands[seat].add(replacement)
            self.seen[seat].add(replacement)
            self.received[seat].add(replacement)
            self.given[seat].add(action)
            if len(self.given[seat]) < 3:
                return  # the same player may give up another card
        if seat != self.dealer and self.blind[self.dealer]:
            self.to_move = self.dealer
        else:
            self._begin_bidding()

    def _begin_bidding(self) -> None:
        """Two-player: the hands are complete; the non-dealer bids first (unless blind nil)."""
        self.dealt = [sorted(h) for h in self.hands]
        non_dealer = (self.dealer + 1) % self.n
        self.phase = BID
        self.to_move = non_dealer if self.bids[non_dealer] is None else self.dealer
        if all(b is not None for b in self.bids):
            self._end_bidding()

    def first_leader(self) -> int:
        """Dealer+1, or the holder of the lowest club under ``lowest_club_leads`` and in Hearts."""
        if self.rules.lowest_club_leads or self.hearts:
            return next(s for s in range(self.n) if self.lowest_club in self.hands[s])
        return (self.dealer + 1) % self.n

    def _end_bidding(self) -> None:
        """After the last bid: the sides' Bemo declarations from the first leader on, or the first lead."""
        self.to_move = self.first_leader()
        if self.rules.bemo:
            self.phase = BEMO
        else:
            self._start_play()

    def _declare_bemo(self, seat: int, action: int) -> None:
        self.bemo[self.side(seat)] = action - self.special["no_bemo"]
        self.to_move = (seat + 1) % self.n
        if all(b is not None for b in self.bemo):
            self._start_play()

    def _start_play(self) -> None:
        self.phase = PLAY
        self.to_move = self.leader = self.first_leader()

    def _play_card(self, seat: int, card: int) -> None:
        self.hands[seat].remove(card)
        if self.hearts and suit(card) == HEARTS:
            self.hearts_broken = True  # a heart was played (discarded, or led when only hearts were left)
        if not self.hearts and suit(card) == SPADES:
            # A spade breaks spades when led (only possible once broken, when forced, or
            # with spades_lead_anytime) or when played by a player void in the led suit.
            self.spades_broken = True
        self.trick.append((seat, card))
        if len(self.trick) < self.n:
            self.to_move = (seat + 1) % self.n
            return
        winner = self.hearts_trick_winner(self.trick) if self.hearts else self.trick_winner(self.trick)
        self.tricks_won[winner] += 1
        if self.hearts:
            self.points_taken[winner] += sum(hearts_card_points(self.rules, c) for _, c in self.trick)
        self.trick_winners.append(winner)
        self.history.append(self.trick)
        self.trick = []
        self.to_move = self.leader = winner
        if len(self.trick_winners) == self.hand_size:
            self.score_hand()

    @staticmethod
    def trick_winner(trick: list[tuple[int, int]]) -> int:
        """The highest spade (big joker, little joker, ace ...) wins; with no spade, the highest
        card of the led suit."""
        spades = [(rank(c), s) for s, c in trick if suit(c) == SPADES]
        if spades:
            return max(spades)[1]
        led = suit(trick[0][1])
        return max((rank(c), s) for s, c in trick if suit(c) == led)[1]

    @staticmethod
    def hearts_trick_winner(trick: list[tuple[int, int]]) -> int:
        """Hearts: no trump, the highest card of the led suit wins [RULES 7]."""
        led = suit(trick[0][1])
        return max((rank(c), s) for s, c in trick if suit(c) == led)[1]

    # -------------------------------------------------------------- scoring
    def side_points(self, side: int) -> tuple[int, int, bool]:
        """Points, new bags and a made Boston of one side for the hand just played [RULES 3, 5, 6]."""
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
        made = taken >= contract
        # 10 for 200 (a contract of 10 or more) and Boston (every trick) are worth +/-200 [RULES 6].
        big = (r.ten_for_two_hundred and contract >= 10) or (r.boston and contract == self.hand_size)
        if made:
            points += (200 if big else 10 * contract) + (taken - contract)
            new_bags += taken - contract
            threshold = BIG_BID_THRESHOLD.get(self.n)
            if r.big_bid_bonus and contract > threshold:
                points += 10 * (contract - threshold)
        elif big:
            points -= 200
        elif r.set_penalty == "bid":
            points -= 10 * contract
        elif r.set_penalty == "short":
            points -= 10 * (contract - taken)
        # set_penalty "zero": a set scores nothing
        if r.exact_small_bid_bonus and contract in (1, 2) and taken == contract:
            points += 20
        if r.bemo and self.bemo[side]:
            n_tricks, value = BEMO_TRICKS[self.bemo[side]]
            took_all = all(self.side(w) == side for w in self.trick_winners[:n_tricks])
            points += value if took_all else -value
        boston = r.boston and made and contract == self.hand_size
        return points, new_bags, boston

    def score_hearts_hand(self) -> None:
        """Hearts: add each side's points (a team: the sum of its players'); the lowest score wins."""
        taken: list[set[int]] = [set() for _ in range(self.n)]
        for trick, winner in zip(self.history, self.trick_winners, strict=True):
            taken[winner] |= {c for _, c in trick}
        seat_points = hearts_seat_points(self.rules, taken)
        self.last_points = [sum(seat_points[s] for s in self.members(side)) for side in range(self.n_sides)]
        for side in range(self.n_sides):
            self.scores[side] += self.last_points[side]
        self.hand_number += 1
        r = self.rules
        over = any(s >= r.target_score for s in self.scores)
        if r.max_hands is not None and self.hand_number >= r.max_hands:
            over = True
        lowest = min(self.scores)
        leaders = [side for side, s in enumerate(self.scores) if s == lowest]
        self.winner = leaders[0] if over and len(leaders) == 1 else -1  # a tie for the lowest plays on
        if self.winner >= 0:
            self.phase = OVER
        else:
            self.phase = DEAL
            self.dealer = (self.dealer + 1) % self.n

    def score_hand(self) -> None:
        """Score the hand just played, then end the match or wait for the next deal."""
        if self.hearts:
            self.score_hearts_hand()
            return
        r = self.rules
        self.last_points = []
        bostons = []
        for side in range(self.n_sides):
            points, new_bags, boston = self.side_points(side)
            if r.bags:
                self.bags[side] += new_bags
                while self.bags[side] >= r.bag_limit:
                    self.bags[side] -= r.bag_limit
                    points -= r.bag_penalty
            self.scores[side] += points
            self.last_points.append(points)
            bostons.append(boston)
        self.hand_number += 1
        self.winner = self.match_winner()
        if r.boston_wins_match and any(bostons):
            self.winner = bostons.index(True)  # a made Boston wins the match at once
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
