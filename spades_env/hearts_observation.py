"""Seat-relative Hearts observations [RULES 7]: the Spades encoder's conventions, Hearts' blocks.

``ObservationEncoder(engine)`` returns a ``HeartsObservationEncoder`` when the rules are
Hearts, so every env and bot gets the right one; the Spades layout (``observation.VERSION``)
is untouched. The observer is relative seat 0 and relative seat ``j`` sits ``j`` places to
its left; relative sides as in ``spades_env.observation``.

Layout (``HEARTS_VERSION = 1``), C = 52 card ids, N = 4 players, S = sides (4, or 2 in
``partnership``); every entry in [0, 1] except ``points`` and ``score``:

==================  =========  =========================================================
name                shape      meaning
==================  =========  =========================================================
``hand``            (C,)       the observer's hand
``played``          (N, C)     cards each relative seat has played this hand
``trick``           (N, C)     card each relative seat played to the trick in progress
``all_hands``       (N, C)     perfect information only: every relative seat's hand
``passed``          (C,)       cards the observer chose to pass this hand (it knows where
                               they went: see ``pass_direction``)
``received``        (C,)       cards passed to the observer (zeros until every seat has
                               chosen: nobody sees what it gets before it has passed)
``led_suit``        (4,)       suit led to the trick in progress (zeros before the lead)
``leader``          (N,)       relative seat that leads the trick in progress (play phase)
``voids``           (N, 4)     the relative seat has shown out of the suit this hand
``hearts_broken``   (1,)       a heart has been played this hand
``pass_direction``  (4,)       one-hot pass of this hand: left, right, across, none
``phase``           (3,)       one-hot: pass, play, over
``to_move``         (N,)       one-hot relative seat to move (zeros when the match is over)
``dealer``          (N,)       one-hot relative seat of the dealer
``points``          (N,)       points each relative seat has taken this hand / 26 (hearts,
                               queen of spades; the jack of diamonds makes it negative)
``tricks_won``      (N,)       tricks taken this hand / 13
``score``           (S,)       match score of each relative side / target score, clipped
                               to [-SCORE_CLIP, SCORE_CLIP] (lower is better)
``target``          (1,)       target score / 1000
==================  =========  =========================================================

Version history:

* 1: initial Hearts layout.
"""

from __future__ import annotations

import numpy as np

from spades_env.bitrows import BitRows
from spades_env.engine.core import SpadesEngine
from spades_env.engine.hearts_scoring import JACK_POINTS, MOON_POINTS
from spades_env.engine.state import OVER, PASS, PLAY, GameState
from spades_env.observation import SCORE_CLIP, ObservationEncoder, lay_out

HEARTS_VERSION = 1
#: Phase block order: the engine phases a Hearts game goes through.
HEARTS_PHASES = (PASS, PLAY, OVER)


