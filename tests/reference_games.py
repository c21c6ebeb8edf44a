"""The readable reference engine of each game, for the tests that cross-check the engine with it.

``reference_for(rules)`` is the reference engine class of the rules' game, read from the game
registry (``spades_env.games.GAMES``).
"""

from __future__ import annotations

from spades_env import games
from spades_env.core.reference_tricks import TrickGame
from spades_env.rules import Rules


def reference_for(rules: Rules) -> type[TrickGame]:
    """The reference engine class of the game of ``rules`` (any registered game)."""
    return games.part(rules.game, "reference")
