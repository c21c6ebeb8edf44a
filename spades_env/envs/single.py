"""A fast path for one game of Spades (B = 1): the AEC env's backend.

``SingleGame`` drives one game of a ``SpadesEngine`` whose ``GameState`` (B = 1) stays the
truth: every step updates that state in place, exactly as ``engine.step`` would. The common
steps (a seat looks or declares blind nil, bids, or plays a card that does not end the hand)
are applied with Python scalars: the few fields they change are written through to the
state, and a mirror of the fields as Python ints is what the scalar code reads. Every other
step (the hand's last card and its scoring, a redeal, the two-player draw and exchange, Bemo)
goes to ``engine.step`` on the state, after which the mirror is reloaded from it.

Observations are kept incrementally too. ``base`` is one float32 vector in absolute seat
order (each seat's hand, played cards, trick card, bid, voids, tricks ... and the scores of
each side); a seat's observation is a gather of ``base`` by a fixed index array that rotates
the seats (and sides) so that the observer comes first. The values are those of
``ObservationEncoder.encode`` (layout version 2), bit for bit: ``base`` is rebuilt from the
state after every engine step and updated by a few scalar writes after a scalar one.

Spades only: Hearts rules keep the env's batched path (``SingleGame.supports``).
"""

from __future__ import annotations

import array
import dataclasses

import numpy as np

from spades_env import cards
from spades_env.engine import BEMO, BID, BLIND, DRAW, OVER, PLAY, GameState, SpadesEngine, dealing
from spades_env.engine.scoring import BEMO_TRICKS, BIG_CONTRACT_POINTS, settle_bags
from spades_env.engine.state import FREE_LEAD, LOWEST_CLUB_LEAD, N_SPADES_PHASES, RESTRICTED_LEAD
from spades_env.observation import SCORE_CLIP, ObservationEncoder
from spades_env.rules import BIG_BID_THRESHOLD

SPADES = cards.SPADES
TRUMP = int(cards.TRUMP_MASK)
#: A weak hand (``misdeal_weak_hand``) holds none of these: trumps (jokers included), J, Q, K.
WEAK = TRUMP | cards.cards_to_mask(s * cards.N_RANKS + r for s in range(4) for r in (9, 10, 11))
#: ``BYTES[x]``: the 8 bits of the byte x as 8 bytes 0/1, low bit first.
BYTES = [bytes((x >> k) & 1 for k in range(8)) for x in range(256)]
#: ``LANES[x]``: the 13 bits of a suit lane x as 13 bytes 0/1, low bit (the two) first.
LANES = [BYTES[x & 255] + BYTES[x >> 8][:5] for x in range(1 << 13)]

# ------------------------------------------------ dealing (``engine.dealing``, one game)
splitmix64 = dealing.splitmix64_int
stream = dealing.stream_int


def shuffle(key: int, counter: int, deck: np.ndarray) -> np.ndarray:
    """``dealing.shuffle`` of one game: the deck's card ids (int64 array ``deck``) in shuffled order."""
    return deck[dealing.shuffle_order(np.array([key], np.uint64), np.array([counter], np.int64), len(deck))[0]]


#: The ``GameState`` fields a scalar step may change (written back by ``SingleGame.synced``).
SCALAR_STEP_FIELDS = (
    "hands",
    "phase",
    "to_move",
    "leader",
    "trick",
    "n_in_trick",
    "led_suit",
    "n_tricks",
    "tricks_won",
    "trick_winners",
    "history",
    "bids",
    "blind",
    "looked",
    "n_bids",
    "spades_broken",
    "voids",
)
#: The fields ``SingleGame`` mirrors as Python values: those, and what its scalar steps read.
MIRRORED_FIELDS = SCALAR_STEP_FIELDS + ("dealer", "scores", "bags", "bemo", "hand_number", "winner", "key")


