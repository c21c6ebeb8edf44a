"""The one batched interface every bot implements."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.engine import GameState, SpadesEngine


@dataclass
class DecisionContext:
    """Where each decision of a batch is taken, for agents that reason about the game.

    Agents may read only what the deciding seat can see: public information in
    ``state`` (bids, tricks, the current trick, played cards, scores) and the
    seat's own hand. Hidden hands must not be read (the search agent samples them).
    """

    engine: SpadesEngine
    state: GameState
    """The batched state the decisions are taken in."""
    games: np.ndarray
    """(B,) int64: index into ``state`` of each decision's game."""
    seats: np.ndarray
    """(B,) int64: the deciding seat of each decision."""


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
