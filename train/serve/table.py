"""One game of the engine at B = 1, stepped one decision at a time, remembering the last complete trick."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from spades_env import cards
from spades_env.engine import PLAY, FinishedHands, GameState, SpadesEngine, StepResult


@dataclass
class Step:
    """What one decision did: who took it, in which phase, and the hand it finished (if any)."""

    seat: int
    phase: int
    action: int
    finished: FinishedHands | None
    match_over: bool


class Table:
    """An engine and a one-game state; ``step`` applies one decision and tracks the last trick."""

    def __init__(
        self, engine: SpadesEngine, state: GameState, apply: Callable[[int], StepResult] | None = None
    ) -> None:
        """``apply(action)``: how a decision is applied to ``state`` (a record's ``records.HandReplay.step``,
        which draws what the record lists); the engine's ``step`` if None."""
        if state.batch_size != 1:
            raise ValueError(f"a table holds one game, got a state of {state.batch_size}")
        self.engine = engine
        self.state = state
        self._apply = apply if apply is not None else lambda action: self.engine.step(self.state, np.array([action]))
        self.last_trick: dict[str, Any] | None = None
        """The last complete trick: ``{"cards": [{"seat", "card"}...] in play order, "winner"}``."""

    @property
    def phase(self) -> int:
        return int(self.state.phase[0])

    @property
    def to_move(self) -> int:
        return int(self.state.to_move[0])

    def legal(self) -> np.ndarray:
        """The legal action ids of the seat to move."""
        return np.flatnonzero(self.engine.legal_action_mask(self.state)[0])

    def trick(self) -> list[dict[str, Any]]:
        """The trick in progress in play order: ``[{"seat", "card"}]``."""
        s, n = self.state, self.engine.n_players
        leader = int(s.leader[0])
        seats = [(leader + k) % n for k in range(int(s.n_in_trick[0]))]
        return [{"seat": seat, "card": cards.card_name(int(s.trick[0, seat]))} for seat in seats]

    def step(self, action: int) -> Step:
        """Apply ``action`` for the seat to move (the engine validates it)."""
        s, n = self.state, self.engine.n_players
        seat, phase = self.to_move, self.phase
        completes = phase == PLAY and int(s.n_in_trick[0]) == n - 1
        if completes:
            played = self.trick() + [{"seat": seat, "card": cards.card_name(action)}]
            t = int(s.n_tricks[0])
        result = self._apply(action)
        finished = result.finished[0] if result.finished else None
        if completes:
            winners = finished.trick_winners if finished is not None else s.trick_winners
            self.last_trick = {"cards": played, "winner": int(winners[0, t])}
        return Step(seat, phase, int(action), finished, bool(result.match_done[0]))

    def new_hand(self) -> None:
        """Forget the finished hand's last trick (the next hand is on the table)."""
        self.last_trick = None
