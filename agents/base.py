"""The one batched interface every bot implements."""

from __future__ import annotations

import numpy as np

from spades_env.engine import SpadesEngine
from spades_env.envs.context import DecisionContext

__all__ = ["Agent", "DecisionContext"]


class Agent:
    """A bot: ``act(observations, masks, context) -> actions`` on batches, seeded."""

    name = "agent"

    def __init__(self, seed: int | None = None) -> None:
        self.rng = np.random.default_rng(seed)

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's randomness."""
        self.rng = np.random.default_rng(seed)

    def supports(self, engine: SpadesEngine) -> bool:
        """Whether the agent can play this rule set."""
        return True

    def check_supports(self, engine: SpadesEngine) -> None:
        """Raise ValueError, naming the bot and the rules (and why, where the bot knows), unless it can play them."""
        if not self.supports(engine):
            raise ValueError(f"bot {self.name!r} does not support the rules {engine.rules.name!r}")

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        """One legal action per row: observations (B, D) float32, masks (B, A) bool -> (B,) int64."""
        raise NotImplementedError