class SingleGame:
    """One Spades game on a ``GameState`` of one game, stepped with Python scalars where cheap."""

    @staticmethod
    def supports(rules) -> bool:
        """Rules this fast path covers: every Spades rule set (Hearts has its own observation)."""
        return not rules.hearts

    def __init__(self, engine: SpadesEngine, encoder: ObservationEncoder) -> None:
        r = engine.rules
        if not self.supports(r):
            raise ValueError(f"SingleGame covers Spades rules only, got game {r.game!r}")
        self.engine, self.rules = engine, r
        lay = engine.layout
        self.n = n = engine.n_players
        self.n_sides = s = engine.n_sides
        self.hand_size = engine.hand_size
        self.n_actions = lay.n_actions
        self.n_cards = c = lay.n_card_ids
        self.k = k = lay.max_bid + 1
        self.bid_offset = lay.bid_offset
        self.blind_nil_action, self.look_action, self.redeal_action = lay.blind_nil, lay.look, lay.redeal
        self.side = [r.side_of_seat(x) for x in range(n)]
        self.two_player = r.two_player
        self.club_leads = r.lowest_club_leads
        self.lowest_club = min(x for x in r.deck if cards.card_suit(x) == cards.CLUBS)
        self.every_bid_open = not (r.partnership and (r.min_team_bid or r.fourteen))  # mirror aside
        self.suit = [cards.card_suit(x) for x in range(64)]
        self.power = [[self._power(led, x) for x in range(c)] for led in range(4)]
        # preferred[led_suit] (negative lead states index from the end, as in the engine).
        preferred = [0] * 7
        for suit in range(3):
            preferred[suit] = int(cards.SUIT_MASK[suit])
        preferred[SPADES] = TRUMP
        preferred[RESTRICTED_LEAD] = ((1 << 64) - 1) & ~TRUMP
        preferred[LOWEST_CLUB_LEAD] = 1 << self.lowest_club
        self.preferred = preferred
        self.after_trick = FREE_LEAD if r.spades_lead_anytime else None  # None: FREE once broken, else RESTRICTED
        self.trick_scale = float(np.float32(1.0 / self.hand_size))
        self.score_scale = float(np.float32(1.0 / r.target_score))
        self.bag_scale = float(np.float32(1.0 / r.bag_limit))
        self.target = float(np.float32(r.target_score / 1000))
        self.perfect_information = encoder.perfect_information
        self.face_up_deal = r.face_up_deal
        self._layout(encoder, n, s, c, k)
        self.state: GameState | None = None
        """The game (B = 1); scalar steps leave it behind the mirror until ``synced()``."""
        self._dirty = False
        self._mask: np.ndarray | None = None
        self.deck = np.array(r.deck, np.int64)
        self.card_bit = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
        # The mask of a card play is joined from 8-byte chunks: 6 full ones, then the
        # last C - 48 card bits with every non-card action (0) appended.
        # Masks of card plays are joined from 13-byte suit lanes; following a suit (all suits
        # when there are no jokers, which are spades) needs only that suit's lane.
        self._mask_tail = bytes(self.n_actions - c)
        self.follow_lanes = 3 if r.jokers else 4
        self.lane_shift = [13 * x for x in range(4)]
        self._before_lane = [bytes(13 * x) for x in range(4)]
        self._after_lane = [bytes(c - 13 * (x + 1)) + self._mask_tail for x in range(4)]
        self.mercy = r.mercy_score
        self.bid_threshold = BIG_BID_THRESHOLD.get(n)
        self.members = [[x for x in range(n) if self.side[x] == side] for side in range(s)]
        self.hand_delta: list[int] | None = None
        """Points each side scored in the last ``try_step``, if it ended a hand (else None)."""
        self._template = engine.reset(0)  # a state to copy, every field filled
        self._fields = [f.name for f in dataclasses.fields(GameState)]

    @staticmethod
    def _power(led: int, card: int) -> int:
        """Rank of ``card`` in a trick led in ``led``: spades (jokers too) beat the led suit, which beats the rest."""
        suit, rank = cards.card_suit(card), cards.card_rank(card)
        return 100 + rank if suit == SPADES else (rank if suit == led else -1)

    def __getstate__(self) -> dict:
        # ``base`` is a view of ``w``: a copy (deepcopy, pickle) makes a new view of its own ``w``.
        return {k: v for k, v in self.__dict__.items() if k != "base"}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state)
        self.base = np.frombuffer(self.w, np.float32)

    # ------------------------------------------------------------------ layout
    def _layout(self, encoder: ObservationEncoder, n: int, s: int, c: int, k: int) -> None:
        """Blocks of ``base`` (absolute seats and sides) and each seat's gather index into it."""
        card_blocks = ["hand", "played", "trick"]
        if self.perfect_information:
            card_blocks.append("all_hands")
        if self.face_up_deal:
            card_blocks.append("face_up")
        if self.two_player:
            card_blocks += ["shown", "discards", "seen"]
        # Every card block is N x C in base (per absolute seat); "hand" holds each seat's
        # hand as its owner sees it (zeros until it looks), "shown" the card shown to each seat.
        blocks: list[tuple[str, int]] = [(name, n * c) for name in card_blocks]
        blocks += [
            ("led_suit", 4),
            ("leader", n),
            ("bid", n * k),
            ("has_bid", n),
            ("nil", n),
            ("blind_nil", n),
            ("voids", n * 4),
            ("spades_broken", 1),
            *([("bemo", s * 3)] if self.rules.bemo else []),
            ("phase", N_SPADES_PHASES),
            ("to_move", n),
            ("dealer", n),
            ("tricks_won", n),
            ("score", s),
            ("bags", s),
            ("target", 1),
        ]
        at = {}
        size = 0
        for name, width in blocks:
            at[name] = size
            size += width
        self.at = at
        self.cards_end = at["led_suit"]
        self.o_hand, self.o_played, self.o_trick = at["hand"], at["played"], at["trick"]
        self.o_all_hands, self.o_face_up = at.get("all_hands"), at.get("face_up")
        self.o_led_suit, self.o_leader, self.o_voids = at["led_suit"], at["leader"], at["voids"]
        self.o_spades_broken, self.o_to_move, self.o_tricks_won = at["spades_broken"], at["to_move"], at["tricks_won"]
        self.card_blocks = card_blocks
        # ``w`` takes the scalar writes (an array.array item write is a few times cheaper than
        # NumPy's); ``base`` is a NumPy view of the same memory for the gathers and block writes.
        self.w = array.array("f", bytes(4 * size))
        self.base = np.frombuffer(self.w, np.float32)
        own = {"hand", "shown", "discards", "seen"}  # blocks the observer sees only its own row of
        index = np.empty((n, encoder.size), np.int64)
        for seat in range(n):
            rel = [(seat + j) % n for j in range(n)]
            sides = [self.side[x] for x in rel[:s]]
            parts = []
            for name in encoder.slices:
                a = at[name]
                if name in own:
                    parts.append(a + seat * c + np.arange(c))
                elif name in card_blocks:
                    parts.append(np.concatenate([a + x * c + np.arange(c) for x in rel]))
                elif name in ("led_suit", "spades_broken", "phase", "target"):
                    parts.append(a + np.arange(dict(blocks)[name]))
                elif name == "bid":
                    parts.append(np.concatenate([a + x * k + np.arange(k) for x in rel]))
                elif name == "voids":
                    parts.append(np.concatenate([a + x * 4 + np.arange(4) for x in rel]))
                elif name == "bemo":
                    parts.append(np.concatenate([a + x * 3 + np.arange(3) for x in sides]))
                elif name in ("score", "bags"):
                    parts.append(a + np.array(sides))
                else:  # one entry per seat: leader, has_bid, nil, blind_nil, to_move, dealer, tricks_won
                    parts.append(a + np.array(rel))
            index[seat] = np.concatenate(parts)
        self.index = index
        self.indices = list(index)  # each seat's row, ready for ``take``

    # -------------------------------------------------------------- sync
    def attach(self, state: GameState, view: GameState | None = None) -> None:
        """Take ``state`` (B = 1) as the game, after a reset or an engine step; observations
        show ``view`` (default: the state itself)."""
        self.state = state
        self._mask = None
        self._load(state)
        self._build(state if view is None else view)

    def synced(self) -> GameState:
        """The state, brought up to date with the mirror (scalar steps write only the mirror)."""
        st = self.state
        if self._dirty:
            for name in SCALAR_STEP_FIELDS:
                getattr(st, name)[0] = getattr(self, name)
            self._dirty = False
        return st

    def _load(self, st: GameState) -> None:
        """The mirror: the state's fields as Python ints, bools and lists."""
        for name in MIRRORED_FIELDS:
            setattr(self, name, getattr(st, name)[0].tolist())
        self._dirty = False

    def _build(self, st: GameState) -> None:
        """``base`` from a state (what ``ObservationEncoder`` shows of it)."""
        n, c, at, base = self.n, self.n_cards, self.at, self.base
        hands, deal, trick = st.hands[0].tolist(), st.deal[0].tolist(), st.trick[0].tolist()
        looked = st.looked[0].tolist()
        phase, to_move = int(st.phase[0]), int(st.to_move[0])
        masks = [hands[x] if looked[x] else 0 for x in range(n)]
        masks += [deal[x] & ~hands[x] for x in range(n)]
        masks += [1 << trick[x] if trick[x] >= 0 else 0 for x in range(n)]
        if self.perfect_information:
            masks += hands
        if self.face_up_deal:
            face_up = st.face_up[0].tolist()
            masks += [face_up[x] & hands[x] for x in range(n)]
        if self.two_player:
            shown = int(st.shown[0])
            masks += [1 << shown if phase == DRAW and to_move == x else 0 for x in range(n)]
            masks += (st.discards[0] | st.exchanged_out[0]).tolist()
            masks += st.seen[0].tolist()
        bits = np.unpackbits(np.array(masks, np.uint64).view(np.uint8), bitorder="little").reshape(-1, 64)
        base[: self.cards_end] = bits[:, :c].reshape(-1)
        base[self.cards_end :] = 0
        voids = int(st.voids[0])
        base[at["voids"] : at["voids"] + 4 * n] = [(voids >> b) & 1 for b in range(4 * n)]
        led = int(st.led_suit[0])
        ones = [at["phase"] + phase, at["dealer"] + int(st.dealer[0])]
        if led >= 0:
            ones.append(at["led_suit"] + led)
        if phase == PLAY:
            ones.append(at["leader"] + int(st.leader[0]))
        if phase != OVER:
            ones.append(at["to_move"] + to_move)
        if st.spades_broken[0]:
            ones.append(at["spades_broken"])
        bids, blind = st.bids[0].tolist(), st.blind[0].tolist()
        for x in range(n):
            if bids[x] >= 0:
                ones += [at["bid"] + x * self.k + bids[x], at["has_bid"] + x]
                if bids[x] == 0:
                    ones.append(at["nil"] + x)
            if blind[x]:
                ones.append(at["blind_nil"] + x)
        if self.rules.bemo:
            for side, b in enumerate(st.bemo[0].tolist()):
                if b >= 0:
                    ones.append(at["bemo"] + 3 * side + b)
        base[ones] = 1
        tricks, scores, bags = st.tricks_won[0].tolist(), st.scores[0].tolist(), st.bags[0].tolist()
        clip = SCORE_CLIP
        base[at["tricks_won"] :] = (
            [t * self.trick_scale for t in tricks]
            + [min(clip, max(-clip, x * self.score_scale)) for x in scores]
            + [x * self.bag_scale for x in bags]
            + [self.target]
        )

    # ------------------------------------------------------------- observe
    def observation(self, seat: int) -> np.ndarray:
        """(size,) float32: the observation of ``seat`` (a new array)."""
        return self.base.take(self.indices[seat])

    def bid_range(self, seat: int) -> tuple[int, int]:
        """Lowest and highest legal bid of ``seat`` (``SpadesEngine.bid_range``)."""
        r = self.rules
        if r.mirror:
            spades = (self.hands[seat] & TRUMP).bit_count()
            return spades, spades
        if self.every_bid_open:
            return 0, self.hand_size
        partner_bid = self.bids[(seat + 2) % self.n]
        if r.fourteen:
            return (7 - partner_bid, 7 - partner_bid) if partner_bid >= 0 else (2, 5)
        return (max(0, r.min_team_bid - partner_bid) if partner_bid >= 0 else 0), self.hand_size

    def _card_bytes(self, cards_mask: int) -> bytes:
        """The C card bits of a card mask as C bytes 0/1."""
        row = b"".join(
            [
                LANES[cards_mask & 0x1FFF],
                LANES[(cards_mask >> 13) & 0x1FFF],
                LANES[(cards_mask >> 26) & 0x1FFF],
                LANES[(cards_mask >> 39) & 0x1FFF],
            ]
        )
        if self.n_cards > 52:
            row += bytes(((cards_mask >> 52) & 1, (cards_mask >> 53) & 1))
        return row

    def legal_mask(self) -> np.ndarray:
        """(A,) int8 legal actions of the seat to move (cached until the next step; read-only)."""
        if self._mask is not None:
            return self._mask
        phase, seat = self.phase, self.to_move
        if phase == PLAY:
            hand, led = self.hands[seat], self.led_suit
            lane = (hand >> self.lane_shift[led]) & 0x1FFF if 0 <= led < self.follow_lanes else 0
            if lane:  # following suit (no jokers): that suit's cards in hand, a 13-byte lane
                row = self._before_lane[led] + LANES[lane] + self._after_lane[led]
            else:
                row = self._card_bytes(hand & self.preferred[led] or hand) + self._mask_tail
            mask = self._mask = np.frombuffer(row, np.int8)  # of bytes: read-only (``observe`` copies it)
            return mask
        if phase == BID or phase == BLIND:
            mask = np.zeros(self.n_actions, np.int8)
            lo, hi = self.bid_range(seat)
            if phase == BID:
                mask[self.bid_offset + lo : self.bid_offset + hi + 1] = 1
                if self.redeal_action is not None:
                    mask[self.redeal_action] = (self.hands[seat] & WEAK) == 0
            else:
                mask[self.look_action] = 1
                mask[self.blind_nil_action] = lo == 0
        elif phase == OVER:
            mask = np.zeros(self.n_actions, np.int8)
        else:
            mask = self.engine.legal_action_mask(self.synced())[0].astype(np.int8)
        mask.flags.writeable = False
        self._mask = mask
        return mask

    # ---------------------------------------------------------------- step
    def try_step(self, a: int, score_hands: bool = True) -> bool:
        """Apply the legal action ``a`` with scalars if this step is a common one; False (and
        nothing changed) when the engine must take it (``engine.step``, then ``attach``).

        The hand's last card is played here, the hand scored (``hand_delta``) and the next
        dealt, when ``score_hands``; else the engine takes it (its ``FinishedHands`` are needed).
        """
        phase = self.phase
        self.hand_delta = None
        if phase == PLAY:
            if self.n_in_trick == self.n - 1 and self.n_tricks == self.hand_size - 1:
                if not score_hands:
                    return False
                self._play(a)
                self._finish_hand()
                self._mask = None
                return True
            self._play(a)
        elif phase == BID:
            if a == self.redeal_action:
                return False
            self._bid(a - self.bid_offset)
        elif phase == BLIND and not self.two_player:
            self._blind(a == self.blind_nil_action)
        else:
            return False
        self._mask = None
        return True

    def _set_to_move(self, seat: int) -> None:
        base, at = self.w, self.at["to_move"]
        base[at + self.to_move] = 0
        base[at + seat] = 1
        self.to_move = seat

    def _set_phase(self, phase: int) -> None:
        base, at = self.w, self.at["phase"]
        base[at + self.phase] = 0
        base[at + phase] = 1
        self.phase = phase

    def _blind(self, declared: bool) -> None:
        """Look at the hand (then bid), or declare blind nil (a bid of 0)."""
        seat, base, at, c = self.to_move, self.w, self.at, self.n_cards
        self.looked[seat] = True
        self._dirty = True
        hand = self.hands[seat]
        lo = at["hand"] + seat * c
        self.base[lo : lo + c] = np.frombuffer(self._card_bytes(hand), np.int8)[:c]
        self._set_phase(BID)
        if declared:
            self.blind[seat] = True
            self.bids[seat] = 0
            self.n_bids += 1
            base[at["bid"] + seat * self.k] = 1
            base[at["has_bid"] + seat] = 1
            base[at["nil"] + seat] = 1
            base[at["blind_nil"] + seat] = 1
            self._next_bidder(seat)

    def _bid(self, bid: int) -> None:
        seat, base, at = self.to_move, self.w, self.at
        self.bids[seat] = bid
        self.n_bids += 1
        self._dirty = True
        base[at["bid"] + seat * self.k + bid] = 1
        base[at["has_bid"] + seat] = 1
        if bid == 0:
            base[at["nil"] + seat] = 1
        self._next_bidder(seat)

    def _next_bidder(self, seat: int) -> None:
        if self.n_bids == self.n:
            self._end_bidding()
            return
        nxt = (seat + 1) % self.n
        self._set_to_move(nxt)
        self._set_phase(BID if self.looked[nxt] else BLIND)

    def _first_leader(self) -> int:
        if self.club_leads:
            bit = 1 << self.lowest_club
            return next((x for x in range(self.n) if self.hands[x] & bit), 0)
        return (self.dealer + 1) % self.n

    def _end_bidding(self) -> None:
        """After the last bid: the Bemo declarations (engine steps), or the first lead."""
        first = self._first_leader()
        if self.rules.bemo:
            self._set_phase(BEMO)
            self._set_to_move(first)
            return
        self._set_phase(PLAY)
        self._set_to_move(first)
        self.leader = first
        self.w[self.at["leader"] + first] = 1
        if self.club_leads:
            self.led_suit = LOWEST_CLUB_LEAD

    def _play(self, card: int) -> None:
        """Play a card: the trick, voids, broken spades; a full trick is scored (``engine._play``)."""
        seat, base, n = self.to_move, self.w, self.n
        self.hands[seat] &= ~(1 << card)
        self._dirty = True
        at_card = seat * self.n_cards + card
        base[self.o_hand + at_card] = 0
        base[self.o_played + at_card] = 1
        base[self.o_trick + at_card] = 1
        if self.o_all_hands is not None:
            base[self.o_all_hands + at_card] = 0
        if self.o_face_up is not None:
            base[self.o_face_up + at_card] = 0
        suit = self.suit[card]
        if self.n_in_trick == 0:
            led = self.led_suit = suit
            base[self.o_led_suit + suit] = 1
        else:
            led = self.led_suit
            if suit != led:
                bit = 4 * seat + led
                self.voids |= 1 << bit
                base[self.o_voids + bit] = 1
        if suit == SPADES and not self.spades_broken:
            self.spades_broken = True
            base[self.o_spades_broken] = 1
        trick = self.trick
        trick[seat] = card
        k = self.n_in_trick + 1
        base[self.o_to_move + seat] = 0
        if k < n:
            self.n_in_trick = k
            nxt = seat + 1 if seat + 1 < n else 0
            base[self.o_to_move + nxt] = 1
            self.to_move = nxt
            return
        # The trick is complete: the highest spade, else the highest card of the led suit, wins.
        power = self.power[led]
        ranks = [power[x] for x in trick]
        winner = ranks.index(max(ranks))
        won = self.tricks_won[winner] + 1
        self.tricks_won[winner] = won
        base[self.o_tricks_won + winner] = won * self.trick_scale
        done = self.n_tricks
        self.trick_winners[done] = winner
        self.history[done] = trick
        self.n_tricks = done + 1
        base[self.o_leader + self.leader] = 0
        base[self.o_leader + winner] = 1
        self.leader = self.to_move = winner
        base[self.o_to_move + winner] = 1
        t, c = self.o_trick, self.n_cards
        for x in range(n):
            base[t + x * c + trick[x]] = 0
        self.trick = [-1] * n
        self.n_in_trick = 0
        base[self.o_led_suit + led] = 0
        if self.after_trick is not None:
            lead = self.after_trick
        else:
            lead = FREE_LEAD if self.spades_broken else RESTRICTED_LEAD
        self.led_suit = lead

    # ------------------------------------------------------------ hand end
    def _finish_hand(self) -> None:
        """Score the hand just played (``scoring.score_hand``, ``match_winner``) and deal the next
        one, as ``SpadesEngine._finish_hands`` does."""
        st = self.synced()
        delta, bags, boston = self._score(self.trick_winners)
        self.hand_delta = delta
        self.scores = scores = [x + d for x, d in zip(self.scores, delta, strict=True)]
        self.bags = bags
        self.hand_number += 1
        self.winner = winner = self._match_winner(boston)
        st.scores[0] = scores
        st.bags[0] = bags
        st.hand_number[0] = self.hand_number
        st.winner[0] = winner
        base = self.base
        if winner >= 0:
            # The match is over: nobody moves, no trick is led; the scores show the last hand.
            self._set_phase(OVER)
            st.phase[0] = OVER
            base[self.o_to_move + self.to_move] = 0
            base[self.o_leader + self.leader] = 0
            self._write_scores()
            return
        self.dealer = (self.dealer + 1) % self.n
        st.dealer[0] = self.dealer
        st.n_redeals[0] = 0
        self._start_hand(st)
        self._fresh_hand(st)

    def _write_scores(self) -> None:
        """The score and bags blocks of ``base`` from the mirror."""
        base, at, clip = self.base, self.at, SCORE_CLIP
        base[at["score"] : at["score"] + self.n_sides] = [
            min(clip, max(-clip, x * self.score_scale)) for x in self.scores
        ]
        base[at["bags"] : at["bags"] + self.n_sides] = [x * self.bag_scale for x in self.bags]

    def _fresh_hand(self, st: GameState) -> None:
        """Mirror and ``base`` of a hand just dealt by ``_start_hand`` into ``st`` (for ``attach``'s cost
        in two-player, whose draw shows cards)."""
        self._mask = None
        if self.two_player:
            self.attach(st)
            return
        n = self.n
        self.state = st
        self.hands = hands = st.hands[0].tolist()
        self.phase = phase = int(st.phase[0])
        self.to_move = int(st.to_move[0])
        self.leader = int(st.leader[0])
        self.dealer = int(st.dealer[0])
        self.trick = [-1] * n
        self.n_in_trick = 0
        self.led_suit = int(st.led_suit[0])
        self.n_tricks = 0
        self.tricks_won = [0] * n
        self.bids = [-1] * n
        self.looked = looked = st.looked[0].tolist()
        self.blind = [False] * n
        self.n_bids = 0
        self.spades_broken = False
        self.voids = 0
        self.bemo = [-1] * self.n_sides
        self.winner = -1
        self.trick_winners = [-1] * self.hand_size
        self.history = [[-1] * n for _ in range(self.hand_size)]
        self._dirty = False
        # Nothing is played, bid or won yet: the hands (as each seat sees its own), the
        # phase, seat to move, dealer, scores and target.
        base, at, c = self.base, self.at, self.n_cards
        base[:] = 0
        masks = [hands[x] if looked[x] else 0 for x in range(n)]
        blocks = [(self.o_hand, masks)]
        if self.o_all_hands is not None:
            blocks.append((self.o_all_hands, hands))
        if self.o_face_up is not None:
            blocks.append((self.o_face_up, [f & h for f, h in zip(st.face_up[0].tolist(), hands, strict=True)]))
        for start, rows in blocks:
            bits = np.unpackbits(np.array(rows, np.uint64).view(np.uint8), bitorder="little").reshape(n, 64)
            base[start : start + n * c] = bits[:, :c].reshape(-1)
        base[at["phase"] + phase] = 1
        base[self.o_to_move + self.to_move] = 1
        base[at["dealer"] + self.dealer] = 1
        self._write_scores()
        base[at["target"]] = self.target

    def _score(self, trick_winners: list[int]) -> tuple[list[int], list[int], list[bool]]:
        """Points, bags after the hand and made Bostons of each side (``scoring.score_hand`` in
        Python scalars, for speed; the bags through ``scoring.settle_bags``)."""
        r = self.rules
        bids, blind, tricks = self.bids, self.blind, self.tricks_won
        delta, new_bags, bostons = [], [], []
        for side, members in enumerate(self.members):
            nil_points = failed = contract = taken = 0
            for x in members:
                if bids[x] == 0:
                    value = r.blind_nil_bonus if blind[x] else r.nil_bonus
                    nil_points += value if tricks[x] == 0 else -value
                    failed += tricks[x]
                else:
                    contract += bids[x]
                    taken += tricks[x]
            made = taken >= contract
            over = taken - contract if made else 0
            if r.set_penalty == "bid":
                set_points = -10 * contract
            elif r.set_penalty == "short":
                set_points = -10 * (contract - taken)
            else:
                set_points = 0
            made_points = 10 * contract
            big = r.ten_for_two_hundred and contract >= 10
            boston = False
            if r.boston:
                big = big or contract == self.hand_size
                boston = made and contract == self.hand_size
            if big:
                made_points, set_points = BIG_CONTRACT_POINTS, -BIG_CONTRACT_POINTS
            points = (made_points + over if made else set_points) + nil_points + failed
            if r.bemo:
                level = self.bemo[side]
                if level in BEMO_TRICKS:
                    n_tricks, value = BEMO_TRICKS[level]
                    took_all = all(self.side[max(w, 0)] == side for w in trick_winners[:n_tricks])
                    points += value if took_all else -value
            if r.exact_small_bid_bonus and 1 <= contract <= 2 and taken == contract:
                points += 20
            if r.big_bid_bonus and made and contract > self.bid_threshold:
                points += 10 * (contract - self.bid_threshold)
            bags = self.bags[side]
            if r.bags:
                bags, penalties = settle_bags(r, bags, over + failed)
                points -= penalties * r.bag_penalty
            delta.append(points)
            new_bags.append(bags)
            bostons.append(boston)
        return delta, new_bags, bostons

    def _match_winner(self, boston: list[bool]) -> int:
        """Winning side after the hand, or -1 while the match goes on (``scoring.match_winner``)."""
        r, scores = self.rules, self.scores
        ends = max(scores) >= r.target_score
        if self.mercy is not None:
            ends = ends or min(scores) <= self.mercy
        if r.max_hands is not None:
            ends = ends or self.hand_number >= r.max_hands
        top = max(scores)
        winner = scores.index(top) if ends and scores.count(top) == 1 else -1
        if r.boston_wins_match and any(boston):
            winner = boston.index(True)
        return winner

    # --------------------------------------------------------- hand start
    def reset(self, seed: int) -> GameState | None:
        """``engine.reset(seed)`` (a new state, attached), or None if the engine must make it."""
        if not 0 <= seed < 1 << 63:
            return None
        template = self._template
        st = GameState(**{name: getattr(template, name).copy() for name in self._fields})
        key = splitmix64(splitmix64(seed))
        st.key[0] = key
        st.scores[0] = 0
        st.bags[0] = 0
        st.hand_number[0] = 0
        st.winner[0] = -1
        st.n_redeals[0] = 0
        self.key, self.scores, self.bags, self.hand_number = key, [0] * self.n_sides, [0] * self.n_sides, 0
        st.dealer[0] = self.dealer = stream(key, 0, 7) % self.n
        self._start_hand(st)
        self._fresh_hand(st)
        return st

    def _start_hand(self, st: GameState) -> None:
        """Deal the hand ``hand_number`` (no redeal) into ``st``: ``SpadesEngine._start_hand``."""
        n, r = self.n, self.rules
        counter = self.hand_number  # dealing.deal_counter with no redeal
        if self.two_player:
            pile = shuffle(self.key, counter, self.deck)
            st.pile[0] = pile
            pile = pile.tolist()
            st.pile_pos[0] = 0
            deals = [0] * n
            st.discards[0] = 0
            st.seen[0] = 0
            st.exchanged_out[0] = 0
            st.exchanged_in[0] = 0
        else:
            shuffled = shuffle(self.key, counter, self.deck)[: n * self.hand_size]
            deals = np.bitwise_or.reduce(self.card_bit[shuffled].reshape(n, self.hand_size), axis=1)
        st.hands[0] = deals
        st.deal[0] = deals
        if self.face_up_deal:
            st.face_up[0] = dealing.pick_cards(st.key[:1], np.array([counter], np.int64), st.deal[:1], 4)[0]
        st.bemo[0] = -1
        st.shown[0] = -1
        st.trick[0] = -1
        st.n_in_trick[0] = 0
        st.led_suit[0] = FREE_LEAD if r.spades_lead_anytime else RESTRICTED_LEAD
        st.n_tricks[0] = 0
        st.tricks_won[0] = 0
        st.trick_winners[0] = -1
        st.bids[0] = -1
        st.blind[0] = False
        st.n_bids[0] = 0
        st.spades_broken[0] = False
        st.voids[0] = 0
        st.history[0] = -1
        st.hand_start_scores[0] = self.scores
        st.hand_start_bags[0] = self.bags
        allowed = self._blind_nil_allowed()
        looked = [not allowed[self.side[x]] for x in range(n)]
        st.looked[0] = looked
        dealer = self.dealer
        first = (dealer + 1) % n
        st.leader[0] = first
        if self.two_player:
            # Blind nil is declared before the draw, the non-dealer first; then the dealer draws.
            st.to_move[0] = dealer if looked[first] and not looked[dealer] else first
            if looked[first] and looked[dealer]:
                st.phase[0] = DRAW
                st.to_move[0] = dealer
                st.shown[0] = pile[0]
            else:
                st.phase[0] = BLIND
        else:
            st.to_move[0] = first
            st.phase[0] = BID if looked[first] else BLIND

    def _blind_nil_allowed(self) -> list[bool]:
        """May each side's players bid blind nil this hand (``SpadesEngine._blind_nil_allowed``)."""
        r, scores = self.rules, self.scores
        if not r.blind_nil:
            return [False] * self.n_sides
        behind = r.blind_nil_requires_behind_by
        if behind is None:
            return [True] * self.n_sides
        others = [max(y for j, y in enumerate(scores) if j != side) for side in range(self.n_sides)]
        return [scores[side] <= others[side] - behind for side in range(self.n_sides)]
