"""What a Hearts seat may know: its view (``spades_env.engine.view.seat_view``) and the public hand sizes.

A Hearts seat sees the public state (tricks, the trick in progress, the cards played and the voids they
showed, the points taken, scores, the dealer, the phase and, by the hand number, the pass direction), its own
hand, and its passes: the cards it set aside (and, once every seat has passed, that its receiver holds them
until played) and, once every seat has passed, the cards passed to it [RULES 7]. ``hide`` blanks everything
else in the data: the other hands (but the cards the seat passed them), their deals (but the cards they
played), the other seats' passes (but the one to the seat, after the pass) and the key. Plain NumPy.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from spades_env.core import seat_view
from spades_env.core.seat_view import cards_held  # the hand size less the cards played: the pass keeps every size
from spades_env.games.hearts.phases import PASS, PASS_OFFSETS

__all__ = ["PRIVATE_MASKS", "cards_held", "hide", "known_cards", "known_held"]

#: The (B, N) card-mask fields only their own seat sees (beyond ``hands`` and ``deal``), until the pass is made.
PRIVATE_MASKS = ("passed",)


def hide(view: Any, seats: np.ndarray, rules: Any) -> None:
    """Blank, in place, what seat ``seats[d]`` may not know in row ``d`` of ``view`` (see the module docstring)."""
    rows, n = np.arange(len(seats)), view.hands.shape[1]
    offset = PASS_OFFSETS[view.hand_number % 4]
    passed_on = (view.phase != PASS) & (offset != 0)  # (D,) every seat has passed: the cards changed hands
    receiver, giver = (seats + offset) % n, (seats - offset) % n
    known = np.zeros_like(view.hands)
    known[rows, receiver] = np.where(passed_on, view.passed[rows, seats], 0)  # the seat's passes, with its receiver
    seat_view.hide_hands(view, seats, known)
    hidden = seat_view.others(view, seats)
    hidden[rows, giver] &= ~passed_on  # the pass to the seat, once made
    seat_view.blank_masks(view, hidden, ("passed",))
    seat_view.hide_key(view)


def known_cards(state: Any, g: int, seat: int, rules: Any) -> int:
    """The cards whose place seat ``seat`` knows in game ``g``: played ones, its own hand (the cards passed to it
    included) and the cards it passed."""
    return seat_view.played_cards(state, g) | int(state.hands[g, seat]) | int(state.passed[g, seat])


def known_held(state: Any, games: np.ndarray, seats: np.ndarray, rules: Any) -> np.ndarray:
    """(D, N) uint64: the cards of each other seat of game ``games[d]`` that seat ``seats[d]`` knows it holds (0 at
    the deciding seat): once every seat has passed, the cards it passed, with their receiver until played."""
    rows, n = np.arange(len(games)), state.hands.shape[1]
    hands = state.hands[games]
    offset = PASS_OFFSETS[state.hand_number[games] % 4]
    receiver = (seats + offset) % n
    gave = np.where((offset != 0) & (state.phase[games] != PASS), state.passed[games, seats], np.uint64(0))
    known = np.zeros_like(hands)
    known[rows, receiver] |= np.where(receiver != seats, gave & hands[rows, receiver], np.uint64(0))
    return known
