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

from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import DRAW, N_SPADES_PHASES, OVER, PLAY, GameState

VERSION = 2
#: Scores are divided by the target score and clipped to this magnitude.
SCORE_CLIP = 4.0
#: Rows assembled at a time (keeps the float32 output of a chunk in cache).
_CHUNK = 512


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
        # Card masks are unpacked in one go: hand, played (N), trick (N)[, all_hands (N)]
        # [, face_up (N)][, shown, discards, seen], then the void bits as one more uint64.
        self._cards_end = self.slices["led_suit"].start
        self._n_masks = self._cards_end // c + 1
        self._void_width = np.uint64(4 * n)
        self._void_lane = np.uint64((1 << (4 * n)) - 1)
        self._rel = np.arange(n, dtype=np.int64)
        self._bid_values = np.arange(self.n_bid_values, dtype=np.int64)
        self._suits = np.arange(4, dtype=np.int64)
        self._side_of_seat = engine.side_of_seat
        self._bit = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
        self._bit[63] = 0  # trick entries of -1 index the last element: no card
        self._score_scale = np.float32(1.0 / self.rules.target_score)
        self._bag_scale = np.float32(1.0 / self.rules.bag_limit)
        self._target = np.float32(self.rules.target_score / 1000)
        self._trick_scale = np.float32(1.0 / engine.hand_size)
        self._offset = {name: sl.start for name, sl in self.slices.items()}
        self._bid_at = self._offset["bid"] + self._rel * self.n_bid_values  # (N,) start of each seat's one-hot
        self._buffers: dict[int, np.ndarray] = {}
        # The real-valued blocks come last, contiguous, so one slice holds them all.
        self._real_start = self._offset["tricks_won"]

    # ------------------------------------------------------------------ layout
    def view(self, obs: np.ndarray, name: str) -> np.ndarray:
        """The block ``name`` of observations (..., size), reshaped to (..., *shape)."""
        return obs[..., self.slices[name]].reshape(obs.shape[:-1] + self.shapes[name])

    def describe(self) -> str:
        """The layout as text: one line per block (name, offset, shape)."""
        rows = (f"{name:14s} [{s.start:4d}:{s.stop:4d}) {self.shapes[name]}" for name, s in self.slices.items())
        return "\n".join(rows)

    # ------------------------------------------------------------------ encode
    def _staging(self, g: int) -> np.ndarray:
        """A reusable flat uint8 buffer of g rows plus one spare byte for discarded writes."""
        buf = self._buffers.get(g)
        if buf is None:
            buf = self._buffers[g] = np.zeros(g * self.size + 1, np.uint8)
        return buf

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
        n, s, o = self.n_players, self.n_sides, self._offset
        # The 0/1 entries are gathered in a uint8 buffer (one-hots scattered through flat
        # indices; invalid ones land on the spare last byte), then cast once into ``out``.
        flat_u8 = self._staging(g)
        flat_u8[:-1] = 0
        u8 = flat_u8[:-1].reshape(g, d)
        b8 = u8.view(bool)
        spare = g * d
        row = np.arange(g, dtype=np.int64) * d
        rel = seats[:, None] + self._rel
        rel %= n  # (G, N) absolute seat of each relative seat
        at = games[:, None] * n + rel

        hands = state.hands.reshape(-1)[at]
        masks = np.empty((g, self._n_masks), np.uint64)
        masks[:, 0] = np.where(state.looked.reshape(-1)[at[:, 0]], hands[:, 0], np.uint64(0))
        masks[:, 1 : 1 + n] = state.deal.reshape(-1)[at] & ~hands
        masks[:, 1 + n : 1 + 2 * n] = self._bit[state.trick.reshape(-1)[at]]
        k = 1 + 2 * n
        if self.perfect_information:
            masks[:, k : k + n] = hands
            k += n
        if self.rules.face_up_deal:
            masks[:, k : k + n] = state.face_up.reshape(-1)[at] & hands  # visible until played
            k += n
        if self.rules.two_player:
            # Only the drawer sees the card the pile shows; discards and seen cards are private.
            drawer = (state.phase[games] == DRAW) & (state.to_move[games] == seats)
            masks[:, k] = np.where(drawer, self._bit[state.shown[games]], np.uint64(0))
            own = at[:, 0]
            masks[:, k + 1] = state.discards.reshape(-1)[own] | state.exchanged_out.reshape(-1)[own]
            masks[:, k + 2] = state.seen.reshape(-1)[own]
        # Void bits (bit 4 * seat + suit) rotated so that the observer's seat comes first.
        voids = state.voids[games].astype(np.uint64)
        shift = (4 * seats).astype(np.uint64)
        masks[:, -1] = ((voids >> shift) | (voids << (self._void_width - shift))) & self._void_lane
        # Each uint64 is 8 little-endian bytes; unpack and keep the card bits of each.
        c = self.n_cards
        card_bits = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(g, self._n_masks, 64)
        u8[:, : self._cards_end].reshape(g, self._n_masks - 1, c)[:] = card_bits[:, :-1, :c]

        phase = state.phase[games]
        led = state.led_suit[games]
        flat_u8[np.where(led >= 0, row + o["led_suit"] + led, spare)] = 1
        flat_u8[np.where(phase == PLAY, row + o["leader"] + (state.leader[games] - seats) % n, spare)] = 1
        bids = state.bids.reshape(-1)[at]
        has_bid = bids >= 0
        flat_u8[np.where(has_bid, row[:, None] + self._bid_at + bids, spare)] = 1
        b8[:, self.slices["has_bid"]] = has_bid
        b8[:, self.slices["nil"]] = bids == 0
        b8[:, self.slices["blind_nil"]] = state.blind.reshape(-1)[at]
        u8[:, self.slices["voids"]] = card_bits[:, -1, : 4 * n]
        b8[:, self.slices["spades_broken"]] = state.spades_broken[games][:, None]
        flat_u8[row + o["phase"] + phase] = 1
        if self.rules.bemo:
            bemo = state.bemo.reshape(-1)[games[:, None] * s + self._side_of_seat[rel[:, :s]]]  # (G, S)
            flat_u8[np.where(bemo >= 0, row[:, None] + o["bemo"] + 3 * self._rel[:s] + bemo, spare)] = 1
        flat_u8[np.where(phase != OVER, row + o["to_move"] + (state.to_move[games] - seats) % n, spare)] = 1
        flat_u8[row + o["dealer"] + (state.dealer[games] - seats) % n] = 1

        # Real-valued entries (tricks, scores, bags, target), in a small contiguous buffer.
        real = np.empty((g, d - self._real_start), np.float32)
        np.multiply(state.tricks_won.reshape(-1)[at], self._trick_scale, out=real[:, :n])
        side_at = games[:, None] * s + self._side_of_seat[rel[:, :s]]  # (G, S) each relative side
        score = real[:, n : n + s]
        np.multiply(state.scores.reshape(-1)[side_at], self._score_scale, out=score)
        np.clip(score, -SCORE_CLIP, SCORE_CLIP, out=score)
        np.multiply(state.bags.reshape(-1)[side_at], self._bag_scale, out=real[:, n + s : n + 2 * s])
        real[:, -1] = self._target
        # Assemble in row chunks that stay in cache: cast the 0/1 part, then the real part.
        for lo in range(0, g, _CHUNK):
            hi = lo + _CHUNK
            chunk = out[lo:hi]
            np.copyto(chunk, u8[lo:hi], casting="unsafe")
            chunk[:, self._real_start :] = real[lo:hi]
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
