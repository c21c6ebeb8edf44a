"""Spades' own fields of the game state [RULES 2-6] (see ``engine.state.GameState`` for each one's meaning):
the bidding and blind nil, the bags, the face-up cards, Bemo, the weak-hand redeals and the two-player draw
pile, discards and exchange: a Spades state has them after the core's (``core.state_fields.CORE_FIELDS``), no
other game's state has them. A Spades variant that does not use one checks it stays neutral in ``invariants.py``.
"""

from __future__ import annotations

import numpy as np

from spades_env.core.state_fields import StateField

_I, _U, _B = np.int64, np.uint64, np.bool_

#: Spades' fields (the registry entry's ``state_fields``).
FIELDS: tuple[StateField, ...] = (
    StateField("bids", _I, ("B", "N"), -1, "each seat's bid (0 = nil), -1 before the seat has bid", True),
    StateField("blind", _B, ("B", "N"), False, "the seat declared blind nil"),
    StateField("looked", _B, ("B", "N"), True, "the seat has seen its hand"),
    StateField("n_bids", _I, ("B",), 0, "bids made this hand"),
    StateField("bags", _I, ("B", "S"), 0, "accumulated bags of each side"),
    StateField("hand_start_bags", _I, ("B", "S"), 0, "bags before this hand"),
    StateField("face_up", _U, ("B", "N"), 0, "face_up_deal: the cards of each hand dealt face up"),
    StateField("bemo", _I, ("B", "S"), -1, "bemo: each side's declaration, -1 not yet decided"),
    StateField("n_redeals", _I, ("B",), 0, "misdeal_weak_hand: redeals in this hand"),
    StateField("pile", _I, ("B", "P"), -1, "two-player: the draw pile, top card first"),
    StateField("pile_pos", _I, ("B",), 0, "two-player: index in the pile of the next card to be shown"),
    StateField("shown", _I, ("B",), -1, "two-player: the card shown to the drawer, -1 otherwise"),
    StateField("discards", _U, ("B", "N"), 0, "two-player: cards each player discarded in the draw"),
    StateField("seen", _U, ("B", "N"), 0, "two-player: cards each player has seen off the pile or discards"),
    StateField("exchanged_out", _U, ("B", "N"), 0, "two-player: cards a blind-nil player gave up"),
    StateField("exchanged_in", _U, ("B", "N"), 0, "two-player: cards a blind-nil player drew in exchange", True),
)

#: Spades' own record arrays of a finished hand (``hand_score.RECORD``, in its order; ``"B"``: the hands finished in
#: a step): its ``FinishedHands`` fields after the core's.
RESULT_FIELDS: tuple[StateField, ...] = (
    StateField("bids", _I, ("B", "N"), 0, "bids (0 = nil)"),
    StateField("blind", _B, ("B", "N"), False, "blind nil declared"),
    StateField("start_bags", _I, ("B", "S"), 0, "bags before the hand"),
    StateField("bemo", _I, ("B", "S"), 0, "Bemo declared by each side (-1 without it)"),
    StateField("bags", _I, ("B", "S"), 0, "bags after the hand"),
    StateField("made", _B, ("B", "S"), False, "contract made"),
    StateField("bags_added", _I, ("B", "S"), 0, "bags the side took in the hand, before any penalty"),
    StateField("bag_penalties", _I, ("B", "S"), 0, "bag penalties applied in the hand"),
    StateField("boston", _B, ("B", "S"), False, "the side took every trick (a working output)"),
    StateField("pile", _I, ("B", "P"), 0, "two-player: the draw pile"),
    StateField("discards", _U, ("B", "N"), 0, "two-player: each player's discards"),
    StateField("exchanged_out", _U, ("B", "N"), 0, "two-player: cards given up in the blind-nil exchange"),
    StateField("exchanged_in", _U, ("B", "N"), 0, "two-player: cards drawn in the blind-nil exchange"),
    StateField("face_up", _U, ("B", "N"), 0, "face_up_deal: the cards dealt face up"),
)


class StateMixin:
    """What a Spades state computes from its fields (``engine.state_schema.state_class`` adds it)."""

    @property
    def nil_bid(self) -> np.ndarray:
        """(B,) bool: a seat of the game has bid nil (blind nil included) in the current hand."""
        return (self.bids == 0).any(axis=1)


class FinishedMixin:
    """What Spades' finished hands compute from their fields (``engine.state_schema.finished_class`` adds it); the
    nil results follow from ``bids`` and ``tricks_won``: computed when read, not in ``step``."""

    @property
    def nil_made(self) -> np.ndarray:
        """(G, N) bool: the seat bid nil or blind nil (``blind`` says which) and took no trick [RULES 3]."""
        return (self.bids == 0) & (self.tricks_won == 0)

    @property
    def nil_failed(self) -> np.ndarray:
        """(G, N) bool: the seat bid nil or blind nil and took a trick [RULES 3]."""
        return (self.bids == 0) & (self.tricks_won > 0)
