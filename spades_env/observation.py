"""Seat-relative observations: one flat float32 vector per (game, seat), with named slices.

The observer is always relative seat 0; relative seat ``j`` is the seat ``j`` places to
the observer's left (clockwise), so in a partnership game the partner is relative seat 2
and the opponents are 1 and 3. Scoring sides are relative too: relative side 0 is the
observer's side, then the sides of relative seats 1, 2, ... (a partnership has sides
0 = us, 1 = them; cutthroat has one side per seat, in relative seat order).

Layout (``VERSION = 2``), with N = players, S = scoring sides, K = hand size + 1 bid
values, C = card ids of the rules (52, or 54 with ``jokers``); every entry is in [0, 1]
except ``score`` (see below). Card blocks are C wide, indexed by card id
(``spades_env.cards``: clubs 0-12, diamonds 13-25, hearts 26-38, spades 39-51, ranks
two..ace, then little and big joker). Blocks marked *(rule)* exist only under that rule.

=================  =========  ==========================================================
name               shape      meaning
=================  =========  ==========================================================
``hand``           (C,)       the observer's hand; all zeros while it has not looked
                              (blind nil still open, ``state.looked`` False)
``played``         (N, C)     cards each relative seat has played this hand (the
                              current trick included)
``trick``          (N, C)     card each relative seat played to the trick in progress
``all_hands``      (N, C)     perfect information only: every relative seat's hand
``face_up``        (N, C)     *(face_up_deal)* each relative seat's face-up cards still in
                              its hand, seen by everyone
``shown``          (C,)       *(two-player)* the card the pile shows the observer while it
                              draws (zeros for the other player and outside the draw)
``discards``       (C,)       *(two-player)* the observer's own discards (the draw and
                              the blind-nil exchange); the opponent's stay hidden
``seen``           (C,)       *(two-player)* every card the observer has seen come off
                              the pile or out of the discards
``led_suit``       (4,)       suit led to the trick in progress (zeros before the lead)
``leader``         (N,)       relative seat that leads the trick in progress (play phase)
``bid``            (N, K)     one-hot bid of each relative seat (zeros before it bids)
``has_bid``        (N,)       the relative seat has bid (blind nil counts)
``nil``            (N,)       the relative seat bid nil (blind or not)
``blind_nil``      (N,)       the relative seat declared blind nil
``voids``          (N, 4)     the relative seat has shown out of the suit this hand
``spades_broken``  (1,)       a spade has been played this hand
``bemo``           (S, 3)     *(bemo)* one-hot Bemo of each relative side: none, little,
                              big (zeros while undecided)
``phase``          (7,)       one-hot over ``state.PHASE_NAMES``: blind, bid, play, over,
                              draw, exchange, bemo
``to_move``        (N,)       one-hot relative seat to move (zeros when the match is over)
``dealer``         (N,)       one-hot relative seat of the dealer
``tricks_won``     (N,)       tricks taken this hand / hand size
``score``          (S,)       match score of each relative side / target score, clipped
                              to [-SCORE_CLIP, SCORE_CLIP]
``bags``           (S,)       accumulated bags of each relative side / bag limit
``target``         (1,)       target score / 1000
=================  =========  ==========================================================

``ObservationEncoder.slices`` maps each name to its slice of the flat vector and
``view(obs, name)`` reshapes a block to the shape above (with any leading batch dims).

Hearts rules get their own layout (``spades_env.hearts_observation``): this one is Spades'.

Version history:

* 1: initial layout.
* 2: card blocks C wide (jokers); phase over all 7 phases; the variant blocks
  ``face_up``, ``shown``, ``discards``, ``seen`` and ``bemo``.
"""

from __future__ import annotations

import numpy as np

from spades_env.bitrows import BitRows
from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import DRAW, N_SPADES_PHASES, OVER, PLAY, GameState

VERSION = 2
#: Scores are divided by the target score and clipped to this magnitude.
SCORE_CLIP = 4.0


