"""A seat's view: for each decision, a state that holds only what the deciding seat may know.

``seat_view(engine, state, games, seats)`` copies the deciding games' rows (D = ``len(games)``; row ``d`` is
decided by ``seats[d]``) and blanks in the data everything that seat may not know, as its game says
(``games/<game>/view.py``, named in the registry ``spades_env.games.GAMES``): the other hands (but the cards
the seat knows are there, such as face-up cards), their deals (but the cards they played), the other seats'
private history (discards, cards seen, exchanges, passes not made to the seat), the two-player pile, the card
shown to another seat and the key. The public fields are copied as they are. A view is a ``GameState`` that
a bot reads as it would the state (``spades_env.envs.context.DecisionContext.of_view`` makes the context of
one); nothing hidden is in it, so no bot can read it by accident.

``cards_held(engine, state)``: each seat's number of cards, from public information only (a view's hidden
hands hold only the cards the seat knows of them: a bot counts cards with this, never with ``state.hands``).
"""

from __future__ import annotations

import numpy as np

from spades_env import games as game_parts
from spades_env.engine.core import SpadesEngine
from spades_env.engine.state import GameState


def _game_view(engine: SpadesEngine):
    """The game's view module (``hide``, ``cards_held``)."""
    return game_parts.part(engine.rules.game, "view")


def seat_view(engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> GameState:
    """(D games) game ``games[d]`` of ``state`` as seat ``seats[d]`` may know it (see the module docstring)."""
    games = np.asarray(games, dtype=np.int64)
    seats = np.asarray(seats, dtype=np.int64)
    if games.shape != seats.shape or games.ndim != 1:
        raise ValueError(f"games and seats must be 1-D and of one length, got shapes {games.shape} and {seats.shape}")
    view = state.take(games)
    _game_view(engine).hide(view, seats, engine.rules)
    return view


def cards_held(engine: SpadesEngine, state: GameState) -> np.ndarray:
    """(B, N) int64: the cards each seat of each game of ``state`` (a full state or a view) holds, counted from
    public information only (the game's ``cards_held``)."""
    return _game_view(engine).cards_held(state, engine.rules)


def known_held(engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> np.ndarray:
    """(D, N) uint64: the cards of each other seat of game ``games[d]`` that seat ``seats[d]`` knows it holds (0 at
    the deciding seat; the game's ``known_held``: Spades' face-up cards, Hearts' passes with their receiver)."""
    return _game_view(engine).known_held(state, np.asarray(games), np.asarray(seats), engine.rules)


def known_cards(engine: SpadesEngine, state: GameState, g: int, seat: int) -> int:
    """The cards whose place seat ``seat`` knows in game ``g`` of ``state``, as an int mask (the game's
    ``known_cards``): the played ones, its own hand once it has seen it, its private history, and the cards its
    game makes known to it."""
    return _game_view(engine).known_cards(state, g, seat, engine.rules)


def private_masks(engine: SpadesEngine) -> tuple[str, ...]:
    """The (B, N) card-mask fields of the game's state that only their own seat sees, beyond ``hands`` and ``deal``
    (the game's ``PRIVATE_MASKS``: Spades' two-player discards, cards seen and exchanges; Hearts' passes)."""
    return _game_view(engine).PRIVATE_MASKS
