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
