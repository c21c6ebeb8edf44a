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


def hide(view: Any, seats: np.ndarray, rules: Any) -> None:
    """Blank, in place, what seat ``seats[d]`` may not know in row ``d`` of ``view`` (see the module docstring)."""
    seat_view.hide_hands(view, seats, view.face_up & view.hands)
    seat_view.blank_masks(view, seat_view.hand_hidden(view, seats))
    seat_view.hide_draw(view, seats)
    seat_view.hide_key(view)


def cards_held(state: Any, rules: Any) -> np.ndarray:
    """(B, N) int64: the cards each seat holds, from public information only: the cards it was dealt (two-player:
    one per draw it has made, which ``pile_pos`` counts; the dealer draws first) less those it has played."""
    dealt = np.full(state.hands.shape, rules.hand_size, dtype=np.int64)
    if rules.two_player:
        draws = state.pile_pos // 2  # (B,) draws made so far
        dealer = np.arange(state.hands.shape[1])[None, :] == state.dealer[:, None]
        dealt = np.where(dealer, (draws[:, None] + 1) // 2, draws[:, None] // 2)
    return dealt - seat_view.played_counts(state)
