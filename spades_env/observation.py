"""Seat-relative observations: the public entry to the games' compiled encoders.

``encoder_for(engine)`` gives the encoder of the engine's game: one flat float32 row per
(game, seat) with named slices, Spades' layout (``spades_env.games.spades.observation``,
``VERSION`` 2) or Hearts' (``spades_env.games.hearts.observation``, ``HEARTS_VERSION`` 1).
Both share ``spades_env.core.encode``: the observer is relative seat 0, relative seat ``j``
sits ``j`` places to its left, relative side ``j`` is the side of relative seat ``j``; every
entry is in [0, 1] but the real-valued blocks at the end (scores clipped to ``SCORE_CLIP``).

Every encoder has ``size``, ``slices``, ``shapes``, ``low`` / ``high`` (bounds for spaces),
``view(obs, name)``, ``describe()`` and ``encode(state, games, seats, out=None)``: the rows of
any seats of any games, written by one compiled call into ``out`` (or a new (G, size) array).

``ObservationEncoder`` is the Spades encoder under its historical name: it refuses Hearts
rules (use ``encoder_for``).
"""

from __future__ import annotations

from spades_env import games
from spades_env.core.encode import SCORE_CLIP, ObservationLayout, lay_out
from spades_env.engine.core import SpadesEngine
from spades_env.games.hearts.observation import HEARTS_VERSION, HeartsObservationEncoder
from spades_env.games.spades.observation import VERSION, SpadesObservationEncoder

__all__ = [
    "HEARTS_VERSION",
    "SCORE_CLIP",
    "VERSION",
    "HeartsObservationEncoder",
    "ObservationEncoder",
    "ObservationLayout",
    "SpadesObservationEncoder",
    "encoder_class",
    "encoder_for",
    "lay_out",
]

#: The Spades encoder (its name before the games had their own folders).
ObservationEncoder = SpadesObservationEncoder


def encoder_class(game: str) -> type[ObservationLayout]:
    """The encoder class of ``game`` (a ``Rules.game``), from the registry (``spades_env.games.GAMES``)."""
    return games.part(game, "encoder")


def encoder_for(engine: SpadesEngine, perfect_information: bool = False) -> ObservationLayout:
    """The observation encoder of ``engine``'s game; ``perfect_information`` adds every hand
    (``all_hands``: the AEC env's ``state()``)."""
    return encoder_class(engine.rules.game)(engine, perfect_information=perfect_information)
