"""Endgame positions of every Spades preset and the values the recursive solver gave them, pinned.

``tests/golden/endgame_recursive_values.npz`` holds, per preset, the positions of its
``PINNED_CASES`` (drawn by ``tests.endgame_positions.endgame_states``; the ``SOLVER_FIELDS`` of
their ``GameState``), whether each is valued bag-adjusted, and the values the recursive solver (the
search before it became iterative: ``git show f89a744:agents/endgame.py``) gave them, written by
``pin_values`` with that solver. The positions are stored, not drawn again, so the pin does not move
if the sampler does. After a deliberate change of the solver's values, ``python -m tests.endgame_pinned``
pins the current solver's.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from agents.spades.endgame import solve_positions
from spades_env.engine import SpadesEngine
from spades_env.engine.state import GameState
from spades_env.rules import list_presets, resolve_rules
from tests.endgame_positions import endgame_states

PINNED = Path(__file__).parent / "golden" / "endgame_recursive_values.npz"

SPADES_PRESETS = tuple(p for p in list_presets() if resolve_rules(p).game != "hearts")
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


def pin_values(path: Path = PINNED, solve=solve_positions) -> None:
    """Write, per preset, the ``SOLVER_FIELDS`` of its ``PINNED_CASES`` positions, their ``adjust_bags``
    and ``solve``'s values of them (``solve_positions``'s signature) to ``path`` (.npz; keys ``preset/name``)."""
    arrays = {}
    for preset in SPADES_PRESETS:
        engine = SpadesEngine(resolve_rules(preset))
        parts = {name: [] for name in (*SOLVER_FIELDS, "adjust_bags", "values")}
        for _, tricks_left, count, seed, adjust_bags in (case for case in PINNED_CASES if case[0] == preset):
            state = endgame_states(engine, tricks_left, count, seed)
            for name in SOLVER_FIELDS:
                parts[name].append(getattr(state, name))
            parts["adjust_bags"].append(np.full(state.batch_size, adjust_bags))
            games = np.arange(state.batch_size)
            parts["values"].append(solve(engine, state, games, state.hands, adjust_bags))
        arrays.update({f"{preset}/{name}": np.concatenate(part) for name, part in parts.items()})
    np.savez_compressed(path, **arrays)


if __name__ == "__main__":
    pin_values()
