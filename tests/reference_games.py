"""The readable reference engine of each game, for the tests that cross-check the engine with it.

``REFERENCE_GAMES`` maps a game name (``Rules.game``) to its reference engine class, read from
the game registry (``spades_env.games.GAMES``).
"""

from __future__ import annotations

from spades_env import games
from spades_env.core.reference_tricks import TrickGame
from spades_env.rules import Rules

REFERENCE_GAMES: dict[str, type[TrickGame]] = {game: games.part(game, "reference") for game in games.GAMES}


def reference_for(rules: Rules) -> type[TrickGame]:
    """The reference engine class of the game of ``rules``."""
    return REFERENCE_GAMES[rules.game]
