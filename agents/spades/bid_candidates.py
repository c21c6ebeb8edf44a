"""Spades' lookahead bidding candidates (``agents.game_parts.BotParts.bid_candidates``): which legal actions of a
bidding decision the lookahead bidder (``agents.search_bidding``) compares."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from spades_env.engine.core import SpadesEngine


def candidate_mask(engine: SpadesEngine, phase: np.ndarray, masks: np.ndarray, nil: bool = True) -> np.ndarray:
    """(D, A) bool: the actions the lookahead compares: legal bids in BID; blind nil and look in BLIND (not in
    two-player, where it comes before the draw). ``nil`` False leaves out nil (bid 0) and blind nil, so that only
    contract bids are compared (at BLIND then only look is left: one candidate, which the heuristic answers)."""
    lay = engine.layout
    out = np.zeros_like(masks)
    bid = phase == engine.spec.bid_phase
    first = lay.bid_offset if nil else lay.bid_offset + 1
    out[bid, first : lay.bid_end] = masks[bid, first : lay.bid_end]
    blind_nil, look = lay.special("blind_nil"), lay.special("look")
    if blind_nil is not None and not engine.rules.two_player:
        blind = phase == engine.spec.blind_phase
        if nil:
            out[blind, blind_nil] = masks[blind, blind_nil]
        out[blind, look] = masks[blind, look]
    return out
