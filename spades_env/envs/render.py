"""Text rendering of one game of a batched state: the game's own view (``games/<game>/render.py``), every hand
shown (the AEC env's ``render()``)."""

from __future__ import annotations

from spades_env import games
from spades_env.engine import SpadesEngine
from spades_env.engine.state import GameState


def render_text(engine: SpadesEngine, state: GameState, game: int = 0) -> str:
    """A spectator's view of game ``game`` (every hand shown) as a few lines of text."""
    return games.part(engine.rules.game, "render").render_state(engine.facts, state, game)
