"""Seat-relative observations: one flat float32 vector per (game, seat), with named slices.

The observer is always relative seat 0; relative seat ``j`` is the seat ``j`` places to
the observer's left (clockwise), so in a partnership game the partner is relative seat 2
and the opponents are 1 and 3. Scoring sides are relative too: relative side 0 is the
observer's side, then the sides of relative seats 1, 2, ... (a partnership has sides
0 = us, 1 = them; cutthroat has one side per seat, in relative seat order).

Layout (``VERSION = 1``), with N = players, S = scoring sides, K = hand size + 1 bid
values; every entry is in [0, 1] except ``score`` (see below). Card blocks are 52 wide,
indexed by card id (``spades_env.cards``: clubs 0-12, diamonds 13-25, hearts 26-38,
spades 39-51, ranks two..ace).

=================  =========  ==========================================================
name               shape      meaning
=================  =========  ==========================================================
``hand``           (52,)      the observer's hand; all zeros while it has not looked
                              (blind nil still open, ``state.looked`` False)
``played``         (N, 52)    cards each relative seat has played this hand (the
                              current trick included)
``trick``          (N, 52)    card each relative seat played to the trick in progress
``all_hands``      (N, 52)    perfect information only: every relative seat's hand
``led_suit``       (4,)       suit led to the trick in progress (zeros before the lead)
``leader``         (N,)       relative seat that leads the trick in progress (play phase)
``bid``            (N, K)     one-hot bid of each relative seat (zeros before it bids)
``has_bid``        (N,)       the relative seat has bid (blind nil counts)
``nil``            (N,)       the relative seat bid nil (blind or not)
``blind_nil``      (N,)       the relative seat declared blind nil
``voids``          (N, 4)     the relative seat has shown out of the suit this hand
``spades_broken``  (1,)       a spade has been played this hand
``phase``          (4,)       one-hot: blind-nil decision, bid, play, match over
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

Version history:

* 1: initial layout.
"""

from __future__ import annotations

import numpy as np

from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import BID, BLIND, OVER, PLAY, GameState

VERSION = 1
#: Scores are divided by the target score and clipped to this magnitude.
SCORE_CLIP = 4.0
N_CARDS = 52
#: Rows assembled at a time (keeps the float32 output of a chunk in cache).
_CHUNK = 512


