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
rules (use ``encoder_for``). The games' encoders and layout versions are reached through the
registry (``spades_env.games``): ``SpadesObservationEncoder``, ``HEARTS_VERSION`` and the other
public names of a game's observation module are looked up there when asked (``__getattr__``).
"""

from __future__ import annotations

import sys
from typing import Any

from spades_env import games
from spades_env.core.encode import SCORE_CLIP, ObservationLayout, lay_out
from spades_env.engine.core import SpadesEngine
from spades_env.rules_check import DEFAULT_GAME

__all__ = ["SCORE_CLIP", "ObservationLayout", "encoder_class", "encoder_for", "lay_out"]
#: The games' public names served from here (``__getattr__``): their encoder classes and layout versions.
FROM_THE_GAMES = ("HEARTS_VERSION", "VERSION", "HeartsObservationEncoder", "SpadesObservationEncoder")


def __getattr__(name: str) -> Any:
    """``ObservationEncoder`` (the default game's encoder, its name before the games had their own folders),
    or a name of ``FROM_THE_GAMES`` (an encoder class, ``HeartsObservationEncoder``, or a layout version,
    ``VERSION``), looked up in each registered game's observation module in turn."""
    if name == "ObservationEncoder":
        return encoder_class(DEFAULT_GAME)
    if name in FROM_THE_GAMES:
        for game in games.GAMES:
            module = sys.modules[encoder_class(game).__module__]
            if hasattr(module, name):
                return getattr(module, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def encoder_class(game: str) -> type[ObservationLayout]:
    """The encoder class of ``game`` (a ``Rules.game``), from the registry (``spades_env.games.GAMES``)."""
    return games.part(game, "encoder")


def encoder_for(engine: SpadesEngine, perfect_information: bool = False) -> ObservationLayout:
    """The observation encoder of ``engine``'s game; ``perfect_information`` adds every hand
    (``all_hands``: the AEC env's ``state()``)."""
    return encoder_class(engine.rules.game)(engine, perfect_information=perfect_information)
