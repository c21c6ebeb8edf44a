"""The lightweight decision context handed to bots, and random legal play.

``DecisionContext`` carries the same attribute names as ``agents.base.DecisionContext``
(engine, state, games, seats), so bots written against ``agents`` accept it, while
``spades_env`` stays free of any import from ``agents``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.engine import GameState, SpadesEngine


@dataclass
class DecisionContext:
    """Where each decision of a batch is taken: agents may read only what the seat can see."""

    engine: SpadesEngine
    state: GameState
    """The batched state the decisions are taken in."""
    games: np.ndarray
    """(B,) int64: index into ``state`` of each decision's game."""
    seats: np.ndarray
    """(B,) int64: the deciding seat of each decision."""


def random_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a (B, A) bool mask: (B,) int64."""
    return np.argmax(rng.random(masks.shape) * masks, axis=1).astype(np.int64)