class ObservationEncoder:
    """Encodes what a seat can see of a batched ``GameState`` as flat float32 vectors."""

    VERSION = VERSION

    def __init__(self, engine: SpadesEngine, perfect_information: bool = False) -> None:
        self.engine = engine
        self.rules = engine.rules
        self.perfect_information = bool(perfect_information)
        n, s = engine.n_players, engine.n_sides
        self.n_players, self.n_sides = n, s
        self.n_bid_values = engine.layout.max_bid + 1
        blocks: list[tuple[str, tuple[int, ...]]] = [
            ("hand", (N_CARDS,)),
            ("played", (n, N_CARDS)),
            ("trick", (n, N_CARDS)),
        ]
        if self.perfect_information:
            blocks.append(("all_hands", (n, N_CARDS)))
        blocks += [
            ("led_suit", (4,)),
            ("leader", (n,)),
            ("bid", (n, self.n_bid_values)),
            ("has_bid", (n,)),
            ("nil", (n,)),
            ("blind_nil", (n,)),
            ("voids", (n, 4)),
            ("spades_broken", (1,)),
            ("phase", (4,)),
            ("to_move", (n,)),
            ("dealer", (n,)),
            # Real-valued blocks last (the encoder writes them after the 0/1 blocks).
            ("tricks_won", (n,)),
            ("score", (s,)),
            ("bags", (s,)),
            ("target", (1,)),
        ]
        self.shapes: dict[str, tuple[int, ...]] = dict(blocks)
        self.slices: dict[str, slice] = {}
        at = 0
        for name, shape in blocks:
            size = int(np.prod(shape))
            self.slices[name] = slice(at, at + size)
            at += size
        self.size = at
        # Bounds of every entry, for observation spaces.
        self.low = np.zeros(self.size, np.float32)
        self.high = np.ones(self.size, np.float32)
        self.low[self.slices["score"]] = -SCORE_CLIP
        self.high[self.slices["score"]] = SCORE_CLIP
        self.high[self.slices["target"]] = max(1.0, self.rules.target_score / 1000)
        # Card masks are unpacked in one go: hand, played (N), trick (N)[, all_hands (N)],
        # then the void bits as one more uint64.
        self._n_masks = 2 + n * (3 if self.perfect_information else 2)
        self._cards_end = (self._n_masks - 1) * N_CARDS
        self._void_width = np.uint64(4 * n)
        self._void_lane = np.uint64((1 << (4 * n)) - 1)
        self._rel = np.arange(n, dtype=np.int64)
        self._bid_values = np.arange(self.n_bid_values, dtype=np.int64)
        self._suits = np.arange(4, dtype=np.int64)
        self._phases = np.arange(4, dtype=np.int64)
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
        if self.perfect_information:
            masks[:, 1 + 2 * n : -1] = hands
        # Void bits (bit 4 * seat + suit) rotated so that the observer's seat comes first.
        voids = state.voids[games].astype(np.uint64)
        shift = (4 * seats).astype(np.uint64)
        masks[:, -1] = ((voids >> shift) | (voids << (self._void_width - shift))) & self._void_lane
        # Each uint64 is 8 little-endian bytes; unpack and keep the 52 card bits of each.
        card_bits = np.unpackbits(masks.view(np.uint8), bitorder="little").reshape(g, self._n_masks, 64)
        u8[:, : self._cards_end].reshape(g, self._n_masks - 1, N_CARDS)[:] = card_bits[:, :-1, :N_CARDS]

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
        voids, shift = int(state.voids[g]), 4 * seat
        masks.append(((voids >> shift) | (voids << (4 * n - shift))) & int(self._void_lane))
        card_bits = np.unpackbits(np.array(masks, np.uint64).view(np.uint8), bitorder="little").reshape(-1, 64)
        out[: self._cards_end] = card_bits[:-1, :N_CARDS].reshape(-1)
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


def legal_action_mask(engine: SpadesEngine, state: GameState, out: np.ndarray | None = None) -> np.ndarray:
    """(B, n_actions) bool legal actions of the player to move; same as ``engine.legal_action_mask``.

    A faster expansion of the engine's legal cards (``np.unpackbits`` instead of 52
    shifts); tests pin it to the engine's own mask. ``out`` (B, n_actions) bool is reused.
    """
    lay = engine.layout
    if lay.n_card_ids != N_CARDS or lay.n_actions != lay.look + 1:
        return engine.legal_action_mask(state)  # an action layout this expansion does not know
    b = state.batch_size
    if out is None:
        out = np.empty((b, lay.n_actions), bool)
    if b == 1:
        return _legal_action_mask_one(engine, state, out)
    phase = state.phase
    legal = np.where(phase == PLAY, engine.legal_cards(state), np.uint64(0))
    card_bits = np.unpackbits(legal.view(np.uint8), bitorder="little").reshape(b, 64)
    out[:, :N_CARDS] = card_bits[:, :N_CARDS].view(bool)
    min_bid = engine.min_bid(state)
    bids = out[:, lay.bid_offset : lay.blind_nil]
    np.greater_equal(np.arange(lay.max_bid + 1), min_bid[:, None], out=bids)
    bids &= (phase == BID)[:, None]
    blind = phase == BLIND
    out[:, lay.blind_nil] = blind & (min_bid == 0)  # blind nil is a bid of 0
    out[:, lay.look] = blind
    return out


def _legal_action_mask_one(engine: SpadesEngine, state: GameState, out: np.ndarray) -> np.ndarray:
    """``legal_action_mask`` of a one-game state, with Python scalars instead of array ops."""
    lay = engine.layout
    out[:] = False
    phase = int(state.phase[0])
    if phase == PLAY:
        legal = engine.legal_cards(state)
        out[0, :N_CARDS] = np.unpackbits(legal.view(np.uint8), bitorder="little")[:N_CARDS]
    elif phase == BID:
        out[0, lay.bid_offset + int(engine.min_bid(state)[0]) : lay.blind_nil] = True
    elif phase == BLIND:
        out[0, lay.look] = True
        out[0, lay.blind_nil] = int(engine.min_bid(state)[0]) == 0
    return out
