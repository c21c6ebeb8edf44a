"""Uniformly random legal play."""

from __future__ import annotations

import numpy as np

from agents.base import Agent, DecisionContext
from spades_env.envs.context import random_legal


def sample_legal(masks: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A uniformly random legal action per row of a (B, A) bool mask."""
    masks = np.asarray(masks, dtype=bool)
    if not masks.any(axis=1).all():
        raise ValueError("every row of the action mask needs at least one legal action")
    return random_legal(masks, rng)


class RandomAgent(Agent):
    """Picks a uniformly random legal action."""

    name = "random"

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        return sample_legal(masks, self.rng)
