"""The decision context handed to bots (the one class: ``agents.base.DecisionContext`` is it).

It lives here, not in ``agents``, so that ``spades_env`` stays free of any import from
``agents``. ``random_legal`` (the bots' random draw, ``engine.sampling``) is re-exported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.engine import GameState, SpadesEngine
from spades_env.engine.sampling import random_legal

__all__ = ["DecisionContext", "random_legal"]


@dataclass
class DecisionContext:
    """Where each decision of a batch is taken, for agents that reason about the game.

    Agents may read only what the deciding seat can see: public information in
    ``state`` (bids, tricks, the current trick, played cards, scores) and the
    seat's own hand and private history (its two-player discards and the card shown
    to it, its Hearts passes). Hidden hands, the other seats' discards, exchanges and
    passes, the two-player pile and the key must not be read (the search agent samples
    what it needs; ``agents.infoset_probe`` checks a bot for reads of them).
    """

    engine: SpadesEngine
    state: GameState
    """The batched state the decisions are taken in."""
    games: np.ndarray
    """(B,) int64: index into ``state`` of each decision's game."""
    seats: np.ndarray
    """(B,) int64: the deciding seat of each decision."""

    def take(self, rows: np.ndarray) -> DecisionContext:
        """The context of decisions ``rows`` of this batch (same engine and state)."""
        return DecisionContext(self.engine, self.state, self.games[rows], self.seats[rows])
