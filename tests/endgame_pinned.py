"""Endgame positions of every Spades preset and the values the recursive solver gave them, pinned.

``tests/golden/endgame_recursive_values.npz`` holds, per preset, the positions of its
``PINNED_CASES`` (drawn by ``tests.endgame_positions.endgame_states``; the ``SOLVER_FIELDS`` of
their ``GameState``), whether each is valued bag-adjusted, and the values ``tests.endgame_recursive``
(the solver before its search became iterative) gave them; ``python -m tests.endgame_recursive``
writes it. The positions are stored, not drawn again, so the pin does not move if the sampler does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from spades_env.engine import SpadesEngine
from spades_env.engine.state import GameState
from spades_env.rules import list_presets, resolve_rules

PINNED = Path(__file__).parent / "golden" / "endgame_recursive_values.npz"

SPADES_PRESETS = tuple(p for p in list_presets() if not resolve_rules(p).hearts)
#: (preset, tricks left at most, positions, seed, adjust_bags): 2 to 4 tricks of every Spades
#: preset (partnership, two-player, cutthroat 3 to 6, jokers, nil and blind nil, Bemo, ...),
#: and the hand's own score (bag penalties at the limit) on a few.
PINNED_CASES = tuple(
    (preset, tricks, 8, 100 + 10 * i + tricks, True) for i, preset in enumerate(SPADES_PRESETS) for tricks in (2, 3, 4)
) + tuple((preset, 3, 8, 7, False) for preset in ("partnership", "two-player", "cutthroat-3", "cutthroat-4", "jokers"))

#: The ``GameState`` fields the solver reads (``solve_positions``); the others are stored as ``reset`` makes them.
SOLVER_FIELDS = (
    "hands", "trick", "n_in_trick", "led_suit", "to_move", "spades_broken", "tricks_won", "n_tricks",
    "trick_winners", "bids", "blind", "bags", "bemo",
)  # fmt: skip


def pinned_positions(pinned, preset: str) -> tuple[SpadesEngine, GameState, np.ndarray, np.ndarray]:
    """``preset``'s engine, positions, ``adjust_bags`` (R,) bool and pinned values (R, C) from the loaded .npz."""
    engine = SpadesEngine(resolve_rules(preset))
    values = pinned[f"{preset}/values"]
    state = engine.reset(np.arange(len(values)))
    for name in SOLVER_FIELDS:
        setattr(state, name, pinned[f"{preset}/{name}"])
    return engine, state, pinned[f"{preset}/adjust_bags"], values
