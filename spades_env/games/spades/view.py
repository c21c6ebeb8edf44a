"""What a Spades seat may know: its view (``spades_env.engine.view.seat_view``) and the public hand sizes.

A Spades seat sees the public state (bids, blind nils, tricks, the trick in progress, the cards played and
the voids they showed, scores, bags, Bemo, the dealer, the phase, ``pile_pos``), the face-up cards
(``face_up_deal``) while their holders hold them, and, once it has looked, its own hand and private history:
its two-player discards, the cards it saw come off the pile or out of the discards, its blind-nil exchange,
and the card shown to it while it is to move. ``hide`` blanks everything else in the data: the other hands
(but their face-up cards), their deals (but the cards they played), their discards, seen and exchanged cards,
the two-player pile, the card shown to another seat, and the key. Plain NumPy on the state's arrays.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spades_env.core import seat_view

#: The (B, N) card-mask fields only their own seat sees (beyond ``hands`` and ``deal``).
PRIVATE_MASKS = ("discards", "seen", "exchanged_out", "exchanged_in")


def hide(view: Any, seats: np.ndarray, rules: Any) -> None:
    """Blank, in place, what seat ``seats[d]`` may not know in row ``d`` of ``view`` (see the module docstring)."""
    seat_view.hide_hands(view, seats, view.face_up & view.hands, view.looked)
    seat_view.blank_masks(view, seat_view.hand_hidden(view, seats, view.looked), PRIVATE_MASKS)
    seat_view.hide_draw(view, seats)
    seat_view.hide_key(view)


def known_cards(state: Any, g: int, seat: int, rules: Any) -> int:
    """The cards whose place seat ``seat`` knows in game ``g``: played ones, face-up cards still held, its own hand
    and private history (once it has looked), and the card shown to it."""
    known = seat_view.played_cards(state, g) | int(np.bitwise_or.reduce(state.face_up[g] & state.hands[g]))
    for name in ("hands", *PRIVATE_MASKS, "face_up") if state.looked[g, seat] else ("face_up",):
        known |= int(getattr(state, name)[g, seat])
    if state.shown[g] >= 0:  # the card shown to the drawer (two-player)
        known |= 1 << int(state.shown[g])
    return known


def known_held(state: Any, games: np.ndarray, seats: np.ndarray, rules: Any) -> np.ndarray:
    """(D, N) uint64: the cards of each other seat of game ``games[d]`` that seat ``seats[d]`` knows it holds (0 at
    the deciding seat): the face-up cards still held (``face_up_deal``)."""
    others = np.arange(state.hands.shape[1])[None, :] != np.asarray(seats)[:, None]
    return np.where(others, state.face_up[games] & state.hands[games], np.uint64(0))


def cards_held(state: Any, rules: Any) -> np.ndarray:
    """(B, N) int64: the cards each seat holds, from public information only: the cards it was dealt (two-player:
    one per draw it has made, which ``pile_pos`` counts; the dealer draws first) less those it has played."""
    dealt = np.full(state.hands.shape, rules.hand_size, dtype=np.int64)
    if rules.two_player:
        draws = state.pile_pos // 2  # (B,) draws made so far
        dealer = np.arange(state.hands.shape[1])[None, :] == state.dealer[:, None]
        dealt = np.where(dealer, (draws[:, None] + 1) // 2, draws[:, None] // 2)
    return dealt - seat_view.played_counts(state)
