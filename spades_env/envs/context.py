"""The decision context handed to bots (the one class: ``agents.base.DecisionContext`` is it).

It lives here, not in ``agents``, so that ``spades_env`` stays free of any import from
``agents``. ``random_legal`` (the bots' random draw, ``engine.sampling``) is re-exported.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from spades_env.engine import GameState, SpadesEngine
from spades_env.engine.sampling import random_legal
from spades_env.engine.view import seat_view

__all__ = ["DecisionContext", "random_legal"]


@dataclass
class DecisionContext:
    """Where each decision of a batch is taken, for agents that reason about the game.

    Every harness that asks a bot for decisions of real games (the tournament, the Gymnasium env's
    opponents, ``VectorSpades.context()``, the web table, the trainers' opponents and teachers) builds
    it with ``of_view``: ``state`` is then the seats' view (``spades_env.engine.view.seat_view``), one
    row per decision, holding only what the deciding seat may know: the public state (bids, tricks, the
    trick in progress, the cards played, scores, the dealer, the phase, face-up cards) and the seat's
    own hand and private history (its two-player discards and the card shown to it, its Hearts passes
    and, after the pass, what it received). The other hands, the other seats' discards, exchanges and
    passes, the two-player pile and the key are not in it at all (blanked in the data), so a bot cannot
    read them by accident; count another seat's cards with ``spades_env.engine.view.cards_held``.

    A bot may build contexts of its own on states it made (the search bot's sampled layouts) with the
    constructor. The shipped heuristic's compiled turns (``compiled_turns``) run inside the engine's
    compiled loop on the full state: a fast path of that one bot only, whose reads
    ``tests/agents/test_bot_invariance.py`` checks; a user's bot is never given the full state.
    """

    engine: SpadesEngine
    state: GameState
    """The batched state the decisions are taken in (a view: only what the deciding seats may know)."""
    games: np.ndarray
    """(B,) int64: index into ``state`` of each decision's game."""
    seats: np.ndarray
    """(B,) int64: the deciding seat of each decision."""

    @classmethod
    def of_view(cls, engine: SpadesEngine, state: GameState, games: np.ndarray, seats: np.ndarray) -> DecisionContext:
        """The context of the decisions of seats ``seats`` in games ``games`` of the full ``state``: its
        ``state`` is their view (one row each, ``games`` = ``arange(D)``), never ``state`` itself."""
        seats = np.asarray(seats, dtype=np.int64)
        return cls(engine, seat_view(engine, state, games, seats), np.arange(len(seats)), seats)

    def take(self, rows: np.ndarray) -> DecisionContext:
        """The context of decisions ``rows`` of this batch (same engine and state)."""
        return DecisionContext(self.engine, self.state, self.games[rows], self.seats[rows])
