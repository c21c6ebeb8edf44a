"""Hearts' seat-relative observations [RULES 7]: one flat float32 row per (game, seat), compiled.

``spades_env.observation.encoder_for(engine)`` gives this encoder for Hearts rules (Spades has
its own layout, ``spades_env.games.spades.observation``). The observer is relative seat 0 and
relative seat ``j`` sits ``j`` places to its left; relative sides as in ``spades_env.core.encode``.
``encode`` writes the rows with one compiled call (``encode_rows``), for a batch or one game.

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

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from spades_env.core.encode import SCORE_CLIP, ObservationLayout
from spades_env.core.encode_bits import (
    expand,
    first_bad_row,
    put_bits,
    put_flag,
    put_one_hot,
    put_relative_planes,
    put_seat_one_hots,
    put_voids,
    relative,
    seat_at,
)
from spades_env.core.phases import OVER, PLAY
from spades_env.games.hearts.phases import PASS
from spades_env.games.hearts.scoring import JACK_POINTS, MOON_POINTS

if TYPE_CHECKING:
    from spades_env.engine.core import SpadesEngine
    from spades_env.engine.state import GameState

HEARTS_VERSION = 1
#: Phase block order: the engine phases a Hearts game goes through.
HEARTS_PHASES = (PASS, PLAY, OVER)

#: The blocks whose offsets the kernel takes, in this order (-1: the layout has no such block).
BLOCKS = (
    "hand", "played", "trick", "all_hands", "passed", "received", "led_suit", "leader", "voids",
    "hearts_broken", "pass_direction", "phase", "to_move", "dealer", "points", "tricks_won", "score", "target",
)  # fmt: skip
(HAND, PLAYED, TRICK, ALL_HANDS, PASSED, RECEIVED, LED_SUIT, LEADER, VOIDS) = range(9)
(BROKEN, PASS_DIRECTION, PHASE, TO_MOVE, DEALER, POINTS, TRICKS_WON, SCORE, TARGET) = range(9, 18)


class HeartsObservationEncoder(ObservationLayout):
    """Encodes what a seat can see of a batched Hearts ``GameState`` as flat float32 rows."""

    VERSION = HEARTS_VERSION
    PHASES = HEARTS_PHASES

    def __init__(self, engine: SpadesEngine, perfect_information: bool = False) -> None:
        if engine.rules.game != "hearts":
            raise ValueError(f"HeartsObservationEncoder needs Hearts rules, got game {engine.rules.game!r}")
        n, s, c = engine.n_players, engine.n_sides, engine.layout.n_card_ids
        blocks: list[tuple[str, tuple[int, ...]]] = [("hand", (c,)), ("played", (n, c)), ("trick", (n, c))]
        if perfect_information:
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
        super().__init__(engine, perfect_information, blocks)
        self.low[self.slices["points"]] = JACK_POINTS / MOON_POINTS
        self._offsets = self.offsets(BLOCKS)
        self._bits = self.bit_count("points")
        self._phase_index = np.zeros(8, np.int64)  # engine phase -> its entry of the phase block
        for i, p in enumerate(HEARTS_PHASES):
            self._phase_index[p] = i
        # Seats from passer to receiver by hand number mod 4 (0: no pass this hand).
        self._pass_offsets = np.ascontiguousarray(engine.pass_offset(np.arange(4)), dtype=np.int64)

    def _write(self, state: GameState, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> int:
        st = state
        return encode_rows(
            out, games, seats, self._offsets, self._bits, self.n_cards, self._side_of_seat, self._phase_index,
            self._pass_offsets, st.hands, st.deal, st.trick, st.passed, st.phase, st.to_move, st.leader,
            st.led_suit, st.voids, st.spades_broken, st.hand_number, st.dealer, st.points_taken,
            st.tricks_won, st.scores, float(self.engine.hand_size), float(self.rules.target_score),
        )  # fmt: skip


@njit(cache=True)
def encode_rows(
    out, games, seats, o, n_bits, width, side_of_seat, phase_index,
    pass_offsets, hands, deal, trick, passed, phase, to_move, leader,
    led_suit, voids, hearts_broken, hand_number, dealer, points_taken,
    tricks_won, scores, hand_size, target_score,
):  # fmt: skip
    """Row i of ``out``: the observation of seat ``seats[i]`` in game ``games[i]`` (every entry
    written). Returns -1, or the first row whose game or seat is outside the state (nothing written)."""
    n, s = hands.shape[1], scores.shape[1]
    bad = first_bad_row(games, seats, len(phase), n)
    if bad >= 0:
        return bad
    words = np.zeros((n_bits >> 6) + 2, np.uint64)
    for i in range(len(games)):
        g, seat, row = games[i], seats[i], np.uint64(i)
        ph = phase[g]
        put_bits(words, o[HAND], hands[g, seat], width)
        put_relative_planes(words, o[PLAYED], o[TRICK], o[ALL_HANDS], width, g, seat, n, hands, deal, trick)
        # The passer knows its pass; the receiver sees it once every seat has chosen [RULES 7].
        direction = hand_number[g] % 4
        offset = pass_offsets[direction]
        put_bits(words, o[PASSED], passed[g, seat], width)
        if ph != PASS and offset != 0:
            put_bits(words, o[RECEIVED], passed[g, relative(seat, offset, n)], width)
        put_one_hot(words, o[LED_SUIT], 4, led_suit[g])  # negative lead states: no suit yet
        put_seat_one_hots(
            words, o[LEADER], o[TO_MOVE], o[DEALER], n, seat, leader[g], to_move[g], dealer[g], ph == PLAY, ph == OVER
        )
        put_voids(words, o[VOIDS], voids[g], seat, n)
        put_flag(words, o[BROKEN], hearts_broken[g])
        put_one_hot(words, o[PASS_DIRECTION], 4, direction)
        put_one_hot(words, o[PHASE], len(HEARTS_PHASES), phase_index[ph])
        expand(out, i, words, n_bits)
        # The real-valued blocks.
        for j in range(n):
            a = seat_at(seat, j, n)
            out[row, o[POINTS] + j] = np.float32(points_taken[g, a] / MOON_POINTS)
            out[row, o[TRICKS_WON] + j] = np.float32(tricks_won[g, a] / hand_size)
        for j in range(s):
            score = scores[g, side_of_seat[seat_at(seat, j, n)]] / target_score
            out[row, o[SCORE] + j] = np.float32(min(max(score, -SCORE_CLIP), SCORE_CLIP))
        out[row, o[TARGET]] = np.float32(target_score / 1000)
    return -1