def lay_out(blocks: list[tuple[str, tuple[int, ...]]]) -> tuple[dict[str, tuple[int, ...]], dict[str, slice], int]:
    """Shapes, consecutive slices and total size of a flat vector made of named blocks."""
    shapes: dict[str, tuple[int, ...]] = dict(blocks)
    slices: dict[str, slice] = {}
    at = 0
    for name, shape in blocks:
        size = int(np.prod(shape))
        slices[name] = slice(at, at + size)
        at += size
    return shapes, slices, at


class ObservationEncoder:
    """Encodes what a seat can see of a batched ``GameState`` as flat float32 vectors.

    For Hearts rules the constructor returns a ``HeartsObservationEncoder`` (its own layout,
    ``spades_env.hearts_observation``); this layout is Spades'.
    """

    VERSION = VERSION

    def __new__(cls, engine: SpadesEngine | None = None, *args, **kwargs) -> ObservationEncoder:
        # ``engine`` is None when pickle rebuilds an encoder: it keeps its class.
        if cls is ObservationEncoder and engine is not None and engine.rules.hearts:
            from spades_env.hearts_observation import HeartsObservationEncoder

            return super().__new__(HeartsObservationEncoder)
        return super().__new__(cls)

    def __init__(self, engine: SpadesEngine, perfect_information: bool = False) -> None:
        self.engine = engine
        self.rules = engine.rules
        self.perfect_information = bool(perfect_information)
        n, s = engine.n_players, engine.n_sides
        self.n_players, self.n_sides = n, s
        self.n_bid_values = engine.layout.max_bid + 1
        self.n_cards = c = engine.layout.n_card_ids
        r = self.rules
        # The card blocks come first, in the order of the masks ``encode`` unpacks.
        blocks: list[tuple[str, tuple[int, ...]]] = [("hand", (c,)), ("played", (n, c)), ("trick", (n, c))]
        if self.perfect_information:
            blocks.append(("all_hands", (n, c)))
        if r.face_up_deal:
            blocks.append(("face_up", (n, c)))
        if r.two_player:
            blocks += [("shown", (c,)), ("discards", (c,)), ("seen", (c,))]
        blocks += [
            ("led_suit", (4,)),
            ("leader", (n,)),
            ("bid", (n, self.n_bid_values)),
            ("has_bid", (n,)),
            ("nil", (n,)),
            ("blind_nil", (n,)),
            ("voids", (n, 4)),
            ("spades_broken", (1,)),
            *([("bemo", (s, 3))] if r.bemo else []),
            ("phase", (N_SPADES_PHASES,)),
            ("to_move", (n,)),
            ("dealer", (n,)),
            # Real-valued blocks last (the encoder writes them after the 0/1 blocks).
            ("tricks_won", (n,)),
            ("score", (s,)),
            ("bags", (s,)),
            ("target", (1,)),
        ]
        self.shapes, self.slices, self.size = lay_out(blocks)
        # Bounds of every entry, for observation spaces.
        self.low = np.zeros(self.size, np.float32)
        self.high = np.ones(self.size, np.float32)
        self.low[self.slices["score"]] = -SCORE_CLIP
        self.high[self.slices["score"]] = SCORE_CLIP
        self.high[self.slices["target"]] = max(1.0, self.rules.target_score / 1000)
        # ``_encode_one`` unpacks the card masks in one go: hand, played (N), trick (N)[, all_hands
        # (N)][, face_up (N)][, shown, discards, seen], then the void bits as one more uint64;
        # the batched ``encode`` places them (and every other 0/1 entry) with ``BitRows``.
        self._cards_end = self.slices["led_suit"].start
        self._side_of_seat = engine.side_of_seat
        self._bit = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
        self._bit[63] = 0  # trick entries of -1 index the last element: no card
        self._score_scale = np.float32(1.0 / self.rules.target_score)
        self._bag_scale = np.float32(1.0 / self.rules.bag_limit)
        self._target = np.float32(self.rules.target_score / 1000)
        self._trick_scale = np.float32(1.0 / engine.hand_size)
        self._offset = {name: sl.start for name, sl in self.slices.items()}
        # The real-valued blocks come last, contiguous, so one slice holds them all.
        self._real_start = self._offset["tricks_won"]
        self._plan_seat_tables()
        self._plan_sources()

    # ------------------------------------------------------------------ layout
    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of observations (..., size), reshaped to (..., *shape)."""
        return obs[..., self.slices[name]].reshape(obs.shape[:-1] + self.shapes[name])

    def describe(self) -> str:
        """The layout as text: one line per block (name, offset, shape)."""
        rows = (f"{name:14s} [{s.start:4d}:{s.stop:4d}) {self.shapes[name]}" for name, s in self.slices.items())
        return "\n".join(rows)

    # ------------------------------------------------------------------ encode
    def _plan_sources(self) -> None:
        """The bit sources of the 0/1 part of the row (``BitRows``), in layout order."""
        n, s, c, k, o = self.n_players, self.n_sides, self.n_cards, self.n_bid_values, self._offset
        r = self.rules
        sources: list[tuple[str, int, int]] = [("hand", 0, c)]
        sources += [(f"played{j}", o["played"] + j * c, c) for j in range(n)]
        sources += [(f"trick{j}", o["trick"] + j * c, c) for j in range(n)]
        if self.perfect_information:
            sources += [(f"all_hands{j}", o["all_hands"] + j * c, c) for j in range(n)]
        if r.face_up_deal:
            sources += [(f"face_up{j}", o["face_up"] + j * c, c) for j in range(n)]
        if r.two_player:
            sources += [(name, o[name], c) for name in ("shown", "discards", "seen")]
        # led_suit then leader; the per-seat bids; has_bid, nil, blind_nil, voids, spades_broken;
        # [bemo]; phase, to_move, dealer: each run of blocks is contiguous in the layout.
        sources.append(("led_leader", o["led_suit"], 4 + n))
        sources += [(f"bid{j}", o["bid"] + j * k, k) for j in range(n)]
        sources.append(("flags", o["has_bid"], 7 * n + 1))
        if r.bemo:
            sources += [(f"bemo{j}", o["bemo"] + 3 * j, 3) for j in range(s)]
        sources.append(("phase_block", o["phase"], N_SPADES_PHASES + 2 * n))
        assert o["voids"] == o["has_bid"] + 3 * n and o["spades_broken"] == o["voids"] + 4 * n
        assert o["leader"] == o["led_suit"] + 4 and o["to_move"] == o["phase"] + N_SPADES_PHASES
        self._row = {name: i for i, (name, _, _) in enumerate(sources)}
        self._bitrows = BitRows([p for _, p, _ in sources], [w for _, _, w in sources], self._real_start, self.size)
        one = np.uint64(1)
        seat_pairs = np.arange(n * n)
        rel = self._rel_of_pair
        # led_suit (FREE/RESTRICTED/LOWEST_CLUB lead: nothing) + leader while playing, by
        # [(led + 3) * 2 + playing][leader * n + seat].
        led = np.array([0, 0, 0, 1, 2, 4, 8], np.uint64)
        leader = np.left_shift(one, (4 + rel).astype(np.uint64))
        self._led_leader = led[:, None, None] | (np.array([0, 1], np.uint64)[:, None] * leader[None, :])[None]
        self._led_leader = np.ascontiguousarray(self._led_leader.reshape(-1))
        self._n2 = n * n
        # bid one-hot of value b at [b]; the last entry (b = -1: no bid) is 0.
        self._bid_bits = np.r_[np.left_shift(one, np.arange(k, dtype=np.uint64)), np.uint64(0)]
        # has_bid, nil, blind_nil bits of relative seat j: [(j * (k + 1) + bid + 1) * 2 + blind].
        j, b, blind = np.meshgrid(np.arange(n), np.arange(-1, k), np.arange(2), indexing="ij")
        flags = (b >= 0).astype(np.uint64) << j.astype(np.uint64)
        flags |= (b == 0).astype(np.uint64) << (n + j).astype(np.uint64)
        flags |= blind.astype(np.uint64) << (2 * n + j).astype(np.uint64)
        self._flag_bits = flags.reshape(-1)
        self._flag_base = (np.arange(n, dtype=np.int64) * (k + 1) * 2 + 2)[:, None]
        self._flag_width = np.uint64(3 * n)
        self._broken_at = np.uint64(7 * n)
        # phase one-hot, to_move (not when over), dealer: [(phase * n + to_move) * n + seat] and [dealer * n + seat].
        ph, x = np.meshgrid(np.arange(8), seat_pairs, indexing="ij")
        block = np.left_shift(one, ph.astype(np.uint64)) * (ph < N_SPADES_PHASES)
        block |= np.left_shift(one, (N_SPADES_PHASES + rel[x]).astype(np.uint64)) * (ph != OVER)
        self._phase_to_move = block.reshape(-1)
        self._dealer_bits = np.left_shift(one, (N_SPADES_PHASES + n + rel).astype(np.uint64))
        self._bemo_bits = np.array([1, 2, 4, 0], np.uint64)  # [bemo], -1 (undecided) last
        # tricks_won / hand size for every possible count, computed as a batch of counts would be.
        self._trick_values = np.empty(self.engine.hand_size + 1, np.float32)
        np.multiply(np.arange(self.engine.hand_size + 1, dtype=np.int64), self._trick_scale, out=self._trick_values)
        self._batch: dict[int, tuple[np.ndarray, np.ndarray]] = {}

    def _plan_seat_tables(self) -> None:
        """The seat tables both batched encoders (Spades and Hearts) use to look from a seat."""
        n = self.n_players
        seat_pairs = np.arange(n * n)
        self._rel_of_pair = (seat_pairs // n - seat_pairs % n) % n  # [x * n + seat]: x seen from seat
        # [j, seat]: absolute seat of relative seat j; [:S] its side.
        self._rot_t = np.ascontiguousarray((np.arange(n)[None, :] + np.arange(n)[:, None]) % n)
        self._side_rot_t = np.ascontiguousarray(self.engine.side_of_seat[self._rot_t[: self.n_sides]])
        # The void bits (4 per seat) rotate by 4 * seat within a lane of 4 N bits.
        self._void_lane = np.uint64((1 << (4 * n)) - 1)
        self._void_shift = (4 * np.arange(n)).astype(np.uint64)
        self._void_back = (4 * n - 4 * np.arange(n)).astype(np.uint64)

    def _relative_cells(self, games: np.ndarray, seats: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(N, G) flat state index of each relative seat's entry, (S, G) of each relative side's."""
        at = np.take(self._rot_t, seats, axis=1)
        at += games * self.n_players
        side_at = np.take(self._side_rot_t, seats, axis=1)
        side_at += games * self.n_sides
        return at, side_at

    def _relative_voids(self, state: GameState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
        """(G,) uint64: the void bits (bit 4 j + suit for relative seat j), the observer's first."""
        voids = state.voids[games].view(np.uint64)
        rot = voids >> np.take(self._void_shift, seats)
        voids <<= np.take(self._void_back, seats)
        rot |= voids
        rot &= self._void_lane
        return rot

    def _batch_buffers(self, g: int) -> tuple[np.ndarray, np.ndarray]:
        """Reusable (sources, real-valued tail) buffers of g rows."""
        bufs = self._batch.get(g)
        if bufs is None:
            if len(self._batch) >= 8:
                self._batch.clear()
            bufs = self._batch[g] = (
                np.empty((self._bitrows.n_sources, g), np.uint64),
                np.empty((self.size - self._real_start, g), np.float32),
            )
        return bufs

    def encode(
        self,
        state: GameState,
        games: np.ndarray,
        seats: np.ndarray,
        out: np.ndarray | None = None,
    ) -> np.ndarray:
        """Observations of ``seats`` (G,) int64 in ``games`` (G,) int64 of ``state``: (G, size) float32.

        ``out`` (G, size) float32, if given, is filled and returned (every entry is written).
        """
        games = np.asarray(games, dtype=np.int64)
        seats = np.asarray(seats, dtype=np.int64)
        g, d = len(games), self.size
        if out is None:
            out = np.empty((g, d), np.float32)
        if g == 1:  # one game (the AEC and Gymnasium envs): plain Python beats many tiny array ops
            self._encode_one(state, int(games[0]), int(seats[0]), out[0])
            return out
        if g == 0:
            return out
        if not out.flags.c_contiguous:
            out[:] = self.encode(state, games, seats)
            return out
        n, s, row = self.n_players, self.n_sides, self._row
        src, real = self._batch_buffers(g)
        at, side_at = self._relative_cells(games, seats)

        # Card masks: hand (once looked), played (dealt and no longer held), trick, ...
        hands = np.take(state.hands.reshape(-1), at)
        np.multiply(hands[0], np.take(state.looked.reshape(-1), at[0]), out=src[0])
        played = src[row["played0"] : row["played0"] + n]
        np.take(state.deal.reshape(-1), at, out=played, mode="wrap")
        played &= ~hands
        trick = np.take(state.trick.reshape(-1), at)
        np.take(self._bit, trick, out=src[row["trick0"] : row["trick0"] + n], mode="wrap")  # -1: no card
        if self.perfect_information:
            src[row["all_hands0"] : row["all_hands0"] + n] = hands
        if self.rules.face_up_deal:
            face_up = src[row["face_up0"] : row["face_up0"] + n]
            np.take(state.face_up.reshape(-1), at, out=face_up, mode="wrap")
            face_up &= hands  # visible until played
        phase = state.phase[games]
        if self.rules.two_player:
            # Only the drawer sees the card the pile shows; discards and seen cards are private.
            drawer = (phase == DRAW) & (state.to_move[games] == seats)
            src[row["shown"]] = np.where(drawer, self._bit[state.shown[games]], np.uint64(0))
            own = at[0]
            src[row["discards"]] = state.discards.reshape(-1)[own] | state.exchanged_out.reshape(-1)[own]
            src[row["seen"]] = state.seen.reshape(-1)[own]

        # One-hots and flags, each a small table lookup.
        leader = state.leader[games] * n
        leader += seats
        leader += (state.led_suit[games] * 2 + (phase == PLAY) + 6) * self._n2
        np.take(self._led_leader, leader, out=src[row["led_leader"]], mode="wrap")
        bids = np.take(state.bids.reshape(-1), at)
        np.take(self._bid_bits, bids, out=src[row["bid0"] : row["bid0"] + n], mode="wrap")
        bids *= 2
        bids += self._flag_base
        bids += np.take(state.blind.reshape(-1), at)
        flags = np.bitwise_or.reduce(np.take(self._flag_bits, bids), axis=0)
        flags |= self._relative_voids(state, games, seats) << self._flag_width
        flags |= state.spades_broken[games].astype(np.uint64) << self._broken_at
        src[row["flags"]] = flags
        if self.rules.bemo:
            bemo = np.take(state.bemo.reshape(-1), side_at)
            np.take(self._bemo_bits, bemo, out=src[row["bemo0"] : row["bemo0"] + s], mode="wrap")
        to_move = phase * n
        to_move += state.to_move[games]
        to_move *= n
        to_move += seats
        block = np.take(self._phase_to_move, to_move)
        dealer = state.dealer[games] * n
        dealer += seats
        np.bitwise_or(block, np.take(self._dealer_bits, dealer), out=src[row["phase_block"]])
        self._bitrows.expand(src, out)

        # Real-valued entries (tricks, scores, bags, target) by column, then into their place.
        np.take(self._trick_values, np.take(state.tricks_won.reshape(-1), at), out=real[:n], mode="clip")
        score = real[n : n + s]
        np.multiply(np.take(state.scores.reshape(-1), side_at), self._score_scale, out=score)
        np.clip(score, -SCORE_CLIP, SCORE_CLIP, out=score)
        np.multiply(np.take(state.bags.reshape(-1), side_at), self._bag_scale, out=real[n + s : n + 2 * s])
        real[-1] = self._target
        out[:, self._real_start :] = real.T
        return out

    def _encode_one(self, state: GameState, g: int, seat: int, out: np.ndarray) -> None:
        """``encode`` of one (game, seat) into the (size,) row ``out``; tests pin it to the batched path."""
        n, s, o = self.n_players, self.n_sides, self._offset
        rel = [(seat + j) % n for j in range(n)]
        hands, deal, trick = state.hands[g].tolist(), state.deal[g].tolist(), state.trick[g].tolist()
        masks = [hands[seat] if state.looked[g, seat] else 0]
        masks += [deal[a] & ~hands[a] for a in rel]
        masks += [1 << trick[a] if trick[a] >= 0 else 0 for a in rel]
        if self.perfect_information:
            masks += [hands[a] for a in rel]
        if self.rules.face_up_deal:
            face_up = state.face_up[g].tolist()
            masks += [face_up[a] & hands[a] for a in rel]
        if self.rules.two_player:
            drawer = int(state.phase[g]) == DRAW and int(state.to_move[g]) == seat
            masks.append(1 << int(state.shown[g]) if drawer else 0)
            masks.append(int(state.discards[g, seat]) | int(state.exchanged_out[g, seat]))
            masks.append(int(state.seen[g, seat]))
        voids, shift = int(state.voids[g]), 4 * seat
        masks.append(((voids >> shift) | (voids << (4 * n - shift))) & int(self._void_lane))
        card_bits = np.unpackbits(np.array(masks, np.uint64).view(np.uint8), bitorder="little").reshape(-1, 64)
        out[: self._cards_end] = card_bits[:-1, : self.n_cards].reshape(-1)
        out[self._cards_end : self._real_start] = 0
        out[self.slices["voids"]] = card_bits[-1, : 4 * n]
        phase, led = int(state.phase[g]), int(state.led_suit[g])
        ones = [o["phase"] + phase, o["dealer"] + (int(state.dealer[g]) - seat) % n]
        if led >= 0:
            ones.append(o["led_suit"] + led)
        if phase == PLAY:
            ones.append(o["leader"] + (int(state.leader[g]) - seat) % n)
        if phase != OVER:
            ones.append(o["to_move"] + (int(state.to_move[g]) - seat) % n)
        if state.spades_broken[g]:
            ones.append(o["spades_broken"])
        bids, blind = state.bids[g].tolist(), state.blind[g].tolist()
        k = self.n_bid_values
        for j, a in enumerate(rel):
            if bids[a] >= 0:
                ones += [o["bid"] + j * k + bids[a], o["has_bid"] + j]
                if bids[a] == 0:
                    ones.append(o["nil"] + j)
            if blind[a]:
                ones.append(o["blind_nil"] + j)
        if self.rules.bemo:
            bemo = state.bemo[g].tolist()
            for j, a in enumerate(rel[:s]):
                side = int(self._side_of_seat[a])
                if bemo[side] >= 0:
                    ones.append(o["bemo"] + 3 * j + bemo[side])
        out[ones] = 1
        tricks, scores, bags = state.tricks_won[g].tolist(), state.scores[g].tolist(), state.bags[g].tolist()
        sides = [int(self._side_of_seat[a]) for a in rel[:s]]
        score_scale, clip = float(self._score_scale), SCORE_CLIP
        out[self._real_start :] = (
            [tricks[a] * float(self._trick_scale) for a in rel]
            + [min(clip, max(-clip, scores[x] * score_scale)) for x in sides]
            + [bags[x] * float(self._bag_scale) for x in sides]
            + [float(self._target)]
        )


def encoder_for(engine: SpadesEngine, perfect_information: bool = False) -> ObservationEncoder:
    """The observation encoder of ``engine``'s game (Spades' layout, or Hearts')."""
    return ObservationEncoder(engine, perfect_information=perfect_information)
