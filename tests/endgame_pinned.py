"""Endgame positions of every Spades preset and the values the recursive solver gave them, pinned.

``tests/golden/endgame_recursive_values.npz`` holds, for each case of ``PINNED_CASES``, the
positions ``tests.endgame_positions.endgame_states`` drew (every ``GameState`` field) and the
values of ``tests.endgame_recursive`` (the solver before its search became iterative) on them;
``python -m tests.endgame_recursive`` writes it. The positions are stored, not drawn again, so
the pin does not move if the position sampler does.
"""

from __future__ import annotations

import dataclasses
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


def case_key(case: tuple) -> str:
    """A case's key prefix in the .npz: preset/tricks/positions/seed/adjust_bags."""
    return "/".join(str(part) for part in case)


def load_case(pinned, case: tuple) -> tuple[SpadesEngine, GameState, np.ndarray]:
    """The engine, the positions and the pinned values (R, C) of ``case`` from the loaded .npz ``pinned``."""
    key = case_key(case)
    state = GameState(**{f.name: pinned[f"{key}/{f.name}"] for f in dataclasses.fields(GameState)})
    return SpadesEngine(resolve_rules(case[0])), state, pinned[f"{key}/values"]
