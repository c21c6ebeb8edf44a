"""Tricks' own field of the game state: each seat's best hands of the match (a Tricks state has it after the core's,
``core.state_fields.CORE_FIELDS``; no other game's state has it), and its record at each hand's end."""

from __future__ import annotations

import numpy as np

from spades_env.core.state_fields import StateField

#: Tricks' fields (the registry entry's ``state_fields``).
FIELDS: tuple[StateField, ...] = (
    StateField(
        "best_hands", np.int64, ("B", "N"), 0, "hands of the match so far in which the seat took the most tricks"
    ),
)

#: Tricks' own record arrays of a finished hand (``hand_score.RECORD``): its ``FinishedHands`` fields after the core's.
RESULT_FIELDS: tuple[StateField, ...] = (
    StateField("best_hands", np.int64, ("B", "N"), 0, "the seat's best hands of the match, this one included"),
)
