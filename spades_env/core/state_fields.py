"""Declarations of a game state's fields: ``StateField`` (name, dtype, dimensions, neutral value), and the fields
every trick-taking game has (``CORE_FIELDS``).

Each game declares its own fields in its folder (``games/<game>/state_fields.py``: ``FIELDS``, named by its
registry entry, ``spades_env.games.GAMES[game].state_fields``; a game with none names this module, whose
``FIELDS`` is empty). The
engine allocates an empty state from the declarations (``engine.state_schema``), and its invariant checker takes
each field's dtype and shape from them and checks that every field of another game stays at its neutral value.
``engine.state.GameState`` lists them all, in the order of ``core.state_arrays.FIELDS`` (tested).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from spades_env.core.phases import OVER

#: The symbolic sizes a field's dimensions are named by.
DIMENSIONS = {
    "B": "games in the batch",
    "N": "players (seats)",
    "S": "scoring sides",
    "T": "tricks of a hand (the hand size)",
    "P": "the two-player draw pile (52 cards; 0 in every other game)",
}


@dataclass(frozen=True)
class StateField:
    """One field of the game state: a NumPy array whose first dimension is the batch."""

    name: str
    """The ``GameState`` (and ``StateArrays``) field's name."""
    dtype: type
    """Its NumPy scalar type (``np.int64``, ``np.uint64`` for card masks, ``np.bool_``)."""
    dims: tuple[str, ...]
    """Its dimensions, by symbolic size (``DIMENSIONS``), the batch ``"B"`` first."""
    neutral: int | bool
    """Every element's value in an empty state, and in every game that does not own the field."""
    doc: str = ""
    """What it holds, in a line."""
    decision: bool = False
    """The legal actions and the random draws read it (it is in the game's ``DecisionArrays``)."""

    def __post_init__(self) -> None:
        if not self.dims or self.dims[0] != "B" or any(d not in DIMENSIONS for d in self.dims):
            raise ValueError(f"state field {self.name!r}: dims must be 'B' then some of {list(DIMENSIONS)}")

    def shape(self, sizes: Mapping[str, int]) -> tuple[int, ...]:
        """Its shape at the ``sizes`` given for the symbolic dimensions (``"B"`` included)."""
        return tuple(sizes[d] for d in self.dims)

    def empty(self, sizes: Mapping[str, int]) -> np.ndarray:
        """A new array of its shape at ``sizes``, every element its neutral value."""
        return np.full(self.shape(sizes), self.neutral, dtype=self.dtype)


_I, _U, _B = np.int64, np.uint64, np.bool_

#: The fields of every game (see ``engine.state.GameState`` for each one's meaning).
CORE_FIELDS: tuple[StateField, ...] = (
    StateField("hands", _U, ("B", "N"), 0, "cards each seat still holds", True),
    StateField("deal", _U, ("B", "N"), 0, "the hands as dealt at the start of this hand"),
    StateField("phase", _I, ("B",), OVER, "the phase (the decision to make), OVER once the match is over", True),
    StateField("to_move", _I, ("B",), 0, "seat whose decision it is", True),
    StateField("dealer", _I, ("B",), 0, "dealer of this hand"),
    StateField("leader", _I, ("B",), 0, "seat that led the trick in progress"),
    StateField("trick", _I, ("B", "N"), -1, "card each seat played to the trick in progress, -1 if none"),
    StateField("n_in_trick", _I, ("B",), 0, "cards in the trick in progress"),
    StateField("led_suit", _I, ("B",), -1, "suit led to the trick in progress, or the lead restriction", True),
    StateField("n_tricks", _I, ("B",), 0, "tricks completed this hand", True),
    StateField("tricks_won", _I, ("B", "N"), 0, "tricks each seat has taken this hand"),
    StateField("trick_winners", _I, ("B", "T"), -1, "winner of each completed trick, -1 for later tricks"),
    StateField("spades_broken", _B, ("B",), False, "the game's broken_suit has been played this hand"),
    StateField("voids", _I, ("B",), 0, "bit 4 * seat + suit: the seat has shown out of the suit"),
    StateField("scores", _I, ("B", "S"), 0, "match score of each side"),
    StateField("hand_number", _I, ("B",), 0, "hands completed in this match"),
    StateField("winner", _I, ("B",), -1, "side that won the match, -1 while it goes on"),
    StateField("key", _U, ("B",), 0, "the game's random key"),
    StateField("history", _I, ("B", "T", "N"), -1, "card each seat played to each completed trick, -1 later"),
    StateField("hand_start_scores", _I, ("B", "S"), 0, "scores before this hand"),
    StateField("points_taken", _I, ("B", "N"), 0, "card points (``TrickTables.points``) in the tricks each seat took"),
)

#: The record arrays of a finished hand that every game's compiled hand end fills (``core.state_arrays.RECORD_FIELDS``,
#: in that order), declared as fields whose batch ``"B"`` is the G hands finished in a step; an array a game does not
#: fill is its neutral value (``engine.hand_cycle``).
CORE_RESULT_FIELDS: tuple[StateField, ...] = (
    StateField("winner", _I, ("B",), 0, "side that won the match with this hand, -1 if it goes on"),
    StateField("deal", _U, ("B", "N"), 0, "the hands as dealt"),
    StateField("dealer", _I, ("B",), 0, "dealer of the hand"),
    StateField("history", _I, ("B", "T", "N"), 0, "card each seat played to each trick"),
    StateField("tricks_won", _I, ("B", "N"), 0, "tricks taken per seat"),
    StateField("trick_winners", _I, ("B", "T"), 0, "winner of each trick"),
    StateField("start_scores", _I, ("B", "S"), 0, "scores before the hand"),
    StateField("hand_number", _I, ("B",), 0, "number of the hand in its match"),
    StateField("hand_key", _U, ("B",), 0, "the hand's key"),
    StateField("delta", _I, ("B", "S"), 0, "points scored in the hand"),
    StateField("scores", _I, ("B", "S"), 0, "scores after the hand"),
)

#: A game's own fields, for a game that declares none: the registry's default ``state_fields`` module is this one
#: (a game's own is ``games/<game>/state_fields.py``, with its ``FIELDS`` and ``RESULT_FIELDS``).
FIELDS: tuple[StateField, ...] = ()
#: A game's own record arrays of a finished hand (its ``hand_score.RECORD``), for a game that declares none.
RESULT_FIELDS: tuple[StateField, ...] = ()
