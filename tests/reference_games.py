"""The readable reference engine of each game, for the tests that cross-check the engine with it.

``REFERENCE_GAMES`` maps a game name (``Rules.game``) to its reference engine class, the way
the game registry of ``spades_env.games`` is meant to: a dict, not a chain of branches.
"""

from __future__ import annotations

from spades_env.core.reference_tricks import TrickGame
from spades_env.games.hearts.reference import HeartsReferenceGame
from spades_env.games.spades.reference import SpadesReferenceGame
from spades_env.rules import Rules

REFERENCE_GAMES: dict[str, type[TrickGame]] = {"spades": SpadesReferenceGame, "hearts": HeartsReferenceGame}


def reference_for(rules: Rules) -> type[TrickGame]:
    """The reference engine class of the game of ``rules``."""
    return REFERENCE_GAMES[rules.game]
