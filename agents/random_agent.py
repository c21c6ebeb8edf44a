"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, DecisionContext
from spades_env.engine import random_legal


class RandomAgent(Agent):
    """Picks a uniformly random legal action (``engine.sampling.random_legal``: one uniform per action)."""

    name = "random"

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        return random_legal(masks, self.rng)
