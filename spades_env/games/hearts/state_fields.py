"""Hearts' own fields of the game state [RULES 7]: the pass (the points taken are the core's ``points_taken``,
which the core's card play counts from the card points of ``TrickTables``). A Hearts state has them after the
core's (``core.state_fields.CORE_FIELDS``), no other game's state has them.
"""

from __future__ import annotations

import numpy as np

from spades_env.core.state_fields import StateField

#: Hearts' fields (the registry entry's ``state_fields``).
FIELDS: tuple[StateField, ...] = (
    StateField("passed", np.uint64, ("B", "N"), 0, "the cards each seat chose to pass this hand", True),
)

#: Hearts' own record arrays of a finished hand (``hand_score.RECORD``; ``"B"``: the hands finished in a step): its
#: ``FinishedHands`` fields after the core's.
RESULT_FIELDS: tuple[StateField, ...] = (
    StateField("taken", np.uint64, ("B", "N"), 0, "cards each seat took in its tricks"),
    StateField("points", np.int64, ("B", "N"), 0, "card points each seat took"),
    StateField("moon", np.bool_, ("B", "N"), False, "the seat shot the moon"),
    StateField("seat_delta", np.int64, ("B", "N"), 0, "points each seat scored in the hand"),
    StateField("passed", np.uint64, ("B", "N"), 0, "the cards each seat passed"),
    StateField("points_taken", np.int64, ("B", "N"), 0, "card points each seat took (before the moon)"),
)
