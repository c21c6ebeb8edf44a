"""A seat's view, the game-agnostic part: blanking what a deciding seat may not know, in the data.

A view is a copy of the deciding games' rows of the state (``spades_env.engine.view.seat_view``) in which each
game (``games/<game>/view.py``, its ``hide``) blanks the fields its seats cannot see; the helpers here are
the blanking steps every game's layout shares, plain NumPy on the state's arrays (any object with the
state's fields: the core imports no engine and no game). Row ``d`` of a view is decided by seat ``seats[d]``.

``hide`` here is the view of a game that names none in the registry (``spades_env.games.Game.view``):
every card mask of another seat, the pile, the shown card and the key blanked, nothing of another hand
known. A game that makes some cards public (face-up cards, passes) says so in its own ``hide``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

_NONE = np.uint64(0)
#: The (B, N) card-mask fields of a game without a view of its own that only their own seat sees (beyond ``hands`` and
#: ``deal``): none.
PRIVATE_MASKS: tuple[str, ...] = ()


def others(view: Any, seats: np.ndarray) -> np.ndarray:
    """(D, N) bool: every seat of each row but the deciding one."""
    return np.arange(view.hands.shape[1])[None, :] != np.asarray(seats)[:, None]


def hand_hidden(view: Any, seats: np.ndarray, looked: np.ndarray | None = None) -> np.ndarray:
    """(D, N) bool: the hands the deciding seat has not seen: every other seat's, and its own while it has not
    looked (``looked`` (D, N) bool, a game's own field, e.g. Spades' blind nil still open; None: always looked)."""
    hidden = others(view, seats)
    if looked is not None:
        rows = np.arange(len(seats))
        hidden[rows, seats] = ~looked[rows, seats]
    return hidden


def hide_hands(view: Any, seats: np.ndarray, known: np.ndarray, looked: np.ndarray | None = None) -> None:
    """Each hand the seat has not seen (``hand_hidden``) keeps only its cards in ``known`` ((D, N) uint64: the
    cards the seat knows the place of), and its ``deal`` only those and the cards it has played (public)."""
    hidden = hand_hidden(view, seats, looked)
    played = view.deal & ~view.hands
    view.hands = np.where(hidden, view.hands & known, view.hands)
    view.deal = np.where(hidden, played | view.hands, view.deal)


def blank_masks(view: Any, hidden: np.ndarray, names: tuple[str, ...]) -> None:
    """Zero the card-mask fields ``names`` of the seats ``hidden`` ((D, N) bool)."""
    for name in names:
        setattr(view, name, np.where(hidden, _NONE, getattr(view, name)))


def hide_draw(view: Any, seats: np.ndarray) -> None:
    """The two-player pile's order is unknown (-1 everywhere; how far the draw has gone, ``pile_pos``, is
    public), and the shown card is known only to the seat it is shown to, the seat to move."""
    view.pile = np.full_like(view.pile, -1)
    view.shown = np.where(view.to_move == seats, view.shown, -1)


def hide_key(view: Any) -> None:
    """The key, from which every later deal follows, is nobody's to know: 0."""
    view.key = np.zeros_like(view.key)


def hide(view: Any, seats: np.ndarray, rules: Any) -> None:
    """The view of a game without one of its own (and with no fields of its own to hide): other seats' hands
    and the key blanked."""
    hide_hands(view, seats, np.zeros_like(view.hands))
    hide_key(view)


def played_cards(state: Any, g: int) -> int:
    """The cards played so far in game ``g`` (public: they are on the table), as an int mask."""
    return int(np.bitwise_or.reduce(state.deal[g] & ~state.hands[g]))


def known_cards(state: Any, g: int, seat: int, rules: Any) -> int:
    """The cards whose place seat ``seat`` knows in game ``g`` of a game without a view of its own: the played ones
    and its own hand."""
    return played_cards(state, g) | int(state.hands[g, seat])


def known_held(state: Any, games: np.ndarray, seats: np.ndarray, rules: Any) -> np.ndarray:
    """(D, N) uint64: the cards of each other seat of game ``games[d]`` that seat ``seats[d]`` knows it holds (0 at
    the deciding seat): none in a game without a view of its own."""
    return np.zeros((len(games), state.hands.shape[1]), np.uint64)


def played_counts(state: Any) -> np.ndarray:
    """(B, N) int64: the cards each seat has played this hand (public: they are on the table)."""
    return np.bitwise_count(state.deal & ~state.hands).astype(np.int64)


def cards_held(state: Any, rules: Any) -> np.ndarray:
    """(B, N) int64: the cards each seat holds in a game that names no view of its own, from public information
    only: the hand size less the cards it has played."""
    return rules.hand_size - played_counts(state)
