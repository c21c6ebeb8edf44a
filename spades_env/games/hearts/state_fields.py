"""Hearts' own fields of the game state [RULES 7] (see ``engine.state.GameState`` for each one's meaning): the
pass and the points taken. In every other game each stays at its neutral value (``engine.check`` checks it).
"""

from __future__ import annotations

import numpy as np

from spades_env.core.state_fields import StateField

#: Hearts' fields (the registry entry's ``state_fields``).
FIELDS: tuple[StateField, ...] = (
    StateField("passed", np.uint64, ("B", "N"), 0, "the cards each seat chose to pass this hand"),
    StateField("points_taken", np.int64, ("B", "N"), 0, "points in the tricks each seat has taken this hand"),
)

#: Hearts' own record arrays of a finished hand (``hand_score.RECORD``; ``"B"``: the hands finished in a step), each
#: zeros in another game's records.
RESULT_FIELDS: tuple[StateField, ...] = (
    StateField("bags", np.int64, ("B", "S"), 0, "bags after the hand (0: Hearts has none)"),
    StateField("taken", np.uint64, ("B", "N"), 0, "cards each seat took in its tricks"),
    StateField("points", np.int64, ("B", "N"), 0, "card points each seat took"),
    StateField("moon", np.bool_, ("B", "N"), False, "the seat shot the moon"),
    StateField("seat_delta", np.int64, ("B", "N"), 0, "points each seat scored in the hand"),
    StateField("passed", np.uint64, ("B", "N"), 0, "the cards each seat passed"),
    StateField("points_taken", np.int64, ("B", "N"), 0, "card points each seat took (before the moon)"),
)
