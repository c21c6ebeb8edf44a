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

import numpy as np

from spades_env import cards
from spades_env.engine import BEMO, BID, BLIND, DRAW, OVER, PLAY, GameState, SpadesEngine
from spades_env.engine.state import FREE_LEAD, LOWEST_CLUB_LEAD, N_SPADES_PHASES, RESTRICTED_LEAD
from spades_env.observation import SCORE_CLIP, ObservationEncoder

SPADES = cards.SPADES
TRUMP = int(cards.TRUMP_MASK)
#: A weak hand (``misdeal_weak_hand``) holds none of these: trumps (jokers included), J, Q, K.
WEAK = TRUMP | cards.cards_to_mask(s * cards.N_RANKS + r for s in range(4) for r in (9, 10, 11))
#: ``BYTES[x]``: the 8 bits of the byte x as 8 bytes 0/1, low bit first.
BYTES = [bytes((x >> k) & 1 for k in range(8)) for x in range(256)]


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
        self._mask: np.ndarray | None = None
        self._mask_tail = bytes(self.n_actions - c)

    @staticmethod
    def _power(led: int, card: int) -> int:
        """Rank of ``card`` in a trick led in ``led``: spades (jokers too) beat the led suit, which beats the rest."""
        suit, rank = cards.card_suit(card), cards.card_rank(card)
        return 100 + rank if suit == SPADES else (rank if suit == led else -1)

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
        self.card_blocks = card_blocks
        self.base = np.zeros(size, np.float32)
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

    # -------------------------------------------------------------- sync
    def attach(self, state: GameState, view: GameState | None = None) -> None:
        """Take ``state`` (B = 1) as the game, after a reset or an engine step; observations
        show ``view`` (default: the state itself)."""
        self.state = state
        self._mask = None
        self._load(state)
        self._build(state if view is None else view)

    def _load(self, st: GameState) -> None:
        """The mirror: the state's fields as Python ints and lists."""
        self.hands = st.hands[0].tolist()
        self.phase = int(st.phase[0])
        self.to_move = int(st.to_move[0])
        self.leader = int(st.leader[0])
        self.dealer = int(st.dealer[0])
        self.trick = st.trick[0].tolist()
        self.n_in_trick = int(st.n_in_trick[0])
        self.led_suit = int(st.led_suit[0])
        self.n_tricks = int(st.n_tricks[0])
        self.tricks_won = st.tricks_won[0].tolist()
        self.bids = st.bids[0].tolist()
        self.looked = st.looked[0].tolist()
        self.n_bids = int(st.n_bids[0])
        self.spades_broken = bool(st.spades_broken[0])
        self.voids = int(st.voids[0])
        # Row views of the state's arrays, for the write-through.
        self.s_hands, self.s_trick, self.s_tricks_won = st.hands[0], st.trick[0], st.tricks_won[0]
        self.s_trick_winners, self.s_history = st.trick_winners[0], st.history[0]
        self.s_bids, self.s_blind, self.s_looked = st.bids[0], st.blind[0], st.looked[0]

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
        return self.base.take(self.index[seat])

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

    def legal_mask(self) -> np.ndarray:
        """(A,) int8 legal actions of the seat to move (cached until the next step; do not modify)."""
        if self._mask is not None:
            return self._mask
        phase, seat = self.phase, self.to_move
        if phase == PLAY:
            hand = self.hands[seat]
            legal = hand & self.preferred[self.led_suit] or hand
            b = BYTES
            row = b"".join(
                [
                    b[legal & 255],
                    b[(legal >> 8) & 255],
                    b[(legal >> 16) & 255],
                    b[(legal >> 24) & 255],
                    b[(legal >> 32) & 255],
                    b[(legal >> 40) & 255],
                    b[(legal >> 48) & 255],
                ]
            )
            mask = np.frombuffer(bytearray(row[: self.n_cards] + self._mask_tail), np.int8)
        elif phase == BID or phase == BLIND:
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
            mask = self.engine.legal_action_mask(self.state)[0].astype(np.int8)
        self._mask = mask
        return mask

    # ---------------------------------------------------------------- step
    def ends_hand(self) -> bool:
        """The next card ends the hand (then the engine scores it and deals the next)."""
        return self.phase == PLAY and self.n_tricks == self.hand_size - 1 and self.n_in_trick == self.n - 1

    def try_step(self, a: int) -> bool:
        """Apply the legal action ``a`` with scalars if this step is a common one; False (and
        nothing changed) when the engine must take it (``engine.step``, then ``attach``)."""
        phase = self.phase
        if phase == PLAY:
            if self.n_in_trick == self.n - 1 and self.n_tricks == self.hand_size - 1:
                return False
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
        base, at = self.base, self.at["to_move"]
        base[at + self.to_move] = 0
        base[at + seat] = 1
        self.to_move = seat
        self.state.to_move[0] = seat

    def _set_phase(self, phase: int) -> None:
        base, at = self.base, self.at["phase"]
        base[at + self.phase] = 0
        base[at + phase] = 1
        self.phase = phase
        self.state.phase[0] = phase

    def _blind(self, declared: bool) -> None:
        """Look at the hand (then bid), or declare blind nil (a bid of 0)."""
        seat, st, base, at, c = self.to_move, self.state, self.base, self.at, self.n_cards
        self.looked[seat] = True
        self.s_looked[seat] = True
        hand = self.hands[seat]
        lo = at["hand"] + seat * c
        base[lo : lo + c] = [(hand >> x) & 1 for x in range(c)]
        self._set_phase(BID)
        if declared:
            self.s_blind[seat] = True
            self.bids[seat] = 0
            self.s_bids[seat] = 0
            self.n_bids += 1
            st.n_bids[0] = self.n_bids
            base[at["bid"] + seat * self.k] = 1
            base[at["has_bid"] + seat] = 1
            base[at["nil"] + seat] = 1
            base[at["blind_nil"] + seat] = 1
            self._next_bidder(seat)

    def _bid(self, bid: int) -> None:
        seat, base, at = self.to_move, self.base, self.at
        self.bids[seat] = bid
        self.s_bids[seat] = bid
        self.n_bids += 1
        self.state.n_bids[0] = self.n_bids
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
        self.state.leader[0] = first
        self.base[self.at["leader"] + first] = 1
        if self.club_leads:
            self.led_suit = LOWEST_CLUB_LEAD
            self.state.led_suit[0] = LOWEST_CLUB_LEAD

    def _play(self, card: int) -> None:
        """Play a card (not the hand's last): the trick, voids, broken spades; a full trick is scored."""
        seat, st, base, at, c, n = self.to_move, self.state, self.base, self.at, self.n_cards, self.n
        hand = self.hands[seat] & ~(1 << card)
        self.hands[seat] = hand
        self.s_hands[seat] = hand
        at_card = seat * c + card
        base[at["hand"] + at_card] = 0
        base[at["played"] + at_card] = 1
        base[at["trick"] + at_card] = 1
        if self.perfect_information:
            base[at["all_hands"] + at_card] = 0
        if self.face_up_deal:
            base[at["face_up"] + at_card] = 0
        suit = self.suit[card]
        if self.n_in_trick == 0:
            led = self.led_suit = suit
            st.led_suit[0] = suit
            base[at["led_suit"] + suit] = 1
        else:
            led = self.led_suit
            if suit != led:
                bit = 4 * seat + led
                self.voids |= 1 << bit
                st.voids[0] = self.voids
                base[at["voids"] + bit] = 1
        if suit == SPADES and not self.spades_broken:
            self.spades_broken = True
            st.spades_broken[0] = True
            base[at["spades_broken"]] = 1
        self.trick[seat] = card
        self.s_trick[seat] = card
        self.n_in_trick += 1
        if self.n_in_trick < n:
            st.n_in_trick[0] = self.n_in_trick
            self._set_to_move((seat + 1) % n)
            return
        # The trick is complete: the highest spade, else the highest card of the led suit, wins.
        trick = self.trick
        power = self.power[led]
        winner = max(range(n), key=lambda x: power[trick[x]])
        won = self.tricks_won[winner] + 1
        self.tricks_won[winner] = won
        self.s_tricks_won[winner] = won
        base[at["tricks_won"] + winner] = won * self.trick_scale
        done = self.n_tricks
        self.s_trick_winners[done] = winner
        self.s_history[done] = trick
        self.n_tricks = done + 1
        st.n_tricks[0] = done + 1
        base[at["leader"] + self.leader] = 0
        base[at["leader"] + winner] = 1
        self.leader = winner
        st.leader[0] = winner
        self._set_to_move(winner)
        t = at["trick"]
        for x in range(n):
            base[t + x * c + trick[x]] = 0
        self.trick = [-1] * n
        self.s_trick[:] = -1
        self.n_in_trick = 0
        st.n_in_trick[0] = 0
        base[at["led_suit"] + led] = 0
        if self.after_trick is not None:
            lead = self.after_trick
        else:
            lead = FREE_LEAD if self.spades_broken else RESTRICTED_LEAD
        self.led_suit = lead
        st.led_suit[0] = lead