class HeartsObservationEncoder(ObservationEncoder):
    """Encodes what a seat can see of a batched Hearts ``GameState`` as flat float32 vectors."""

    VERSION = HEARTS_VERSION

    def __init__(self, engine: SpadesEngine, perfect_information: bool = False) -> None:
        if not engine.rules.hearts:
            raise ValueError(f"HeartsObservationEncoder needs Hearts rules, got game {engine.rules.game!r}")
        self.engine = engine
        self.rules = engine.rules
        self.perfect_information = bool(perfect_information)
        n, s = engine.n_players, engine.n_sides
        self.n_players, self.n_sides = n, s
        self.n_cards = c = engine.layout.n_card_ids
        blocks: list[tuple[str, tuple[int, ...]]] = [("hand", (c,)), ("played", (n, c)), ("trick", (n, c))]
        if self.perfect_information:
            blocks.append(("all_hands", (n, c)))
        blocks += [
            ("passed", (c,)),
            ("received", (c,)),
            ("led_suit", (4,)),
            ("leader", (n,)),
            ("voids", (n, 4)),
            ("hearts_broken", (1,)),
            ("pass_direction", (4,)),
            ("phase", (len(HEARTS_PHASES),)),
            ("to_move", (n,)),
            ("dealer", (n,)),
            ("points", (n,)),
            ("tricks_won", (n,)),
            ("score", (s,)),
            ("target", (1,)),
        ]
        self.shapes, self.slices, self.size = lay_out(blocks)
        self.low = np.zeros(self.size, np.float32)
        self.high = np.ones(self.size, np.float32)
        self.low[self.slices["points"]] = JACK_POINTS / MOON_POINTS
        self.low[self.slices["score"]] = -SCORE_CLIP
        self.high[self.slices["score"]] = SCORE_CLIP
        self.high[self.slices["target"]] = max(1.0, self.rules.target_score / 1000)
        self._cards_end = self.slices["led_suit"].start
        self._phase_index = np.full(8, 0, np.int64)
        for k, p in enumerate(HEARTS_PHASES):
            self._phase_index[p] = k
        self._bit = np.left_shift(np.uint64(1), np.arange(64, dtype=np.uint64))
        self._bit[63] = 0  # trick entries of -1 index the last element: no card
        self._plan_hearts_sources()

    def _plan_hearts_sources(self) -> None:
        """The batched ``encode``'s bit sources (``BitRows``): the card planes, then every 0/1
        block from ``led_suit`` to ``dealer`` as one source (they are contiguous, 12 + 7 N bits)."""
        n, c, o = self.n_players, self.n_cards, {name: sl.start for name, sl in self.slices.items()}
        sources = [("hand", 0, c)]
        sources += [(f"played{j}", o["played"] + j * c, c) for j in range(n)]
        sources += [(f"trick{j}", o["trick"] + j * c, c) for j in range(n)]
        if self.perfect_information:
            sources += [(f"all_hands{j}", o["all_hands"] + j * c, c) for j in range(n)]
        sources += [("passed", o["passed"], c), ("received", o["received"], c)]
        flags_end = self.slices["dealer"].stop
        sources.append(("flags", o["led_suit"], flags_end - o["led_suit"]))
        assert flags_end == o["points"] and flags_end - o["led_suit"] <= 64
        self._row = {name: i for i, (name, _, _) in enumerate(sources)}
        self._real_start = flags_end
        self._bitrows = BitRows([p for _, p, _ in sources], [w for _, _, w in sources], flags_end, self.size)
        one = np.uint64(1)
        # Bit offsets inside the flags source, and per-(seat, relative seat) rotation tables.
        at = {name: o[name] - o["led_suit"] for name in ("led_suit", "leader", "voids", "hearts_broken")}
        at |= {name: o[name] - o["led_suit"] for name in ("pass_direction", "phase", "to_move", "dealer")}
        self._flag_at = {name: np.uint64(v) for name, v in at.items()}
        self._plan_seat_tables()
        self._rel_bit = {
            name: np.left_shift(one, (at[name] + self._rel_of_pair).astype(np.uint64))
            for name in ("leader", "to_move", "dealer")
        }
        # led suit one-hot by led_suit + 3 (the negative "no lead yet" values give nothing).
        self._led_bits = np.array([0, 0, 0, 1, 2, 4, 8], np.uint64) << self._flag_at["led_suit"]
        self._phase_bits = np.full(8, one << self._flag_at["phase"], np.uint64)  # as ``_phase_index``
        for k, p in enumerate(HEARTS_PHASES):
            self._phase_bits[p] = one << (self._flag_at["phase"] + np.uint64(k))
        self._pass_bits = np.left_shift(one, self._flag_at["pass_direction"] + np.arange(4, dtype=np.uint64))
        self._batch: dict[int, tuple[np.ndarray, np.ndarray]] = {}

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
        g, n, s = len(games), self.n_players, self.n_sides
        if out is None:
            out = np.empty((g, self.size), np.float32)
        if g <= 1 or not out.flags.c_contiguous:
            return self._encode_plain(state, games, seats, out)
        row = self._row
        src, real = self._batch_buffers(g)
        at, side_at = self._relative_cells(games, seats)
        own = at[0]

        hands = np.take(state.hands.reshape(-1), at)
        src[0] = hands[0]
        played = src[row["played0"] : row["played0"] + n]
        np.take(state.deal.reshape(-1), at, out=played)
        played &= ~hands
        trick = np.take(state.trick.reshape(-1), at)
        np.take(self._bit, trick, out=src[row["trick0"] : row["trick0"] + n], mode="wrap")  # -1: no card
        if self.perfect_information:
            src[row["all_hands0"] : row["all_hands0"] + n] = hands
        phase = state.phase[games]
        hand_number = state.hand_number[games]
        offset = self.engine.pass_offset(hand_number)
        passed = state.passed.reshape(-1)
        src[row["passed"]] = np.take(passed, own)
        giver = games * n + (seats - offset) % n
        src[row["received"]] = np.take(passed, giver) * ((phase != PASS) & (offset != 0))

        # The 0/1 blocks from led_suit to dealer, as bits of one uint64.
        flags = np.take(self._led_bits, state.led_suit[games] + 3)
        pair = state.leader[games] * n
        pair += seats
        flags |= np.take(self._rel_bit["leader"], pair) * (phase == PLAY)
        flags |= self._relative_voids(state, games, seats) << self._flag_at["voids"]
        flags |= state.spades_broken[games].astype(np.uint64) << self._flag_at["hearts_broken"]
        flags |= np.take(self._pass_bits, hand_number % 4)
        flags |= np.take(self._phase_bits, phase)
        pair = state.to_move[games] * n
        pair += seats
        flags |= np.take(self._rel_bit["to_move"], pair) * (phase != OVER)
        pair = state.dealer[games] * n
        pair += seats
        flags |= np.take(self._rel_bit["dealer"], pair)
        src[row["flags"]] = flags
        self._bitrows.expand(src, out)

        # Real-valued entries (points, tricks, scores, target) by column, then into place.
        points, tricks = np.take(state.points_taken.reshape(-1), at), np.take(state.tricks_won.reshape(-1), at)
        np.divide(points, MOON_POINTS, out=real[:n], casting="unsafe")
        np.divide(tricks, self.engine.hand_size, out=real[n : 2 * n], casting="unsafe")
        score = np.take(state.scores.reshape(-1), side_at) / self.rules.target_score
        np.clip(score, -SCORE_CLIP, SCORE_CLIP, out=real[2 * n : 2 * n + s], casting="unsafe")
        real[-1] = self.rules.target_score / 1000
        out[:, self._real_start :] = real.T
        return out

    def _encode_plain(self, state: GameState, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> np.ndarray:
        """``encode`` written plainly over the batch (one game, or a non-contiguous ``out``); the
        tests pin the fast path to it."""
        g, n, c = len(games), self.n_players, self.n_cards
        out[:] = 0
        rows = np.arange(g)
        rel = (seats[:, None] + np.arange(n)) % n  # (G, N) absolute seat of each relative seat
        gg = games[:, None]
        hands = state.hands[gg, rel]
        phase = state.phase[games]
        offset = self.engine.pass_offset(state.hand_number[games])
        giver = (seats - offset) % n
        passed_in = (phase != PASS) & (offset != 0)
        masks = [hands[:, :1], state.deal[gg, rel] & ~hands, self._bit[state.trick[gg, rel]]]
        if self.perfect_information:
            masks.append(hands)
        masks.append(state.passed[games, seats][:, None])
        masks.append(np.where(passed_in, state.passed[games, giver], np.uint64(0))[:, None])
        stacked = np.ascontiguousarray(np.concatenate(masks, axis=1))
        card_bits = np.unpackbits(stacked.view(np.uint8), bitorder="little").reshape(g, -1, 64)[:, :, :c]
        out[:, : self._cards_end] = card_bits.reshape(g, -1)

        def one_hot(name: str, index: np.ndarray, where: np.ndarray | None = None) -> None:
            sl = self.slices[name]
            ok = np.ones(g, bool) if where is None else where
            out[rows[ok], sl.start + index[ok]] = 1

        led = state.led_suit[games]
        one_hot("led_suit", np.maximum(led, 0), led >= 0)
        one_hot("leader", (state.leader[games] - seats) % n, phase == PLAY)
        voids = state.void_suits()[gg, rel]  # (G, N, 4)
        out[:, self.slices["voids"]] = voids.reshape(g, -1)
        out[:, self.slices["hearts_broken"]] = state.spades_broken[games][:, None]
        one_hot("pass_direction", state.hand_number[games] % 4)
        one_hot("phase", self._phase_index[phase])
        one_hot("to_move", (state.to_move[games] - seats) % n, phase != OVER)
        one_hot("dealer", (state.dealer[games] - seats) % n)
        out[:, self.slices["points"]] = state.points_taken[gg, rel] / MOON_POINTS
        out[:, self.slices["tricks_won"]] = state.tricks_won[gg, rel] / self.engine.hand_size
        sides = self.engine.side_of_seat[rel[:, : self.n_sides]]
        score = state.scores[gg, sides] / self.rules.target_score
        out[:, self.slices["score"]] = np.clip(score, -SCORE_CLIP, SCORE_CLIP)
        out[:, self.slices["target"]] = self.rules.target_score / 1000
        return out
