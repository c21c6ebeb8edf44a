"""Spades' seat-relative observations [RULES 1-6]: one flat float32 row per (game, seat), compiled.

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

``SpadesObservationEncoder.slices`` maps each name to its slice of the flat vector and
``view(obs, name)`` reshapes a block to the shape above (with any leading batch dims).
``encode`` writes the rows with one compiled call (``encode_rows``: every entry once, block by
block, from the state's bitmasks), for a batch of (game, seat) pairs or one game alike.
Hearts has its own layout (``spades_env.games.hearts.observation``).

Version history:

* 1: initial layout.
* 2: card blocks C wide (jokers); phase over all 7 phases; the variant blocks
  ``face_up``, ``shown``, ``discards``, ``seen`` and ``bemo``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
from numba import njit

from spades_env.core.encode import SCORE_CLIP, ObservationLayout
from spades_env.core.encode_bits import (
    card_bit,
    expand,
    first_bad_row,
    put_bits,
    put_flag,
    put_one_hot,
    put_relative_planes,
    put_seat_one_hots,
    put_voids,
    seat_at,
)
from spades_env.core.phases import OVER, PLAY
from spades_env.games.spades.params import DRAW, N_SPADES_PHASES

if TYPE_CHECKING:
    from spades_env.engine.core import SpadesEngine
    from spades_env.engine.state import GameState

VERSION = 2

#: The blocks whose offsets the kernel takes, in this order (-1: the rules have no such block).
BLOCKS = (
    "hand", "played", "trick", "all_hands", "face_up", "shown", "discards", "seen", "led_suit", "leader",
    "bid", "has_bid", "nil", "blind_nil", "voids", "spades_broken", "bemo", "phase", "to_move", "dealer",
    "tricks_won", "score", "bags", "target",
)  # fmt: skip
(HAND, PLAYED, TRICK, ALL_HANDS, FACE_UP, SHOWN, DISCARDS, SEEN, LED_SUIT, LEADER, BID, HAS_BID, NIL) = range(13)
(BLIND_NIL, VOIDS, BROKEN, BEMO, PHASE, TO_MOVE, DEALER, TRICKS_WON, SCORE, BAGS, TARGET) = range(13, 24)


class SpadesObservationEncoder(ObservationLayout):
    """Encodes what a seat can see of a batched Spades ``GameState`` as flat float32 rows."""

    VERSION = VERSION
    PHASES = tuple(range(N_SPADES_PHASES))

    def __init__(self, engine: SpadesEngine, perfect_information: bool = False) -> None:
        if engine.rules.game != "spades":
            raise ValueError(
                f"SpadesObservationEncoder needs Spades rules, got game {engine.rules.game!r}: "
                "use spades_env.observation.encoder_for(engine)"
            )
        n, s, c = engine.n_players, engine.n_sides, engine.layout.n_card_ids
        self.n_bid_values = k = engine.layout.max_bid + 1
        r = engine.rules
        blocks: list[tuple[str, tuple[int, ...]]] = [("hand", (c,)), ("played", (n, c)), ("trick", (n, c))]
        if perfect_information:
            blocks.append(("all_hands", (n, c)))
        if r.face_up_deal:
            blocks.append(("face_up", (n, c)))
        if r.two_player:
            blocks += [("shown", (c,)), ("discards", (c,)), ("seen", (c,))]
        blocks += [
            ("led_suit", (4,)),
            ("leader", (n,)),
            ("bid", (n, k)),
            ("has_bid", (n,)),
            ("nil", (n,)),
            ("blind_nil", (n,)),
            ("voids", (n, 4)),
            ("spades_broken", (1,)),
            *([("bemo", (s, 3))] if r.bemo else []),
            ("phase", (N_SPADES_PHASES,)),
            ("to_move", (n,)),
            ("dealer", (n,)),
            ("tricks_won", (n,)),
            ("score", (s,)),
            ("bags", (s,)),
            ("target", (1,)),
        ]
        super().__init__(engine, perfect_information, blocks)
        self._offsets = self.offsets(BLOCKS)
        self._bits = self.bit_count("tricks_won")
        # The real-valued entries, rounded as the layout's NumPy statement did: tricks / hand size
        # by table, score and bags times the float32 reciprocal, the product in float64.
        self._trick_values = np.empty(engine.hand_size + 1, np.float32)
        scale = np.float32(1.0 / engine.hand_size)
        np.multiply(np.arange(engine.hand_size + 1, dtype=np.int64), scale, out=self._trick_values)
        self._score_scale = np.float32(1.0 / r.target_score)
        self._bag_scale = np.float32(1.0 / r.bag_limit)
        self._target = np.float32(r.target_score / 1000)

    def _write(self, state: GameState, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> int:
        st = state
        return encode_rows(
            out, games, seats, self._offsets, self._bits, self.n_cards, self.n_bid_values, self._side_of_seat,
            st.hands, st.deal, st.looked, st.trick, st.face_up, st.phase, st.to_move, st.shown,
            st.discards, st.exchanged_out, st.seen, st.leader, st.led_suit, st.bids, st.blind, st.voids,
            st.spades_broken, st.bemo, st.dealer, st.tricks_won, st.scores, st.bags,
            self._trick_values, self._score_scale, self._bag_scale, self._target,
        )  # fmt: skip


@njit(cache=True)
def encode_rows(
    out, games, seats, o, n_bits, width, k, side_of_seat,
    hands, deal, looked, trick, face_up, phase, to_move, shown,
    discards, exchanged_out, seen, leader, led_suit, bids, blind, voids,
    spades_broken, bemo, dealer, tricks_won, scores, bags,
    trick_values, score_scale, bag_scale, target,
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
        # Card blocks: the own hand once looked (blind nil), the planes of every relative seat.
        put_bits(words, o[HAND], hands[g, seat] if looked[g, seat] else np.uint64(0), width)
        put_relative_planes(words, o[PLAYED], o[TRICK], o[ALL_HANDS], width, g, seat, n, hands, deal, trick)
        if o[FACE_UP] >= 0:  # visible to all while still held [RULES 6]
            for j in range(n):
                a = seat_at(seat, j, n)
                put_bits(words, o[FACE_UP] + j * width, face_up[g, a] & hands[g, a], width)
        if o[SHOWN] >= 0:  # two-player: only the drawer sees the pile's card; discards are private [RULES 4]
            if ph == DRAW and to_move[g] == seat:
                put_bits(words, o[SHOWN], card_bit(shown[g]), width)
            put_bits(words, o[DISCARDS], discards[g, seat] | exchanged_out[g, seat], width)
            put_bits(words, o[SEEN], seen[g, seat], width)
        put_one_hot(words, o[LED_SUIT], 4, led_suit[g])  # negative lead states: no suit yet
        put_seat_one_hots(
            words, o[LEADER], o[TO_MOVE], o[DEALER], n, seat, leader[g], to_move[g], dealer[g], ph == PLAY, ph == OVER
        )
        for j in range(n):
            a = seat_at(seat, j, n)
            bid = bids[g, a]
            put_one_hot(words, o[BID] + j * k, k, bid)  # -1 before the seat bids: zeros
            put_flag(words, o[HAS_BID] + j, bid >= 0)
            put_flag(words, o[NIL] + j, bid == 0)
            put_flag(words, o[BLIND_NIL] + j, blind[g, a])
        put_voids(words, o[VOIDS], voids[g], seat, n)
        put_flag(words, o[BROKEN], spades_broken[g])
        put_one_hot(words, o[PHASE], N_SPADES_PHASES, ph)
        if o[BEMO] >= 0:
            for j in range(s):
                put_one_hot(words, o[BEMO] + 3 * j, 3, bemo[g, side_of_seat[seat_at(seat, j, n)]])  # -1: zeros
        expand(out, i, words, n_bits)
        # The real-valued blocks.
        for j in range(n):
            out[row, o[TRICKS_WON] + j] = trick_values[
                min(max(tricks_won[g, seat_at(seat, j, n)], 0), len(trick_values) - 1)
            ]
        for j in range(s):
            side = side_of_seat[seat_at(seat, j, n)]
            score = np.float32(np.float64(scores[g, side]) * np.float64(score_scale))
            out[row, o[SCORE] + j] = min(max(score, np.float32(-SCORE_CLIP)), np.float32(SCORE_CLIP))
            out[row, o[BAGS] + j] = np.float32(np.float64(bags[g, side]) * np.float64(bag_scale))
        out[row, o[TARGET]] = target
    return -1
