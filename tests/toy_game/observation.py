"""Tricks' seat-relative observation (layout version 1), written in plain NumPy: the observer's hand,
the trick in progress by relative seat, the led suit, the seat to move, the tricks taken this hand, each seat's
best hands of the match (Tricks' own state field, a share of the hands played) and the scores
(``spades_env.core.encode`` conventions)."""

from __future__ import annotations

import numpy as np

from spades_env.core.encode import SCORE_CLIP, ObservationLayout
from spades_env.core.phases import OVER


class TricksObservationEncoder(ObservationLayout):
    """One float32 row per (game, seat) of a Tricks state."""

    VERSION = 1

    def __init__(self, engine, perfect_information: bool = False) -> None:
        n, s, c = engine.n_players, engine.n_sides, engine.layout.n_card_ids
        blocks = [("hand", (c,)), ("trick", (n, c))]
        if perfect_information:
            blocks.append(("all_hands", (n, c)))
        blocks += [("led_suit", (4,)), ("to_move", (n,)), ("tricks_won", (n,)), ("best_hands", (n,)), ("score", (s,))]
        blocks += [("target", (1,))]
        super().__init__(engine, perfect_information, blocks)
        self._bits = self.bit_count("tricks_won")

    def _write(self, state, games: np.ndarray, seats: np.ndarray, out: np.ndarray) -> int:
        n, hand_size, target = self.n_players, self.engine.hand_size, self.rules.target_score
        for i, (g, seat) in enumerate(zip(games, seats, strict=True)):
            if not (0 <= g < state.batch_size and 0 <= seat < n):
                return i
        out[:] = 0
        for i, (g, seat) in enumerate(zip(games, seats, strict=True)):
            row = {name: self.view(out[i], name) for name in self.slices}
            relative = [(seat + j) % n for j in range(n)]
            row["hand"][:] = _bits(int(state.hands[g, seat]), self.n_cards)
            for j, a in enumerate(relative):
                if state.trick[g, a] >= 0:
                    row["trick"][j, state.trick[g, a]] = 1
                if self.perfect_information:
                    row["all_hands"][j] = _bits(int(state.hands[g, a]), self.n_cards)
                row["tricks_won"][j] = state.tricks_won[g, a] / hand_size
                row["best_hands"][j] = state.best_hands[g, a] / max(1, state.hand_number[g])
            if state.led_suit[g] >= 0:
                row["led_suit"][state.led_suit[g]] = 1
            if state.phase[g] != OVER:
                row["to_move"][(state.to_move[g] - seat) % n] = 1
            sides = [self.engine.side_of_seat[a] for a in relative[: self.n_sides]]
            row["score"][:] = np.clip(state.scores[g, sides] / target, -SCORE_CLIP, SCORE_CLIP)
            row["target"][0] = target / 1000
        return -1


def _bits(mask: int, width: int) -> np.ndarray:
    """The bits of ``mask`` as a (width,) 0/1 array."""
    return np.array([(mask >> k) & 1 for k in range(width)], np.float32)
