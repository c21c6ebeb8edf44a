"""The frame of the invariant checker (``spades_env.engine.check.check_state``): the one way a broken invariant is
reported, shared by the engine's checks and each game's own (``games/*/invariants.py``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from spades_env.core import bits

if TYPE_CHECKING:
    from spades_env.engine.state import GameState

U64 = np.uint64


def require(ok: np.ndarray | bool, what: str) -> None:
    """Raise naming the first game where ``ok`` (B,) is False."""
    ok = np.asarray(ok)
    if ok.all():
        return
    if ok.ndim == 0:
        raise AssertionError(what)
    bad = np.flatnonzero(~ok)
    raise AssertionError(f"game {int(bad[0])}: {what} (games failing: {bad[:8].tolist()})")


def card_mask(card_ids: np.ndarray) -> np.ndarray:
    """uint64 masks of int card ids along the last axis, ignoring -1 entries."""
    safe = np.where(card_ids >= 0, card_ids, 0)
    return np.bitwise_or.reduce(np.where(card_ids >= 0, bits.BIT[safe], U64(0)), axis=-1)


def require_no_pile(state: GameState, where: str) -> None:
    """No draw pile, discards, seen cards or exchange: the two-player fields are unused ``where``."""
    for name in ("discards", "seen", "exchanged_out", "exchanged_in"):
        require(np.all(getattr(state, name) == 0, axis=1), f"{name} set in {where}")
    require((state.pile_pos == 0) & (state.shown == -1), f"a draw pile in {where}")
