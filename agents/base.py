"""The one batched interface every bot implements."""

from __future__ import annotations

import numpy as np

from spades_env.engine import SpadesEngine
from spades_env.envs.context import DecisionContext

__all__ = ["Agent", "DecisionContext", "masked_logits"]


def masked_logits(logits: np.ndarray, masks: np.ndarray) -> np.ndarray:
    """(B, A) logits with illegal actions set to -inf."""
    return np.where(masks, logits, -np.inf)


class Agent:
    """A bot: ``act(observations, masks, context) -> actions`` on batches, seeded."""

    name = "agent"
    uses_observations = False
    """Whether ``act`` reads its observations: where observations are built only when asked for (tournaments, the
    web table, the bidding benchmark), a bot that leaves this False gets None."""

    def __init__(self, seed: int | None = None) -> None:
        self._seed, self._rng = seed, None

    def reset(self, seed: int | None = None) -> None:
        """Re-seed the agent's randomness (its generator is made when first used: a bot that draws nothing,
        re-seeded before every decision as the web table does, never pays for one)."""
        self._seed, self._rng = seed, None

    @property
    def rng(self) -> np.random.Generator:
        """The agent's random generator, ``np.random.default_rng(seed)`` of the last ``reset`` (or of ``__init__``)."""
        if getattr(self, "_rng", None) is None:
            self._rng = np.random.default_rng(getattr(self, "_seed", None))
        return self._rng

    @rng.setter
    def rng(self, generator: np.random.Generator) -> None:
        self._rng = generator

    def unsupported_reason(self, engine: SpadesEngine) -> str | None:
        """Why the agent cannot play ``engine``'s rules (one line naming the bot and the rules), or None if it can.

        The one place a bot says what it plays: ``supports`` and ``check_supports`` derive from it."""
        return None

    def supports(self, engine: SpadesEngine) -> bool:
        """Whether the agent can play this rule set."""
        return self.unsupported_reason(engine) is None

    def check_supports(self, engine: SpadesEngine) -> None:
        """Raise ValueError, naming the bot and the rules (and why, where the bot knows), unless it can play them."""
        reason = self.unsupported_reason(engine)
        if reason is None and not self.supports(engine):  # a bot that overrides only ``supports``
            reason = f"bot {self.name!r} does not support the rules {engine.rules.name!r}"
        if reason is not None:
            raise ValueError(reason)

    def act(self, observations: np.ndarray, masks: np.ndarray, context: DecisionContext | None = None) -> np.ndarray:
        """One legal action per row: observations (B, D) float32, masks (B, A) bool -> (B,) int64."""
        raise NotImplementedError
