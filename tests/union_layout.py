"""The state's arrays in the layout every game shared before each game owned its state (the union of every game's
fields, in its order), for the digests recorded then: a field the state's game lacks is its declared neutral value
(the two-player pile: width 0), as that engine held it."""

from __future__ import annotations

import dataclasses

import numpy as np

from spades_env import games
from spades_env.core.state_fields import CORE_FIELDS

#: The fields of the union layout, in its order.
UNION_FIELDS = (
    "hands", "deal", "phase", "to_move", "dealer", "leader", "trick", "n_in_trick", "led_suit", "n_tricks",
    "tricks_won", "trick_winners", "bids", "blind", "looked", "n_bids", "spades_broken", "voids", "scores", "bags",
    "hand_number", "winner", "key", "history", "hand_start_scores", "hand_start_bags", "face_up", "bemo", "n_redeals",
    "pile", "pile_pos", "shown", "discards", "seen", "exchanged_out", "exchanged_in", "passed", "points_taken",
)  # fmt: skip


def union_arrays(state) -> list[np.ndarray]:
    """``state``'s arrays in ``UNION_FIELDS`` order, the fields its game lacks at their declared neutral values."""
    declared = {f.name: f for f in (*CORE_FIELDS, *games.state_fields("spades"), *games.state_fields("hearts"))}
    own = {f.name for f in dataclasses.fields(state)}
    b, n = state.hands.shape
    sizes = {"B": b, "N": n, "S": state.scores.shape[1], "T": state.trick_winners.shape[1], "P": 0}
    if "pile" in own:
        sizes["P"] = state.pile.shape[1]
    return [getattr(state, name) if name in own else declared[name].empty(sizes) for name in UNION_FIELDS]


#: The record arrays of a finished hand in the union layout that a game may lack, as every other game's engine gave
#: them: (dtype, dimensions after the G hands, value); Hearts' bids and Bemo were its state's -1, the rest zeros.
UNION_RESULT_NEUTRAL = {
    "bids": (np.int64, "N", -1), "blind": (np.bool_, "N", False), "start_bags": (np.int64, "S", 0),
    "bemo": (np.int64, "S", -1), "bags": (np.int64, "S", 0), "made": (np.bool_, "S", False),
    "bags_added": (np.int64, "S", 0), "bag_penalties": (np.int64, "S", 0), "pile": (np.int64, "P", 0),
    "discards": (np.uint64, "N", 0), "exchanged_out": (np.uint64, "N", 0), "passed": (np.uint64, "N", 0),
    "points_taken": (np.int64, "N", 0),
    "nil_made": (np.bool_, "N", False), "nil_failed": (np.bool_, "N", False),
}  # fmt: skip


def union_finished(f, name: str) -> np.ndarray:
    """The record array ``name`` of the finished hands ``f`` in the union layout: ``f``'s own, or the value every
    game without it gave (``UNION_RESULT_NEUTRAL``)."""
    if name in {x.name for x in dataclasses.fields(f)} or name in ("nil_made", "nil_failed") and f.game == "spades":
        return getattr(f, name)
    dtype, dims, value = UNION_RESULT_NEUTRAL[name]
    g, n = f.deal.shape
    sizes = {"N": n, "S": f.scores.shape[1], "P": 0}
    return np.full((g, *(sizes[d] for d in dims)), value, dtype)
